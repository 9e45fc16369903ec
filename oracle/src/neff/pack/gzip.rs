//! The payload's gzip member: its header fields read into the manifest, and
//! the tar packed again with them (the XFL byte picks the level).

use super::manifest::{Gzip, TailError};
use super::{lossy, unhex, HexError};
use crate::neff::header::hex;
use std::io::{self, Read, Write};

/// Why the payload's gzip member could not be read, or written again from
/// the manifest's fields.
#[derive(Debug, thiserror::Error)]
pub(super) enum GzipError {
    /// The member does not decompress (corrupt, or cut short).
    #[error("gzip: {0}")]
    Inflate(#[source] io::Error),
    /// The member decompressed but its header was not kept by the decoder.
    #[error("gzip header unreadable")]
    Header,
    /// A header string (`filename` or `comment`) holds a NUL, which would end it early.
    #[error("{field} holds a NUL byte")]
    Nul {
        /// The manifest's name of the field.
        field: &'static str,
    },
    /// The manifest's `extra` field is not hex.
    #[error(transparent)]
    Extra(#[from] HexError),
    /// Compressing the tar failed.
    #[error("{0}")]
    Deflate(#[source] io::Error),
    /// The bytes after the member (`after`) could not be appended.
    #[error(transparent)]
    After(#[from] TailError),
}

/// The whole decompressed tar (`len` bytes, which the reader measured under
/// its cap) and the gzip header's fields.
pub(super) fn gunzip(payload: &[u8], len: u64) -> Result<(Vec<u8>, Gzip), GzipError> {
    let mut d = flate2::bufread::GzDecoder::new(payload);
    let mut tar = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    (&mut d).take(len).read_to_end(&mut tar).map_err(GzipError::Inflate)?;
    let h = d.header().ok_or(GzipError::Header)?;
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
pub(super) fn gzip(tar: &[u8], g: &Gzip) -> Result<Vec<u8>, GzipError> {
    let level = match g.xfl {
        2 => flate2::Compression::best(),
        4 => flate2::Compression::fast(),
        _ => flate2::Compression::default(),
    };
    let no_nul = |field: &'static str, s: &str| if s.contains('\0') { Err(GzipError::Nul { field }) } else { Ok(s.as_bytes().to_vec()) };
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
    enc.write_all(tar).map_err(GzipError::Deflate)?;
    let mut out = enc.finish().map_err(GzipError::Deflate)?;
    if let Some(t) = &g.after {
        t.append(&mut out)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_string_with_a_nul_is_refused_by_its_field_name() {
        let g = Gzip { comment: Some("a\0b".into()), ..Gzip::default() };
        let e = gzip(b"", &g).err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("comment holds a NUL byte"));
        let e = gunzip(b"not gzip", 10).err().map(|e| e.to_string());
        assert!(e.as_deref().is_some_and(|e| e.starts_with("gzip: ")), "{e:?}");
    }
}
