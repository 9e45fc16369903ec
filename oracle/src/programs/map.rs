//! A regular file's bytes mapped from the page cache instead of copied out
//! of it: judging a large raw file then costs no `read` copies, and every
//! core can judge its part of the one slice. The crate's one `unsafe`.
//!
//! A mapped file that another process truncates under us would fault
//! (SIGBUS) where a read would have returned fewer bytes; one that is
//! rewritten in place shows its new bytes. Both are races no reader can
//! judge soundly; the mapping is only made of regular files, the file's
//! length and time of last change are checked again when the last chunk is
//! handed over (a change is an error naming the file), and
//! [`ENV_NO_MAP`] turns mapping off for whoever shares files with writers.

use std::fs::{File, Metadata};
use std::io;
use std::time::SystemTime;

/// Set (to anything but `0`) to read raw files with `read` only, never mapped.
pub const ENV_NO_MAP: &str = "TPB_NO_MMAP";

/// Files smaller than this are read: a mapping costs more than it saves.
pub(super) const MIN_MAPPED: u64 = 4 << 20;

/// A file mapped read-only, and what it was when mapped.
pub(super) struct Mapped {
    map: memmap2::Mmap,
    len: u64,
    modified: Option<SystemTime>,
}

impl Mapped {
    /// Maps `file` (a regular file of `meta.len()` bytes), or `None` when
    /// mapping is off ([`ENV_NO_MAP`]), the file is small, or the system
    /// refuses (then the caller reads it as before).
    pub(super) fn of(file: &File, meta: &Metadata) -> Option<Mapped> {
        if !meta.is_file() || meta.len() < MIN_MAPPED || std::env::var_os(ENV_NO_MAP).is_some_and(|v| v != "0") {
            return None;
        }
        // SAFETY: the mapping is read-only and private to this process, and
        // only read through the `&[u8]` `bytes` lends. Another process that
        // changes the file changes what is read (detected by `changed`); one
        // that truncates it makes a later read fault (see the module's note),
        // which no reader of a file shared with a writer can rule out.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(file) }.ok()?;
        // The file is read front to back once: read ahead, drop behind.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        let len = u64::try_from(map.len()).ok()?;
        (len == meta.len()).then_some(Mapped { map, len, modified: meta.modified().ok() })
    }

    pub(super) fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Whether `file` is no longer the file that was mapped: another length
    /// or another time of last change.
    pub(super) fn changed(&self, file: &File) -> io::Result<bool> {
        let meta = file.metadata()?;
        Ok(meta.len() != self.len || meta.modified().ok() != self.modified)
    }
}
