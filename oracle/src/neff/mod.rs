//! NEFF containers: the files the Neuron compiler emits. A 1024-byte header
//! ([`header`]), a payload digest ([`integrity`]), then a tar archive
//! ([`payload`]) holding JSON metadata and, per subgraph, one flat stream of
//! 64-byte bundles per engine ([`stream`]), found through the graph
//! definitions the metadata names ([`locate`]). [`crate::conform`] runs every real
//! bundle through the codec, the text format and the validator; [`choice`]
//! says which generation a container is judged under; [`pack`] takes a
//! container apart and puts it back together, and [`shrink`] reduces one
//! while a predicate holds.
//!
//! The spec never looked at a compiled container (its gap G1): the layout
//! facts here were measured on real compiler output and carry that provenance.

pub mod build;
pub mod choice;
pub mod definition;
pub mod error;
pub mod header;
pub mod integrity;
pub mod locate;
pub mod meta;
pub mod pack;
mod passes;
pub mod payload;
pub mod shrink;
pub mod stream;
pub mod summary;

pub use choice::{Choice, Fit, GenerationFrom};
pub use error::{At, NeffError};
pub use header::{NeffHeader, HEADER_BYTES};
pub use integrity::Integrity;
pub use meta::{Graph, Info, Kelf, MAX_METADATA};
pub use payload::{ArchiveEnd, Compression, Limits, Member, MAX_FILE};
pub use stream::{Engine, EngineStream};

use std::collections::HashMap;
use std::path::Path;
use tpb_isa::Generation;

/// One parsed container.
#[derive(Clone, Debug)]
pub struct Neff {
    /// The name errors and reports use (the path as given).
    pub name: String,
    /// The file's length in bytes.
    pub file_len: u64,
    /// The 1024-byte header.
    pub header: NeffHeader,
    /// What the payload digest check found.
    pub integrity: Integrity,
    /// How the payload is packed.
    pub compression: Compression,
    /// Every archive entry, in archive order.
    pub members: Vec<Member>,
    /// `info.json` `tool_version`: the compiler that wrote the file (`None`
    /// without `info.json`, or when it has no `tool_version` string).
    pub tool_version: Option<String>,
    /// `kelf-0.json`, when present.
    pub kelf: Option<Kelf>,
    /// The engine streams, by subgraph then engine order.
    pub streams: Vec<EngineStream>,
    /// File bytes after the payload.
    pub trailing_file_bytes: u64,
    /// Compressed payload bytes after the end of the gzip stream (zero
    /// padding to a 10240-byte record in every real file; 0 for a bare tar).
    pub trailing_payload_bytes: usize,
    /// Bytes of the tar stream after its end-of-archive blocks, which no
    /// member listing covers (0 in every real file).
    pub trailing_tar_bytes: u64,
    /// How the tar archive ended.
    pub archive_end: ArchiveEnd,
    /// Things worth a look that do not stop the read.
    pub notes: Vec<String>,
    /// How the engine streams were looked for, step by step (bounded): what
    /// [`Neff::unread`] says when none gave a bundle.
    pub looked_for: Vec<String>,
}

impl Neff {
    /// Target name from `kelf-0.json` (`cayman`, `sunda`, …).
    pub fn target(&self) -> Option<&str> {
        self.kelf.as_ref().map(|k| k.target.as_str()).filter(|t| !t.is_empty())
    }

    /// The generation the target implies, if the target is known.
    pub fn generation(&self) -> Option<Generation> {
        self.target().and_then(Generation::from_target)
    }

    /// Subgraph names with streams, in order.
    pub fn subgraphs(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.streams.iter().map(|s| s.subgraph.as_str()).collect();
        v.dedup();
        v
    }

    /// Bundles in all its engine streams.
    pub fn bundles(&self) -> usize {
        self.streams.iter().map(EngineStream::len).sum()
    }

    /// The generation its bundles are judged under: `arch` when given, else
    /// its target's, else the one they fit best ([`choice`]).
    pub fn choose(&self, arch: Option<Generation>) -> Choice {
        let streams: Vec<&[u8]> = self.streams.iter().map(|s| s.bytes.as_slice()).collect();
        choice::for_container(self.target(), arch, &streams)
    }

