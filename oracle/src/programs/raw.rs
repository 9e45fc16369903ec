//! A raw bundle file streamed: whole bundles a chunk at a time, with their
//! offsets, so a file of any size is judged in bounded memory. A large
//! regular file is mapped rather than read ([`super::map`]): its chunks are
//! then slices of the page cache, and [`RawStream::rest_mapped`] lends all
//! of it at once for every core to judge a part.

use super::map::Mapped;
use super::{ProgramError, Reader};
use std::fs::File;
use std::path::{Path, PathBuf};
use tpb_isa::bundle::BUNDLE_BYTES;

/// Bytes of a raw stream read and handed over at a time: a whole number of bundles.
pub const CHUNK: usize = 1 << 20;
const _: () = assert!(CHUNK.is_multiple_of(BUNDLE_BYTES));

/// A run of whole bundles from a raw file and the file offset of its first byte.
pub struct Chunk<'a> {
    /// File offset of `bytes[0]`: a multiple of 64.
    pub at: u64,
    /// Whole bundles, at most [`CHUNK`] bytes.
    pub bytes: &'a [u8],
}

/// A raw bundle file being read: whole bundles a chunk at a time, with their offsets.
pub struct RawStream {
    file: PathBuf,
    /// The file name for a text line.
    name: String,
    r: Reader<File>,
    /// Bytes read and not yet handed over: `buf[start..]`, at file offset `offset`.
    buf: Vec<u8>,
    start: usize,
    offset: u64,
    done: bool,
    /// The file mapped, when it could be: chunks are slices of it and `buf` stays empty.
    map: Option<Mapped>,
}

impl RawStream {
    /// The stream of `file` whose first bytes, `head`, `r` has read.
    /// With `map`, the whole file mapped (then `head` is dropped: the map holds it too).
    pub(super) fn new(file: &Path, r: Reader<File>, head: Vec<u8>, map: Option<Mapped>) -> Self {
        let buf = if map.is_some() { Vec::new() } else { head };
        RawStream { file: file.to_path_buf(), name: super::shown(file), r, buf, start: 0, offset: 0, done: false, map }
    }

    /// Whether the file is mapped rather than read.
    pub fn is_mapped(&self) -> bool {
        self.map.is_some()
    }

    /// When the file is mapped: its file offset and every bundle not yet handed
    /// over, as one slice, for the caller to judge in parts on every core (they
    /// count as handed over). [`RawStream::next_chunk`] then says whether the file
    /// changed while it was read. `None` when the file is read, not mapped.
    pub fn rest_mapped(&mut self) -> Option<(u64, &[u8])> {
        let m = self.map.as_ref()?;
        let at = self.offset;
        let rest = m.bytes().get(usize::try_from(at).ok()?..)?;
        self.offset += rest.len() as u64;
        Some((at, rest))
    }

    /// [`RawStream::next_chunk`] of a mapped file: a slice of the map; after
    /// the last, the check that the file did not change under it.
    fn next_mapped(&mut self) -> Option<Result<Chunk<'_>, ProgramError>> {
        let m = self.map.as_ref()?;
        let at = self.offset;
        let from = usize::try_from(at).unwrap_or(usize::MAX).min(m.bytes().len());
        let to = from.saturating_add(CHUNK).min(m.bytes().len());
        if to > from {
            self.offset = to as u64;
            return Some(Ok(Chunk { at, bytes: m.bytes().get(from..to).unwrap_or(&[]) }));
        }
        self.done = true;
        match m.changed(self.r.get_mut()) {
            Ok(false) => None,
            Ok(true) => Some(Err(ProgramError::Changed { file: self.file.clone() })),
            Err(source) => Some(Err(ProgramError::ReadFailed { file: self.file.clone(), offset: at, source })),
        }
    }

    /// The file, as given.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The file name for a text line (control characters escaped).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The next run of whole bundles (at most [`CHUNK`] bytes, more only for the
    /// first chunk of a pipe read ahead) and the file offset of its first byte;
    /// `None` after the last one or after an error. The error names the file
    /// and the offset: a read failure, a trailing partial bundle, or the cap
    /// (the bundles before it have been handed over).
    pub fn next_chunk(&mut self) -> Option<Result<Chunk<'_>, ProgramError>> {
        if self.done {
            return None;
        }
        if self.map.is_some() {
            return self.next_mapped();
        }
        // Before the end, what is left of the buffer is less than a bundle (the
        // rest of a chunk) or the first read: keep it, and read up to a chunk.
        if !self.r.at_end() {
            self.buf.drain(..self.start);
            self.start = 0;
            if let Err(source) = self.r.fill(&mut self.buf, CHUNK) {
                self.done = true;
                return Some(Err(ProgramError::ReadFailed { file: self.file.clone(), offset: self.r.taken(), source }));
            }
        }
        let left = self.buf.len() - self.start;
        let whole = left - left % BUNDLE_BYTES;
        if whole > 0 {
            let (at, from) = (self.offset, self.start);
            self.start += whole;
            self.offset += whole as u64;
            return Some(Ok(Chunk { at, bytes: &self.buf[from..from + whole] }));
        }
        // Nothing whole is left and the file has ended.
        self.done = true;
        let file = self.file.clone();
        if self.r.over() {
            let bundles = self.offset / BUNDLE_BYTES as u64;
            Some(Err(ProgramError::PastCap { file, cap: self.r.cap(), bundles: Some(bundles) }))
        } else if left > 0 {
            Some(Err(ProgramError::Partial { file, len: self.offset + left as u64 }))
        } else {
            None
        }
    }

    /// [`RawStream::next_chunk`] as a buffer of its own, so another thread can
    /// judge it while the next is read. `spare` (a buffer a judged chunk left)
    /// becomes the stream's: a chunk that is the whole read buffer (a regular
    /// file's, but for its last) is handed over without a copy.
    pub fn next_chunk_owned(&mut self, mut spare: Vec<u8>) -> Option<Result<(u64, Vec<u8>), ProgramError>> {
        if self.map.is_some() {
            return match self.next_chunk()? {
                Ok(c) => {
                    spare.clear();
                    spare.extend_from_slice(c.bytes);
                    Some(Ok((c.at, spare)))
                }
                Err(e) => Some(Err(e)),
            };
        }
        let (at, len) = match self.next_chunk()? {
            Ok(c) => (c.at, c.bytes.len()),
            Err(e) => return Some(Err(e)),
        };
        spare.clear();
        // The chunk is the whole buffer: hand the buffer over.
        if len == self.buf.len() {
            self.start = 0;
            return Some(Ok((at, std::mem::replace(&mut self.buf, spare))));
        }
        spare.extend_from_slice(&self.buf[self.start - len..self.start]);
        Some(Ok((at, spare)))
    }
}
