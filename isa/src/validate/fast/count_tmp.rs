// Throwaway (not committed): why the fast path leaves real bundles undecided.
use super::{verdicts, Batch, Kernel, Rules, Verdict, Work, BATCH};
use crate::bundle::{Bundle, BUNDLE_BYTES};
use crate::errata::Profile;
use crate::generation::Generation;
use std::collections::BTreeMap;

#[test]
#[ignore]
fn count_undecided() {
    for (g, name) in [(Generation::V2, "v2"), (Generation::V3, "v3")] {
        let Ok(bytes) = std::fs::read(format!("/tmp/fold-count/{name}.bin")) else { continue };
        let (bundles, _) = bytes.as_chunks::<BUNDLE_BYTES>();
        for profile in [Profile::Spec, Profile::Amended] {
            let rules = Rules { generation: g, profile };
            let mut work = Work::default();
            let mut by: BTreeMap<(u8, String), usize> = BTreeMap::new();
            let (mut clean, mut band, mut unknown, mut band_amended) = (0, 0, 0, 0);
            for chunk in bundles.chunks(BATCH) {
                let mut batch: Batch = [[0; BUNDLE_BYTES]; BATCH];
                batch.iter_mut().zip(chunk).for_each(|(d, s)| *d = *s);
                let v = verdicts(&batch, rules, Kernel::Portable, &mut work);
                for (raw, v) in chunk.iter().zip(v) {
                    match v {
                        Verdict::Clean => { clean += 1; continue; }
                        Verdict::BandUnknown => band += 1,
                        Verdict::Unknown => unknown += 1,
                    }
                    if profile == Profile::Amended && v == Verdict::BandUnknown && super::super::amend::band_amended(raw, g) {
                        band_amended += 1;
                        continue;
                    }
                    let b = Bundle::decode(raw);
                    let f = crate::validate::validate_as(&b, g, profile);
                    let mut why: Vec<String> = f.iter().map(|f| format!("{}:{}{}", f.code, f.field, f.erratum.map(|e| format!("[{e}]")).unwrap_or_default())).collect();
                    why.sort(); why.dedup();
                    let key = format!("{:?} valid={} {}", v, crate::validate::is_valid(&f), why.join(" "));
                    *by.entry((raw[0], key)).or_default() += 1;
                }
            }
            // Time of the slow path, by opcode, over the bundles it takes (5 rounds).
            let mut cost: BTreeMap<u8, (usize, std::time::Duration)> = BTreeMap::new();
            for chunk in bundles.chunks(BATCH) {
                let mut batch: Batch = [[0; BUNDLE_BYTES]; BATCH];
                batch.iter_mut().zip(chunk).for_each(|(d, s)| *d = *s);
                let v = verdicts(&batch, rules, Kernel::Portable, &mut work);
                for (raw, v) in chunk.iter().zip(v) {
                    if v == Verdict::Clean { continue; }
                    let t = std::time::Instant::now();
                    for _ in 0..5 {
                        let ok = if profile == Profile::Amended && v == Verdict::BandUnknown && super::super::amend::band_amended(std::hint::black_box(raw), g) { true } else {
                            let b = Bundle::decode(std::hint::black_box(raw));
                            let mut f = Vec::new();
                            super::super::report(&b, g, &mut f, v, false);
                            if profile == Profile::Amended { super::super::amend::amend_from(&b, g, &mut f, 0, false); }
                            crate::validate::is_valid(&f)
                        };
                        std::hint::black_box(ok);
                    }
                    let e = cost.entry(raw[0]).or_default();
                    e.0 += 1; e.1 += t.elapsed() / 5;
                }
            }
            for (op, (n, d)) in &cost { println!("  cost {op:#04x}: {n} bundles, {:?} total, {:?} each", d, *d / (*n as u32)); }
            println!("== {name} {profile:?}: {} bundles, clean {clean}, band-unknown {band} (band_amended {band_amended}), unknown {unknown}", bundles.len());
            let mut rows: Vec<_> = by.into_iter().collect();
            rows.sort_by(|a, b| b.1.cmp(&a.1));
            for ((op, k), n) in rows.iter().take(40) {
                let name = crate::opcode::lookup(*op).map_or("?", |o| o.name);
                println!("{n:>8} {op:#04x} {name} {k}");
            }
        }
    }
}