    /// The error for a container from which no bundle is read (no stream
    /// found, or only empty ones): a program that cannot be judged must
    /// never pass as one judged clean. It names what was looked for and the
    /// `.bin` members the archive holds. `None` when a bundle was read.
    pub fn unread(&self) -> Option<NeffError> {
        if self.bundles() > 0 {
            return None;
        }
        let found = if self.streams.is_empty() {
            "found no engine stream".to_string()
        } else {
            let names: Vec<&str> = self.streams.iter().take(locate::MAX_LISTED).map(|s| s.member.as_str()).collect();
            let more = self.streams.len().saturating_sub(locate::MAX_LISTED);
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            format!("found {} engine streams, all empty ({}{more})", self.streams.len(), names.join(", "))
        };
        let bins: Vec<&str> = self.members.iter().filter(|m| m.name.ends_with(".bin")).map(|m| m.name.as_str()).collect();
        let present = match bins.len() {
            0 => format!("the archive holds no .bin member ({} members)", self.members.len()),
            n => {
                let more = if n > locate::MAX_LISTED { format!(" and {} more", n - locate::MAX_LISTED) } else { String::new() };
                format!("the archive's .bin members: {}{more}", bins[..n.min(locate::MAX_LISTED)].join(", "))
            }
        };
        let at = At::File(self.header.header_size.get());
        Some(NeffError::new(&self.name, "payload", at, format!("no bundle read: looked for {}; {found}; {present}", self.looked_for.join("; "))))
    }
}

/// Reads and parses a .neff file with the default caps.
pub fn read_file(path: &Path) -> Result<Neff, NeffError> {
    read_file_with(path, &Limits::default())
}

/// Reads and parses a .neff file; a file over `max_file` is refused, before
/// reading when its length says so, else as soon as the excess arrives (pipes
/// and devices report length 0).
pub fn read_file_with(path: &Path, limits: &Limits) -> Result<Neff, NeffError> {
    let bytes = read_container(path, limits.max_file)?;
    parse_with(&bytes, &path.display().to_string(), limits)
}

/// A container file's bytes, at most `max_file` of them, read through the
/// one capped reader ([`crate::programs::read_file`]), its error as a
/// [`NeffError`] (over the cap: placed at the cap, the first byte not read).
pub fn read_container(path: &Path, max_file: u64) -> Result<Vec<u8>, NeffError> {
    crate::programs::read_file(path, max_file).map_err(|e| {
        // A file that cannot be opened or read is said as every command says it: `FILE: cannot read: …`.
        let at = e.offset().map_or(At::Whole, At::File);
        NeffError::new(&path.display().to_string(), "file", at, format!("cannot read: {e}"))
    })
}

/// Parses container bytes with the default caps; `name` labels errors.
pub fn parse(bytes: &[u8], name: &str) -> Result<Neff, NeffError> {
    parse_with(bytes, name, &Limits::default())
}

/// Parses container bytes under explicit caps.
///
/// An error on bytes whose header does not read as a NEFF ([`sniff`])
/// starts `not a NEFF container:` with the reason; an error after a payload
/// digest mismatch starts `payload digest mismatch (…); then:`, since a
/// corrupted payload is the likely cause.
pub fn parse_with(bytes: &[u8], name: &str, limits: &Limits) -> Result<Neff, NeffError> {
    let file_len = bytes.len() as u64;
    if file_len > limits.max_file {
        return Err(NeffError::new(name, "file", At::File(0), format!("{file_len} bytes is over the cap of {} bytes", limits.max_file)));
    }
    parse_container(bytes, name, limits).map_err(|mut e| {
        if let Some(why) = not_neff(bytes) {
            e.message =
                if e.message == why { format!("not a NEFF container: {why}") } else { format!("not a NEFF container: {why}; then: {}", e.message) };
        }
        e
    })
}

