//! A container taken apart into files and put back together.
//!
//! [`unpack_to`] writes every tar member of a NEFF as a file under a fresh
//! folder, each engine stream also as text beside it (`sgNN/PE.tpb`, one
//! [`tpb_isa::text::disasm`] line per bundle), and a [`Manifest`]
//! (`manifest.json`) holding everything else: the header bytes, the digest
//! form, the member order and each member's tar metadata, extension headers
//! included. [`pack_from`] reads such a folder back and [`build`] writes the
//! container: member bytes as given, the tar rebuilt from the metadata (so
//! members sit at the original tar offsets), the payload packed as it was
//! (gzip header fields and record padding kept), and the header's
//! `data_size` and payload digest recomputed in the form the input used.
//!
//! [`explode`] is the same reading in memory, for tools that change bundles
//! and pack them back without a folder (`tpb neff mutate`, and
//! [`super::shrink`], which also drops members).
//!
//! Member names are untrusted. Unpacking refuses a name with an absolute
//! path, an empty, `.` or `..` component before anything is written; links,
//! devices, folders and other non-file entries are recorded in the manifest
//! only, never created; the folder must be absent or empty, parents are
//! created one by one (a component that is not a real folder is refused) and
//! files are opened with `create_new`, so no link is ever followed.
//!
//! Its files are the container's parts: `manifest.rs` (what the member files
//! do not hold), `tar.rs` (the archive's header blocks, read and rebuilt),
//! `gzip.rs` (the payload's packing) and `folder.rs` (the unpacked folder on
//! disk); reading a container and writing one back are here.

use self::tar::{block, build_tar, end_follows, extensions, is_file_type, meta_of, BLOCK};
use super::error::{At, NeffError};
use super::header::{hex, NeffHeader, HEADER_BYTES};
use super::integrity::{self, Algorithm};
use super::payload::{Compression, Limits, RECORD_BYTES};
use super::Neff;
use crate::text_safe::escape;
use gzip::{gunzip, gzip};
use sha2::{Digest as _, Sha256};
use std::borrow::Cow;
use std::fmt;

mod folder;
mod gzip;
mod manifest;
mod tar;

pub use folder::{pack_from, stream_text, text_path, unpack_to, Changed, Packed, Unpacked};
pub use manifest::{DigestForm, Entry, Extension, Format, Gzip, Manifest, Meta, Packing, Tail, FORMAT, MANIFEST, MAX_INLINE, MAX_MANIFEST, VERSION};

/// What went wrong, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackError {
    /// The input container does not read (or a member path is unsafe).
    Neff(NeffError),
    /// A file, folder or manifest field (`place`) and what is wrong with it.
    At {
        /// The path (`dir/sg00/PE.tpb`) or manifest field (`manifest.json: member sg00/PE.bin`).
        place: String,
        /// What is wrong there (escaped when shown: it may quote the input).
        message: String,
    },
}

impl PackError {
    fn at(place: impl fmt::Display, message: impl fmt::Display) -> PackError {
        PackError::At { place: place.to_string(), message: message.to_string() }
    }
}

impl From<NeffError> for PackError {
    fn from(e: NeffError) -> Self {
        PackError::Neff(e)
    }
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackError::Neff(e) => e.fmt(f),
            // One line whatever the input: places and messages may quote it.
            PackError::At { place, message } => write!(f, "{}: {}", escape(place), escape(message)),
        }
    }
}

impl std::error::Error for PackError {}

/// A container read into a manifest and member bytes.
#[derive(Clone, Debug)]
pub struct Exploded {
    /// The container as the reader parsed it.
    pub neff: Neff,
    /// Everything of it the member bytes do not hold.
    pub manifest: Manifest,
    /// Per member, in manifest order: its bytes (a non-file member's body, often empty).
    pub data: Vec<Vec<u8>>,
}

