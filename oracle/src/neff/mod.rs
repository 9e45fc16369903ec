//! NEFF containers: the files the Neuron compiler emits. A 1024-byte header
//! ([`header`]), a payload digest ([`integrity`]), then a tar archive
//! ([`payload`]) holding JSON metadata and, per subgraph, one flat stream of
//! 64-byte bundles per engine ([`stream`]). [`conform`] runs every real bundle
//! through the codec, the text format and the validator.
//!
//! The spec never looked at a compiled container (its gap G1): the layout
//! facts here were measured on real compiler output and carry that provenance.

pub mod build;
pub mod conform;
pub mod error;
pub mod header;
pub mod integrity;
pub mod meta;
pub mod payload;
pub mod stream;
pub mod summary;

pub use error::{At, NeffError};
pub use header::{NeffHeader, HEADER_BYTES};
pub use integrity::Integrity;
pub use meta::{Graph, Kelf};
pub use payload::{Compression, Limits, Member, MAX_FILE};
pub use stream::{Engine, EngineStream};

use std::path::Path;
use tpb_isa::Generation;

/// One parsed container.
#[derive(Clone, Debug)]
pub struct Neff {
    /// The name errors and reports use (the path as given).
    pub name: String,
    pub file_len: u64,
    pub header: NeffHeader,
    pub integrity: Integrity,
    pub compression: Compression,
    /// Every archive entry, in archive order.
    pub members: Vec<Member>,
    /// `info.json`, when present.
    pub info: Option<serde_json::Value>,
    /// `info.json` `tool_version`: the compiler that wrote the file.
    pub tool_version: Option<String>,
    /// `kelf-0.json`, when present.
    pub kelf: Option<Kelf>,
    /// The engine streams, by subgraph then engine order.
    pub streams: Vec<EngineStream>,
    /// File bytes after the payload.
    pub trailing_file_bytes: u64,
    /// Compressed payload bytes after the end of the gzip stream.
    pub trailing_payload_bytes: usize,
    /// Things worth a look that do not stop the read.
    pub notes: Vec<String>,
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

    pub fn bundles(&self) -> usize {
        self.streams.iter().map(EngineStream::len).sum()
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
    let name = path.display().to_string();
    let bytes = read_capped(path, limits.max_file).map_err(|e| {
        let at = if e.kind() == std::io::ErrorKind::FileTooLarge { limits.max_file } else { 0 };
        NeffError::new(&name, "file", At::File(at), format!("cannot read: {e}"))
    })?;
    parse_with(&bytes, &name, limits)
}

/// Reads at most `cap` bytes of `path` (any file: regular, pipe or device);
/// more is an error of kind `FileTooLarge` naming the cap. Never holds more
/// than `cap + 1` bytes.
pub fn read_capped(path: &Path, cap: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let too_large = |what: String| std::io::Error::new(std::io::ErrorKind::FileTooLarge, what);
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len > cap {
        return Err(too_large(format!("{len} bytes is over the cap of {cap} bytes")));
    }
    // Grow by hand, never past `cap + 1` (read_to_end could double to twice that).
    let limit = usize::try_from(cap.saturating_add(1)).unwrap_or(usize::MAX);
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0).saturating_add(1).min(limit));
    let mut reader = file.take(limit as u64);
    loop {
        if bytes.len() == bytes.capacity() {
            bytes.reserve_exact(bytes.capacity().max(64 << 10).min(limit - bytes.len()));
        }
        let n = reader.by_ref().take((bytes.capacity() - bytes.len()) as u64).read_to_end(&mut bytes)?;
        if n == 0 || bytes.len() >= limit {
            break;
        }
    }
    if bytes.len() as u64 > cap {
        return Err(too_large(format!("more than the cap of {cap} bytes")));
    }
    Ok(bytes)
}

/// Parses container bytes with the default caps; `name` labels errors.
pub fn parse(bytes: &[u8], name: &str) -> Result<Neff, NeffError> {
    parse_with(bytes, name, &Limits::default())
}

