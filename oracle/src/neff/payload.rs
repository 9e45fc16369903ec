//! The payload: a tar archive, gzip-compressed in every real file. Read in
//! memory with caps on the decompressed total, on each kept member and on the
//! member count, so a header or tar entry that claims 2^60 bytes costs nothing:
//! sizes are checked before reading and buffers only grow with bytes that
//! actually arrive.

use super::error::{At, NeffError};
use crate::programs::Reader;
use serde::Serialize;
use std::collections::HashMap;
use std::io::{self, Read};

/// Gzip's two magic bytes (RFC 1952).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// POSIX ustar magic inside a tar header block.
pub(crate) const USTAR_MAGIC: &[u8; 5] = b"ustar";
/// Offset of [`USTAR_MAGIC`] in a tar header block.
pub(crate) const USTAR_MAGIC_AT: usize = 257;

/// Resource caps for reading one container.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// Largest file `read_file` will read.
    pub max_file: u64,
    /// Largest decompressed payload.
    pub max_total: u64,
    /// Largest member whose bytes are kept (engine streams and JSON).
    pub max_member: u64,
    /// Largest metadata member (`info.json`, `kelf-0.json`, graph definitions) parsed; see [`MAX_METADATA`](super::meta::MAX_METADATA).
    pub max_metadata: u64,
    /// Most tar entries.
    pub max_members: usize,
}

/// Default cap on a file read whole (a container or a raw bundle stream).
pub const MAX_FILE: u64 = 4 << 30;

impl Default for Limits {
    fn default() -> Self {
        Limits { max_file: MAX_FILE, max_total: 4 << 30, max_member: 1 << 30, max_metadata: super::meta::MAX_METADATA, max_members: 1_000_000 }
    }
}

impl Limits {
    /// Small caps for fuzzing: arbitrary input stays cheap.
    pub const FUZZ: Limits = Limits { max_file: 1 << 20, max_total: 8 << 20, max_member: 4 << 20, max_metadata: 64 << 10, max_members: 4096 };
}

/// How the payload is packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// A gzip-compressed tar (every real file).
    Gzip,
    /// A bare tar.
    None,
}

impl Compression {
    /// Its name for people (`gzip tar`, `bare tar`).
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
    /// The size its header states, in bytes.
    pub size: u64,
    /// `file`, `dir`, `symlink`, … or the raw type byte.
    pub kind: String,
    /// Offset of the entry's header block in the decompressed tar.
    pub tar_offset: u64,
}

/// A member whose bytes the caller keeps, and the most it may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keep {
    /// The most bytes it may hold: a larger member is refused, not cut.
    pub cap: u64,
    /// What the cap is for, when it is not the general member cap (` for metadata members`).
    pub cap_for: &'static str,
}

/// The listing plus the bytes of the members the caller asked to keep.
pub struct Unpacked {
    /// How the payload was packed.
    pub compression: Compression,
    /// Every tar entry, in archive order.
    pub members: Vec<Member>,
    /// Kept members, in archive order.
    pub kept: Vec<(String, Vec<u8>)>,
    /// Decompressed bytes: the whole tar stream, end-of-archive blocks and anything after them included.
    pub tar_bytes: u64,
    /// Compressed payload bytes after the end of the (first and only) gzip member; 0 for a bare tar.
    pub trailing: usize,
    /// Of those, the non-zero ones.
    pub trailing_nonzero: usize,
    /// How the archive ended, and what follows its end in the tar stream.
    pub end: ArchiveEnd,
}

/// GNU tar (and every real compiler's payload) pads the gzip stream with zeros
/// to a whole 10240-byte record (20 blocks of 512); such padding is expected.
pub const RECORD_BYTES: usize = 10240;

