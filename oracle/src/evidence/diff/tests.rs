use super::render::code;
use super::*;
use crate::evidence::tests::{bare, copy, copy_with_src_dtype, stream, R};
use crate::evidence::Evidence;
use crate::evidence::Loc;
use tpb_isa::{Raw, BUNDLE_BYTES};
use Generation::V2;

/// Evidence of one build (`1.0` for OLD, `2.0` for NEW: builds differ, as between releases) of streams (engine, bundles).
fn evidence(build: &str, streams: &[(&str, &[Raw])]) -> Evidence {
    let mut ev = Evidence::new();
    for (i, (engine, bundles)) in streams.iter().enumerate() {
        ev.add_stream(&format!("p{i}.neff"), Some(build), V2, engine, &stream(bundles));
    }
    ev
}

fn of(old: &Evidence, new: &Evidence) -> Diff {
    diff(&Summary::of(old), &Summary::of(new))
}

/// A TensorCopy with its source address `addr` (any address: no check minds it).
fn copy_at(addr: u32) -> R<Raw> {
    let line = format!("0x46:TensorCopy src.addr={addr:#x} src.num=[1,1,1,1] src_dtype=f32 dst_dtype=f32 out.addr=0x200 out.num=[1,1,1,1]");
    let bytes = tpb_isa::text::assemble(&line)?;
    Ok(<Raw>::try_from(bytes.as_slice())?)
}

fn ops(v: &[OpPresence]) -> Vec<(Generation, u8, u64)> {
    v.iter().map(|p| (p.generation, p.opcode, p.bundles)).collect()
}

#[test]
fn an_opcode_only_new_has_appeared_and_one_only_old_has_vanished() -> R<()> {
    let old = evidence("1.0", &[("PE", &[copy()?, bare(0xA4), bare(0xA4)])]);
    let new = evidence("2.0", &[("PE", &[copy()?, copy()?]), ("SP", &[bare(0xA0)])]);
    let d = of(&old, &new);
    assert_eq!(ops(&d.appeared), [(V2, 0xA0, 1)]);
    assert_eq!(d.appeared[0].engines, [("SP".to_string(), 1)]);
    assert_eq!(ops(&d.vanished), [(V2, 0xA4, 2)]);
    assert_eq!(d.exit & BIT_CHANGED, BIT_CHANGED);
    let md = d.to_markdown("old", "new");
    assert!(
        md.contains(
            "## Opcodes that appeared\n\nIn NEW, not in OLD (on that generation).\n\n- v2 `0xa0` EventSemaphore: 1 bundle in NEW on `SP` ×1\n  - first in NEW: `p1.neff` `SP` [0] +0x0\n"
        ),
        "{md}"
    );
    assert!(
        md.contains("## Opcodes that vanished\n\nIn OLD, not in NEW (on that generation).\n\n- v2 `0xa4` NoOp: 2 bundles in OLD on `PE` ×2\n  - first in OLD: `p0.neff` `PE` [1] +0x40\n"),
        "{md}"
    );
    // The header names each side's builds.
    assert!(md.contains("- OLD `old`: 3 bundles from 1 file\n  - build `1.0` (v2): 3 bundles from 1 file\n"), "{md}");
    assert!(md.contains("- NEW `new`: 3 bundles from 2 files\n  - build `2.0` (v2): 3 bundles from 2 files\n"), "{md}");
    assert!(!md.contains("share no generation"), "{md}");
    // Sides that share no generation are compared per opcode: the same opcode is the same.
    let mut v3 = Evidence::new();
    v3.add_stream("p.neff", Some("2.0"), Generation::V3, "PE", &stream(&[copy()?]));
    let d = of(&evidence("1.0", &[("PE", &[copy()?])]), &v3);
    assert_eq!((ops(&d.appeared), ops(&d.vanished), d.exit), (vec![], vec![], 0));
    assert_eq!(d.across.as_ref().map(|(o, n)| (o.len(), n.len())), Some((1, 1)));
    assert!(d.to_markdown("a", "b").contains("\nThe sides share no generation (v2→v3): compared per opcode across generations"));
    // Kept apart, every opcode appears or vanishes.
    let d = diff_by(&Summary::of(&evidence("1.0", &[("PE", &[copy()?])])), &Summary::of(&v3), Compare::PerGeneration);
    assert_eq!((ops(&d.appeared), ops(&d.vanished)), (vec![(Generation::V3, 0x46, 1)], vec![(V2, 0x46, 1)]));
    assert!(d.to_markdown("a", "b").contains("\nThe sides share no generation: every opcode of each is listed as appeared or vanished"));
    Ok(())
}

