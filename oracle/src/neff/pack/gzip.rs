//! The payload's gzip member: its header fields read into the manifest, and
//! the tar packed again with them (the XFL byte picks the level).

use super::manifest::Gzip;
use super::{lossy, unhex};
use crate::neff::header::hex;
use std::io::{Read, Write};

/// The whole decompressed tar (`len` bytes, which the reader measured under
/// its cap) and the gzip header's fields.
pub(super) fn gunzip(payload: &[u8], len: u64) -> Result<(Vec<u8>, Gzip), String> {
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

/// The tar packed with the manifest's gzip header fields, then the bytes
/// that followed the member.
pub(super) fn gzip(tar: &[u8], g: &Gzip) -> Result<Vec<u8>, String> {
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