/// How the tar archive ended. POSIX ends an archive with two all-zero 512-byte
/// blocks; a reader (this one, GNU tar) stops at the first, so whatever comes
/// after is never listed: it is counted here instead.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ArchiveEnd {
    /// All-zero end-of-archive blocks found: 2 in every real file; 1; or 0 when
    /// the stream simply ended after the last member.
    pub zero_blocks: u8,
    /// Tar offset just past the end-of-archive blocks (where `trailing` starts).
    pub at: u64,
    /// Bytes after the end-of-archive blocks (0 in every real file; zero
    /// padding to a whole 10240-byte record from GNU tar or Python's tarfile).
    pub trailing: u64,
    /// Of those, the non-zero ones, and the tar offset of the first.
    pub trailing_nonzero: u64,
    /// Tar offset of the first non-zero byte after the end-of-archive blocks, if any.
    pub first_nonzero: Option<u64>,
    /// The member name in the block holding the first non-zero byte, when
    /// that block reads as a tar header: a member a reader that stops at
    /// the end-of-archive blocks never sees.
    pub hidden_member: Option<String>,
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
///
/// A gzip payload must hold exactly one gzip member: another one after it
/// (right after, or after zero padding) is an error, since a reader that
/// stops at the first would silently ignore a whole second archive. Other
/// bytes after the gzip member, and anything after the tar's end-of-archive
/// blocks, are counted in the result for the caller to report.
pub fn unpack(file: &str, payload: &[u8], base: u64, limits: &Limits, keep: &dyn Fn(&str) -> Option<Keep>) -> Result<Unpacked, NeffError> {
    let err = |at, msg: String| NeffError::new(file, "payload", at, msg);
    match sniff(payload) {
        Some(Compression::Gzip) => {
            let mut rest = payload;
            let mut gz = flate2::bufread::GzDecoder::new(&mut rest);
            let (mut u, stopped) = read_tar(file, &mut gz, limits, keep)?;
            // The tar reader stops at the first end-of-archive block; read the
            // rest of the gzip member so its CRC and length trailer are checked
            // and whatever it holds after the archive is counted.
            let cap = limits.max_total.saturating_sub(u.tar_bytes);
            let tally = after_archive(&mut gz, stopped, cap).map_err(|e| err(At::Tar(u.tar_bytes), format!("gzip stream after the archive: {e}")))?;
            drop(gz);
            u.tar_bytes += tally.seen;
            u.end = tally.end;
            u.compression = Compression::Gzip;
            u.trailing = rest.len();
            u.trailing_nonzero = rest.iter().filter(|b| **b != 0).count();
            let member_end = payload.len() - rest.len();
            let zeros = rest.iter().take_while(|b| **b == 0).count();
            if rest[zeros..].starts_with(&GZIP_MAGIC) {
                let at = member_end + zeros;
                let after = if zeros > 0 { format!(" after {zeros} zero bytes") } else { String::new() };
                return Err(err(
                    At::File(base + at as u64),
                    format!(
                        "a second gzip member at payload offset {at:#x}{after}: only the first ({member_end} bytes) is read, so the payload is refused rather than read in part"
                    ),
                ));
            }
            Ok(u)
        }
        Some(Compression::None) => {
            let (mut u, stopped) = read_tar(file, payload, limits, keep)?;
            let rest = payload.get(usize::try_from(u.tar_bytes).unwrap_or(usize::MAX)..).unwrap_or(&[]);
            let tally = after_archive(rest, stopped, u64::MAX).map_err(|e| err(At::Tar(u.tar_bytes), format!("after the archive: {e}")))?;
            u.tar_bytes += tally.seen;
            u.end = tally.end;
            u.compression = Compression::None;
            Ok(u)
        }
        None => {
            let head: Vec<String> = payload.iter().take(4).map(|b| format!("{b:02x}")).collect();
            Err(err(At::File(base), neither_gzip_nor_tar(&head.join(" "))))
        }
    }
}

/// The message for a payload that is neither packing (`head`: its first bytes in hex).
pub fn neither_gzip_nor_tar(head: &str) -> String {
    format!("payload is neither gzip (1f 8b) nor tar (ustar at +257); starts with [{head}]")
}

