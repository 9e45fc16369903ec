//! The one capped reader: programs, containers and evidence JSON read from a
//! file of unknown size (a pipe, a device), and a container's decompressed
//! tar stream, all go through [`Reader`], so a cap is counted in one place. It reads at most the cap and
//! the one byte that tells a source over it, into buffers that never grow
//! past that. It imports nothing else of the crate: `neff` caps its
//! decompression with it without reaching up into the rest of `programs`.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Why a capped read stopped short.
#[derive(Debug, thiserror::Error)]
pub enum CapError {
    /// The source says its length, and that is over the cap (nothing was read).
    #[error("{len} bytes is over the cap of {cap} bytes")]
    Stated {
        /// The length the source states, in bytes.
        len: u64,
        /// The cap, in bytes.
        cap: u64,
    },
    /// The byte past the cap arrived.
    #[error("more than the cap of {cap} bytes")]
    Over {
        /// The cap, in bytes.
        cap: u64,
    },
    /// The source failed before the cap.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl CapError {
    /// Where the read stopped, for an error over the cap: the first byte not read.
    pub fn offset(&self) -> Option<u64> {
        match self {
            CapError::Stated { cap, .. } | CapError::Over { cap } => Some(*cap),
            CapError::Io(_) => None,
        }
    }
}

/// A source read up to its cap: a file, a pipe, a decompressor.
pub struct Reader<R> {
    inner: R,
    cap: u64,
    /// Bytes handed over so far (at most `cap`: the byte past it is dropped).
    taken: u64,
    eof: bool,
    /// The source holds more than `cap` bytes.
    over: bool,
}

impl<R: Read> Reader<R> {
    /// Reads `inner`, handing over at most `cap` bytes.
    pub fn new(inner: R, cap: u64) -> Self {
        Reader { inner, cap, taken: 0, eof: false, over: false }
    }

    /// The most bytes this reader hands over.
    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// Bytes read so far, the byte past the cap not counted.
    pub fn taken(&self) -> u64 {
        self.taken
    }

    /// Whether the source has ended (or was found over the cap).
    pub fn at_end(&self) -> bool {
        self.eof
    }

    /// Whether the source holds more than the cap (seen once the byte past it is read).
    pub fn over(&self) -> bool {
        self.over
    }

    /// The source itself, to look elsewhere in it (a file is sought and put back).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The source, given back (read up to where this reader stopped).
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Reads into `buf` until it holds `want` bytes, the source ends or the cap
    /// is passed: never more than one byte past the cap, so a pipe is read no
    /// further than the cap tells. (std's `read_to_end` retries an interrupted read.)
    pub fn fill(&mut self, buf: &mut Vec<u8>, want: usize) -> io::Result<()> {
        if self.eof {
            return Ok(());
        }
        // One byte past the cap tells a source over the cap; it is dropped.
        let allowed = usize::try_from(self.cap.saturating_add(1) - self.taken).unwrap_or(usize::MAX);
        let more = want.saturating_sub(buf.len()).min(allowed);
        let from = buf.len();
        buf.reserve_exact(more);
        let result = (&mut self.inner).take(more as u64).read_to_end(buf);
        let got = buf.len() - from;
        self.taken += got as u64;
        // `take` stops short of its limit only at the end of the source.
        self.eof = result.is_ok() && got < more;
        // At most the one byte past the cap was read: drop it.
        if self.taken > self.cap {
            buf.pop();
            self.taken = self.cap;
            self.over = true;
            self.eof = true;
        }
        result.map(drop)
    }

    /// Reads everything up to the cap into `buf`, growing it by hand, never
    /// past the cap and the one byte after it (read_to_end could double its
    /// buffer to twice the cap). `len`: the length of a regular file, reserved at once.
    pub fn rest(&mut self, buf: &mut Vec<u8>, len: Option<u64>) -> io::Result<()> {
        let limit = usize::try_from(self.cap.saturating_add(1)).unwrap_or(usize::MAX);
        if let Some(len) = len {
            buf.reserve_exact(usize::try_from(len).unwrap_or(0).saturating_add(1).min(limit).saturating_sub(buf.len()));
        }
        while !self.eof {
            if buf.len() == buf.capacity() {
                buf.reserve_exact(growth(buf.len(), limit));
            }
            let want = buf.capacity();
            self.fill(buf, want)?;
        }
        Ok(())
    }

    /// The whole source, at most the cap: `len` is what it says its length is
    /// (0 when unknown, as for a pipe), used to refuse early and to size the
    /// first read. Never holds more than `cap + 1` bytes.
    pub fn whole(mut self, len: u64) -> Result<Vec<u8>, CapError> {
        if len > self.cap {
            return Err(CapError::Stated { len, cap: self.cap });
        }
        let mut bytes = Vec::new();
        self.rest(&mut bytes, Some(len))?;
        if self.over {
            return Err(CapError::Over { cap: self.cap });
        }
        Ok(bytes)
    }
}

