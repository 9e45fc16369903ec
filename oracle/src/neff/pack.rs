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
//! and pack them back without a folder (`tpb neff mutate`).
//!
//! Member names are untrusted. Unpacking refuses a name with an absolute
//! path, an empty, `.` or `..` component before anything is written; links,
//! devices, folders and other non-file entries are recorded in the manifest
//! only, never created; the folder must be absent or empty, parents are
//! created one by one (a component that is not a real folder is refused) and
//! files are opened with `create_new`, so no link is ever followed.

use super::error::{At, NeffError};
use super::header::{hex, NeffHeader, HEADER_BYTES};
use super::integrity::{self, Algorithm, Form, Integrity};
use super::payload::{self, Compression, Limits, RECORD_BYTES};
use super::Neff;
use crate::text_safe::escape;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use tpb_isa::bundle::BUNDLE_BYTES;
use tpb_isa::Bundle;

/// The manifest's file name in an unpacked folder.
pub const MANIFEST: &str = "manifest.json";
/// `format` of a manifest this module writes and reads.
pub const FORMAT: &str = "tpb-neff-unpacked";
/// `version` of the manifest layout.
pub const VERSION: u32 = 1;
/// Most bytes a non-file member (a pax global header, a link with a body) may carry in the manifest.
pub const MAX_INLINE: u64 = 1 << 20;
/// Largest manifest [`pack_from`] reads.
pub const MAX_MANIFEST: u64 = 1 << 30;
const BLOCK: usize = 512;

/// How the payload digest is stored in the header's `hash` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DigestForm {
    /// MD5, each 4-byte word byte-reversed: what real compilers write (pkg_version 2).
    Md5WordReversed,
    /// MD5 as computed.
    Md5,
    /// SHA-256 as computed (pkg_version 1).
    Sha256,
    /// SHA-256, each 4-byte word byte-reversed.
    Sha256WordReversed,
    /// pkg_version names no digest: the header's hash bytes are kept as they are.
    None,
}

impl DigestForm {
    /// The form the input used, and whether its digest matched; a mismatch
    /// yields the form real compilers use for that algorithm.
    pub fn of(i: &Integrity) -> (DigestForm, bool) {
        match (i.algorithm, i.matched) {
            (None, _) => (DigestForm::None, false),
            (Some(Algorithm::Md5), Some(Form::Plain)) => (DigestForm::Md5, true),
            (Some(Algorithm::Md5), Some(Form::WordReversed)) => (DigestForm::Md5WordReversed, true),
            (Some(Algorithm::Sha256), Some(Form::Plain)) => (DigestForm::Sha256, true),
            (Some(Algorithm::Sha256), Some(Form::WordReversed)) => (DigestForm::Sha256WordReversed, true),
            (Some(Algorithm::Md5), None) => (DigestForm::Md5WordReversed, false),
            (Some(Algorithm::Sha256), None) => (DigestForm::Sha256, false),
        }
    }

    /// Algorithm and byte order; `None` for [`DigestForm::None`].
    pub const fn parts(self) -> Option<(Algorithm, Form)> {
        match self {
            DigestForm::Md5WordReversed => Some((Algorithm::Md5, Form::WordReversed)),
            DigestForm::Md5 => Some((Algorithm::Md5, Form::Plain)),
            DigestForm::Sha256 => Some((Algorithm::Sha256, Form::Plain)),
            DigestForm::Sha256WordReversed => Some((Algorithm::Sha256, Form::WordReversed)),
            DigestForm::None => None,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            DigestForm::Md5WordReversed => "md5-word-reversed",
            DigestForm::Md5 => "md5",
            DigestForm::Sha256 => "sha256",
            DigestForm::Sha256WordReversed => "sha256-word-reversed",
            DigestForm::None => "none",
        }
    }
}

/// How the payload is packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Packing {
    /// A gzip-compressed tar (pkg_version 2, every real file).
    Gzip,
    /// A bare tar (pkg_version 1).
    Tar,
}

/// Bytes after a stream's end: exact, or zero padding to a whole record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tail {
    /// This many zero bytes.
    Zeros(u64),
    /// These bytes (hex).
    Hex(String),
    /// Zero bytes up to the next multiple of this many bytes (10240: GNU tar's
    /// record, which real compilers pad their gzip payload to).
    PadTo(u64),
}

/// The gzip member's header fields, and what follows the member.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gzip {
    pub mtime: u32,
    pub os: u8,
    /// The XFL byte: 4 (fastest, every real file), 2 (best) or 0; it picks the compression level.
    pub xfl: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// The FEXTRA field (hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<String>,
    /// Payload bytes after the gzip member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Tail>,
}

/// Tar header layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// POSIX ustar (`ustar\0` `00`): every real file.
    Ustar,
    /// GNU (`ustar ` ` \0`).
    Gnu,
    /// Pre-POSIX: no magic, no user or group names.
    V7,
}

/// The fields of one tar header block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// `file`, `dir`, `symlink`, `hardlink`, `pax`, … or the type byte as `0xNN`.
    #[serde(rename = "type")]
    pub entry_type: String,
    pub format: Format,
    pub mode: u32,
    pub uid: u64,
    pub gid: u64,
    pub mtime: u64,
    #[serde(default)]
    pub uname: String,
    #[serde(default)]
    pub gname: String,
    /// Major and minor numbers of a device entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<[u32; 2]>,
    /// Numeric fields the header left empty (NULs or spaces, read as 0), with
    /// their bytes (hex), so they are written back empty, not as octal zeros.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub blank: BTreeMap<String, String>,
}

/// An extension header in front of a member (pax `x`, GNU long name `L` or long link `K`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extension {
    /// The name in the extension's own header block (`dir/PaxHeader/file`, `././@LongLink`).
    pub name: String,
    pub tar: Meta,
    /// Pax records in order (`size`, `path` and `linkpath` are updated to the member when packing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records: Option<Vec<[String; 2]>>,
    /// Any other body (hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}