/// Parses container bytes under explicit caps.
pub fn parse_with(bytes: &[u8], name: &str, limits: &Limits) -> Result<Neff, NeffError> {
    let err = |member: &str, at: At, msg: String| NeffError::new(name, member, at, msg);
    let file_len = bytes.len() as u64;
    if file_len > limits.max_file {
        return Err(err("file", At::File(0), format!("{file_len} bytes is over the cap of {} bytes", limits.max_file)));
    }
    let header = NeffHeader::read(bytes)
        .ok_or_else(|| err("header", At::File(file_len), format!("file is {file_len} bytes, shorter than the {HEADER_BYTES}-byte header")))?;
    let off = |field: &str| NeffHeader::LAYOUT.field_offset(field).unwrap_or(0) as u64;
    let header_size = header.header_size.get();
    if header_size < HEADER_BYTES as u64 || header_size > file_len {
        return Err(err(
            "header",
            At::File(off("header_size")),
            format!("header_size {header_size:#x} is outside {HEADER_BYTES:#x}..={file_len:#x} (the file)"),
        ));
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

    let un = payload::unpack(name, payload, header_size, limits, &keep)?;
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

    let mut info = None;
    let mut tool_version = None;
    let mut kelf = None;
    let mut streams = Vec::new();
    for (member, bytes) in un.kept {
        if member == meta::INFO {
            let v = meta::json(name, &member, &bytes)?;
            tool_version = v.get("tool_version").and_then(|t| t.as_str()).map(str::to_string);
            info = Some(v);
        } else if member == meta::KELF {
            kelf = Some(meta::kelf(name, &member, &bytes)?);
        } else if let Some((subgraph, engine)) = stream::engine_member(&member) {
            stream::check_length(name, &member, &bytes)?;
            if streams.iter().any(|s: &EngineStream| s.member == member) {
                return Err(err(&member, At::Member(0), "duplicate engine stream in the archive".to_string()));
            }
            streams.push(EngineStream { subgraph, engine, member, bytes, generation: None });
        }
    }
    if info.is_none() {
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
    streams.sort_by(|a, b| a.subgraph.cmp(&b.subgraph).then(a.engine.cmp(&b.engine)));
    if let Some(k) = &kelf {
        for g in &k.graphs {
            if !streams.iter().any(|s| s.subgraph == g.name) {
                notes.push(format!("kelf graph `{}` has no engine streams", g.name));
            }
        }
        let mut orphans: Vec<&str> = streams.iter().map(|s| s.subgraph.as_str()).filter(|sg| !k.graphs.iter().any(|g| g.name == *sg)).collect();
        orphans.dedup();
        for sg in orphans {
            notes.push(format!("subgraph `{sg}` has streams but is not a kelf graph"));
        }
    }

    Ok(Neff {
        name: name.to_string(),
        file_len,
        header,
        integrity,
        compression: un.compression,
        members: un.members,
        info,
        tool_version,
        kelf,
        streams,
        trailing_file_bytes,
        trailing_payload_bytes: un.trailing,
        notes,
    })
}

/// The members whose bytes the reader keeps: metadata and engine streams.
fn keep(member: &str) -> bool {
    member == meta::INFO || member == meta::KELF || stream::engine_member(member).is_some()
}

/// Whether `bytes` look like a NEFF container header: a known pkg_version,
/// a plausible header_size, and a gzip or tar payload where it says.
/// A raw bundle stream never matches (its byte 1 is 0x10, so word 0 is ≥ 0x1000).
pub fn sniff(bytes: &[u8]) -> bool {
    let Some(h) = NeffHeader::read(bytes) else { return false };
    let hs = h.header_size.get();
    integrity::Algorithm::for_version(h.pkg_version.get()).is_some()
        && hs >= HEADER_BYTES as u64
        && usize::try_from(hs).ok().and_then(|hs| bytes.get(hs..)).is_some_and(|p| payload::sniff(p).is_some())
}

/// Arbitrary bytes through the container reader and everything downstream;
/// never panics, and the fuzz caps keep memory small.
pub fn fuzz_neff(data: &[u8]) {
    let _ = sniff(data);
    if let Ok(n) = parse_with(data, "fuzz", &Limits::FUZZ) {
        let _ = summary::text(&n);
        let _ = summary::json(&n);
        let c = conform::conform(&n, None);
        let _ = c.to_markdown();
        let _ = c.to_json();
    }
}
