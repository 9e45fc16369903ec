//! Writes small NEFF containers: fixtures for tests and seeds for fuzzing.
//! pkg_version 2 packs a gzip tar with the MD5 in the word-reversed form the
//! real compiler writes; pkg_version 1 a bare tar with SHA-256.
//! [`container_with`] also writes the odd shapes a hostile file may take.

use super::header::{NeffHeader, HEADER_BYTES};
use super::integrity::{self, Algorithm, Form};
use std::io::{self, Write};
use zerocopy::{FromZeros, IntoBytes};

/// A container holding `members` (path, bytes), in that order (a path given
/// twice is written twice).
pub fn container(pkg_version: u64, members: &[(&str, &[u8])]) -> io::Result<Vec<u8>> {
    container_with(pkg_version, members, &Odd::default())
}

/// Odd shapes for tests of the reader under hostile input. The header's
/// digest always covers the whole payload as written, extras included.
#[derive(Clone, Debug, Default)]
pub struct Odd {
    /// Bytes after the tar's two end-of-archive blocks, inside the tar stream
    /// (inside the gzip member for pkg_version 2).
    pub after_tar: Vec<u8>,
    /// Bytes after the gzip member, inside the payload (say, a second gzip member).
    pub after_gzip: Vec<u8>,
}

/// A container holding `members`, shaped by `odd`.
pub fn container_with(pkg_version: u64, members: &[(&str, &[u8])], odd: &Odd) -> io::Result<Vec<u8>> {
    let mut tar_bytes = tar(members)?;
    tar_bytes.extend_from_slice(&odd.after_tar);
    wrap(pkg_version, &tar_bytes, &odd.after_gzip)
}

/// The header and payload around a tar: gzip (then `after_gzip`) unless
/// pkg_version 1, and the digest in the form real compilers write.
fn wrap(pkg_version: u64, tar_bytes: &[u8], after_gzip: &[u8]) -> io::Result<Vec<u8>> {
    let payload = if pkg_version == integrity::PKG_VERSION_SHA256 {
        tar_bytes.to_vec()
    } else {
        let mut gz = gzip(tar_bytes)?;
        gz.extend_from_slice(after_gzip);
        gz
    };
    Ok(header_and(pkg_version, payload))
}

/// The header of a container of `pkg_version` holding `payload`, then the payload.
fn header_and(pkg_version: u64, payload: Vec<u8>) -> Vec<u8> {
    let alg = if pkg_version == integrity::PKG_VERSION_SHA256 { Some(Algorithm::Sha256) } else { Algorithm::for_version(pkg_version) };
    let mut h = NeffHeader::new_zeroed();
    h.pkg_version.set(pkg_version);
    h.header_size.set(HEADER_BYTES as u64);
    h.data_size.set(payload.len() as u64);
    if let Some(alg) = alg {
        let form = if alg == Algorithm::Md5 { Form::WordReversed } else { Form::Plain };
        let d = integrity::stored_digest(alg, &payload, form);
        h.hash[..d.len()].copy_from_slice(&d);
    }
    let mut out = h.as_bytes().to_vec();
    out.extend_from_slice(&payload);
    out
}

/// A tar of `members` (GNU headers, mode 0644), ended by two zero blocks.
pub fn tar(members: &[(&str, &[u8])]) -> io::Result<Vec<u8>> {
    let mut t = tar::Builder::new(Vec::new());
    for (name, data) in members {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        t.append_data(&mut h, name, *data)?;
    }
    t.into_inner()
}

/// One gzip member holding `bytes`.
pub fn gzip(bytes: &[u8]) -> io::Result<Vec<u8>> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes)?;
    gz.finish()
}

/// One tar entry written exactly as given, for tests of hostile archives:
/// any name (`../x`, `/abs`; the tar crate's own path rules are bypassed),
/// any type byte (`b'2'` a symlink, `b'1'` a hard link), a link target.
#[derive(Clone, Copy, Debug)]
pub struct RawEntry<'a> {
    /// The name field's bytes, as written (cut to the field's 100 bytes).
    pub name: &'a [u8],
    /// The type byte (`b'0'` a file, `b'5'` a folder, …).
    pub kind: u8,
    /// The link-target field's bytes (empty for anything but a link).
    pub link: &'a [u8],
    /// The entry's body; its length is the header's size.
    pub data: &'a [u8],
}

impl<'a> RawEntry<'a> {
    /// A regular file.
    pub fn file(name: &'a str, data: &'a [u8]) -> Self {
        RawEntry { name: name.as_bytes(), kind: b'0', link: b"", data }
    }

    /// A symbolic link to `target`.
    pub fn symlink(name: &'a str, target: &'a str) -> Self {
        RawEntry { name: name.as_bytes(), kind: b'2', link: target.as_bytes(), data: b"" }
    }
}

/// A tar of raw entries (GNU headers, mode 0644, names and links up to 100
/// bytes written as they are), ended by two zero blocks.
pub fn tar_raw(entries: &[RawEntry]) -> io::Result<Vec<u8>> {
    let mut t = tar::Builder::new(Vec::new());
    for e in entries {
        let mut h = tar::Header::new_gnu();
        if e.name.len() > 100 || e.link.len() > 100 {
            return Err(io::Error::other("a raw entry's name and link fit in 100 bytes"));
        }
        h.as_old_mut().name[..e.name.len()].copy_from_slice(e.name);
        h.as_old_mut().linkname[..e.link.len()].copy_from_slice(e.link);
        h.as_old_mut().linkflag[0] = e.kind;
        h.set_size(e.data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        t.append(&h, e.data)?;
    }
    t.into_inner()
}

/// A container around `payload` exactly as given (a gzip member written at
/// any level, say), with the digest `pkg_version` calls for.
pub fn container_from_payload(pkg_version: u64, payload: &[u8]) -> Vec<u8> {
    header_and(pkg_version, payload.to_vec())
}

/// A container around `tar_bytes` as given: a bare tar with SHA-256 for
/// pkg_version 1, else gzip-compressed with the MD5 in the word-reversed form.
pub fn container_from_tar(pkg_version: u64, tar_bytes: &[u8]) -> io::Result<Vec<u8>> {
    wrap(pkg_version, tar_bytes, &[])
}
