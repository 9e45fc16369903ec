//! The tar archive inside the payload: its header blocks read into the
//! manifest's metadata, and an archive rebuilt from that metadata so each
//! member sits at its original offset (extension headers, blank numeric
//! fields and the end-of-archive blocks as they were).

use super::manifest::{Entry, Extension, Format, Manifest, Meta, MANIFEST};
use super::{lossy, unhex, HexError, PackError};
use crate::neff::header::hex;
use crate::text_safe::escape;
use std::collections::BTreeMap;
use std::io;
use std::num::TryFromIntError;

/// Why a tar header block could not be read into the manifest's metadata,
/// or written back from it. The offsets are in the decompressed tar stream.
#[derive(Debug, thiserror::Error)]
pub(super) enum TarError {
    /// A numeric field (`mode`, `uid`, `gid`, `mtime`) that is neither blank nor a number.
    #[error("tar header {field}: {source}")]
    Numeric {
        /// The field's manifest name.
        field: &'static str,
        /// What the tar reader said of it.
        source: io::Error,
    },
    /// A mode that does not fit the manifest's 32 bits.
    #[error("tar header mode: {mode:#o} is over 32 bits")]
    Mode {
        /// The mode as read.
        mode: u64,
    },
    /// An extension header block runs past the end of the tar.
    #[error("extension header past the end")]
    ExtensionPastEnd,
    /// An extension header's size field is not a number.
    #[error("extension header at tar offset {at:#x}: {source}")]
    ExtensionSize {
        /// The extension header's tar offset.
        at: usize,
        /// What the tar reader said of the field.
        source: io::Error,
    },
    /// An extension's size does not fit this machine's address space.
    #[error("{0}")]
    ExtensionTooLarge(#[from] TryFromIntError),
    /// An extension's body runs past the end of the tar.
    #[error("extension body past the end")]
    ExtensionBodyPastEnd,
    /// The extensions before a member do not end where its own header starts.
    #[error("extension headers run to tar offset {end:#x}, past the member's header at {header:#x}")]
    ExtensionOverrun {
        /// Where the last extension ends.
        end: usize,
        /// Where the member's header is.
        header: usize,
    },
    /// A manifest `type` that names no tar type byte.
    #[error("type `{name}` is none of {} nor 0xNN", type_names())]
    Type {
        /// The `type` as the manifest gives it.
        name: String,
    },
    /// A long name to split into a ustar prefix, in a header that is not ustar.
    #[error("not a ustar header")]
    NotUstar,
    /// A user or group name the header cannot hold (too long).
    #[error("{field}: {source}")]
    Owner {
        /// `uname` or `gname`.
        field: &'static str,
        /// What the tar writer said.
        source: io::Error,
    },
    /// Device numbers the header cannot hold.
    #[error("{0}")]
    Device(#[source] io::Error),
    /// A `blank` entry whose bytes are not hex.
    #[error("blank.{}: {source}", escape(field))]
    BlankHex {
        /// The numeric field the entry names.
        field: String,
        /// Why its bytes are not hex.
        source: HexError,
    },
    /// A `blank` entry naming no numeric field.
    #[error("blank.{}: no such numeric field (mode, uid, gid, mtime)", escape(field))]
    BlankField {
        /// The field the entry names.
        field: String,
    },
    /// A `blank` entry that is not the field's length of NULs and spaces.
    #[error("blank.{}: {len} bytes of NULs and spaces expected", escape(field))]
    BlankBytes {
        /// The field the entry names.
        field: String,
        /// The field's length in the header block.
        len: usize,
    },
    /// An extension's stored body is not hex.
    #[error(transparent)]
    Hex(#[from] HexError),
}

/// A tar block: every header and every member's padded data are whole blocks.
pub(super) const BLOCK: usize = 512;

/// Whether the archive's end (at `end_at`, after `zero_blocks` blocks of zeros)
/// follows the last member (ending at `last_end`) inside the tar. The unpacker
/// already refuses what would fail this (a dangling extension header, say);
/// explode checks again rather than trust another walk.
pub(super) fn end_follows(end_at: usize, last_end: usize, zero_blocks: u8, tar_len: usize) -> bool {
    end_at == last_end + BLOCK * usize::from(zero_blocks) && end_at <= tar_len
}

/// The header block at tar offset `at`, if the archive holds all of it.
pub(super) fn block(tar: &[u8], at: usize) -> Option<&tar::Header> {
    tar.get(at..at.checked_add(BLOCK)?).map(tar::Header::from_byte_slice)
}

/// Regular files (`0`, and `\0` of old archives): the members written as files.
pub(super) fn is_file_type(ty: u8) -> bool {
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

/// The manifest names of [`TYPES`], listed for an error.
fn type_names() -> String {
    TYPES.iter().map(|t| t.1).collect::<Vec<_>>().join(", ")
}

fn type_byte(name: &str) -> Result<u8, TarError> {
    if let Some((b, _)) = TYPES.iter().find(|(_, n)| *n == name) {
        return Ok(*b);
    }
    name.strip_prefix("0x").and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or_else(|| TarError::Type { name: name.to_string() })
}

pub(super) fn meta_of(h: &tar::Header) -> Result<Meta, TarError> {
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
    let mut num = |field: &'static str, raw: &[u8], read: io::Result<u64>| -> Result<u64, TarError> {
        if raw.iter().all(|b| *b == 0 || *b == b' ') {
            blank.insert(field.to_string(), hex(raw));
            return Ok(0);
        }
        read.map_err(|source| TarError::Numeric { field, source })
    };
    let old = h.as_old();
    let mode = num("mode", &old.mode, h.mode().map(u64::from))?;
    let (uid, gid, mtime) = (num("uid", &old.uid, h.uid())?, num("gid", &old.gid, h.gid())?, num("mtime", &old.mtime, h.mtime())?);
    Ok(Meta {
        entry_type: type_name(ty),
        format,
        mode: u32::try_from(mode).map_err(|_| TarError::Mode { mode })?,
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
pub(super) fn extensions(tar: &[u8], from: usize, to: usize) -> Result<Vec<Extension>, TarError> {
    let mut out = Vec::new();
    let mut pos = from;
    // Each extension takes at least its header block: that bounds the loop
    // whatever the sizes say.
    for _ in (from..to).step_by(BLOCK) {
        if pos >= to {
            break;
        }
        let h = block(tar, pos).ok_or(TarError::ExtensionPastEnd)?;
        let size = usize::try_from(h.entry_size().map_err(|source| TarError::ExtensionSize { at: pos, source })?)?;
        let body = tar.get(pos + BLOCK..).and_then(|b| b.get(..size)).ok_or(TarError::ExtensionBodyPastEnd)?;
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
        return Err(TarError::ExtensionOverrun { end: pos, header: to });
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
pub(super) fn build_tar(m: &Manifest, data: &[Vec<u8>]) -> Result<Vec<u8>, PackError> {
    let mut b = tar::Builder::new(Vec::new());
    for (e, bytes) in m.members.iter().zip(data) {
        let fail = |msg: &dyn std::fmt::Display| PackError::at(format!("{MANIFEST}: member {}", e.name), msg);
        let link = e.link.as_deref().unwrap_or("");
        let name_field = e.header_name.as_deref().unwrap_or(&e.name);
        let link_field = e.header_link.as_deref().unwrap_or(link);
        let mut exts: Vec<(Meta, String, Vec<u8>)> = Vec::new();
        for x in &e.extensions {
            exts.push((x.tar.clone(), x.name.clone(), extension_body(x, e, bytes.len()).map_err(|x| fail(&x))?));
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
            let h = header_for(meta, name.as_bytes(), b"", body.len() as u64).map_err(|x| fail(&x))?;
            b.append(&h, &body[..]).map_err(|x| fail(&x))?;
        }
        let h = header_for(&e.tar, name_field.as_bytes(), link_field.as_bytes(), bytes.len() as u64).map_err(|x| fail(&x))?;
        b.append(&h, &bytes[..]).map_err(|x| fail(&x))?;
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
fn extension_body(x: &Extension, e: &Entry, size: usize) -> Result<Vec<u8>, TarError> {
    let Some(records) = &x.records else { return Ok(x.data.as_deref().map_or(Ok(Vec::new()), unhex)?) };
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
fn header_for(meta: &Meta, name: &[u8], link: &[u8], size: u64) -> Result<tar::Header, TarError> {
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
            let u = h.as_ustar_mut().ok_or(TarError::NotUstar)?;
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
        h.set_username(&meta.uname).map_err(|source| TarError::Owner { field: "uname", source })?;
        h.set_groupname(&meta.gname).map_err(|source| TarError::Owner { field: "gname", source })?;
        if let Some([major, minor]) = meta.device {
            h.set_device_major(major).map_err(TarError::Device)?;
            h.set_device_minor(minor).map_err(TarError::Device)?;
        }
    }
    for (name, bytes) in &meta.blank {
        let bytes = unhex(bytes).map_err(|source| TarError::BlankHex { field: name.clone(), source })?;
        let field = numeric_field(&mut h, name).ok_or_else(|| TarError::BlankField { field: name.clone() })?;
        if bytes.len() != field.len() || bytes.iter().any(|b| *b != 0 && *b != b' ') {
            return Err(TarError::BlankBytes { field: name.clone(), len: field.len() });
        }
        field.copy_from_slice(&bytes);
    }
    h.set_cksum();
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_numeric_field_is_written_back_as_it_was() -> Result<(), TarError> {
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
            assert!(e.to_string().contains(says), "{e}");
        }
        Ok(())
    }

    #[test]
    fn owner_names_are_written_for_ustar_and_gnu_but_v7_has_no_field_for_them() -> Result<(), TarError> {
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
    fn an_unknown_type_lists_the_names_a_manifest_may_give() {
        let e = type_byte("socket").err().map(|e| e.to_string());
        let want = "type `socket` is none of file, file-v7, hardlink, symlink, char-device, block-device, dir, fifo, contiguous, pax, \
                    pax-global, gnu-long-name, gnu-long-link nor 0xNN";
        assert_eq!(e.as_deref(), Some(want));
        assert_eq!(type_byte("0x53").ok(), Some(b'S'));
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
    fn a_pax_size_record_follows_the_member() -> Result<(), Box<dyn std::error::Error>> {
        let meta = serde_json::json!({"type": "file", "format": "ustar", "mode": 420, "uid": 0, "gid": 0, "mtime": 0});
        let e: Entry = serde_json::from_value(serde_json::json!({"name": "sg00/PE.bin", "size": 10, "tar": meta}))?;
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
    fn the_archive_end_follows_the_last_member_inside_the_tar() {
        let b = BLOCK;
        assert!(end_follows(3 * b, b, 2, 3 * b));
        assert!(end_follows(b, b, 0, 4 * b));
        assert!(!end_follows(3 * b, b, 1, 4 * b), "a block unaccounted for");
        assert!(!end_follows(2 * b, b, 2, 4 * b), "zero blocks before the end");
        assert!(!end_follows(3 * b, b, 2, 3 * b - 1), "past the tar");
    }
}