#[test]
fn a_value_old_never_showed_is_new_and_nothing_else_moved() -> R<()> {
    let bf16 =
        tpb_isa::text::assemble("0x46:TensorCopy src.addr=0x100 src.num=[1,1,1,1] src_dtype=bf16 dst_dtype=f32 out.addr=0x200 out.num=[1,1,1,1]")?;
    let bf16 = <Raw>::try_from(bf16.as_slice())?;
    let old = evidence("1.0", &[("PE", &[copy()?, copy()?])]);
    let new = evidence("2.0", &[("PE", &[copy()?, bf16, bf16])]);
    let d = of(&old, &new);
    let fields: Vec<&str> = d.values.iter().map(|v| v.field.as_str()).collect();
    assert_eq!(fields, ["src_dtype"]);
    assert_eq!((d.values[0].new.clone(), d.values[0].possibly_seen.len()), (vec![("0x06".to_string(), 2)], 0));
    assert!(d.appeared.is_empty() && d.vanished.is_empty() && d.checks.is_empty() && d.contradictions_new.is_empty(), "{d:#?}");
    assert_eq!(d.exit, BIT_CHANGED);
    let md = d.to_markdown("a", "b");
    assert!(md.contains("## New field values\n"), "{md}");
    // The dtype by the name `tpb disasm` gives it, and the first bundle that holds it.
    assert!(md.contains("- v2 `0x46` TensorCopy `src_dtype` +0x20: `0x06` (bf16) ×2\n  - first in NEW: `p0.neff` `PE` [1] +0x40\n"), "{md}");
    Ok(())
}

#[test]
fn a_value_old_may_hold_unlisted_is_only_possibly_seen_and_sets_no_bit() -> R<()> {
    // Nine addresses once each: OLD's histogram lists the eight lowest, the ninth is in "other".
    let old: Vec<Raw> = (0..9u32).map(|i| copy_at(0x100 + 0x40 * i)).collect::<R<_>>()?;
    let ninth = copy_at(0x100 + 0x40 * 8)?;
    let new = [ninth, ninth];
    let d = of(&evidence("1.0", &[("PE", &old)]), &evidence("2.0", &[("PE", &new)]));
    let addr = d.values.iter().find(|v| v.field == "src.addr").ok_or("src.addr not listed")?;
    // It was in OLD: calling it new would be false.
    assert!(addr.new.is_empty(), "{addr:?}");
    assert_eq!((addr.possibly_seen.as_slice(), addr.old_other), (&[("0x00000300".to_string(), 2)][..], 1));
    assert_eq!(d.exit, 0, "{d:#?}");
    let md = d.to_markdown("a", "b");
    // Folded into one line unless asked for.
    assert!(md.contains("\n1 value NEW lists in 1 field may be among OLD's unlisted values"), "{md}");
    assert!(!md.contains("`0x00000300`"), "{md}");
    let md = d.to_markdown_with("a", "b", Options { possibly_seen: true });
    assert!(
        md.contains("- v2 `0x46` TensorCopy `src.addr` +0x0c: `0x00000300` ×2 (OLD's other ×1)\n  - first in NEW: `p0.neff` `PE` [0] +0x0\n"),
        "{md}"
    );
    assert!(!md.contains("## New field values"), "{md}");
    Ok(())
}

#[test]
fn identical_inputs_move_nothing() -> R<()> {
    let streams: [(&str, &[Raw]); 2] = [("PE", &[copy()?, copy_with_src_dtype(0x33)?, bare(0xB1)]), ("SP", &[bare(0xA0), bare(0xA4)])];
    let (a, b) = (evidence("1.0", &streams), evidence("1.0", &streams));
    let d = of(&a, &b);
    assert!(d.is_empty());
    assert_eq!(d.exit, 0);
    assert!(d.appeared.is_empty() && d.vanished.is_empty() && d.engines.is_empty() && d.values.is_empty() && d.checks.is_empty());
    assert!(d.contradictions_new.is_empty() && d.contradictions_gone.is_empty() && d.errata_needed.is_empty() && d.errata_unsupported.is_empty());
    assert!(d.claims_broken.is_empty() && d.claims_mended.is_empty());
    let md = d.to_markdown("a", "b");
    assert!(md.ends_with("\nNothing moved.\n"), "{md}");
    assert!(md.contains("Exit 0: nothing moved."), "{md}");
    // Another build of the same programs moves nothing either: sides are compared over builds.
    assert_eq!(of(&a, &evidence("2.0", &streams)).exit, 0);
    Ok(())
}

