//! A raw bundle file streamed: whole bundles a chunk at a time, with their
//! offsets, so a file of any size is judged in bounded memory.

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
}

impl RawStream {
    /// The stream of `file` whose first bytes, `head`, `r` has read.
    pub(super) fn new(file: &Path, r: Reader<File>, head: Vec<u8>) -> Self {
        RawStream { file: file.to_path_buf(), name: super::shown(file), r, buf: head, start: 0, offset: 0, done: false }
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