/// Where the tar reader stopped: its tar offset, and whether it stopped on an
/// all-zero block (else the stream ended after the last member).
#[derive(Clone, Copy, Debug)]
struct Stopped {
    at: u64,
    on_zero_block: bool,
}

/// The end of the archive, from what follows the point the tar reader stopped.
struct Tally {
    seen: u64,
    end: ArchiveEnd,
}

/// Reads what is left of the tar stream (at most `cap` bytes) and describes the archive's end.
fn after_archive(r: impl Read, stopped: Stopped, cap: u64) -> io::Result<Tally> {
    let mut sink = EndSink { start: stopped.at, seen: 0, head_zero: true, first_nonzero: None, block: Vec::new(), nonzero: 0 };
    let mut r = Reader::new(r, cap);
    let n = io::copy(&mut r, &mut sink).map_err(|e| if r.over() { io::Error::other("decompressed payload exceeds the cap") } else { e })?;
    let mut end = ArchiveEnd { at: stopped.at, ..ArchiveEnd::default() };
    if stopped.on_zero_block {
        end.zero_blocks = 1;
        if n >= BLOCK && sink.head_zero {
            end.zero_blocks = 2;
            end.at += BLOCK;
        }
    }
    end.trailing = stopped.at + n - end.at;
    end.trailing_nonzero = sink.nonzero;
    end.first_nonzero = sink.first_nonzero;
    end.hidden_member = tar_header_name(&sink.block);
    Ok(Tally { seen: n, end })
}

const BLOCK: u64 = 512;

/// Counts what follows the first end-of-archive block: whether the next 512
/// bytes are zero (the second block), the non-zero bytes, and the 512-byte
/// block that holds the first of them.
struct EndSink {
    /// Tar offset of the first byte written.
    start: u64,
    seen: u64,
    head_zero: bool,
    first_nonzero: Option<u64>,
    block: Vec<u8>,
    nonzero: u64,
}