#[test]
fn json_round_trip_gives_the_same_summary_and_the_same_diff() -> R<()> {
    let mut a = evidence("1.0", &[("PE", &[copy()?, bare(0xB1), bare(0xA4)]), ("SP", &[bare(0xA0)])]);
    // Two builds on one side, one of them on another generation.
    a.add_stream("q.neff", Some("1.1"), Generation::V3, "PE", &stream(&[copy_with_src_dtype(0x44)?]));
    let old: Vec<Raw> = (0..12u32).map(|i| copy_at(0x40 * i)).collect::<R<_>>()?;
    let mut broken = bare(0xA4);
    broken[0x20] = 1;
    let b = evidence("2.0", &[("PE", &old), ("Pool", &[copy_with_src_dtype(0x33)?, broken, bare(0x3B)])]);
    for (x, y) in [(&a, &b), (&b, &a), (&a, &a)] {
        let (sx, sy) = (Summary::of(x), Summary::of(y));
        let jx = Summary::from_json(serde_json::to_string_pretty(&x.to_json())?.as_bytes())?;
        let jy = Summary::from_json(serde_json::to_string_pretty(&y.to_json())?.as_bytes())?;
        assert_eq!(jx, sx);
        assert_eq!(jy, sy);
        let (direct, read) = (diff(&sx, &sy), diff(&jx, &jy));
        assert_eq!(read, direct);
        assert_eq!(read.to_markdown("x", "y"), direct.to_markdown("x", "y"));
        assert_eq!(read.to_json("x", "y"), direct.to_json("x", "y"));
    }
    // The pair moved in every way this test can see, so the round trip covered something.
    let d = of(&a, &b);
    assert!(!d.appeared.is_empty() && !d.vanished.is_empty() && !d.engines.is_empty() && !d.values.is_empty());
    assert!(!d.contradictions_new.is_empty() && !d.contradictions_gone.is_empty() && !d.errata_unsupported.is_empty());
    assert!(!d.claims_broken.is_empty());
    Ok(())
}

#[test]
fn a_new_contradiction_is_a_new_disagreement_and_its_reverse_is_only_a_change() -> R<()> {
    let old = evidence("1.0", &[("PE", &[copy()?, copy()?])]);
    let new = evidence("2.0", &[("PE", &[copy()?, copy_with_src_dtype(0x33)?])]);
    let d = of(&old, &new);
    assert_eq!(d.exit, BIT_CHANGED | BIT_NEW_DISAGREES);
    let dtype = d.checks.iter().find(|c| c.check == "invalid-dtype").ok_or("invalid-dtype did not move")?;
    assert_eq!((dtype.change, dtype.old.disagree, dtype.new.disagree, dtype.new.refused), (CheckChange::NowRefused, 0, 1, 1));
    let c: Vec<(u8, &str, &str)> = d.contradictions_new.iter().map(|c| (c.opcode, c.check.as_str(), c.field.as_str())).collect();
    assert_eq!(c, [(0x46, "invalid-dtype", "src_dtype")]);
    assert_eq!(d.contradictions_new[0].values.listed.get("0x33"), Some(&1));
    let md = d.to_markdown("a", "b");
    assert!(
        md.contains("- v2 `0x46` TensorCopy `invalid-dtype`: now refused: OLD agree 2, disagree 0, refused 0; NEW agree 1, disagree 1, refused 1\n"),
        "{md}"
    );
    assert!(md.contains("## Contradictions new in NEW\n"), "{md}");
    assert!(md.contains("- v2 `0x46` TensorCopy `invalid-dtype` `src_dtype`: `0x33` ×1\n"), "{md}");

    let back = of(&new, &old);
    assert_eq!(back.exit, BIT_CHANGED);
    assert_eq!(back.contradictions_gone.len(), 1);
    assert!(back.contradictions_new.is_empty());
    assert!(back.checks.iter().any(|c| c.check == "invalid-dtype" && c.change == CheckChange::NoLongerDisagrees));
    // An opcode new in NEW brings its contradictions with it.
    let d = of(&old, &evidence("2.0", &[("PE", &[copy()?, bare(0x3B)])]));
    assert_eq!(d.exit, BIT_CHANGED | BIT_NEW_DISAGREES);
    assert_eq!(d.contradictions_new.iter().map(|c| (c.opcode, c.check.as_str())).collect::<Vec<_>>(), [(0x3B, "unknown-opcode")]);
    Ok(())
}