/// One archive member.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The member's path in the archive (as `tpb neff` lists it).
    pub name: String,
    /// The original's size (packing writes the length of the bytes given).
    pub size: u64,
    pub tar: Meta,
    /// Link target of a link entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// The name field as stored, when it is not `name` (a long name carried by an extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_name: Option<String>,
    /// The link field as stored, when it is not `link`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_link: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<Extension>,
    /// The file holding the member's bytes, relative to the folder (file members only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The text form of an engine stream, relative to the folder; packing assembles it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// SHA-256 of the original bytes (hex): tells an edited file from an untouched one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The bytes of a non-file member (hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// Why no file was created for this member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Everything of a container that its member files do not hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// The container unpacked (as named; informational).
    pub source: String,
    /// The header bytes exactly (`header_size` of them: 1024 in every real file), hex.
    /// Packing updates `data_size` and the digest.
    pub header: String,
    pub digest: DigestForm,
    /// Whether the input's digest matched (when not, `digest` is the compiler's form).
    pub digest_matched: bool,
    pub compression: Packing,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gzip: Option<Gzip>,
    /// All-zero end-of-archive blocks (2 in every real file).
    pub end_blocks: u8,
    /// Tar stream bytes after the end-of-archive blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_archive: Option<Tail>,
    /// File bytes after the payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_payload: Option<Tail>,
    /// Every member, in archive order.
    pub members: Vec<Entry>,
}

/// What went wrong, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackError {
    /// The input container does not read (or a member path is unsafe).
    Neff(NeffError),
    /// A file, folder or manifest field (`place`) and what is wrong with it.
    At { place: String, message: String },
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
    pub neff: Neff,
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
            let (tar, mut g) = gunzip(payload, tar_len).map_err(|e| err("payload", At::File(header_size as u64), e))?;
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
    let mut archive = tar::Archive::new(&tar[..]);
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
        let extensions = extensions(&tar, prev_end as usize, hp as usize).map_err(|m| err(member, At::Tar(prev_end), m))?;
        let meta = meta_of(raw).map_err(|m| err(member, At::Tar(hp), m))?;
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

/// The whole decompressed tar (`len` bytes, which the reader measured under
/// its cap) and the gzip header's fields.
/// Whether the archive's end (at `end_at`, after `zero_blocks` blocks of zeros)
/// follows the last member (ending at `last_end`) inside the tar. The unpacker
/// already refuses what would fail this (a dangling extension header, say);
/// explode checks again rather than trust another walk.
fn end_follows(end_at: usize, last_end: usize, zero_blocks: u8, tar_len: usize) -> bool {
    end_at == last_end + BLOCK * usize::from(zero_blocks) && end_at <= tar_len
}

fn gunzip(payload: &[u8], len: u64) -> Result<(Vec<u8>, Gzip), String> {
    let mut d = flate2::bufread::GzDecoder::new(payload);
    let mut tar = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    (&mut d).take(len).read_to_end(&mut tar).map_err(|e| format!("gzip: {e}"))?;
    let h = d.header().ok_or("gzip header unreadable")?;
    let g = Gzip {
        mtime: h.mtime(),
        os: h.operating_system(),
        xfl: payload.get(8).copied().unwrap_or(0),
        filename: h.filename().map(lossy),
        comment: h.comment().map(lossy),
        extra: h.extra().map(hex),
        after: None,
    };
    Ok((tar, g))
}

fn block(tar: &[u8], at: usize) -> Option<&tar::Header> {
    tar.get(at..at.checked_add(BLOCK)?).map(tar::Header::from_byte_slice)
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn sha256_hex(b: &[u8]) -> String {
    hex(&Sha256::digest(b))
}

/// Regular files (`0`, and `\0` of old archives): the members written as files.
fn is_file_type(ty: u8) -> bool {
    ty == b'0' || ty == 0
}

const TYPES: &[(u8, &str)] = &[
    (b'0', "file"),
    (0, "file-v7"),
    (b'1', "hardlink"),
    (b'2', "symlink"),
    (b'3', "char-device"),
    (b'4', "block-device"),
    (b'5', "dir"),
    (b'6', "fifo"),
    (b'7', "contiguous"),
    (b'x', "pax"),
    (b'g', "pax-global"),
    (b'L', "gnu-long-name"),
    (b'K', "gnu-long-link"),
];

fn type_name(ty: u8) -> String {
    TYPES.iter().find(|(b, _)| *b == ty).map_or_else(|| format!("{ty:#04x}"), |(_, n)| (*n).to_string())
}

fn type_byte(name: &str) -> Result<u8, String> {
    if let Some((b, _)) = TYPES.iter().find(|(_, n)| *n == name) {
        return Ok(*b);
    }
    name.strip_prefix("0x")
        .and_then(|h| u8::from_str_radix(h, 16).ok())
        .ok_or_else(|| format!("type `{name}` is none of {} nor 0xNN", TYPES.iter().map(|t| t.1).collect::<Vec<_>>().join(", ")))
}

fn meta_of(h: &tar::Header) -> Result<Meta, String> {
    let format = if h.as_ustar().is_some() {
        Format::Ustar
    } else if h.as_gnu().is_some() {
        Format::Gnu
    } else {
        Format::V7
    };
    let ty = h.as_old().linkflag[0];
    let device = match (ty, h.device_major(), h.device_minor()) {
        (b'3' | b'4', Ok(Some(a)), Ok(Some(b))) => Some([a, b]),
        _ => None,
    };
    // An empty numeric field (all NUL or spaces, as some writers leave uid and gid) reads as 0
    // and is recorded as blank.
    let mut blank = BTreeMap::new();
    let mut num = |what: &str, raw: &[u8], read: io::Result<u64>| -> Result<u64, String> {
        if raw.iter().all(|b| *b == 0 || *b == b' ') {
            blank.insert(what.to_string(), hex(raw));
            return Ok(0);
        }
        read.map_err(|e| format!("tar header {what}: {e}"))
    };
    let old = h.as_old();
    let mode = num("mode", &old.mode, h.mode().map(u64::from))?;
    let (uid, gid, mtime) = (num("uid", &old.uid, h.uid())?, num("gid", &old.gid, h.gid())?, num("mtime", &old.mtime, h.mtime())?);
    Ok(Meta {
        entry_type: type_name(ty),
        format,
        mode: u32::try_from(mode).map_err(|_| format!("tar header mode: {mode:#o} is over 32 bits"))?,
        uid,
        gid,
        mtime,
        uname: h.username_bytes().map(lossy).unwrap_or_default(),
        gname: h.groupname_bytes().map(lossy).unwrap_or_default(),
        device,
        blank,
    })
}

/// A numeric header field by its manifest name, for writing a blank one back.
fn numeric_field<'h>(h: &'h mut tar::Header, name: &str) -> Option<&'h mut [u8]> {
    let old = h.as_old_mut();
    Some(match name {
        "mode" => &mut old.mode[..],
        "uid" => &mut old.uid[..],
        "gid" => &mut old.gid[..],
        "mtime" => &mut old.mtime[..],
        _ => return None,
    })
}