impl io::Write for EndSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for (i, b) in buf.iter().enumerate() {
            let pos = self.seen + i as u64;
            if *b != 0 {
                self.nonzero += 1;
                if pos < BLOCK {
                    self.head_zero = false;
                }
                if self.first_nonzero.is_none() {
                    let at = self.start + pos;
                    self.first_nonzero = Some(at);
                    // Everything before it in its block is zero.
                    self.block = vec![0; (at % BLOCK) as usize];
                }
            }
            if self.first_nonzero.is_some() && (self.block.len() as u64) < BLOCK {
                self.block.push(*b);
            }
        }
        self.seen += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The member name of a 512-byte block that reads as a tar header (checksum
/// and ustar/GNU magic both right), else `None`.
fn tar_header_name(block: &[u8]) -> Option<String> {
    let block: &[u8; 512] = block.try_into().ok()?;
    let field = |r: std::ops::Range<usize>| {
        let b = &block[r];
        let end = b.iter().position(|c| *c == 0).unwrap_or(b.len());
        &b[..end]
    };
    if block[USTAR_MAGIC_AT..USTAR_MAGIC_AT + USTAR_MAGIC.len()] != USTAR_MAGIC[..] {
        return None;
    }
    let stored = std::str::from_utf8(field(148..156)).ok()?.trim_matches(|c: char| c == ' ' || c == '\0');
    let stored = u64::from_str_radix(stored, 8).ok()?;
    let sum: u64 = block.iter().enumerate().map(|(i, b)| if (148..156).contains(&i) { 32 } else { u64::from(*b) }).sum();
    if sum != stored {
        return None;
    }
    let (prefix, name) = (field(345..500), field(0..100));
    let full = if prefix.is_empty() || block[263..265] == *b" \0" { name.to_vec() } else { [prefix, b"/", name].concat() };
    Some(clean_name(&full))
}

/// Why listing the archive stopped: a read that failed (in `member`), or a refusal.
enum Stop {
    Read { member: String, error: io::Error },
    Refused(NeffError),
}

fn read_tar<R: Read>(file: &str, inner: R, limits: &Limits, keep: &dyn Fn(&str) -> Option<Keep>) -> Result<(Unpacked, Stopped), NeffError> {
    let mut archive = tar::Archive::new(Reader::new(inner, limits.max_total));
    let listed = list(file, &mut archive, limits, keep);
    // What was read, and whether the cap stopped it, is known once the archive lets go.
    let r = archive.into_inner();
    let Listing { members, kept, last_end } = match listed {
        Ok(l) => l,
        Err(Stop::Refused(e)) => return Err(e),
        // Explains a reader error: the cap, or a corrupt/truncated stream.
        Err(Stop::Read { member, error }) => {
            let at = At::Tar(r.taken());
            return Err(if r.over() {
                NeffError::new(file, &member, at, format!("decompressed payload exceeds the cap of {} bytes", limits.max_total))
            } else {
                NeffError::new(file, &member, at, format!("corrupt or truncated archive: {error}"))
            });
        }
    };
    // The reader returns no entry either at the end of the stream or on an
    // all-zero block, which it has read: past the last entry means the latter.
    let at = r.taken();
    let stopped = Stopped { at, on_zero_block: at > last_end };
    let u = Unpacked { compression: Compression::None, members, kept, tar_bytes: at, trailing: 0, trailing_nonzero: 0, end: ArchiveEnd::default() };
    Ok((u, stopped))
}

/// The archive as [`list`] read it.
struct Listing {
    members: Vec<Member>,
    kept: Vec<(String, Vec<u8>)>,
    /// Tar offset just past the last entry's padded data.
    last_end: u64,
}

/// Every entry of the archive, and the bytes of those `keep` selects.
fn list<R: Read>(file: &str, archive: &mut tar::Archive<R>, limits: &Limits, keep: &dyn Fn(&str) -> Option<Keep>) -> Result<Listing, Stop> {
    let mut members = Vec::new();
    let mut kept = Vec::new();
    // Where each name was first seen: a name twice is refused (a reader that
    // keeps the last would silently switch, say, the target).
    let mut seen: HashMap<String, u64> = HashMap::new();
    // Tar offset just past the last entry's padded data.
    let mut last_end = 0u64;
    let entries = archive.entries().map_err(failed("payload"))?;
    for entry in entries {
        let mut entry = entry.map_err(|error| Stop::Read { member: after(&members), error })?;
        let name = clean_name(&entry.path_bytes());
        let header_at = entry.raw_header_position();
        let refuse = |message: String, at: u64| Stop::Refused(NeffError::new(file, &name, At::Tar(at), message));
        if members.len() >= limits.max_members {
            return Err(refuse(format!("more than {} archive members", limits.max_members), header_at));
        }
        if let Some(first) = seen.insert(name.clone(), header_at) {
            return Err(refuse(
                format!("member name appears twice in the archive, at tar offsets {first:#x} and {header_at:#x}: which one is meant is ambiguous"),
                header_at,
            ));
        }
        let ty = entry.header().entry_type();
        let size = entry.size();
        let kind = kind_name(ty);
        let data_at = entry.raw_file_position();
        last_end = data_at.saturating_add(size.div_ceil(BLOCK).saturating_mul(BLOCK));
        if let Some(k) = keep(&name).filter(|_| ty.is_file()) {
            if size > k.cap {
                return Err(refuse(format!("member claims {size} bytes, over the cap of {} bytes{}", k.cap, k.cap_for), header_at));
            }
            let mut bytes = Vec::new();
            (&mut entry).take(size).read_to_end(&mut bytes).map_err(failed(&name))?;
            if (bytes.len() as u64) < size {
                return Err(refuse(format!("member truncated: {} of {size} bytes present", bytes.len()), data_at + bytes.len() as u64));
            }
            kept.push((name.clone(), bytes));
        }
        members.push(Member { name, size, kind, tar_offset: header_at });
    }
    Ok(Listing { members, kept, last_end })
}

/// A read that failed in `member`.
fn failed(member: &str) -> impl FnOnce(io::Error) -> Stop + '_ {
    move |error| Stop::Read { member: member.to_string(), error }
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