#[test]
fn check_changes_are_classified_by_disagree_and_refused() {
    let c = |disagree: u64, refused: u64| Check { agree: 1, disagree, accepted: Default::default(), refused, ..Check::default() };
    let cases = [
        ((0, 0), (1, 1), Some(CheckChange::NowRefused)),
        ((2, 0), (2, 1), Some(CheckChange::NowRefused)),
        ((0, 0), (3, 0), Some(CheckChange::NowDisagreesAccepted)),
        ((3, 1), (3, 0), Some(CheckChange::NoLongerRefused)),
        ((3, 1), (0, 0), Some(CheckChange::NoLongerDisagrees)),
        ((3, 0), (0, 0), Some(CheckChange::NoLongerDisagrees)),
        ((3, 1), (5, 2), None),
        ((3, 0), (1, 0), None),
        ((0, 0), (0, 0), None),
    ];
    for ((od, or), (nd, nr), want) in cases {
        assert_eq!(CheckChange::of(&c(od, or), &c(nd, nr)), want, "OLD {od}/{or} NEW {nd}/{nr}");
    }
}

#[test]
fn errata_support_lost_and_gained_are_listed() -> R<()> {
    let old = evidence("1.0", &[("PE", &[copy()?, bare(0xB1)])]);
    let new = evidence("2.0", &[("PE", &[copy()?]), ("SP", &[bare(0xA0)])]);
    let d = of(&old, &new);
    let ids = |v: &[ErratumMove]| v.iter().map(|e| (e.id.clone(), e.bundles, e.listed_by_other)).collect::<Vec<_>>();
    assert_eq!(ids(&d.errata_unsupported), [("unnamed-opcodes".to_string(), 1, true)]);
    assert_eq!(ids(&d.errata_needed), [("semaphore-no-action".to_string(), 1, true), ("semaphore-no-wait".to_string(), 1, true)]);
    // Support needed, not a disagreement: the crate's description (with its errata) holds.
    assert_eq!(d.exit, BIT_CHANGED);
    Ok(())
}

#[test]
fn a_claim_new_breaks_is_a_new_disagreement() -> R<()> {
    let mut broken = bare(0xA4);
    broken[0x20] = 1;
    let old = evidence("1.0", &[("SP", &[bare(0xA4)])]);
    let new = evidence("2.0", &[("SP", &[bare(0xA4), broken])]);
    let d = of(&old, &new);
    let at = Some(Example { side: Which::New, loc: Loc::new("p0.neff", "SP", 1) });
    assert_eq!(d.claims_broken, [ClaimMove { generation: V2, opcode: 0xA4, field: "zero_0c".to_string(), old_broken: 0, new_broken: 1, at }]);
    assert_eq!(d.exit, BIT_CHANGED | BIT_NEW_DISAGREES);
    assert!(d
        .to_markdown("a", "b")
        .contains("## Recovered-layout claims NEW breaks\n\n- v2 `0xa4` NoOp `zero_0c`: broken by 0 bundles in OLD, 1 in NEW\n  - first in NEW: `p0.neff` `SP` [1] +0x40\n"));
    let back = of(&new, &old);
    assert_eq!((back.claims_mended.len(), back.exit), (1, BIT_CHANGED));
    Ok(())
}