/// The extension headers between tar offsets `from` and `to` (where the member's own header is).
fn extensions(tar: &[u8], from: usize, to: usize) -> Result<Vec<Extension>, String> {
    let mut out = Vec::new();
    let mut pos = from;
    // Each extension takes at least its header block: that bounds the loop
    // whatever the sizes say.
    for _ in (from..to).step_by(BLOCK) {
        if pos >= to {
            break;
        }
        let h = block(tar, pos).ok_or("extension header past the end")?;
        let size =
            usize::try_from(h.entry_size().map_err(|e| format!("extension header at tar offset {pos:#x}: {e}"))?).map_err(|e| e.to_string())?;
        let body = tar.get(pos + BLOCK..).and_then(|b| b.get(..size)).ok_or("extension body past the end")?;
        let ty = h.as_old().linkflag[0];
        // Only a local pax header (`x`) precedes its member: a global one (`g`) is a member of its own.
        let records = if ty == b'x' { parse_pax(body) } else { None };
        out.push(Extension {
            name: lossy(&h.path_bytes()),
            tar: meta_of(h)?,
            data: (records.is_none() && !body.is_empty()).then(|| hex(body)),
            records,
        });
        pos += BLOCK + size.div_ceil(BLOCK) * BLOCK;
    }
    if pos != to {
        return Err(format!("extension headers run to tar offset {pos:#x}, past the member's header at {to:#x}"));
    }
    Ok(out)
}

/// Pax records (`LEN key=value\n` …), when they re-encode to exactly `body`.
fn parse_pax(body: &[u8]) -> Option<Vec<[String; 2]>> {
    let mut out = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let sp = rest.iter().position(|b| *b == b' ')?;
        let len: usize = std::str::from_utf8(&rest[..sp]).ok()?.parse().ok()?;
        // A record ends with its newline, so it is longer than its length field and space.
        let record = rest.get(..len).filter(|r| r.ends_with(b"\n"))?;
        let (k, v) = std::str::from_utf8(record.get(sp + 1..len - 1)?).ok()?.split_once('=')?;
        out.push([k.to_string(), v.to_string()]);
        rest = &rest[len..];
    }
    (encode_pax(&out) == body).then_some(out)
}

fn encode_pax(records: &[[String; 2]]) -> Vec<u8> {
    let digits = |n: usize| n.to_string().len();
    let mut out = Vec::new();
    for [k, v] in records {
        // ` k=v\n` plus the length's own digits: the fewest that count themselves.
        let n = k.len() + v.len() + 3;
        let d = (1..=usize::MAX.to_string().len()).find(|&d| digits(n + d) == d).unwrap_or(0);
        out.extend_from_slice(format!("{} {k}={v}\n", n + d).as_bytes());
    }
    out
}

impl Tail {
    /// `None` for no bytes; `PadTo` a record when `record_padding`; else the bytes exactly.
    fn of(bytes: &[u8], record_padding: bool) -> Option<Tail> {
        if bytes.is_empty() {
            None
        } else if record_padding {
            Some(Tail::PadTo(RECORD_BYTES as u64))
        } else if bytes.iter().all(|b| *b == 0) {
            Some(Tail::Zeros(bytes.len() as u64))
        } else {
            Some(Tail::Hex(hex(bytes)))
        }
    }

    fn append(&self, out: &mut Vec<u8>) -> Result<(), String> {
        self.append_capped(out, payload::MAX_FILE)
    }

    /// [`Tail::append`] with the cap given, so its edges are tested without gigabytes.
    fn append_capped(&self, out: &mut Vec<u8>, cap: u64) -> Result<(), String> {
        match self {
            Tail::Zeros(n) if *n > cap => Err(format!("{n} zero bytes is over the cap of {cap}")),
            Tail::Zeros(n) => {
                out.resize(out.len() + *n as usize, 0);
                Ok(())
            }
            Tail::Hex(h) => {
                out.extend(unhex(h)?);
                Ok(())
            }
            Tail::PadTo(n) if *n == 0 || *n > cap => Err(format!("pad_to {n} is not within 1..={cap}")),
            Tail::PadTo(n) => {
                let rem = out.len() % *n as usize;
                if rem != 0 {
                    out.resize(out.len() + *n as usize - rem, 0);
                }
                Ok(())
            }
        }
    }
}

fn unhex(h: &str) -> Result<Vec<u8>, String> {
    if !h.len().is_multiple_of(2) {
        return Err(format!("hex of odd length {}", h.len()));
    }
    (0..h.len())
        .step_by(2)
        .map(|i| h.get(i..i + 2).and_then(|p| u8::from_str_radix(p, 16).ok()).ok_or_else(|| format!("not hex at character {i}")))
        .collect()
}

// ---------------------------------------------------------------- packing

/// Writes the container a manifest and its members' bytes (`data`, one per
/// member in manifest order) describe: the tar rebuilt from the metadata,
/// the payload packed as the manifest says, the header's `data_size` and
/// digest recomputed.
pub fn build(m: &Manifest, data: &[Vec<u8>]) -> Result<Vec<u8>, PackError> {
    let at = |field: &str, msg: String| PackError::at(format!("{MANIFEST}: {field}"), msg);
    if data.len() != m.members.len() {
        return Err(at("members", format!("{} members, {} given", m.members.len(), data.len())));
    }
    let mut out = unhex(&m.header).map_err(|e| at("header", e))?;
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
        Packing::Gzip => gzip(&tar, m.gzip.as_ref().unwrap_or(&Gzip::default())).map_err(|e| at("gzip", e))?,
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
        t.append(&mut out).map_err(|e| at("after_payload", e))?;
    }
    Ok(out)
}