/// Reads a container (under `limits`) into a manifest and member bytes; no
/// member is refused for its name here ([`unpack_to`] refuses unsafe ones).
pub fn explode(bytes: &[u8], name: &str, limits: &Limits) -> Result<Exploded, NeffError> {
    let neff = super::parse_with(bytes, name, limits)?;
    let err = |member: &str, at: At, msg: String| NeffError::new(name, member, at, msg);
    // parse_with checked both bounds against the file.
    let header_size = neff.header.header_size.get() as usize;
    let payload_end = header_size + neff.header.data_size.get() as usize;
    let payload = &bytes[header_size..payload_end];
    // The reader checked the payload under the caps and measured its tar
    // stream; the member bytes and raw headers are read from one more pass.
    let tar_len = neff.archive_end.at + neff.archive_end.trailing;
    let (tar, gzip) = match neff.compression {
        Compression::Gzip => {
            let (tar, mut g) = gunzip(payload, tar_len).map_err(|e| err("payload", At::File(header_size as u64), e.to_string()))?;
            let rest = &payload[payload.len() - neff.trailing_payload_bytes..];
            let padding = rest.iter().all(|b| *b == 0) && rest.len() < RECORD_BYTES && payload.len().is_multiple_of(RECORD_BYTES);
            g.after = Tail::of(rest, padding);
            (Cow::Owned(tar), Some(g))
        }
        Compression::None => (Cow::Borrowed(payload.get(..tar_len as usize).unwrap_or(payload)), None),
    };
    if tar.len() as u64 != tar_len {
        return Err(err("payload", At::Tar(tar.len() as u64), format!("tar stream of {} bytes, the reader measured {tar_len}", tar.len())));
    }
    let listing = &neff.members;
    let mut members = Vec::with_capacity(listing.len());
    let mut data = Vec::with_capacity(listing.len());
    let mut prev_end = 0u64;
    let mut archive = ::tar::Archive::new(&tar[..]);
    let entries = archive.entries().map_err(|e| err("payload", At::Tar(0), e.to_string()))?;
    for (i, entry) in entries.enumerate() {
        let entry = entry.map_err(|e| err("payload", At::Tar(prev_end), e.to_string()))?;
        let listed = listing.get(i).ok_or_else(|| err("payload", At::Tar(prev_end), "more entries than the reader listed".into()))?;
        let member = listed.name.as_str();
        let (hp, fp, size) = (entry.raw_header_position(), entry.raw_file_position(), entry.size());
        if hp != listed.tar_offset {
            return Err(err(member, At::Tar(hp), format!("listed at tar offset {:#x}, read at {hp:#x}", listed.tar_offset)));
        }
        let raw = block(&tar, hp as usize).ok_or_else(|| err(member, At::Tar(hp), "header block past the end".into()))?;
        let ty = raw.as_old().linkflag[0];
        if ty == b'S' {
            return Err(err(member, At::Tar(hp), "GNU sparse members are not supported".into()));
        }
        let extensions = extensions(&tar, prev_end as usize, hp as usize).map_err(|m| err(member, At::Tar(prev_end), m.to_string()))?;
        let meta = meta_of(raw).map_err(|m| err(member, At::Tar(hp), m.to_string()))?;
        let header_name = lossy(&raw.path_bytes());
        let link = entry.link_name_bytes().map(|l| lossy(&l));
        let header_link = raw.link_name_bytes().map(|l| lossy(&l));
        let is_file = is_file_type(ty);
        let cap = if is_file { limits.max_member } else { MAX_INLINE };
        if size > cap {
            let what = if is_file { String::new() } else { format!(" for {} members", meta.entry_type) };
            return Err(err(member, At::Tar(hp), format!("member claims {size} bytes, over the cap of {cap} bytes{what}")));
        }
        let bytes = tar.get(fp as usize..(fp + size) as usize).ok_or_else(|| err(member, At::Tar(fp), "member data past the end".into()))?.to_vec();
        members.push(Entry {
            name: member.to_string(),
            size,
            tar: meta,
            header_name: (header_name != member).then_some(header_name),
            header_link: header_link.clone().filter(|h| Some(h) != link.as_ref()),
            link,
            extensions,
            file: is_file.then(|| member.to_string()),
            text: None,
            sha256: is_file.then(|| sha256_hex(&bytes)),
            data: (!is_file && !bytes.is_empty()).then(|| hex(&bytes)),
            note: None,
        });
        data.push(bytes);
        prev_end = fp + (size.div_ceil(BLOCK as u64)) * BLOCK as u64;
    }
    if members.len() != listing.len() {
        return Err(err("payload", At::Tar(prev_end), format!("{} entries read, {} listed", members.len(), listing.len())));
    }
    let end = &neff.archive_end;
    let end_at = end.at as usize;
    if !end_follows(end_at, prev_end as usize, end.zero_blocks, tar.len()) {
        return Err(err("payload", At::Tar(prev_end), format!("the archive's end at tar offset {end_at:#x} does not follow its last member")));
    }
    let padding = end.first_nonzero.is_none() && end.trailing < RECORD_BYTES as u64 && tar.len().is_multiple_of(RECORD_BYTES);
    let (form, matched) = DigestForm::of(&neff.integrity);
    let manifest = Manifest {
        format: FORMAT.to_string(),
        version: VERSION,
        source: name.to_string(),
        header: hex(&bytes[..header_size]),
        digest: form,
        digest_matched: matched,
        compression: if gzip.is_some() { Packing::Gzip } else { Packing::Tar },
        gzip,
        end_blocks: end.zero_blocks,
        after_archive: Tail::of(&tar[end_at..], padding),
        after_payload: Tail::of(&bytes[payload_end..], false),
        members,
    };
    Ok(Exploded { neff, manifest, data })
}