#[test]
fn engines_an_opcode_moved_between_are_listed() -> R<()> {
    let d = of(&evidence("1.0", &[("PE", &[copy()?]), ("SP", &[copy()?])]), &evidence("2.0", &[("Pool", &[copy()?]), ("SP", &[copy()?])]));
    let moves: Vec<(&str, bool, u64)> = d.engines.iter().map(|e| (e.engine.as_str(), e.appeared, e.bundles)).collect();
    assert_eq!(moves, [("PE", false, 1), ("Pool", true, 1)]);
    assert_eq!(d.exit, BIT_CHANGED);
    let md = d.to_markdown("a", "b");
    assert!(md.contains("- v2 `0x46` TensorCopy: appeared on `Pool` (1 bundle in NEW)\n  - first in NEW: `p0.neff` `Pool` [0] +0x0\n"), "{md}");
    assert!(md.contains("- v2 `0x46` TensorCopy: vanished from `PE` (1 bundle in OLD)\n  - first in OLD: `p0.neff` `PE` [0] +0x0\n"), "{md}");
    Ok(())
}

#[test]
fn json_that_is_not_evidence_is_refused_saying_why() -> R<()> {
    let ev = evidence("1.0", &[("PE", &[copy()?])]);
    let good = ev.to_json();
    assert!(Summary::from_json(serde_json::to_string(&good)?.as_bytes()).is_ok());
    let refused = |j: &serde_json::Value| Summary::from_json(j.to_string().as_bytes()).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(refused(&serde_json::json!({})).contains("missing field `inputs`"), "{}", refused(&serde_json::json!({})));
    assert!(refused(&serde_json::json!([1, 2])).contains("invalid type"));
    // What `tpb infer --json` writes is JSON, not evidence.
    assert!(refused(&serde_json::json!({"bundles_read": 5, "opcodes": []})).contains("missing field"));
    let mut bad = good.clone();
    bad["groups"][0]["opcode"] = serde_json::json!("0x146");
    assert!(refused(&bad).contains("opcode `0x146` is not a byte"), "{}", refused(&bad));
    let mut bad = good.clone();
    bad["groups"][0]["generation"] = serde_json::json!("v9");
    assert!(refused(&bad).contains("unknown generation `v9`"), "{}", refused(&bad));
    let mut bad = good.clone();
    bad["groups"][0]["bundles"] = serde_json::json!(-1);
    assert!(refused(&bad).contains("invalid value"), "{}", refused(&bad));
    let mut twice = good.clone();
    if let Some(g) = twice["groups"].as_array_mut() {
        let first = g[0].clone();
        g.push(first);
    }
    assert!(refused(&twice).contains("given twice"), "{}", refused(&twice));
    assert!(Summary::from_json(b"not json").is_err());
    assert!(Summary::from_json(&[0u8; BUNDLE_BYTES]).is_err());
    // Keys it does not use are ignored: the format may grow.
    let mut more = good;
    more["tool"] = serde_json::json!("tpb 9");
    more["groups"][0]["new_key"] = serde_json::json!([1]);
    assert!(Summary::from_json(more.to_string().as_bytes()).is_ok());
    Ok(())
}

#[test]
fn strings_from_inputs_cannot_break_out_of_their_code_span() -> R<()> {
    assert_eq!(code("PE"), "`PE`");
    assert_eq!(code("a`b"), "``a`b``");
    assert_eq!(code("`x"), "`` `x ``");
    assert_eq!(code("x\n# forged"), "`x\\n# forged`");
    let old = evidence("1\n# forged", &[("P`E\n- forged", &[copy()?])]);
    let new = evidence("2.0", &[("SP", &[copy()?])]);
    let md = of(&old, &new).to_markdown("old\n## forged", "new");
    assert!(!md.lines().any(|l| l.starts_with("# forged") || l.starts_with("- forged") || l.starts_with("## forged")), "{md}");
    assert!(md.contains("vanished from ``P`E\\n- forged``"), "{md}");
    Ok(())
}

