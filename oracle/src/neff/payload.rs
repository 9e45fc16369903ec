//! The payload: a tar archive, gzip-compressed in every real file. Read in
//! memory with caps on the decompressed total, on each kept member and on the
//! member count, so a header or tar entry that claims 2^60 bytes costs nothing:
//! sizes are checked before reading and buffers only grow with bytes that
//! actually arrive.

use super::error::{At, NeffError};
use serde::Serialize;
use std::cell::Cell;
use std::io::{self, Read};
use std::rc::Rc;

/// Gzip's two magic bytes (RFC 1952).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// POSIX ustar magic and its offset inside a tar header block.
pub const USTAR_MAGIC: &[u8; 5] = b"ustar";
pub const USTAR_MAGIC_AT: usize = 257;

/// Resource caps for reading one container.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// Largest file `read_file` will read.
    pub max_file: u64,
    /// Largest decompressed payload.
    pub max_total: u64,
    /// Largest member whose bytes are kept (engine streams and JSON).
    pub max_member: u64,
    /// Most tar entries.
    pub max_members: usize,
}

/// Default cap on a file read whole (a container or a raw bundle stream).
pub const MAX_FILE: u64 = 4 << 30;

impl Default for Limits {
    fn default() -> Self {
        Limits { max_file: MAX_FILE, max_total: 4 << 30, max_member: 1 << 30, max_members: 1_000_000 }
    }
}

impl Limits {
    /// Small caps for fuzzing: arbitrary input stays cheap.
    pub const FUZZ: Limits = Limits { max_file: 1 << 20, max_total: 8 << 20, max_member: 4 << 20, max_members: 4096 };
}

/// How the payload is packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    Gzip,
    /// A bare tar.
    None,
}

impl Compression {
    pub const fn as_str(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip tar",
            Compression::None => "bare tar",
        }
    }
}

/// One tar entry as listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Member {
    /// Path inside the archive, without a leading `./`.
    pub name: String,
    pub size: u64,
    /// `file`, `dir`, `symlink`, … or the raw type byte.
    pub kind: String,
    /// Offset of the entry's header block in the decompressed tar.
    pub tar_offset: u64,
}

/// The listing plus the bytes of the members the caller asked to keep.
pub struct Unpacked {
    pub compression: Compression,
    pub members: Vec<Member>,
    /// Kept members, in archive order.
    pub kept: Vec<(String, Vec<u8>)>,
    /// Decompressed bytes read.
    pub tar_bytes: u64,
    /// Compressed bytes after the end of the gzip stream.
    pub trailing: usize,
}

/// Counts bytes read and refuses to go past the cap.
struct Capped<R> {
    inner: R,
    read: Rc<Cell<u64>>,
    cap: u64,
    hit: Rc<Cell<bool>>,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let used = self.read.get();
        let left = self.cap.saturating_sub(used);
        if left == 0 {
            // Only a refusal if the stream really has more to give.
            let mut probe = [0u8; 1];
            if self.inner.read(&mut probe)? == 0 {
                return Ok(0);
            }
            self.hit.set(true);
            return Err(io::Error::other("decompressed payload exceeds the cap"));
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.read.set(used + n as u64);
        Ok(n)
    }
}

/// Which compression the payload's first bytes announce.
pub fn sniff(payload: &[u8]) -> Option<Compression> {
    if payload.starts_with(&GZIP_MAGIC) {
        Some(Compression::Gzip)
    } else if payload.get(USTAR_MAGIC_AT..USTAR_MAGIC_AT + USTAR_MAGIC.len()) == Some(USTAR_MAGIC) {
        Some(Compression::None)
    } else {
        None
    }
}

