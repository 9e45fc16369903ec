//! `tpb neff mutate FILE.neff -o OUT.neff --seed S [--count N] [--arch G] [--log PATH]`:
//! N single-fault mutations of real bundles, written as a new container
//! (packed as `tpb neff pack` packs) with a JSON log (`OUT.mutations.json`
//! unless `--log`). Each mutation breaks exactly one invariant of a bundle
//! the spec alone finds valid (`tpb_isa::smith::mutate`), and is kept only
//! when the spec's validator reports the check it names, so
//! `tpb validate --spec OUT` reports each logged check at the logged bundle.
//! The same input, seed and count give the same bytes and log.

use super::super::fail;
use arbitrary::Unstructured;
use std::fmt::Write as _;
use std::path::PathBuf;
use tpb_isa::{smith, validate, Bundle, Generation, Profile, Raw, Severity, BUNDLE_BYTES};
use tpb_oracle::neff::{self, header::hex, pack};

#[derive(clap::Args)]
#[command(after_help = "Exit codes: 0 written; 2 usage, I/O or a malformed container (one error line, nothing written).")]
pub struct Args {
    /// The container whose bundles are mutated.
    file: PathBuf,
    /// The container to write (atomically).
    #[arg(short, long)]
    output: PathBuf,
    /// Seed (decimal or 0x hex): the same seed gives the same container and log.
    #[arg(long, value_parser = crate::cmd::corpus::parse_seed)]
    seed: u64,
    /// Mutations to make, each on its own bundle.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    count: u32,
    /// Generation whose checks the mutations break (v2, v3, v4). Default: the container's target's,
    /// else the generation its bundles fit best (said on stderr).
    #[arg(long)]
    arch: Option<Generation>,
    /// The JSON log. Default: OUT with `.mutations.json` appended.
    #[arg(long)]
    log: Option<PathBuf>,
    /// Refuse a container larger than this many bytes (pipes and devices included).
    #[arg(long, default_value_t = neff::MAX_FILE)]
    max_bytes: u64,
}

/// Draws per bundle before it is given up (an opaque body has no mutation).
const ATTEMPTS: usize = 8;

/// One mutation made.
struct Done {
    member: usize,
    index: usize,
    original: Raw,
    mutated: Raw,
    expect: &'static str,
    what: String,
}

pub fn run(a: Args) -> u8 {
    let name = a.file.display().to_string();
    let limits = neff::Limits { max_file: a.max_bytes, ..neff::Limits::default() };
    let bytes = match neff::read_container(&a.file, limits.max_file) {
        Ok(b) => b,
        Err(e) => return fail(e),
    };
    let mut ex = match pack::explode(&bytes, &name, &limits) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    // A target that names no generation: the best fit, said on stderr, as every command does.
    let choice = ex.neff.choose(a.arch);
    crate::programs::say(&a.file, &choice);
    let g = choice.generation;
    let done = match mutate(&mut ex, g, a.seed, a.count as usize) {
        Ok(d) => d,
        Err(e) => return fail(format!("{}: {e}", tpb_oracle::text_safe::escape(&name))),
    };
    let out = match pack::build(&ex.manifest, &ex.data) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let log_path = a.log.clone().unwrap_or_else(|| {
        let mut p = a.output.clone().into_os_string();
        p.push(".mutations.json");
        PathBuf::from(p)
    });
    let members = &ex.manifest.members;
    let entries: Vec<serde_json::Value> = done
        .iter()
        .map(|d| {
            serde_json::json!({
                "member": members[d.member].name,
                "index": d.index,
                "offset": d.index * BUNDLE_BYTES,
                "opcode": tpb_isa::opcode::hex(d.original[0]),
                "name": tpb_isa::opcode::name(d.original[0]),
                "expect": d.expect,
                "what": d.what,
                "original": hex(&d.original),
                "mutated": hex(&d.mutated),
            })
        })
        .collect();
    let log = serde_json::json!({
        "input": name,
        "seed": a.seed,
        "count": done.len(),
        "arch": g,
        "profile": Profile::Spec,
        "mutations": entries,
    });
    let shown = |p: &std::path::Path| tpb_oracle::text_safe::escape(&p.display().to_string());
    if let Err(e) = crate::out::write_atomic(&a.output, &out) {
        return fail(format!("{}: cannot write: {e}", shown(&a.output)));
    }
    let mut json = serde_json::to_string_pretty(&log).unwrap_or_default();
    json.push('\n');
    if let Err(e) = crate::out::write_atomic(&log_path, json.as_bytes()) {
        return fail(format!("{}: cannot write: {e}", shown(&log_path)));
    }
    let mut text =
        format!("{}: {} mutations of {} on {g} (seed {}), log {}\n", shown(&a.output), done.len(), shown(&a.file), a.seed, shown(&log_path));
    for d in &done {
        let _ = writeln!(
            text,
            "  {} [{}] +{:#x} {:#04x} {}: {} ({})",
            tpb_oracle::text_safe::escape(&members[d.member].name),
            d.index,
            d.index * BUNDLE_BYTES,
            d.original[0],
            tpb_isa::opcode::name(d.original[0]),
            d.expect,
            tpb_oracle::text_safe::escape(&d.what)
        );
    }
    crate::out::print(&text, 0)
}