/// As a plain [`Read`] (a tar or gzip reader pulls from it): at most the cap
/// is handed over; at the cap, a source with more to give is an error of kind
/// `FileTooLarge` (and [`Reader::over`] says so), one that has ended is the end.
impl<R: Read> Read for Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.taken == self.cap && !buf.is_empty() && !self.over {
            // Only a refusal if the source really has more to give.
            let mut probe = [0u8; 1];
            if self.inner.read(&mut probe)? == 0 {
                self.eof = true;
                return Ok(0);
            }
            self.over = true;
            self.eof = true;
        }
        if self.over {
            return Err(io::Error::new(io::ErrorKind::FileTooLarge, CapError::Over { cap: self.cap }.to_string()));
        }
        let want = buf.len().min(usize::try_from(self.cap - self.taken).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.taken += n as u64;
        self.eof |= n == 0 && want > 0;
        Ok(n)
    }
}

/// Reads at most `cap` bytes of `path` (any file: regular, pipe or device);
/// a file that says it is longer is refused before anything is read.
pub fn read_file(path: &Path, cap: u64) -> Result<Vec<u8>, CapError> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    Reader::new(file, cap).whole(len)
}

/// How much a full buffer of `len` bytes grows by when `limit` bytes in all
/// are allowed: as much again (at least 64 KiB), never past `limit`, and by at
/// least one byte, the one that tells the end of the source or a source over the cap.
fn growth(len: usize, limit: usize) -> usize {
    len.max(64 << 10).min(limit.saturating_sub(len)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::programs::tests::piped;

    #[test]
    fn a_full_buffer_grows_by_as_much_again_and_never_past_the_limit() {
        let k = 64 << 10;
        // (len, limit) -> growth: at least 64 KiB, as much again, cut at the limit, never 0.
        for (len, limit, want) in
            [(0, 1 << 30, k), (10, 1 << 30, k), (k + 1, 1 << 30, k + 1), (3 * k, 4 * k, k), (5, 8, 3), (7, 8, 1), (8, 8, 1), (9, 8, 1)]
        {
            assert_eq!(growth(len, limit), want, "growth({len}, {limit})");
        }
    }

    #[test]
    fn the_rest_of_a_pipe_is_read_whole_in_a_buffer_never_past_the_cap() -> Result<(), Box<dyn std::error::Error>> {
        // Sizes about the growth steps (64 KiB, then doubling) and the cap.
        let cap = 300_000u64;
        for size in [0usize, 1, 65_535, 65_536, 65_537, 131_073, 299_999, 300_000, 300_001, 700_000] {
            let all = tpb_isa::props::seeded_bytes(size as u64, size);
            let (path, pipe, w) = piped(all.clone())?;
            let mut r = Reader::new(File::open(&path)?, cap);
            let mut buf = Vec::new();
            r.fill(&mut buf, 100)?;
            r.rest(&mut buf, None)?;
            let over = r.over();
            // Both ends of the read side close, so a writer left with bytes past the cap stops.
            drop((r, pipe));
            w.join().map_err(|_| "writer")?;
            let kept = size.min(cap as usize);
            assert!(buf == all[..kept], "{size} bytes: {} read", buf.len());
            assert_eq!(over, size as u64 > cap, "{size} bytes");
            assert!(buf.capacity() as u64 <= cap + 1, "{size} bytes: capacity {}", buf.capacity());
        }
        // A regular file's length is reserved at once: one allocation, of the length and the byte that tells its end.
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("f");
        std::fs::write(&p, vec![7u8; 200_000])?;
        let mut r = Reader::new(File::open(&p)?, cap);
        let mut buf = Vec::new();
        r.rest(&mut buf, Some(200_000))?;
        assert_eq!((buf.len(), buf.capacity(), r.over()), (200_000, 200_001, false));
        Ok(())
    }

    #[test]
    fn as_a_read_it_hands_over_the_cap_and_refuses_the_byte_past_it() {
        use std::io::Read as _;
        for (len, cap) in [(0usize, 0u64), (10, 10), (10, 9), (10, 100), (200_000, 150_000)] {
            let data = tpb_isa::props::seeded_bytes(len as u64, len);
            let mut r = Reader::new(&data[..], cap);
            let mut got = Vec::new();
            let result = r.read_to_end(&mut got);
            let over = len as u64 > cap;
            let kept = (len as u64).min(cap);
            assert_eq!((r.over(), result.is_err(), got.len() as u64, r.taken()), (over, over, kept, kept), "{len} bytes, cap {cap}");
            assert!(got[..] == data[..got.len()]);
            if let Err(e) = result {
                assert_eq!((e.kind(), e.to_string()), (io::ErrorKind::FileTooLarge, format!("more than the cap of {cap} bytes")));
            }
        }
    }

    #[test]
    fn a_whole_read_refuses_a_stated_length_before_reading_and_says_where_it_stopped() {
        let data = [7u8; 100];
        let e = Reader::new(&data[..], 99).whole(100).err();
        assert!(matches!(e, Some(CapError::Stated { len: 100, cap: 99 })), "{e:?}");
        let e = Reader::new(&data[..], 99).whole(0).err();
        assert!(matches!(e, Some(CapError::Over { cap: 99 })), "{e:?}");
        assert_eq!(e.and_then(|e| e.offset()), Some(99));
        assert!(matches!(Reader::new(&data[..], 100).whole(0), Ok(b) if b.len() == 100));
    }
}