/// A new target's programs against the last release's: the sides share no
/// generation, so they are compared per opcode, and a value only NEW holds is
/// named with its first bundle.
#[test]
fn sides_of_different_generations_are_compared_per_opcode_with_a_bundle_for_each_new_value() -> R<()> {
    let bf16 = <Raw>::try_from(
        tpb_isa::text::assemble("0x46:TensorCopy src.addr=0x100 src.num=[1,1,1,1] src_dtype=bf16 dst_dtype=f32 out.addr=0x200 out.num=[1,1,1,1]")?
            .as_slice(),
    )?;
    let old = evidence("1.0", &[("PE", &[copy()?, copy()?])]);
    let mut new = Evidence::new();
    new.add_member("new/b.neff", "sg00/PE.bin", Some("2.0"), Generation::V3, "PE", &stream(&[copy()?, bare(0xA0)]));
    new.add_member("new/a.neff", "sg01/PE.bin", Some("2.0"), Generation::V3, "PE", &stream(&[copy()?, copy()?, bf16]));
    let d = of(&old, &new);
    assert_eq!(ops(&d.appeared), [(V2, 0xA0, 1)]);
    let v = d.values.iter().find(|v| v.field == "src_dtype").ok_or("src_dtype")?;
    assert_eq!(v.new, [("0x06".to_string(), 1)]);
    // The smallest (file, member, index) holding it: a.neff before b.neff.
    assert_eq!(v.at.get("0x06").map(|e| (e.side, e.loc.clone())), Some((Which::New, Loc::new("new/a.neff", "sg01/PE.bin", 2))));
    let md = d.to_markdown("old", "new");
    assert!(
        md.contains("- v2→v3 `0x46` TensorCopy `src_dtype` +0x20: `0x06` (bf16) ×1\n  - first in NEW: `new/a.neff` `sg01/PE.bin` [2] +0x80\n"),
        "{md}"
    );
    assert!(
        md.contains("- v2→v3 `0xa0` EventSemaphore: 1 bundle in NEW on `PE` ×1\n  - first in NEW: `new/b.neff` `sg00/PE.bin` [1] +0x40\n"),
        "{md}"
    );
    let j = d.to_json("old", "new");
    assert_eq!(j["across_generations"], serde_json::json!({"old": ["v2"], "new": ["v3"]}));
    let first = &j["values"][0]["first"]["0x06"];
    assert_eq!(
        (first["file"].as_str(), first["member"].as_str(), first["index"].as_u64(), first["offset"].as_u64()),
        (Some("new/a.neff"), Some("sg01/PE.bin"), Some(2), Some(128))
    );
    assert_eq!(j["values"][0]["names"]["0x06"], "bf16");
    Ok(())
}

/// Locations do not depend on the order streams were counted or on a JSON round trip.
#[test]
fn the_first_bundle_is_the_same_whatever_the_order_and_through_json() -> R<()> {
    let bf16 = copy_with_src_dtype(0x06)?;
    let count = |order: &[(&str, &[Raw])]| {
        let mut ev = Evidence::new();
        for (file, b) in order {
            ev.add_member(file, "sg00/DVE.bin", Some("2.0"), V2, "DVE", &stream(b));
        }
        ev
    };
    let one: [(&str, &[Raw]); 2] = [("z.neff", &[bf16]), ("a.neff", &[copy()?, bf16])];
    let two: [(&str, &[Raw]); 2] = [one[1], one[0]];
    let (x, y) = (count(&one), count(&two));
    let old = evidence("1.0", &[("DVE", &[copy()?])]);
    let (dx, dy) = (of(&old, &x), of(&old, &y));
    assert_eq!(dx.examples(), dy.examples());
    let back = Summary::from_json(serde_json::to_string(&x.to_json())?.as_bytes())?;
    assert_eq!(diff(&Summary::of(&old), &back).examples(), dx.examples());
    assert!(dx.examples().iter().any(|e| e.loc == Loc::new("a.neff", "sg00/DVE.bin", 1)), "{:?}", dx.examples());
    Ok(())
}

/// A location from an input is escaped where it is printed, and one that names no entry of the table is refused.
#[test]
fn locations_from_inputs_are_escaped_and_checked() -> R<()> {
    let old = evidence("1.0", &[("PE", &[copy()?])]);
    let mut new = Evidence::new();
    new.add_member("evil\n- v2 forged.neff", "sg00/`PE`.bin", Some("2.0"), V2, "PE", &stream(&[copy()?, bare(0xA0)]));
    let md = of(&old, &new).to_markdown("a", "b");
    assert!(!md.lines().any(|l| l.starts_with("- v2 forged")), "{md}");
    assert!(md.contains("evil\\n- v2 forged.neff"), "{md}");
    let mut j = new.to_json();
    j["groups"][0]["first"] = serde_json::json!(999);
    let err = Summary::from_json(j.to_string().as_bytes()).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("location 999 is not in `locations`"), "{err}");
    Ok(())
}