fn parse_container(bytes: &[u8], name: &str, limits: &Limits) -> Result<Neff, NeffError> {
    let err = |member: &str, at: At, msg: String| NeffError::new(name, member, at, msg);
    let file_len = bytes.len() as u64;
    let header = NeffHeader::read(bytes).ok_or_else(|| err("header", At::File(file_len), too_short(file_len)))?;
    let off = |field: &str| NeffHeader::LAYOUT.field_offset(field).unwrap_or(0) as u64;
    let header_size = header.header_size.get();
    if header_size < HEADER_BYTES as u64 || header_size > file_len {
        return Err(err("header", At::File(off("header_size")), bad_header_size(header_size, file_len)));
    }
    let data_size = header.data_size.get();
    let end = header_size.checked_add(data_size).filter(|e| *e <= file_len).ok_or_else(|| {
        err(
            "header",
            At::File(off("data_size")),
            format!("data_size {data_size} runs past the end of the file (payload at {header_size:#x}, file {file_len} bytes)"),
        )
    })?;
    // Both bounds were checked against the file length, so they fit usize.
    let payload = bytes.get(header_size as usize..end as usize).unwrap_or(&[]);
    let mut notes = Vec::new();
    if header_size != HEADER_BYTES as u64 {
        notes.push(format!("header_size is {header_size:#x}, not {HEADER_BYTES:#x} as in every file seen"));
    }
    let nz = header.reserved_nonzero();
    if !nz.is_empty() {
        notes.push(format!("{} non-zero byte(s) in reserved header ranges, first at {:#x}", nz.len(), nz[0]));
    }

    let integrity = integrity::check(&header, payload);
    if integrity.algorithm.is_none() {
        notes.push(format!("pkg_version {} names no known digest; payload integrity not checked", header.pkg_version.get()));
    }
    if integrity.tail_nonzero {
        notes.push("hash field has non-zero bytes past the digest".to_string());
    }
    // From here on a failure of a payload that also failed its digest says so
    // first (for bytes that are no NEFF at all, parse_with says that instead).
    let after_digest = |mut e: NeffError| {
        if let (Some(alg), None) = (integrity.algorithm, integrity.matched) {
            if sniff(bytes) {
                let (stored, computed) = (&integrity.stored, &integrity.computed);
                e.message = format!("payload digest mismatch ({} stored {stored}, computed {computed}); then: {}", alg.as_str(), e.message);
            }
        }
        e
    };

    let un = payload::unpack(name, payload, header_size, limits, &|m| keep(m, limits)).map_err(after_digest)?;
    let expected = match header.pkg_version.get() {
        integrity::PKG_VERSION_SHA256 => Some(Compression::None),
        integrity::PKG_VERSION_MD5 => Some(Compression::Gzip),
        _ => None,
    };
    if expected.is_some_and(|c| c != un.compression) {
        notes.push(format!("pkg_version {} payload is a {}, not the expected packing", header.pkg_version.get(), un.compression.as_str()));
    }
    let trailing_file_bytes = file_len - end;
    if trailing_file_bytes > 0 {
        notes.push(format!("{trailing_file_bytes} bytes after the payload (file offset {end:#x})"));
    }
    if let Some(note) = gzip_padding_note(payload.len(), un.trailing, un.trailing_nonzero, header_size) {
        notes.push(note);
    }
    notes.extend(archive_end_notes(&un.end));

    let mut kept: HashMap<String, Vec<u8>> = un.kept.into_iter().collect();
    let info = kept.remove(meta::INFO).map(|b| meta::info(name, meta::INFO, &b)).transpose().map_err(after_digest)?;
    let kelf = kept.remove(meta::KELF).map(|b| meta::kelf(name, meta::KELF, &b)).transpose().map_err(after_digest)?;
    let has_info = info.is_some();
    let tool_version = info.and_then(|i| i.tool_version);
    let members = un.members;
    let again = passes::Payload { name, bytes: payload, header_size, limits };
    let read = passes::streams(&again, kept, kelf.as_ref(), &members, &after_digest)?;
    let mut streams = read.streams;
    notes.extend(read.notes);
    if !has_info {
        notes.push(format!("no {}: compiler version unknown", meta::INFO));
    }
    if kelf.is_none() {
        notes.push(format!("no {}: target unknown", meta::KELF));
    }
    let generation = kelf.as_ref().and_then(|k| Generation::from_target(&k.target));
    if let (Some(k), None) = (&kelf, generation) {
        notes.push(format!("target `{}` maps to no known generation", k.target));
    }
    for s in &mut streams {
        s.generation = generation;
    }
    // Stable: a key's list of members keeps its order.
    streams.sort_by(|a, b| a.subgraph.cmp(&b.subgraph).then(a.engine.cmp(&b.engine)));
    if let Some(k) = &kelf {
        notes.extend(graph_notes(k, &streams));
    }

    Ok(Neff {
        name: name.to_string(),
        file_len,
        header,
        integrity,
        compression: un.compression,
        members,
        tool_version,
        kelf,
        streams,
        trailing_file_bytes,
        trailing_payload_bytes: un.trailing,
        trailing_tar_bytes: un.end.trailing,
        archive_end: un.end,
        notes,
        looked_for: read.looked_for,
    })
}