/// Lists the archive in `payload` (at file offset `base`) and keeps the members `keep` selects.
pub fn unpack(file: &str, payload: &[u8], base: u64, limits: &Limits, keep: &dyn Fn(&str) -> bool) -> Result<Unpacked, NeffError> {
    let err = |at, msg: String| NeffError::new(file, "payload", at, msg);
    match sniff(payload) {
        Some(Compression::Gzip) => {
            let mut rest = payload;
            let mut gz = flate2::bufread::GzDecoder::new(&mut rest);
            let mut u = read_tar(file, &mut gz, limits, keep)?;
            // The tar reader stops at the end-of-archive blocks; finish the gzip
            // stream so its CRC and length trailer are checked too.
            drain(&mut gz, limits.max_total.saturating_sub(u.tar_bytes))
                .map_err(|e| err(At::Tar(u.tar_bytes), format!("gzip stream after the archive: {e}")))?;
            drop(gz);
            u.compression = Compression::Gzip;
            u.trailing = rest.len();
            Ok(u)
        }
        Some(Compression::None) => {
            let mut u = read_tar(file, payload, limits, keep)?;
            u.compression = Compression::None;
            u.trailing = payload.len().saturating_sub(usize::try_from(u.tar_bytes).unwrap_or(usize::MAX));
            Ok(u)
        }
        None => {
            let head: Vec<String> = payload.iter().take(4).map(|b| format!("{b:02x}")).collect();
            Err(err(At::File(base), format!("payload is neither gzip (1f 8b) nor tar (ustar at +257); starts with [{}]", head.join(" "))))
        }
    }
}

/// Reads what is left of a stream, up to `cap` bytes.
fn drain(r: &mut impl Read, cap: u64) -> io::Result<()> {
    let n = io::copy(&mut r.take(cap.saturating_add(1)), &mut io::sink())?;
    if n > cap {
        return Err(io::Error::other("decompressed payload exceeds the cap"));
    }
    Ok(())
}

fn read_tar<R: Read>(file: &str, inner: R, limits: &Limits, keep: &dyn Fn(&str) -> bool) -> Result<Unpacked, NeffError> {
    let read = Rc::new(Cell::new(0u64));
    let hit = Rc::new(Cell::new(false));
    let capped = Capped { inner, read: Rc::clone(&read), cap: limits.max_total, hit: Rc::clone(&hit) };
    let mut archive = tar::Archive::new(capped);
    // Explains a reader error: the cap, or a corrupt/truncated stream.
    let explain = |member: &str, e: io::Error| {
        let at = At::Tar(read.get());
        if hit.get() {
            NeffError::new(file, member, at, format!("decompressed payload exceeds the cap of {} bytes", limits.max_total))
        } else {
            NeffError::new(file, member, at, format!("corrupt or truncated archive: {e}"))
        }
    };
    let mut members = Vec::new();
    let mut kept = Vec::new();
    let entries = archive.entries().map_err(|e| explain("payload", e))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| explain(&after(&members), e))?;
        let name = clean_name(&entry.path_bytes());
        let header_at = entry.raw_header_position();
        if members.len() >= limits.max_members {
            return Err(NeffError::new(file, &name, At::Tar(header_at), format!("more than {} archive members", limits.max_members)));
        }
        let ty = entry.header().entry_type();
        let size = entry.size();
        let kind = kind_name(ty);
        if ty.is_file() && keep(&name) {
            if size > limits.max_member {
                return Err(NeffError::new(
                    file,
                    &name,
                    At::Tar(header_at),
                    format!("member claims {size} bytes, over the cap of {} bytes", limits.max_member),
                ));
            }
            let data_at = entry.raw_file_position();
            let mut bytes = Vec::new();
            (&mut entry).take(size).read_to_end(&mut bytes).map_err(|e| explain(&name, e))?;
            if (bytes.len() as u64) < size {
                return Err(NeffError::new(
                    file,
                    &name,
                    At::Tar(data_at + bytes.len() as u64),
                    format!("member truncated: {} of {size} bytes present", bytes.len()),
                ));
            }
            kept.push((name.clone(), bytes));
        }
        members.push(Member { name, size, kind, tar_offset: header_at });
    }
    Ok(Unpacked { compression: Compression::None, members, kept, tar_bytes: read.get(), trailing: 0 })
}

/// Names the member after the last listed one (where a reader error struck).
fn after(members: &[Member]) -> String {
    members.last().map_or_else(|| "payload".to_string(), |m| format!("after {}", m.name))
}

fn clean_name(raw: &[u8]) -> String {
    let s = String::from_utf8_lossy(raw);
    let mut s: &str = &s;
    while let Some(t) = s.strip_prefix("./") {
        s = t;
    }
    s.to_string()
}

fn kind_name(t: tar::EntryType) -> String {
    match t {
        _ if t.is_file() => "file".into(),
        _ if t.is_dir() => "dir".into(),
        _ if t.is_symlink() => "symlink".into(),
        _ if t.is_hard_link() => "hardlink".into(),
        _ => format!("type {:#04x}", t.as_byte()),
    }
}
