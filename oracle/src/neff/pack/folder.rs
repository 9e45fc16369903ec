//! The unpacked folder: every member as a file, each engine stream also as
//! text, and the manifest; written without following any link, and read
//! back (edited or not) into a container.

use super::manifest::{DigestForm, Entry, Manifest, FORMAT, MANIFEST, MAX_MANIFEST, VERSION};
use super::{build, explode, sha256_hex, unhex, Exploded, PackError};
use crate::neff::error::{At, NeffError};
use crate::neff::payload::Limits;
use crate::text_safe::escape;
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use tpb_isa::bundle::BUNDLE_BYTES;
use tpb_isa::Bundle;

/// What [`unpack_to`] wrote.
#[derive(Clone, Debug)]
pub struct Unpacked {
    /// The manifest written as `manifest.json`.
    pub manifest: Manifest,
    /// Member files written.
    pub files: usize,
    /// Engine streams also written as text.
    pub texts: usize,
    /// Worth a word (members recorded but not created, streams left without
    /// text, the container's own notes); member names as they are: escape to print.
    pub notes: Vec<String>,
}

/// Why a member path may not be created under a folder: each would let a
/// name written by someone else land outside it, or on another member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
enum UnsafePath {
    /// The name is empty.
    #[error("empty name")]
    Empty,
    /// The name starts with `/`.
    #[error("absolute path")]
    Absolute,
    /// The name holds `//` or ends in `/`.
    #[error("empty path component")]
    EmptyComponent,
    /// A component is `.`.
    #[error("`.` path component")]
    Dot,
    /// A component is `..`.
    #[error("`..` path component")]
    DotDot,
}

/// Why a member path may not be created under a folder, or `Ok`.
fn check_path(name: &str) -> Result<(), UnsafePath> {
    if name.is_empty() {
        return Err(UnsafePath::Empty);
    }
    if name.starts_with('/') {
        return Err(UnsafePath::Absolute);
    }
    for c in name.split('/') {
        match c {
            "" => return Err(UnsafePath::EmptyComponent),
            "." => return Err(UnsafePath::Dot),
            ".." => return Err(UnsafePath::DotDot),
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
    /// The member's name in the archive.
    pub member: String,
    /// The file its bytes came from (relative to the folder).
    pub from: String,
}

/// What [`pack_from`] built.
#[derive(Clone, Debug)]
pub struct Packed {
    /// The container.
    pub bytes: Vec<u8>,
    /// Archive members packed.
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
    let Some(file) = &e.file else { return Ok((e.data.as_deref().map_or(Ok(Vec::new()), unhex).map_err(|x| fail(x.to_string()))?, None)) };
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
                    let bytes = tpb_isa::text::assemble(&text)
                        .map_err(|e| PackError::at(&shown, format!("line {}: {}", e.line, cut(&e.error.to_string()))))?;
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
    crate::programs::read_file(&at, cap).map(Some).map_err(|e| PackError::at(at.display(), format!("cannot read: {e}")))
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
    fn unsafe_paths_are_named() {
        for (p, why) in [
            ("../evil", UnsafePath::DotDot),
            ("/abs", UnsafePath::Absolute),
            ("a/../../b", UnsafePath::DotDot),
            ("a//b", UnsafePath::EmptyComponent),
            ("./a", UnsafePath::Dot),
            ("", UnsafePath::Empty),
        ] {
            assert_eq!(check_path(p), Err(why), "{p}");
        }
        assert_eq!(UnsafePath::DotDot.to_string(), "`..` path component");
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
}