/// Writes the container a manifest and its members' bytes (`data`, one per
/// member in manifest order) describe: the tar rebuilt from the metadata,
/// the payload packed as the manifest says, the header's `data_size` and
/// digest recomputed.
pub fn build(m: &Manifest, data: &[Vec<u8>]) -> Result<Vec<u8>, PackError> {
    let at = |field: &str, msg: String| PackError::at(format!("{MANIFEST}: {field}"), msg);
    if data.len() != m.members.len() {
        return Err(at("members", format!("{} members, {} given", m.members.len(), data.len())));
    }
    let mut out = unhex(&m.header).map_err(|e| at("header", e.to_string()))?;
    let header = NeffHeader::read(&out).ok_or_else(|| at("header", format!("{} bytes, shorter than the {HEADER_BYTES}-byte header", out.len())))?;
    if header.header_size.get() != out.len() as u64 {
        return Err(at("header", format!("header_size says {:#x} but the header holds {:#x} bytes", header.header_size.get(), out.len())));
    }
    let pkg = header.pkg_version.get();
    let alg = m.digest.parts().map(|(a, _)| a);
    if Algorithm::for_version(pkg) != alg {
        return Err(at("digest", format!("`{}` does not fit pkg_version {pkg}: the container would fail its digest", m.digest.as_str())));
    }
    let tar = build_tar(m, data)?;
    let payload = match m.compression {
        Packing::Tar => tar,
        Packing::Gzip => gzip(&tar, m.gzip.as_ref().unwrap_or(&Gzip::default())).map_err(|e| at("gzip", e.to_string()))?,
    };
    let offset = |field: &str| NeffHeader::LAYOUT.field_offset(field).ok_or_else(|| at("header", format!("no {field} field")));
    let ds = offset("data_size")?;
    out[ds..ds + 8].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    if let Some((alg, form)) = m.digest.parts() {
        let d = integrity::stored_digest(alg, &payload, form);
        let h = offset("hash")?;
        out[h..h + d.len()].copy_from_slice(&d);
    }
    out.extend_from_slice(&payload);
    if let Some(t) = &m.after_payload {
        t.append(&mut out).map_err(|e| at("after_payload", e.to_string()))?;
    }
    Ok(out)
}

/// Bytes of a header field as text, invalid UTF-8 replaced (names are kept as read).
fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A member's SHA-256, as the manifest records it to tell an edited file from an untouched one.
fn sha256_hex(b: &[u8]) -> String {
    hex(&Sha256::digest(b))
}

/// Why a manifest's hex string (a header, a member's data, a blank field) is not bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
enum HexError {
    /// The string has an odd number of characters (`len`), so no whole byte ends it.
    #[error("hex of odd length {len}")]
    OddLength {
        /// The string's length in bytes.
        len: usize,
    },
    /// The two characters at `at` (a byte offset into the string) are not a hex byte.
    #[error("not hex at character {at}")]
    NotHex {
        /// Offset of the pair's first character.
        at: usize,
    },
}

/// The manifest's hex back to bytes (the inverse of [`hex`]).
fn unhex(h: &str) -> Result<Vec<u8>, HexError> {
    if !h.len().is_multiple_of(2) {
        return Err(HexError::OddLength { len: h.len() });
    }
    (0..h.len()).step_by(2).map(|i| h.get(i..i + 2).and_then(|p| u8::from_str_radix(p, 16).ok()).ok_or(HexError::NotHex { at: i })).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unhex_names_the_length_or_the_character_that_is_not_hex() {
        assert_eq!(unhex("0aFF"), Ok(vec![0x0a, 0xff]));
        assert_eq!(unhex("abc"), Err(HexError::OddLength { len: 3 }));
        assert_eq!(unhex("00zz"), Err(HexError::NotHex { at: 2 }));
        assert_eq!(HexError::NotHex { at: 2 }.to_string(), "not hex at character 2");
    }
}
