//! Seeded smoke run of `fuzz_elf`, the entry point of the `elf` fuzz target:
//! mutated fixtures and junk must go through the whole pipeline without a panic.

use tpb_oracle::fixture::{Fixture, Tables};
use tpb_oracle::walrus::image::Image;
use tpb_oracle::walrus::{fuzz_elf, FuzzDepth};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: deterministic, no dependency.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn seeds() -> Vec<Vec<u8>> {
    let mut v = vec![Fixture::moved().build().expect("fixture")];
    for t in [Tables::DynsymSection, Tables::Symtab] {
        let mut f = Fixture::moved();
        f.tables = t;
        v.push(f.build().expect("fixture"));
    }
    v
}

/// Header fields worth smashing: e_phoff, e_shoff, counts, string index.
const HOT: [usize; 7] = [0x20, 0x28, 0x36, 0x38, 0x3a, 0x3c, 0x3e];

fn mutate(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let mut d = base.to_vec();
    for _ in 0..1 + rng.below(8) {
        match rng.below(6) {
            0 | 1 => {
                let i = rng.below(d.len());
                d[i] = rng.next() as u8;
            }
            2 => {
                let at = HOT[rng.below(HOT.len())];
                if at >= d.len() {
                    continue;
                }
                let v = rng.next().to_le_bytes();
                let n = 1 + rng.below(8);
                let end = (at + n).min(d.len());
                d[at..end].copy_from_slice(&v[..end - at]);
            }
            3 => {
                // Smash a 64-bit word anywhere in the tables (offsets, sizes, counts).
                if d.len() < 8 {
                    continue;
                }
                let i = rng.below(d.len().saturating_sub(8));
                let v = match rng.below(3) {
                    0 => u64::MAX - rng.below(16) as u64,
                    1 => rng.next() >> 32,
                    _ => rng.next(),
                };
                d[i..i + 8].copy_from_slice(&v.to_le_bytes());
            }
            4 => d.truncate(rng.below(d.len()) + 1),
            _ => {
                let a = rng.below(d.len());
                let b = rng.below(d.len());
                let n = rng.below(64).min(d.len() - a.max(b));
                d.copy_within(a..a + n, b);
            }
        }
        if d.is_empty() {
            break;
        }
    }
    d
}

#[test]
fn fuzz_elf_survives_seeded_mutations() {
    let seeds = seeds();
    let mut rng = Rng(0x7470_625f_6f72_6163);
    for seed in &seeds {
        assert_eq!(fuzz_elf(seed), FuzzDepth::Checked, "a seed goes the whole way");
    }
    let (mut parsed, mut refused, mut checked) = (0, 0, 0);
    for i in 0..3000 {
        let base = &seeds[i % seeds.len()];
        let data = mutate(&mut rng, base);
        let is_refused = Image::parse("fuzz", &data).is_err();
        if is_refused {
            refused += 1;
        } else {
            parsed += 1;
        }
        let depth = fuzz_elf(&data);
        assert_eq!(depth == FuzzDepth::Refused, is_refused, "input {i}: {depth:?}");
        checked += usize::from(depth == FuzzDepth::Checked);
    }
    // Both sides of the pipeline were exercised, not just the magic check,
    // and mutated libraries still reach the checks and the renderers.
    assert!(parsed > 300, "parsed {parsed}");
    assert!(refused > 300, "refused {refused}");
    assert!(checked > 100, "checked {checked} of {parsed} parsed");
}

#[test]
fn fuzz_elf_survives_junk() {
    let mut rng = Rng(42);
    for len in [0usize, 1, 4, 15, 16, 63, 64, 65, 200, 4096] {
        for _ in 0..20 {
            let mut d: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            if len >= 6 {
                d[..6].copy_from_slice(b"\x7fELF\x02\x01");
            }
            fuzz_elf(&d);
        }
    }
}
