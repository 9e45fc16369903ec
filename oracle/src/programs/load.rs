//! Opening a file as programs: a container read whole and parsed, or a raw
//! bundle file streamed ([`open`]) or read whole ([`load`]).

use super::program::Content;
use super::sniff::{is_neff_name, neff_ahead};
use super::{looks_like_prose, looks_like_text, read_file, CapError, Program, ProgramError, RawStream, Reader, Warning, CHUNK, TEXT_SNIFF};
use crate::neff;
use std::fs::File;
use std::path::Path;
use tpb_isa::bundle::BUNDLE_BYTES;

/// An opened file.
pub enum Input {
    /// A NEFF container, read whole: its engine streams.
    Neff(Program),
    /// A raw bundle file, handed over a chunk at a time.
    Raw(RawStream),
}

/// Opens a file as bundle streams. A `.neff` file, or any file whose header
/// reads as a NEFF container, is read whole as a container; everything else
/// is a raw bundle stream, read a chunk at a time. A file of more than `cap`
/// bytes is refused: before anything is read when its length says so, else
/// (pipes and devices) when the excess arrives, after the bundles before the
/// cap have been handed over. Text in the `tpb disasm` format is refused with
/// the command that assembles it. Each warning about a container (its notes,
/// a payload digest mismatch) goes to `warn`.
pub fn open(path: &Path, cap: u64, warn: &mut dyn FnMut(Warning)) -> Result<Input, ProgramError> {
    let cannot = |source| ProgramError::Unreadable { file: path.to_path_buf(), source };
    let file = File::open(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    let len = meta.len();
    if len > cap {
        return Err(ProgramError::TooLong { file: path.to_path_buf(), len, cap });
    }
    let regular = meta.is_file().then_some(len);
    let mut r = Reader::new(file, cap);
    let mut head = Vec::with_capacity(CHUNK);
    r.fill(&mut head, CHUNK).map_err(cannot)?;
    if is_neff_name(path) || neff_ahead(&mut r, &mut head, regular).map_err(cannot)? {
        r.rest(&mut head, regular).map_err(cannot)?;
        if r.over() {
            return Err(ProgramError::PastCap { file: path.to_path_buf(), cap, bundles: None });
        }
        return container(path, &head, warn).map(Input::Neff);
    }
    if head.is_empty() {
        return Err(ProgramError::Empty { file: path.to_path_buf() });
    }
    let sample = &head[..head.len().min(TEXT_SNIFF)];
    if looks_like_text(sample) {
        return Err(ProgramError::Text { file: path.to_path_buf() });
    }
    if looks_like_prose(sample) {
        return Err(ProgramError::Prose { file: path.to_path_buf() });
    }
    // A regular file says its length: a trailing partial bundle is refused before anything is judged.
    if regular.is_some() && !len.is_multiple_of(BUNDLE_BYTES as u64) {
        // Both readings failed: say why each did, so a wrong file is told from a damaged one.
        let why = neff::not_neff(&head).unwrap_or_default();
        return Err(ProgramError::Neither { file: path.to_path_buf(), len, why });
    }
    let map = regular.and_then(|_| super::map::Mapped::of(r.get_mut(), &meta));
    Ok(Input::Raw(RawStream::new(path, r, head, map)))
}

/// A file's bytes, at most `cap` of them, its error as every command says it
/// (`FILE: cannot read: …`, `FILE: offset 0x…: … over the cap`).
pub fn read_whole(path: &Path, cap: u64) -> Result<Vec<u8>, ProgramError> {
    let file = path.to_path_buf();
    read_file(path, cap).map_err(|e| match e {
        CapError::Stated { len, cap } => ProgramError::TooLong { file, len, cap },
        CapError::Over { cap } => ProgramError::PastCap { file, cap, bundles: None },
        CapError::Io(source) => ProgramError::Unreadable { file, source },
    })
}

/// Reads a file whole as bundle streams: a container as [`open`] reads it, a
/// raw file as one stream of whole bundles.
pub fn load(path: &Path, cap: u64, warn: &mut dyn FnMut(Warning)) -> Result<Program, ProgramError> {
    let bytes = read_whole(path, cap)?;
    if is_neff_name(path) || neff::sniff(&bytes) {
        return container(path, &bytes, warn);
    }
    if bytes.is_empty() {
        return Err(ProgramError::Empty { file: path.to_path_buf() });
    }
    if !bytes.len().is_multiple_of(BUNDLE_BYTES) {
        return Err(ProgramError::Partial { file: path.to_path_buf(), len: bytes.len() as u64 });
    }
    Ok(Program { file: path.to_path_buf(), content: Content::Raw(bytes) })
}

/// A container's streams; its warnings go to `warn`. One from which no bundle
/// is read is an error naming what was looked for and found.
fn container(path: &Path, bytes: &[u8], warn: &mut dyn FnMut(Warning)) -> Result<Program, ProgramError> {
    let n = neff::parse(bytes, &super::shown(path))?;
    // A mismatch is said here; an unknown digest is already one of the notes.
    if n.integrity.algorithm.is_some() && !n.integrity.ok() {
        warn(Warning::Integrity { file: path.to_path_buf(), integrity: n.integrity.clone() });
    }
    for note in &n.notes {
        warn(Warning::Note { file: path.to_path_buf(), note: note.clone() });
    }
    if let Some(e) = n.unread() {
        return Err(e.into());
    }
    Ok(Program { file: path.to_path_buf(), content: Content::Neff(Box::new(n)) })
}