fn build_tar(m: &Manifest, data: &[Vec<u8>]) -> Result<Vec<u8>, PackError> {
    let mut b = tar::Builder::new(Vec::new());
    for (e, bytes) in m.members.iter().zip(data) {
        let fail = |msg: String| PackError::at(format!("{MANIFEST}: member {}", e.name), msg);
        let link = e.link.as_deref().unwrap_or("");
        let name_field = e.header_name.as_deref().unwrap_or(&e.name);
        let link_field = e.header_link.as_deref().unwrap_or(link);
        let mut exts: Vec<(Meta, String, Vec<u8>)> = Vec::new();
        for x in &e.extensions {
            exts.push((x.tar.clone(), x.name.clone(), extension_body(x, e, bytes.len()).map_err(&fail)?));
        }
        // A long name or link no extension carries gets a GNU one, as GNU tar writes it.
        let carried = |ty: &str, key: &str| {
            e.extensions.iter().any(|x| x.tar.entry_type == ty || x.records.as_ref().is_some_and(|r| r.iter().any(|[k, _]| k == key)))
        };
        if !fits_name(name_field.as_bytes(), e.tar.format) && !carried("gnu-long-name", "path") {
            exts.push((long_meta(&e.tar, "gnu-long-name"), "././@LongLink".into(), [e.name.as_bytes(), b"\0"].concat()));
        }
        if link_field.len() > 100 && !carried("gnu-long-link", "linkpath") {
            exts.push((long_meta(&e.tar, "gnu-long-link"), "././@LongLink".into(), [link.as_bytes(), b"\0"].concat()));
        }
        for (meta, name, body) in &exts {
            let h = header_for(meta, name.as_bytes(), b"", body.len() as u64).map_err(&fail)?;
            b.append(&h, &body[..]).map_err(|x| fail(x.to_string()))?;
        }
        let h = header_for(&e.tar, name_field.as_bytes(), link_field.as_bytes(), bytes.len() as u64).map_err(&fail)?;
        b.append(&h, &bytes[..]).map_err(|x| fail(x.to_string()))?;
    }
    // into_inner ends the archive with two zero blocks; keep as many as the original had.
    let mut tar = b.into_inner().map_err(|e| PackError::at(MANIFEST, e.to_string()))?;
    reads_back_as_listed(&tar, m, data)?;
    if m.end_blocks > 2 {
        return Err(PackError::at(format!("{MANIFEST}: end_blocks"), format!("{} is over 2", m.end_blocks)));
    }
    tar.truncate(tar.len() - BLOCK * usize::from(2 - m.end_blocks));
    if let Some(t) = &m.after_archive {
        t.append(&mut tar).map_err(|e| PackError::at(format!("{MANIFEST}: after_archive"), e))?;
    }
    Ok(tar)
}

/// The archive just built must read back as the manifest lists it: each
/// member's name, size and link as a tar reader sees them. An extension kept
/// as stored bytes (pax records that do not re-encode exactly, say) is
/// written unchanged, and its records override the member's header: after a
/// rename or an edit in the manifest they would silently name the old member.
fn reads_back_as_listed(tar: &[u8], m: &Manifest, data: &[Vec<u8>]) -> Result<(), PackError> {
    let unreadable = |e: std::io::Error| PackError::at(MANIFEST, format!("the packed archive does not read back: {e}"));
    let mut read = Vec::new();
    for entry in tar::Archive::new(tar).entries().map_err(unreadable)? {
        let entry = entry.map_err(unreadable)?;
        read.push((lossy(&entry.path_bytes()), entry.size(), entry.link_name_bytes().map(|l| lossy(&l))));
    }
    if read.len() != m.members.len() {
        return Err(PackError::at(
            MANIFEST,
            format!(
                "the packed archive reads back as {} members, the manifest lists {}: an extension's type makes it a member",
                read.len(),
                m.members.len()
            ),
        ));
    }
    for ((name, size, link), (e, bytes)) in read.into_iter().zip(m.members.iter().zip(data)) {
        let differs = |field: &str, packed: String, manifest: String| {
            PackError::at(
                format!("{MANIFEST}: member {}", e.name),
                format!(
                    "the packed archive reads its {field} back as `{packed}`, not `{manifest}`: an extension written as stored \
                     (its `data`) overrides the header; edit or remove that extension"
                ),
            )
        };
        if clean(&name) != e.name {
            return Err(differs("name", name, e.name.clone()));
        }
        if size != bytes.len() as u64 {
            return Err(differs("size", size.to_string(), bytes.len().to_string()));
        }
        if link != e.link {
            return Err(differs("link", link.unwrap_or_default(), e.link.clone().unwrap_or_default()));
        }
    }
    Ok(())
}

/// An extension's body for a member of `size` bytes: pax records with
/// `size`, `path` and `linkpath` made the member's, or the stored bytes.
fn extension_body(x: &Extension, e: &Entry, size: usize) -> Result<Vec<u8>, String> {
    let Some(records) = &x.records else { return x.data.as_deref().map_or(Ok(Vec::new()), unhex) };
    let mut records = records.clone();
    for [k, v] in &mut records {
        let wanted = match k.as_str() {
            "size" if v.parse::<u64>().ok() != Some(size as u64) => Some(size.to_string()),
            "path" if clean(v) != e.name => Some(e.name.clone()),
            "linkpath" => e.link.clone().filter(|l| l != v),
            _ => None,
        };
        if let Some(w) = wanted {
            *v = w;
        }
    }
    Ok(encode_pax(&records))
}

/// A name as the reader lists it: leading `./` removed.
fn clean(s: &str) -> &str {
    let mut s = s;
    while let Some(t) = s.strip_prefix("./") {
        s = t;
    }
    s
}

fn long_meta(of: &Meta, ty: &str) -> Meta {
    Meta {
        entry_type: ty.into(),
        format: Format::Gnu,
        mode: 0o644,
        uid: 0,
        gid: 0,
        mtime: 0,
        uname: of.uname.clone(),
        gname: of.gname.clone(),
        device: None,
        blank: BTreeMap::new(),
    }
}

fn fits_name(name: &[u8], format: Format) -> bool {
    name.len() <= 100 || (format == Format::Ustar && ustar_split(name).is_some())
}

/// Where a ustar name splits into prefix (≤ 155 bytes) and name (≤ 100).
fn ustar_split(name: &[u8]) -> Option<usize> {
    (0..name.len()).rev().find(|i| name[*i] == b'/' && *i <= 155 && name.len() - i - 1 <= 100 && name.len() - i > 1)
}

