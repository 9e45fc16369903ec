//! `--shard K/N`: a deterministic share of the input files. A file's shard
//! is chosen by a stable hash (FNV-1a, 64 bit) of its path relative to the
//! argument it was found under, so every machine given the same folder
//! agrees, and the share of a file never depends on the other files: adding
//! files moves none. The hash is spread over the N shards by jump consistent
//! hashing (Lamping and Veach), so going from N to N+1 shards moves only
//! about 1/(N+1) of the files.

use std::fmt;
use std::str::FromStr;

/// Shard `k` (1-based) of `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub k: u32,
    pub n: u32,
}

impl FromStr for Shard {
    // A String: clap prints it as is after "invalid value '…' for '--shard'".
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, Self::Err> {
        let bad = || format!("{s:?}: expected K/N with 1 <= K <= N (shard K of N, counted from 1)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (u32, u32) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if k == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl Shard {
    /// Whether the file at `relative` (see the module) is in this shard.
    pub fn takes(&self, relative: &str) -> bool {
        of(relative, self.n) == self.k
    }
}

/// FNV-1a over the bytes: fixed constants, unlike Rust's randomised hasher.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The shard (1-based) of `relative` among `n`: jump consistent hash of its FNV-1a.
pub fn of(relative: &str, n: u32) -> u32 {
    let mut key = fnv1a(relative.as_bytes());
    // The loop runs at least once (n >= 1), so b's first value is never read.
    let (mut b, mut j): (i64, i64) = (0, 0);
    while j < i64::from(n.max(1)) {
        b = j;
        key = key.wrapping_mul(2_862_933_555_777_941_757).wrapping_add(1);
        j = ((b + 1) as f64 * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
    }
    b as u32 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_of_n_is_parsed_and_nonsense_refused() {
        assert_eq!("2/5".parse::<Shard>(), Ok(Shard { k: 2, n: 5 }));
        assert_eq!(Shard { k: 2, n: 5 }.to_string(), "2/5");
        for bad in ["0/3", "4/3", "1", "a/b", "1/0", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn every_file_is_in_exactly_one_shard_and_the_hash_is_fixed() {
        // FNV-1a's published test vector: the hash must not change between builds or machines.
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        let names: Vec<String> = (0..500).map(|i| format!("xla/MODULE_{i}.neff")).collect();
        for n in [1, 2, 3, 7] {
            let mut per = vec![0; n as usize];
            for f in &names {
                let takers: Vec<u32> = (1..=n).filter(|&k| Shard { k, n }.takes(f)).collect();
                assert_eq!(takers.len(), 1, "{f} of {n}");
                per[takers[0] as usize - 1] += 1;
            }
            // Roughly even: no shard holds under half its share.
            assert!(per.iter().all(|&c| c * 2 * n as usize >= names.len()), "{n}: {per:?}");
        }
        // Fixed shards, so a fleet's shards never move between versions: the values of an
        // independent implementation (Python, from the paper's pseudo-code and FNV-1a's constants).
        for (name, want) in [("xla/MODULE_0.neff", [2, 2, 6, 65]), ("xla/MODULE_1.neff", [1, 3, 5, 85]), ("nki/kernel.neff", [2, 3, 6, 61])] {
            assert_eq!([2, 3, 7, 100].map(|n| of(name, n)), want, "{name}");
        }
        // Two names (found by search) whose shard among 5000 moves if the divisor's `+ 1` does.
        assert_eq!((of("xla/MODULE_20281.neff", 5000), of("xla/MODULE_59171.neff", 5000)), (3235, 4282));
        // Growing from 4 to 5 shards moves about a fifth of the files, and only into the new shard.
        let moved: Vec<&String> = names.iter().filter(|f| of(f, 4) != of(f, 5)).collect();
        assert!(moved.iter().all(|f| of(f, 5) == 5) && moved.len() < names.len() * 3 / 10, "{}", moved.len());
    }
}