/// Fewer mutations than asked could be made in a container.
#[derive(Debug, thiserror::Error)]
#[error(
    "only {made} of {count} mutations made: {valid} bundles are valid on {generation} under the spec alone, and no mutation the spec catches applies to the others"
)]
struct TooFew {
    made: usize,
    count: usize,
    /// The bundles the spec alone finds valid, the only ones mutated.
    valid: usize,
    generation: Generation,
}

/// Makes `count` mutations in `ex.data`, each on its own bundle chosen by
/// the seed among the engine streams' bundles the spec alone finds valid;
/// a mutation is kept only when the spec reports its check and did not before.
fn mutate(ex: &mut pack::Exploded, g: Generation, seed: u64, count: usize) -> Result<Vec<Done>, TooFew> {
    let mut rng = XorShift::new(seed);
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    let mut findings = Vec::new();
    // The members the reader took for engine streams (named by a definition, or by their names).
    let streams: std::collections::HashSet<&str> = ex.neff.streams.iter().map(|s| s.member.as_str()).collect();
    for (i, e) in ex.manifest.members.iter().enumerate() {
        if e.file.is_none() || !streams.contains(e.name.as_str()) {
            continue;
        }
        for (k, raw) in ex.data[i].chunks_exact(BUNDLE_BYTES).enumerate() {
            let Ok(raw) = <&Raw>::try_from(raw) else { continue };
            findings.clear();
            validate::validate_into_as(&Bundle::decode(raw), g, Profile::Spec, &mut findings);
            if validate::is_valid(&findings) {
                candidates.push((i, k));
            }
        }
    }
    let valid = candidates.len();
    let mut done = Vec::with_capacity(count);
    while done.len() < count {
        if candidates.is_empty() {
            return Err(TooFew { made: done.len(), count, valid, generation: g });
        }
        let (i, k) = candidates.swap_remove((rng.next() % candidates.len() as u64) as usize);
        let at = k * BUNDLE_BYTES..(k + 1) * BUNDLE_BYTES;
        let Ok(original) = Raw::try_from(&ex.data[i][at.clone()]) else { continue };
        let valid_bundle = Bundle::decode(&original);
        let before = validate::validate_as(&valid_bundle, g, Profile::Spec);
        for _ in 0..ATTEMPTS {
            let bytes: Vec<u8> = (0..256).map(|_| rng.byte()).collect();
            let mut u = Unstructured::new(&bytes);
            let Ok(Some(m)) = smith::mutate(&mut u, &valid_bundle, g) else { continue };
            let mutated = m.bundle.encode();
            let after = validate::validate_as(&m.bundle, g, Profile::Spec);
            let fires = after.iter().any(|f| f.code == m.expect.code && f.severity != Severity::Note);
            let fresh = !before.iter().any(|f| f.code == m.expect.code);
            if mutated != original && fires && fresh {
                ex.data[i][at].copy_from_slice(&mutated);
                done.push(Done { member: i, index: k, original, mutated, expect: m.expect.code, what: m.what });
                break;
            }
        }
    }
    done.sort_by_key(|d| (d.member, d.index));
    Ok(done)
}

/// xorshift64* over a splitmix64 of the seed (never the all-zero state).
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> XorShift {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        XorShift((z ^ (z >> 31)).max(1))
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// The high byte of a step: xorshift64*'s low bits are its weakest.
    fn byte(&mut self) -> u8 {
        (self.next() >> 56) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::XorShift;

    /// A seed's mutations must stay the same from release to release: the
    /// generator is pinned to values computed apart (splitmix64 of 0 is the
    /// published 0xe220a8397b1dcdaf).
    #[test]
    fn the_seeded_generator_gives_the_published_splitmix_state_and_xorshift64_star_steps() {
        for (seed, state, steps) in [
            (0u64, 0xe220_a839_7b1d_cdaf_u64, [0x7bbc_b40d_5506_82d0_u64, 0xde7f_e413_d00c_c9fd, 0xb3c6_3835_3c66_8c91]),
            (0x5eed, 0x09f1_fd9d_03f0_a9b4, [0xd852_5001_b67c_a162, 0xf40d_96b7_0f33_b10b, 0x442c_28d5_726d_eda5]),
        ] {
            let mut r = XorShift::new(seed);
            assert_eq!(r.0, state, "seed {seed:#x}");
            assert_eq!([r.next(), r.next(), r.next()], steps, "seed {seed:#x}");
            let mut r = XorShift::new(seed);
            assert_eq!([r.byte(), r.byte(), r.byte()], steps.map(|s| s.to_be_bytes()[0]), "seed {seed:#x}");
        }
    }
}