/// A header block: the fields as given, the name and link fields written
/// raw (no path rules: a name the original carried is carried again).
fn header_for(meta: &Meta, name: &[u8], link: &[u8], size: u64) -> Result<tar::Header, String> {
    let mut h = match meta.format {
        Format::Gnu => tar::Header::new_gnu(),
        Format::Ustar => tar::Header::new_ustar(),
        Format::V7 => tar::Header::new_old(),
    };
    let copy = |field: &mut [u8], bytes: &[u8]| {
        let n = bytes.len().min(field.len());
        field[..n].copy_from_slice(&bytes[..n]);
    };
    match (meta.format, name.len() > 100, ustar_split(name)) {
        (Format::Ustar, true, Some(at)) => {
            let u = h.as_ustar_mut().ok_or("not a ustar header")?;
            copy(&mut u.prefix, &name[..at]);
            copy(&mut u.name, &name[at + 1..]);
        }
        _ => copy(&mut h.as_old_mut().name, name),
    }
    copy(&mut h.as_old_mut().linkname, link);
    h.as_old_mut().linkflag[0] = type_byte(&meta.entry_type)?;
    h.set_mode(meta.mode);
    h.set_uid(meta.uid);
    h.set_gid(meta.gid);
    h.set_mtime(meta.mtime);
    h.set_size(size);
    if meta.format != Format::V7 {
        h.set_username(&meta.uname).map_err(|e| format!("uname: {e}"))?;
        h.set_groupname(&meta.gname).map_err(|e| format!("gname: {e}"))?;
        if let Some([major, minor]) = meta.device {
            h.set_device_major(major).map_err(|e| e.to_string())?;
            h.set_device_minor(minor).map_err(|e| e.to_string())?;
        }
    }
    for (name, bytes) in &meta.blank {
        let bytes = unhex(bytes).map_err(|e| format!("blank.{}: {e}", escape(name)))?;
        let field = numeric_field(&mut h, name).ok_or_else(|| format!("blank.{}: no such numeric field (mode, uid, gid, mtime)", escape(name)))?;
        if bytes.len() != field.len() || bytes.iter().any(|b| *b != 0 && *b != b' ') {
            return Err(format!("blank.{}: {} bytes of NULs and spaces expected", escape(name), field.len()));
        }
        field.copy_from_slice(&bytes);
    }
    h.set_cksum();
    Ok(h)
}

fn gzip(tar: &[u8], g: &Gzip) -> Result<Vec<u8>, String> {
    let level = match g.xfl {
        2 => flate2::Compression::best(),
        4 => flate2::Compression::fast(),
        _ => flate2::Compression::default(),
    };
    let no_nul = |what: &str, s: &str| if s.contains('\0') { Err(format!("{what} holds a NUL byte")) } else { Ok(s.as_bytes().to_vec()) };
    let mut builder = flate2::GzBuilder::new().mtime(g.mtime).operating_system(g.os);
    if let Some(f) = &g.filename {
        builder = builder.filename(no_nul("filename", f)?);
    }
    if let Some(c) = &g.comment {
        builder = builder.comment(no_nul("comment", c)?);
    }
    if let Some(x) = &g.extra {
        builder = builder.extra(unhex(x)?);
    }
    let mut enc = builder.write(Vec::new(), level);
    enc.write_all(tar).map_err(|e| e.to_string())?;
    let mut out = enc.finish().map_err(|e| e.to_string())?;
    if let Some(t) = &g.after {
        t.append(&mut out)?;
    }
    Ok(out)
}

// ---------------------------------------------------------------- folders

/// What [`unpack_to`] wrote.
#[derive(Clone, Debug)]
pub struct Unpacked {
    pub manifest: Manifest,
    /// Member files written.
    pub files: usize,
    /// Engine streams also written as text.
    pub texts: usize,
    /// Worth a word (members recorded but not created, streams left without
    /// text, the container's own notes); member names as they are: escape to print.
    pub notes: Vec<String>,
}

/// Why a member path may not be created under a folder, or `Ok`.
pub fn check_path(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("empty name".into());
    }
    if name.starts_with('/') {
        return Err("absolute path".into());
    }
    for c in name.split('/') {
        match c {
            "" => return Err("empty path component".into()),
            "." => return Err("`.` path component".into()),
            ".." => return Err("`..` path component".into()),
            _ => {}
        }
    }
    Ok(())
}

/// The text file beside an engine stream: `sg00/PE.bin` → `sg00/PE.tpb`;
/// a stream a definition names otherwise keeps its whole name
/// (`sg00/pe.data` → `sg00/pe.data.tpb`).
pub fn text_path(stream_member: &str) -> String {
    match stream_member.strip_suffix(".bin") {
        Some(s) => format!("{s}.tpb"),
        None => format!("{stream_member}.tpb"),
    }
}

/// An engine stream as text: a comment line, then one disassembled line per bundle
/// with its index and offset as a comment (the `tpb disasm` line).
pub fn stream_text(member: &str, bytes: &[u8]) -> String {
    let n = bytes.len() / BUNDLE_BYTES;
    let mut s = format!(
        "# {}: {n} bundles, one line each (`tpb disasm` lines); `tpb neff pack` assembles this text back, comments ignored\n",
        escape(member)
    );
    for (i, raw) in bytes.chunks_exact(BUNDLE_BYTES).enumerate() {
        let Ok(raw) = <&tpb_isa::bundle::Raw>::try_from(raw) else { break };
        s.push_str(&tpb_isa::text::disasm(&Bundle::decode(raw)));
        s.push_str(&format!(" # [{i}] +{:#x}\n", i * BUNDLE_BYTES));
    }
    s
}

