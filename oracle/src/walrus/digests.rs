//! The whole-file identity digests (MD5 and SHA-256, §Build & Version
//! Provenance). Hashing a 62 MiB library is most of a check's work, and it
//! shares no state with the fact readers, so it runs on its own threads:
//! while the file is read ([`read_hashed`], each chunk hashed as soon as it
//! lands: a reader and two hashers joined by bounded channels, kept by hand
//! as rayon has no pipeline) or while the facts are read ([`Digests::of`]).

use super::report::hex_compact as hex;
use md5::{Digest, Md5};
use sha2::Sha256;
use std::io::Read;
use std::sync::mpsc::{sync_channel, Receiver};

/// Read and hash in pieces of this size: large enough that the channel
/// costs nothing, small enough that hashing starts almost at once.
const CHUNK: usize = 1 << 20;
/// Chunks a hasher may lag behind the reader.
const LAG: usize = 16;

/// Below this many bytes (1 MiB) both digests take less time than starting
/// a thread. A literal: it only picks one thread or two for the same digests.
const PARALLEL_MIN: usize = 0x10_0000;

/// The hex digests of one file's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Digests {
    /// MD5, 32 lowercase hex digits.
    pub md5: String,
    /// SHA-256, 64 lowercase hex digits.
    pub sha256: String,
}

impl Digests {
    /// Hashes bytes already in memory, MD5 and SHA-256 at once (`rayon::join`)
    /// when there are enough bytes to pay for a thread (a fuzz input never is).
    pub fn of(bytes: &[u8]) -> Digests {
        if bytes.len() < PARALLEL_MIN {
            return Digests { md5: hex(&Md5::digest(bytes)), sha256: hex(&Sha256::digest(bytes)) };
        }
        let (md5, sha256) = rayon::join(|| hex(&Md5::digest(bytes)), || hex(&Sha256::digest(bytes)));
        Digests { md5, sha256 }
    }
}

/// Reads exactly `len` bytes from `r` (then expects end of file) and hashes
/// them as they arrive: each filled chunk is lent, read-only, to an MD5 and
/// a SHA-256 thread while the next one is read. Returns the bytes and their
/// digests; an I/O error, a short file or a longer one is an error.
pub fn read_hashed(mut r: impl Read, len: usize) -> std::io::Result<(Vec<u8>, Digests)> {
    let mut buf = vec![0u8; len];
    let digests = std::thread::scope(|s| -> std::io::Result<Digests> {
        let (to_md5, md5_rx) = sync_channel::<&[u8]>(LAG);
        let (to_sha, sha_rx) = sync_channel::<&[u8]>(LAG);
        let md5 = s.spawn(move || hash_chunks::<Md5>(md5_rx));
        let sha256 = s.spawn(move || hash_chunks::<Sha256>(sha_rx));
        for chunk in buf.chunks_mut(CHUNK) {
            r.read_exact(chunk)?;
            let chunk: &[u8] = chunk;
            // A hasher only stops early by panicking; the join below reports it.
            let _ = to_md5.send(chunk);
            let _ = to_sha.send(chunk);
        }
        drop((to_md5, to_sha));
        let mut probe = [0u8; 1];
        if r.read(&mut probe)? != 0 {
            return Err(std::io::Error::other(format!("the file grew past its size of {len} bytes while being read")));
        }
        let joined = |h: std::thread::ScopedJoinHandle<'_, String>| h.join().map_err(|_| std::io::Error::other("a hashing thread panicked"));
        Ok(Digests { md5: joined(md5)?, sha256: joined(sha256)? })
    })?;
    Ok((buf, digests))
}

fn hash_chunks<D: Digest>(chunks: Receiver<&[u8]>) -> String {
    let mut d = D::new();
    for c in chunks {
        d.update(c);
    }
    hex(&d.finalize())
}

#[cfg(test)]
mod tests {
    use super::{read_hashed, Digests, CHUNK};
    use std::io::Cursor;

    #[test]
    fn known_answers() {
        // RFC 1321 and FIPS 180-2 test vectors.
        let d = Digests::of(b"abc");
        assert_eq!(d.md5, "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(d.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn streamed_equals_in_memory_across_chunk_edges() {
        for len in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let Ok((read, d)) = read_hashed(Cursor::new(&bytes), len) else { panic!("read {len}") };
            assert_eq!(read, bytes, "len {len}");
            assert_eq!(d, Digests::of(&bytes), "len {len}");
        }
    }

    #[test]
    fn short_and_long_files_are_errors() {
        let bytes = vec![7u8; CHUNK + 5];
        let short = read_hashed(Cursor::new(&bytes), bytes.len() + 1).map(|_| ());
        assert_eq!(short.map_err(|e| e.kind()), Err(std::io::ErrorKind::UnexpectedEof));
        let long = read_hashed(Cursor::new(&bytes), bytes.len() - 1).map(|_| ());
        assert!(long.is_err_and(|e| e.to_string().contains("grew")));
    }
}