/// Notes naming at most this many subgraphs each; the rest are counted.
const MAX_NAMED_GRAPHS: usize = 16;

/// Kelf graphs without streams and stream subgraphs no kelf graph names
/// (hash lookups and a bounded list, so a huge graph list stays cheap).
fn graph_notes(k: &Kelf, streams: &[EngineStream]) -> Vec<String> {
    use std::collections::BTreeSet;
    let with_streams: BTreeSet<&str> = streams.iter().map(|s| s.subgraph.as_str()).collect();
    let graphs: BTreeSet<&str> = k.graphs.iter().map(|g| g.name.as_str()).collect();
    let mut notes = Vec::new();
    let mut listed = |names: Vec<&str>, what: &dyn Fn(&str) -> String| {
        for n in names.iter().take(MAX_NAMED_GRAPHS) {
            notes.push(what(n));
        }
        if names.len() > MAX_NAMED_GRAPHS {
            notes.push(format!("… and {} more like the above", names.len() - MAX_NAMED_GRAPHS));
        }
    };
    let mut seen = BTreeSet::new();
    let empty: Vec<&str> = k.graphs.iter().map(|g| g.name.as_str()).filter(|g| !with_streams.contains(g) && seen.insert(*g)).collect();
    listed(empty, &|g| format!("kelf graph `{g}` has no engine streams"));
    let orphans: Vec<&str> = with_streams.iter().copied().filter(|sg| !graphs.contains(sg)).collect();
    listed(orphans, &|sg| format!("subgraph `{sg}` has streams but is not a kelf graph"));
    notes
}

/// A note on the bytes after the gzip member, unless they are the zero
/// padding to a whole 10240-byte record that every real file carries.
fn gzip_padding_note(payload_len: usize, trailing: usize, nonzero: usize, base: u64) -> Option<String> {
    if trailing == 0 {
        return None;
    }
    let at = payload_len - trailing;
    if nonzero == 0 && trailing < payload::RECORD_BYTES && payload_len.is_multiple_of(payload::RECORD_BYTES) {
        return None;
    }
    let what = if nonzero == 0 { "all zero".to_string() } else { format!("{nonzero} of them non-zero") };
    Some(format!(
        "{trailing} bytes after the gzip stream (payload offset {at:#x}, file offset {:#x}), {what}: not the zero padding to a {}-byte record real compilers write; ignored",
        base + at as u64,
        payload::RECORD_BYTES
    ))
}

/// Notes on how the archive ended: bytes after its end-of-archive blocks
/// (other than zero padding to a whole record), or missing blocks.
fn archive_end_notes(end: &ArchiveEnd) -> Vec<String> {
    let mut notes = Vec::new();
    match end.zero_blocks {
        0 => notes.push(format!(
            "the archive has no end-of-archive blocks: the tar stream ends at tar offset {:#x}, right after the last member (truncated?)",
            end.at
        )),
        1 if end.trailing == 0 => notes.push(format!("the archive ends with one end-of-archive block at tar offset {:#x}, not two", end.at - 512)),
        _ => {}
    }
    // Zeros up to a whole 10240-byte record are standard tar blocking (GNU tar
    // and Python's tarfile write them; real compilers' archives end right
    // after the two blocks): counted, not noted.
    let record_padding = end.first_nonzero.is_none()
        && end.trailing < payload::RECORD_BYTES as u64
        && (end.at + end.trailing).is_multiple_of(payload::RECORD_BYTES as u64);
    if end.trailing > 0 && !record_padding {
        let what = match end.first_nonzero {
            None => "all zero".to_string(),
            Some(first) => format!("{} of them non-zero, the first at tar offset {first:#x}", end.trailing_nonzero),
        };
        let hidden =
            end.hidden_member.as_ref().map_or_else(String::new, |m| format!("; it holds a tar header for member `{m}`, which is not listed or read"));
        notes.push(format!("{} bytes after the tar's end-of-archive blocks (tar offset {:#x}), {what}{hidden}", end.trailing, end.at));
    }
    notes
}