/// Unpacks container `bytes` (named `name`) into `dir`, which must be absent
/// or an empty folder. Every member path is checked before anything is written.
pub fn unpack_to(bytes: &[u8], name: &str, dir: &Path, limits: &Limits) -> Result<Unpacked, PackError> {
    let Exploded { neff, mut manifest, data } = explode(bytes, name, limits)?;
    let mut notes: Vec<String> = neff.notes.clone();
    if !manifest.digest_matched && manifest.digest != DigestForm::None {
        notes.push(format!("payload integrity: {}; pack writes the digest as {}", neff.integrity.describe(), manifest.digest.as_str()));
    }
    // Check every path first: a refused archive writes nothing.
    let mut files: HashSet<&str> = HashSet::new();
    let mut folders: HashSet<&str> = HashSet::new();
    for (e, listed) in manifest.members.iter().zip(&neff.members) {
        let path = if e.tar.entry_type == "dir" { e.name.trim_end_matches('/') } else { e.name.as_str() };
        check_path(path)
            .map_err(|why| NeffError::new(name, &e.name, At::Tar(listed.tar_offset), format!("unsafe member path ({why}): nothing was written")))?;
        if e.file.is_some() {
            if e.name == MANIFEST {
                return Err(NeffError::new(
                    name,
                    &e.name,
                    At::Tar(listed.tar_offset),
                    format!("a member named {MANIFEST} would be the manifest: nothing was written"),
                )
                .into());
            }
            files.insert(&e.name);
            folders.extend(e.name.match_indices('/').map(|(i, _)| &e.name[..i]));
        }
    }
    if let Some((e, listed)) = manifest.members.iter().zip(&neff.members).find(|(e, _)| e.file.is_some() && folders.contains(e.name.as_str())) {
        return Err(NeffError::new(
            name,
            &e.name,
            At::Tar(listed.tar_offset),
            "is a file and also a folder of other members: nothing was written".into(),
        )
        .into());
    }
    // The members the reader took for engine streams (named by a definition, or by their names).
    let streams: HashSet<&str> = neff.streams.iter().map(|s| s.member.as_str()).collect();
    let mut texts: Vec<(usize, String, String)> = Vec::new();
    for (i, (e, bytes)) in manifest.members.iter().zip(&data).enumerate() {
        let Some(t) = e.file.as_deref().filter(|f| streams.contains(f)).map(text_path) else { continue };
        if files.contains(t.as_str()) || folders.contains(t.as_str()) || t == MANIFEST {
            notes.push(format!("member `{}`: no text beside it, `{t}` is taken by another member", e.name));
            continue;
        }
        let text = stream_text(&e.name, bytes);
        if tpb_isa::text::assemble(&text).ok().as_deref() != Some(&bytes[..]) {
            notes.push(format!("member `{}`: its text does not assemble back to the same bytes; only the raw file is written", e.name));
            continue;
        }
        texts.push((i, t, text));
    }
    for (i, t, _) in &texts {
        manifest.members[*i].text = Some(t.clone());
    }
    for e in manifest.members.iter_mut().filter(|e| e.file.is_none()) {
        let what = match (&e.link, e.tar.entry_type.as_str()) {
            (Some(l), ty) if !l.is_empty() => format!("{ty} to `{l}`"),
            (_, ty) => ty.to_string(),
        };
        let note = format!("{what}: recorded in {MANIFEST} only, not created");
        // Folders are implied by the files in them: no warning for those.
        if e.tar.entry_type != "dir" {
            notes.push(format!("member `{}`: {note}", e.name));
        }
        e.note = Some(note);
    }

    fresh_dir(dir)?;
    let mut written = 0;
    for (e, bytes) in manifest.members.iter().zip(&data) {
        if let Some(f) = &e.file {
            write_new(dir, f, bytes)?;
            written += 1;
        }
    }
    for (_, t, text) in &texts {
        write_new(dir, t, text.as_bytes())?;
    }
    let mut json = serde_json::to_string_pretty(&manifest).map_err(|e| PackError::at(dir.join(MANIFEST).display(), e))?;
    json.push('\n');
    // Last: a folder with a manifest is a complete unpack.
    write_new(dir, MANIFEST, json.as_bytes())?;
    Ok(Unpacked { manifest, files: written, texts: texts.len(), notes })
}

/// `dir` absent (created) or an empty folder that is no symlink.
fn fresh_dir(dir: &Path) -> Result<(), PackError> {
    let fail = |msg: String| PackError::at(dir.display(), msg);
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => Err(fail("is a symbolic link: give a new or empty folder".into())),
        Ok(m) if m.is_dir() => match std::fs::read_dir(dir).map_err(|e| fail(format!("cannot list: {e}")))?.next() {
            None => Ok(()),
            Some(_) => Err(fail("folder is not empty: unpack writes only into a new or empty folder".into())),
        },
        Ok(_) => Err(fail("exists and is not a folder".into())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => std::fs::create_dir_all(dir).map_err(|e| fail(format!("cannot create: {e}"))),
        Err(e) => Err(fail(format!("cannot read: {e}"))),
    }
}

/// Creates `root/rel` (a checked path) with its parent folders, one by one,
/// refusing any component that is not a real folder, and the file itself
/// with `create_new` (which never follows a link).
fn write_new(root: &Path, rel: &str, bytes: &[u8]) -> Result<(), PackError> {
    let parts: Vec<&str> = rel.split('/').collect();
    let mut at = root.to_path_buf();
    for p in &parts[..parts.len() - 1] {
        at.push(p);
        match std::fs::create_dir(&at) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let real = std::fs::symlink_metadata(&at).is_ok_and(|m| m.is_dir());
                if !real {
                    return Err(PackError::at(at.display(), "exists and is not a folder (a link is never followed)"));
                }
            }
            Err(e) => return Err(PackError::at(at.display(), format!("cannot create folder: {e}"))),
        }
    }
    at.push(parts[parts.len() - 1]);
    let mut f =
        std::fs::OpenOptions::new().write(true).create_new(true).open(&at).map_err(|e| PackError::at(at.display(), format!("cannot create: {e}")))?;
    f.write_all(bytes).and_then(|()| f.flush()).map_err(|e| PackError::at(at.display(), format!("cannot write: {e}")))
}

/// A member whose bytes differ from the original's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changed {
    pub member: String,
    /// The file its bytes came from (relative to the folder).
    pub from: String,
}

/// What [`pack_from`] built.
#[derive(Clone, Debug)]
pub struct Packed {
    pub bytes: Vec<u8>,
    pub members: usize,
    /// Members whose bytes are not the original's (by the manifest's SHA-256).
    pub changed: Vec<Changed>,
}

/// Packs a folder written by [`unpack_to`] (edited or not). An engine stream
/// with its text beside it is assembled from the text, unless only the raw
/// file was edited; both edited differently is an error.
pub fn pack_from(dir: &Path, limits: &Limits) -> Result<Packed, PackError> {
    let path = dir.join(MANIFEST);
    let bytes = read_inside(dir, MANIFEST, MAX_MANIFEST)?
        .ok_or_else(|| PackError::at(path.display(), "no manifest: not a folder `tpb neff unpack` wrote"))?;
    let m: Manifest = serde_json::from_slice(&bytes).map_err(|e| PackError::at(path.display(), format!("not a manifest: {e}")))?;
    if m.format != FORMAT || m.version != VERSION {
        return Err(PackError::at(path.display(), format!("format `{}` version {}, expected `{FORMAT}` version {VERSION}", m.format, m.version)));
    }
    let mut data = Vec::with_capacity(m.members.len());
    let mut changed = Vec::new();
    for e in &m.members {
        let (bytes, from) = member_bytes(dir, e, limits)?;
        if e.sha256.as_ref().is_some_and(|s| *s != sha256_hex(&bytes)) {
            changed.push(Changed { member: e.name.clone(), from: from.unwrap_or_default() });
        }
        data.push(bytes);
    }
    let out = build(&m, &data)?;
    Ok(Packed { bytes: out, members: m.members.len(), changed })
}

