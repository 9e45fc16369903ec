//! What can go wrong reading programs, and what is worth a warning. Each
//! error names the file (and the offset, or the container's member, where
//! there is one); its `Display` is the one line `tpb` prints after
//! `tpb: error: `, and the Python API raises, with names escaped so an input
//! can never forge a line.

use super::shown;
use crate::neff::{Integrity, NeffError};
use crate::text_safe::escape;
use std::io;
use std::path::PathBuf;
use tpb_isa::bundle::BUNDLE_BYTES;

/// A program that could not be read, or a folder that gave none.
#[derive(Debug, thiserror::Error)]
pub enum ProgramError {
    /// The file could not be opened or read.
    #[error("{}: cannot read: {source}", shown(file))]
    Unreadable {
        /// The file, as given.
        file: PathBuf,
        /// Why it could not be opened or read.
        source: io::Error,
    },
    /// A raw file failed part way, after the bundles before `offset`.
    #[error("{}: offset {offset:#x}: cannot read: {source}", shown(file))]
    ReadFailed {
        /// The file, as given.
        file: PathBuf,
        /// File offset of the first byte not read.
        offset: u64,
        /// Why the read failed.
        source: io::Error,
    },
    /// The file says it is `len` bytes, over the cap: refused before it is read.
    #[error("{}: offset {cap:#x}: {len} bytes is over the cap of {cap} bytes", shown(file))]
    TooLong {
        /// The file, as given.
        file: PathBuf,
        /// The length its metadata states, in bytes.
        len: u64,
        /// The most bytes a program may have (`--max-bytes`).
        cap: u64,
    },
    /// The byte past the cap arrived (a pipe, a device); `bundles`: how many
    /// whole bundles of a raw stream were handed over before it.
    #[error("{}: offset {cap:#x}: more than the cap of {cap} bytes{}", shown(file), after(*bundles))]
    PastCap {
        /// The file, as given.
        file: PathBuf,
        /// The most bytes a program may have (`--max-bytes`).
        cap: u64,
        /// Whole bundles handed over before the cap (`None` for a container, read whole first).
        bundles: Option<u64>,
    },
    /// The file holds no byte.
    #[error("{}: offset 0x0: empty file, expected N x 64-byte bundles", shown(file))]
    Empty {
        /// The file, as given.
        file: PathBuf,
    },
    /// Text in the `tpb disasm` format, not bundles.
    #[error("{}: offset 0x0: looks like bundle text: assemble it first with tpb asm FILE -o OUT", shown(file))]
    Text {
        /// The file, as given.
        file: PathBuf,
    },
    /// Printable text that is not in the `tpb disasm` format (a README, a log): no bundle line.
    #[error("{}: offset 0x0: plain text, not a program (neither a NEFF, raw 64-byte bundles, nor bundle text as tpb disasm writes it)", shown(file))]
    Prose {
        /// The file, as given.
        file: PathBuf,
    },
    /// A mapped raw file whose length or time of last change moved while it was judged.
    #[error("{}: changed while it was read (its length or modification time moved); judge a copy, or set {}=1", shown(file), super::ENV_NO_MAP)]
    Changed {
        /// The file, as given.
        file: PathBuf,
    },
    /// A raw file of `len` bytes, not a whole number of bundles.
    #[error("{}: {}", shown(file), partial(*len))]
    Partial {
        /// The file, as given.
        file: PathBuf,
        /// Its length in bytes.
        len: u64,
    },
    /// Neither reading holds: not whole bundles (`len` bytes), and not a NEFF (`why`).
    #[error("{}: neither raw bundles nor a NEFF: {}; not a NEFF: {}", shown(file), partial(*len), escape(why))]
    Neither {
        /// The file, as given.
        file: PathBuf,
        /// Its length in bytes.
        len: u64,
        /// What the container reader said (as read: escaped when shown).
        why: String,
    },
    /// A container that is malformed, or from which no bundle is read.
    #[error(transparent)]
    Neff(#[from] NeffError),
    /// A folder (the one given, or one under it) could not be listed.
    #[error("{}: cannot read folder: {source}", shown(dir))]
    Folder {
        /// The folder.
        dir: PathBuf,
        /// Why it could not be listed.
        source: io::Error,
    },
    /// An entry of a folder whose kind could not be told.
    #[error("{}: {source}", shown(path))]
    Entry {
        /// The entry's path.
        path: PathBuf,
        /// Why its kind could not be told.
        source: io::Error,
    },
    /// A folder given that holds no `*.neff` file, however deep.
    #[error("{}: no *.neff file in this folder (searched with its subfolders)", shown(dir))]
    NoPrograms {
        /// The folder, as given.
        dir: PathBuf,
    },
}

/// Something about a container worth saying that does not stop the read.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Warning {
    /// The payload's digest does not match (an unknown digest is one of the notes).
    #[error("{}: payload integrity: {}", shown(file), integrity.describe())]
    Integrity {
        /// The container, as given.
        file: PathBuf,
        /// What the digest check found.
        integrity: Integrity,
    },
    /// One of the container's notes ([`crate::neff::Neff::notes`]).
    #[error("{}: {}", shown(file), escape(note))]
    Note {
        /// The container, as given.
        file: PathBuf,
        /// The note, as the reader wrote it (escaped when shown).
        note: String,
    },
}

/// The words of [`tpb_isa::bundle::PartialBundle`], for a length a file says (a `u64`).
fn partial(len: u64) -> String {
    let offset = len - len % BUNDLE_BYTES as u64;
    format!("trailing partial bundle at offset {offset:#x}: {len} bytes is not a multiple of 64")
}

fn after(bundles: Option<u64>) -> String {
    bundles.map_or_else(String::new, |n| format!(" (after {n} bundles; see --max-bytes)"))
}
