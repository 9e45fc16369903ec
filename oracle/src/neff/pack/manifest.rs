//! The manifest: everything of a container that its member files do not
//! hold (header bytes, digest form, packing, each member's tar metadata and
//! extension headers), as `manifest.json` in an unpacked folder.

use super::{unhex, HexError};
use crate::neff::header::hex;
use crate::neff::integrity::{Algorithm, Form, Integrity};
use crate::neff::payload::{self, RECORD_BYTES};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The manifest's file name in an unpacked folder.
pub const MANIFEST: &str = "manifest.json";
/// `format` of a manifest this module writes and reads.
pub const FORMAT: &str = "tpb-neff-unpacked";
/// `version` of the manifest layout.
pub const VERSION: u32 = 1;
/// Most bytes a non-file member (a pax global header, a link with a body) may carry in the manifest.
pub const MAX_INLINE: u64 = 1 << 20;
/// Largest manifest [`super::pack_from`] reads.
pub const MAX_MANIFEST: u64 = 1 << 30;

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

    /// Its name in the manifest (`md5-word-reversed`, …, `none`).
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
    /// The MTIME field (Unix seconds; 0 when the writer gave none).
    pub mtime: u32,
    /// The OS field (3 is Unix, 255 unknown).
    pub os: u8,
    /// The XFL byte: 4 (fastest, every real file), 2 (best) or 0; it picks the compression level.
    pub xfl: u8,
    /// The FNAME field, when set (invalid UTF-8 replaced).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// The FCOMMENT field, when set (invalid UTF-8 replaced).
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
    /// The header layout it was written in.
    pub format: Format,
    /// Permission bits (`0o644`).
    pub mode: u32,
    /// Owner user id.
    pub uid: u64,
    /// Owner group id.
    pub gid: u64,
    /// Modification time, Unix seconds.
    pub mtime: u64,
    /// Owner user name (ustar and GNU only; empty when unset).
    #[serde(default)]
    pub uname: String,
    /// Owner group name (ustar and GNU only; empty when unset).
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
    /// The fields of its own header block.
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
    /// The fields of its header block.
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
    /// The extension headers before it, in archive order.
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
    /// How the payload digest is written into the header.
    pub digest: DigestForm,
    /// Whether the input's digest matched (when not, `digest` is the compiler's form).
    pub digest_matched: bool,
    /// How the payload is packed.
    pub compression: Packing,
    /// The gzip member's fields: `None` for a bare tar (a gzip payload without them is packed with defaults).
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

/// Why a [`Tail`] of the manifest could not be written out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum TailError {
    /// `Zeros(n)` asks for more zero bytes than a container may hold (`cap`).
    #[error("{n} zero bytes is over the cap of {cap}")]
    Zeros {
        /// The zero bytes asked for.
        n: u64,
        /// The most bytes a container may hold ([`payload::MAX_FILE`]).
        cap: u64,
    },
    /// `Hex` is not hex.
    #[error(transparent)]
    Hex(#[from] HexError),
    /// `PadTo(n)` pads to 0 bytes (nothing to pad to) or past the cap.
    #[error("pad_to {n} is not within 1..={cap}")]
    PadTo {
        /// The record size asked for.
        n: u64,
        /// The most bytes a container may hold.
        cap: u64,
    },
}

impl Tail {
    /// `None` for no bytes; `PadTo` a record when `record_padding`; else the bytes exactly.
    pub(super) fn of(bytes: &[u8], record_padding: bool) -> Option<Tail> {
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

    pub(super) fn append(&self, out: &mut Vec<u8>) -> Result<(), TailError> {
        self.append_capped(out, payload::MAX_FILE)
    }

    /// [`Tail::append`] with the cap given, so its edges are tested without gigabytes.
    fn append_capped(&self, out: &mut Vec<u8>, cap: u64) -> Result<(), TailError> {
        match self {
            Tail::Zeros(n) if *n > cap => Err(TailError::Zeros { n: *n, cap }),
            Tail::Zeros(n) => {
                out.resize(out.len() + *n as usize, 0);
                Ok(())
            }
            Tail::Hex(h) => {
                out.extend(unhex(h)?);
                Ok(())
            }
            Tail::PadTo(n) if *n == 0 || *n > cap => Err(TailError::PadTo { n: *n, cap }),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_pad_or_repeat() -> Result<(), TailError> {
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
            assert_eq!(Tail::PadTo(n).append(&mut Vec::new()), Err(TailError::PadTo { n, cap }));
        }
        assert_eq!(Tail::Zeros(cap + 1).append(&mut Vec::new()), Err(TailError::Zeros { n: cap + 1, cap }));
        // At a small cap: as many zeros as the cap, or a pad to it, are taken; one more is not.
        let mut v = vec![1u8; 3];
        assert_eq!(Tail::Zeros(16).append_capped(&mut v, 16), Ok(()));
        assert_eq!(Tail::PadTo(16).append_capped(&mut v, 16), Ok(()));
        assert_eq!(v.len(), 32);
        assert_eq!(Tail::Zeros(17).append_capped(&mut v, 16), Err(TailError::Zeros { n: 17, cap: 16 }));
        assert_eq!(Tail::PadTo(17).append_capped(&mut v, 16), Err(TailError::PadTo { n: 17, cap: 16 }));
        assert_eq!(v.len(), 32);
    }

    #[test]
    fn tail_errors_say_what_was_asked_and_the_bound() {
        assert_eq!(
            Tail::Zeros(17).append_capped(&mut Vec::new(), 16).map_err(|e| e.to_string()),
            Err("17 zero bytes is over the cap of 16".to_string())
        );
        assert_eq!(Tail::PadTo(0).append_capped(&mut Vec::new(), 16).map_err(|e| e.to_string()), Err("pad_to 0 is not within 1..=16".to_string()));
        let odd = Tail::Hex("abc".into()).append(&mut Vec::new()).map_err(|e| e.to_string());
        assert_eq!(odd, Err("hex of odd length 3".to_string()));
        let bad = Tail::Hex("abzz".into()).append(&mut Vec::new()).map_err(|e| e.to_string());
        assert_eq!(bad, Err("not hex at character 2".to_string()));
    }
}