/// A member's bytes and the file they came from.
fn member_bytes(dir: &Path, e: &Entry, limits: &Limits) -> Result<(Vec<u8>, Option<String>), PackError> {
    let fail = |msg: String| PackError::at(format!("{MANIFEST}: member {}", e.name), msg);
    let Some(file) = &e.file else { return Ok((e.data.as_deref().map_or(Ok(Vec::new()), unhex).map_err(fail)?, None)) };
    check_path(file).map_err(|why| fail(format!("unsafe file path `{file}` ({why})")))?;
    let bin = read_inside(dir, file, limits.max_member)?;
    let asm = match &e.text {
        None => None,
        Some(t) => {
            check_path(t).map_err(|why| fail(format!("unsafe text path `{t}` ({why})")))?;
            match read_inside(dir, t, limits.max_file)? {
                None => None,
                Some(raw) => {
                    let shown = dir.join(t).display().to_string();
                    let text = String::from_utf8(raw)
                        .map_err(|e| PackError::at(&shown, format!("offset {:#x}: not UTF-8 text", e.utf8_error().valid_up_to())))?;
                    let bytes = tpb_isa::text::assemble(&text).map_err(|e| PackError::at(&shown, format!("line {}: {}", e.line, cut(&e.message))))?;
                    Some((bytes, t.clone()))
                }
            }
        }
    };
    let original = |b: &[u8]| e.sha256.as_ref().is_some_and(|s| *s == sha256_hex(b));
    match (bin, asm) {
        (Some(b), None) => Ok((b, Some(file.clone()))),
        (None, Some((t, from))) => Ok((t, Some(from))),
        (None, None) => Err(PackError::at(dir.join(file).display(), "missing")),
        (Some(b), Some((t, from))) => {
            if b == t || original(&b) {
                Ok((t, Some(from)))
            } else if original(&t) {
                Ok((b, Some(file.clone())))
            } else {
                Err(PackError::at(
                    dir.join(file).display(),
                    format!("and `{from}` beside it were both edited and differ: keep the one you mean and delete the other"),
                ))
            }
        }
    }
}

/// Reads `dir/rel` under `cap`, following no link on the way; `None` when it does not exist.
fn read_inside(dir: &Path, rel: &str, cap: u64) -> Result<Option<Vec<u8>>, PackError> {
    let mut at: PathBuf = dir.to_path_buf();
    for p in rel.split('/') {
        at.push(p);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => return Err(PackError::at(at.display(), "is a symbolic link: pack follows no link")),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(PackError::at(at.display(), format!("cannot read: {e}"))),
        }
    }
    super::read_file_capped(&at, cap).map(Some).map_err(|e| PackError::at(at.display(), format!("cannot read: {e}")))
}

