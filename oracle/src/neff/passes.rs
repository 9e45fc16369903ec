//! The passes over the archive that read what the kelf and the definitions
//! name. The first pass (in `parse_container`) keeps the metadata and what
//! every compiler so far writes: definitions as `def.json`, streams as
//! `sgNN/{PE,…}.bin`, so a real file is read in one pass. A definition or a
//! stream named otherwise is read in a further pass over the (decompressed
//! again) payload, at most two more, each under the same caps. Members kept
//! but not needed are dropped before the last pass, so what is held at once
//! stays within the decompressed-payload cap.

use super::definition;
use super::error::{At, NeffError};
use super::locate;
use super::meta::Kelf;
use super::payload::{self, Limits, Member};
use super::stream::{self, EngineStream};
use std::collections::{HashMap, HashSet};

/// The engine streams read, and how they were found.
pub struct Read {
    pub streams: Vec<EngineStream>,
    pub notes: Vec<String>,
    pub looked_for: Vec<String>,
}

/// The payload to pass over again: the container's name, the payload bytes,
/// their file offset and the caps.
pub struct Payload<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
    pub header_size: u64,
    pub limits: &'a Limits,
}

/// Reads the streams of a container: `kept` what the first pass kept (by
/// member name), `members` its listing; `after_digest` dresses an error
/// as the caller dresses every error after the digest check.
pub fn streams(
    p: &Payload,
    mut kept: HashMap<String, Vec<u8>>,
    kelf: Option<&Kelf>,
    members: &[Member],
    after_digest: &dyn Fn(NeffError) -> NeffError,
) -> Result<Read, NeffError> {
    let (name, limits) = (p.name, p.limits);
    let file_members: HashMap<&str, &Member> = members.iter().filter(|m| m.kind == "file").map(|m| (m.name.as_str(), m)).collect();
    let listed = |p: &str| file_members.contains_key(p);
    let again = |names: &HashSet<&str>, cap: payload::Keep| {
        payload::unpack(name, p.bytes, p.header_size, limits, &|m| names.contains(m).then_some(cap)).map(|u| u.kept).map_err(after_digest)
    };

    // The definitions the kelf names; one not kept yet (not called def.json) is read in a second pass.
    let def_names: Vec<&str> = kelf.map(|k| locate::definitions(k, &listed)).unwrap_or_default();
    let metadata_cap = limits.max_metadata.min(limits.max_member);
    let missing: HashSet<&str> = def_names.iter().copied().filter(|d| !kept.contains_key(*d)).collect();
    if !missing.is_empty() {
        kept.extend(again(&missing, payload::Keep { cap: metadata_cap, cap_for: " for metadata members" })?);
    }
    let mut defs = HashMap::new();
    for d in def_names {
        let bytes = kept.remove(d).unwrap_or_default();
        // The first pass kept def.json under the member cap: a definition is metadata.
        if bytes.len() as u64 > metadata_cap {
            let at = file_members.get(d).map_or(0, |m| m.tar_offset);
            let why = format!("member claims {} bytes, over the cap of {metadata_cap} bytes for metadata members", bytes.len());
            return Err(after_digest(NeffError::new(name, d, At::Tar(at), why)));
        }
        defs.insert(d.to_string(), definition::parse(name, d, &bytes).map_err(after_digest)?);
    }
    let found = locate::locate(name, kelf, members, &defs).map_err(after_digest)?;

    // Streams not kept yet (named otherwise than compilers so far name them): one more pass.
    let needed: HashSet<&str> = found.streams.iter().map(|s| s.member.as_str()).collect();
    kept.retain(|m, _| needed.contains(m.as_str()));
    let missing: HashSet<&str> = needed.iter().copied().filter(|m| !kept.contains_key(*m)).collect();
    if !missing.is_empty() {
        kept.extend(again(&missing, payload::Keep { cap: limits.max_member, cap_for: "" })?);
    }
    let mut streams = Vec::with_capacity(found.streams.len());
    for s in found.streams {
        let bytes = kept.remove(&s.member).unwrap_or_default();
        stream::check_length(name, &s.member, &bytes).map_err(after_digest)?;
        streams.push(EngineStream { subgraph: s.subgraph, engine: s.engine, member: s.member, bytes, generation: None });
    }
    Ok(Read { streams, notes: found.notes, looked_for: found.looked_for })
}