/// The members whose bytes the first pass keeps, each with its cap: metadata
/// (`info.json`, `kelf-0.json`) under the metadata cap; definitions and
/// engine streams under the names compilers so far write, under the member
/// cap (what the kelf and definitions name otherwise is read in later passes).
fn keep(member: &str, limits: &Limits) -> Option<payload::Keep> {
    if member == meta::INFO || member == meta::KELF {
        Some(payload::Keep { cap: limits.max_metadata.min(limits.max_member), cap_for: " for metadata members" })
    } else if locate::likely(member) {
        Some(payload::Keep { cap: limits.max_member, cap_for: "" })
    } else {
        None
    }
}

fn too_short(file_len: u64) -> String {
    format!("file is {file_len} bytes, shorter than the {HEADER_BYTES}-byte header")
}

fn bad_header_size(header_size: u64, file_len: u64) -> String {
    format!("header_size {header_size:#x} is outside {HEADER_BYTES:#x}..={file_len:#x} (the file)")
}

/// Why `bytes` do not read as a NEFF container header, or `None` when they
/// do: too short, a pkg_version naming no known packing, a header_size
/// outside the file, or no gzip or tar payload where it says.
pub fn not_neff(bytes: &[u8]) -> Option<String> {
    let file_len = bytes.len() as u64;
    let Some(h) = NeffHeader::read(bytes) else { return Some(too_short(file_len)) };
    let pkg = h.pkg_version.get();
    if integrity::Algorithm::for_version(pkg).is_none() {
        return Some(format!(
            "pkg_version {pkg} ({pkg:#x}) is neither {} (gzip tar, MD5) nor {} (tar, SHA-256)",
            integrity::PKG_VERSION_MD5,
            integrity::PKG_VERSION_SHA256
        ));
    }
    let hs = h.header_size.get();
    if hs < HEADER_BYTES as u64 || hs > file_len {
        return Some(bad_header_size(hs, file_len));
    }
    let payload = bytes.get(usize::try_from(hs).ok()?..).unwrap_or(&[]);
    if payload::sniff(payload).is_none() {
        let head: Vec<String> = payload.iter().take(4).map(|b| format!("{b:02x}")).collect();
        return Some(payload::neither_gzip_nor_tar(&head.join(" ")));
    }
    None
}

/// Whether `bytes` look like a NEFF container header: a known pkg_version,
/// a plausible header_size, and a gzip or tar payload where it says.
/// A raw bundle stream never matches (its byte 1 is 0x10, so word 0 is ≥ 0x1000).
pub fn sniff(bytes: &[u8]) -> bool {
    not_neff(bytes).is_none()
}

#[cfg(test)]
mod tests {
    use super::gzip_padding_note;

    #[test]
    fn only_zero_padding_short_of_a_record_to_a_record_boundary_goes_unnoted() {
        // 30 bytes of gzip, then zeros up to 10240: the padding every real file carries.
        assert_eq!(gzip_padding_note(10240, 10210, 0, 0), None);
        assert_eq!(gzip_padding_note(20480, 10239, 0, 0), None);
        assert_eq!(gzip_padding_note(20480, 0, 0, 0), None);
        let noted = |len, trailing, nonzero| gzip_padding_note(len, trailing, nonzero, 0x400).unwrap_or_default();
        // A whole record of zeros is more than padding; so are zeros short of a boundary.
        assert!(noted(20480, 10240, 0).starts_with("10240 bytes after the gzip stream (payload offset 0x2800, file offset 0x2c00), all zero: "));
        assert!(noted(10000, 100, 0).starts_with("100 bytes after the gzip stream (payload offset 0x26ac, file offset 0x2aac), all zero: "));
        assert!(noted(10240, 100, 3).contains("3 of them non-zero: not the zero padding to a 10240-byte record"));
    }
}