/// A message quoting input, cut to a sane length.
fn cut(s: &str) -> String {
    const MAX: usize = 300;
    match s.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_numeric_field_is_written_back_as_it_was() -> Result<(), String> {
        let mut meta = Meta {
            entry_type: "file".into(),
            format: Format::Gnu,
            mode: 0o644,
            uid: 0,
            gid: 0,
            mtime: 0,
            uname: String::new(),
            gname: String::new(),
            device: None,
            blank: BTreeMap::new(),
        };
        meta.blank.insert("uid".into(), "2020202020202000".into());
        meta.blank.insert("mtime".into(), "00".repeat(12));
        meta.blank.insert("mode".into(), "20".repeat(8));
        let h = header_for(&meta, b"a.txt", b"", 4)?;
        assert_eq!(h.as_old().uid, *b"       \0");
        assert_eq!(h.as_old().mtime, [0u8; 12]);
        assert_eq!(h.as_old().mode, [b' '; 8]);
        assert_eq!(h.as_old().gid, *b"0000000\0", "the others as written");
        assert_eq!(meta_of(&h)?.blank, meta.blank, "and read back as blank");
        for (name, bytes, says) in [
            ("size", "00".repeat(12), "blank.size: no such numeric field"),
            ("uid", "00".repeat(7), "blank.uid: 8 bytes of NULs and spaces expected"),
            ("uid", "3030303030303000".into(), "blank.uid: 8 bytes of NULs and spaces expected"),
            ("gid", "zz".into(), "blank.gid: not hex"),
        ] {
            let mut bad = meta.clone();
            bad.blank = BTreeMap::from([(name.to_string(), bytes)]);
            let Err(e) = header_for(&bad, b"a.txt", b"", 4) else { panic!("{name} was taken") };
            assert!(e.contains(says), "{e}");
        }
        Ok(())
    }

    #[test]
    fn owner_names_are_written_for_ustar_and_gnu_but_v7_has_no_field_for_them() -> Result<(), String> {
        for format in [Format::Gnu, Format::Ustar, Format::V7] {
            let meta = Meta {
                entry_type: "file".into(),
                format,
                mode: 0o644,
                uid: 1000,
                gid: 1000,
                mtime: 1_724_962_536,
                uname: "alice".into(),
                gname: "staff".into(),
                device: None,
                blank: BTreeMap::new(),
            };
            let h = header_for(&meta, b"neff.json", b"", 12)?;
            let (u, g) = (h.username().ok().flatten(), h.groupname().ok().flatten());
            if format == Format::V7 {
                assert_eq!((u, g), (None, None), "{format:?}");
            } else {
                assert_eq!((u, g), (Some("alice"), Some("staff")), "{format:?}");
            }
            assert_eq!(h.path_bytes().as_ref(), b"neff.json");
            assert_eq!(h.size().ok(), Some(12));
        }
        Ok(())
    }

    #[test]
    fn pax_records_round_trip_and_their_lengths_count_themselves() {
        let recs = vec![["mtime".to_string(), "1724962536.444408577".to_string()], ["path".to_string(), "x".repeat(95)]];
        let body = encode_pax(&recs);
        assert!(body.starts_with(b"30 mtime=1724962536.444408577\n"), "{}", String::from_utf8_lossy(&body));
        assert_eq!(parse_pax(&body), Some(recs));
        assert_eq!(parse_pax(b"9 a=bc\n"), None, "a wrong length is kept as raw bytes");
        // Lengths that end short of the newline, on it, at the space, at zero or past the body: none panics.
        for body in [&b"6 a=bc\n"[..], b"7 a=bc\n", b"2 \n", b"1 a=b\n", b"0 a=b\n", b"99 a=b\n"] {
            let got = parse_pax(body);
            assert_eq!(got.is_some(), body == b"7 a=bc\n", "{}: {got:?}", String::from_utf8_lossy(body));
        }
    }

    /// A pax `size` record follows the member it describes: a member packed
    /// at another length (an edited file) gets the new size, and one of its
    /// original length keeps the record as it was.
    #[test]
    fn a_pax_size_record_follows_the_member() -> Result<(), String> {
        let meta = serde_json::json!({"type": "file", "format": "ustar", "mode": 420, "uid": 0, "gid": 0, "mtime": 0});
        let e: Entry = serde_json::from_value(serde_json::json!({"name": "sg00/PE.bin", "size": 10, "tar": meta})).map_err(|e| e.to_string())?;
        let pair = |k: &str, v: &str| [k.to_string(), v.to_string()];
        let records = vec![pair("size", "10"), pair("path", "sg00/PE.bin")];
        let x = Extension { name: "sg00/PaxHeader/PE.bin".into(), tar: e.tar.clone(), records: Some(records.clone()), data: None };
        assert_eq!(parse_pax(&extension_body(&x, &e, 12)?), Some(vec![pair("size", "12"), pair("path", "sg00/PE.bin")]));
        assert_eq!(extension_body(&x, &e, 10)?, encode_pax(&records));
        Ok(())
    }

    #[test]
    fn only_ustar_headers_hold_a_long_name_in_prefix_and_name() {
        let long = [vec![b'd'; 60], b"/".to_vec(), vec![b'f'; 60]].concat();
        assert!(fits_name(&long, Format::Ustar));
        assert!(!fits_name(&long, Format::Gnu) && !fits_name(&long, Format::V7), "GNU and v7 have no prefix field");
        for format in [Format::Ustar, Format::Gnu, Format::V7] {
            assert!(fits_name(&[b'n'; 100], format) && !fits_name(&[b'n'; 101], format));
        }
    }

    #[test]
    fn a_ustar_name_splits_at_the_last_slash_that_leaves_both_parts_in_their_fields() {
        // The name part (after the slash) is 1..=100 bytes, the prefix at most 155.
        assert_eq!(ustar_split(b"a/bbbbbbbb/c"), Some(10));
        assert_eq!(ustar_split(b"abc/"), None, "nothing after the slash");
        let long = [vec![b'p'; 155], b"/".to_vec(), vec![b'n'; 100]].concat();
        assert_eq!(ustar_split(&long), Some(155));
        let name_too_long = [vec![b'p'; 10], b"/".to_vec(), vec![b'n'; 101]].concat();
        assert_eq!(ustar_split(&name_too_long), None);
        let prefix_too_long = [vec![b'p'; 156], b"/".to_vec(), vec![b'n'; 10]].concat();
        assert_eq!(ustar_split(&prefix_too_long), None);
    }

    #[test]
    fn unsafe_paths_are_named() {
        for (p, why) in [("../evil", "`..`"), ("/abs", "absolute"), ("a/../../b", "`..`"), ("a//b", "empty"), ("./a", "`.`"), ("", "empty")] {
            let e = check_path(p).expect_err(p);
            assert!(e.contains(why), "{p}: {e}");
        }
        assert_eq!(check_path("sg00/PE.bin"), Ok(()));
        assert_eq!(text_path("sg00/PE.bin"), "sg00/PE.tpb");
        assert_eq!(text_path("sg00/pe_stream.data"), "sg00/pe_stream.data.tpb");
    }

    #[test]
    fn a_quoted_message_is_cut_after_300_characters() {
        assert_eq!(cut("line 3: bad token"), "line 3: bad token");
        let long = "é".repeat(301);
        assert_eq!(cut(&long), format!("{}…", "é".repeat(300)));
        assert_eq!(cut(&long[..600]), long[..600]);
    }

    #[test]
    fn the_archive_end_follows_the_last_member_inside_the_tar() {
        let b = BLOCK;
        assert!(end_follows(3 * b, b, 2, 3 * b));
        assert!(end_follows(b, b, 0, 4 * b));
        assert!(!end_follows(3 * b, b, 1, 4 * b), "a block unaccounted for");
        assert!(!end_follows(2 * b, b, 2, 4 * b), "zero blocks before the end");
        assert!(!end_follows(3 * b, b, 2, 3 * b - 1), "past the tar");
    }

    #[test]
    fn tails_pad_or_repeat() -> Result<(), String> {
        let mut v = vec![1u8; 10];
        Tail::PadTo(8).append(&mut v)?;
        assert_eq!(v.len(), 16);
        Tail::Hex("ab01".into()).append(&mut v)?;
        Tail::Zeros(2).append(&mut v)?;
        assert_eq!(&v[16..], &[0xab, 1, 0, 0]);
        assert_eq!(Tail::of(&[0, 0, 0], false), Some(Tail::Zeros(3)));
        assert_eq!(Tail::of(&[], true), None);
        Ok(())
    }

    #[test]
    fn a_pad_is_within_one_to_the_cap_inclusive() {
        let cap = payload::MAX_FILE;
        // An empty payload is a multiple of any pad: the cap itself pads nothing.
        let mut empty = Vec::new();
        assert_eq!(Tail::PadTo(cap).append(&mut empty), Ok(()));
        assert!(empty.is_empty());
        for n in [0, cap + 1] {
            assert_eq!(Tail::PadTo(n).append(&mut Vec::new()), Err(format!("pad_to {n} is not within 1..={cap}")));
        }
        assert_eq!(Tail::Zeros(cap + 1).append(&mut Vec::new()), Err(format!("{} zero bytes is over the cap of {cap}", cap + 1)));
        // At a small cap: as many zeros as the cap, or a pad to it, are taken; one more is not.
        let mut v = vec![1u8; 3];
        assert_eq!(Tail::Zeros(16).append_capped(&mut v, 16), Ok(()));
        assert_eq!(Tail::PadTo(16).append_capped(&mut v, 16), Ok(()));
        assert_eq!(v.len(), 32);
        assert_eq!(Tail::Zeros(17).append_capped(&mut v, 16), Err("17 zero bytes is over the cap of 16".to_string()));
        assert_eq!(Tail::PadTo(17).append_capped(&mut v, 16), Err("pad_to 17 is not within 1..=16".to_string()));
        assert_eq!(v.len(), 32);
    }
}
