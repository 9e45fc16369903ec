//! The amended profile on hand-made bundles: what each kind of erratum
//! accepts, and the narrow edges where it still refuses.

use tpb_isa::errata::Profile;
use tpb_isa::validate::{self, Finding};
use tpb_isa::{Bundle, Generation, Severity};

/// A bundle of `op` with every num of its slots 1, and the bytes `set`.
fn bundle(op: u8, set: &[(usize, u8)]) -> Bundle {
    let mut raw = [0u8; 64];
    raw[0] = op;
    raw[1] = 0x10;
    let layout = Bundle::decode(&raw).layout();
    for leaf in layout.leaves().iter().filter(|l| l.path.ends_with(".num")) {
        for i in 0..leaf.len.unwrap_or(1) {
            raw[leaf.offset + 2 * i] = 1;
        }
    }
    for &(at, v) in set {
        raw[at] = v;
    }
    Bundle::decode(&raw)
}

fn amended(b: &Bundle, g: Generation) -> Vec<Finding> {
    validate::validate_as(b, g, Profile::Amended)
}

fn refused(f: &[Finding]) -> Vec<(&str, &str)> {
    f.iter().filter(|x| x.severity != Severity::Note).map(|x| (x.code, x.field.as_str())).collect()
}

#[test]
fn an_unnamed_opcode_of_real_programs_is_a_note_and_a_byte_no_program_writes_an_error() {
    for g in Generation::ALL {
        for op in [0x72, 0x8C, 0xB1, 0xCC] {
            let b = bundle(op, &[]);
            let f = amended(&b, g);
            assert_eq!(f.len(), 1, "{g} {op:#04x}");
            // The opcode byte means the same on every generation: a note on v4 too, where no real program was seen.
            assert_eq!((f[0].severity, f[0].erratum), (Severity::Note, Some("unnamed-opcodes")), "{g} {op:#04x}");
            // The spec alone refuses it.
            assert_eq!(validate::validate_as(&b, g, Profile::Spec)[0].severity, Severity::Error);
        }
        assert_eq!(refused(&amended(&bundle(0x8D, &[]), g)), [("unknown-opcode", "opcode")], "{g}");
    }
    // A byte in no table and no program stays an error.
    assert_eq!(refused(&amended(&bundle(0x00, &[]), Generation::V2)), [("unknown-opcode", "opcode")]);
}

#[test]
fn semaphore_zero_means_no_wait_only_with_the_wait_fields_zero() {
    // cmp_op 0 (no wait), subtype 0x13 (inc): clean but for the note.
    let b = bundle(0xA0, &[(0x22, 0x13)]);
    let f = amended(&b, Generation::V3);
    assert!(refused(&f).is_empty(), "{f:#?}");
    assert_eq!(f.iter().filter_map(|x| x.erratum).collect::<Vec<_>>(), ["semaphore-no-wait"]);
    let b = bundle(0xA0, &[(0x22, 0x13), (0x24, 5)]);
    assert_eq!(refused(&amended(&b, Generation::V3)), [("semaphore-cmp-op", "cmp_op")]);
}

#[test]
fn activation_nibbles_type_the_source_by_the_low_tag() {
    // +0x20 = 0xaa (f32, f32): accepted; the src slot is then checked as f32.
    let aligned = bundle(0x21, &[(0x20, 0xAA), (0x21, 0x0A), (0x10, 0x40)]);
    let f = amended(&aligned, Generation::V2);
    assert!(refused(&f).is_empty(), "{f:#?}");
    let misaligned = bundle(0x21, &[(0x20, 0xAA), (0x21, 0x0A), (0x10, 0x42)]);
    let f = amended(&misaligned, Generation::V2);
    assert_eq!(refused(&f), [("misaligned-address", "src.addr")], "{f:#?}");
    // Under the spec alone 0xaa is no tag at all, so the alignment is never checked.
    let spec = validate::validate_as(&misaligned, Generation::V2, Profile::Spec);
    assert_eq!(spec.iter().map(|x| x.code).collect::<Vec<_>>(), ["invalid-dtype"]);
    // A zero nibble is no tag.
    assert_eq!(refused(&amended(&bundle(0x21, &[(0x20, 0xA0), (0x21, 0x0A)]), Generation::V2)), [("invalid-dtype", "in_dtype")]);
}

#[test]
fn memset_output_is_typed_by_the_source_dtype_byte() {
    // dst_dtype 0, +0x20 = f32: the output at +0x2C must be 4-byte aligned.
    let ok = bundle(0x49, &[(0x20, 0x0A), (0x2C, 0x40)]);
    assert!(refused(&amended(&ok, Generation::V2)).is_empty());
    let bad = bundle(0x49, &[(0x20, 0x0A), (0x2C, 0x42)]);
    assert_eq!(refused(&amended(&bad, Generation::V2)), [("misaligned-address", "out.addr")]);
    // A non-zero dst_dtype that is no tag is refused as the spec refuses it.
    let f = amended(&bundle(0x49, &[(0x20, 0x0A), (0x21, 0x20), (0x2C, 0x40)]), Generation::V2);
    assert_eq!(refused(&f), [("invalid-dtype", "dst_dtype")]);
}

#[test]
fn findings_appended_bundle_after_bundle_are_each_bundles_own() {
    // A caller (the CLI, conform) appends every bundle's findings to one list: each bundle's
    // part is amended on its own, and a finding that repeats an earlier bundle's is kept.
    let misaligned = bundle(0x21, &[(0x20, 0xAA), (0x21, 0x0A), (0x10, 0x42)]);
    let cases = [
        (misaligned, Generation::V2),
        (bundle(0xA0, &[(0x22, 0x13)]), Generation::V3),
        (bundle(0x49, &[(0x20, 0x0A), (0x2C, 0x42)]), Generation::V2),
        (misaligned, Generation::V2),
        (bundle(0xB1, &[]), Generation::V2),
    ];
    let mut all = Vec::new();
    let mut each = Vec::new();
    for (b, g) in &cases {
        validate::validate_into_as(b, *g, Profile::Amended, &mut all);
        each.extend(amended(b, *g));
    }
    assert_eq!(all, each);
    assert!(all.iter().filter(|f| f.erratum.is_some()).count() >= 5, "{all:#?}");
}

#[test]
fn a_slot_read_at_its_corrected_place_is_checked_with_its_dtype() {
    // Max8 on v2: `out` read as TENSOR2D at +0x30 (the spec's +0x2C word zero, its num[2..4] zero).
    // The slot is checked again there, typed by dst_dtype (f32): an address off 4-byte alignment is refused.
    let set = |addr: u8| [(0x20, 0x0A), (0x21, 0x0A), (0x30, addr), (0x3C, 0), (0x3E, 0)];
    let misaligned = amended(&bundle(0x6C, &set(0x42)), Generation::V2);
    let out_addr: Vec<_> = misaligned.iter().filter(|f| f.field == "out.addr" && f.severity != Severity::Note).map(|f| (f.code, f.offset)).collect();
    assert_eq!(out_addr, [("misaligned-address", 0x30)], "{misaligned:#?}");
    let aligned = amended(&bundle(0x6C, &set(0x40)), Generation::V2);
    assert!(aligned.iter().any(|f| f.erratum == Some("max8-out-2d-at-0x30")), "{aligned:#?}");
    assert!(!aligned.iter().any(|f| f.field == "out.addr" && f.severity != Severity::Note), "{aligned:#?}");
}

#[test]
fn findings_of_a_slot_read_at_its_corrected_place_name_its_fields_there() {
    // Max8's `out` read as TENSOR2D at +0x30: its num[0] is at +0x38, where the spec's
    // MEM_PATTERN4D has its num[0] too, so a zero there is one finding, not two.
    let set = [(0x20, 0x0A), (0x21, 0x0A), (0x30, 0x40), (0x38, 0), (0x3C, 0), (0x3E, 0)];
    let f = amended(&bundle(0x6C, &set), Generation::V2);
    assert!(f.iter().any(|x| x.erratum == Some("max8-out-2d-at-0x30")), "{f:#?}");
    let num0: Vec<_> = f.iter().filter(|x| x.field == "out.num[0]").map(|x| (x.code, x.offset)).collect();
    assert_eq!(num0, [("zero-num", 0x38)], "{f:#?}");
}

#[test]
fn each_profile_is_named_in_text_as_in_json() {
    for (p, name) in [(Profile::Amended, "amended"), (Profile::Spec, "spec")] {
        assert_eq!(p.as_str(), name);
        assert_eq!(serde_json::to_value(p).ok(), Some(serde_json::Value::from(name)), "{name}");
    }
    assert_eq!(Profile::default(), Profile::Amended, "the spec amended by the errata unless asked");
}

#[test]
fn a_matmul_without_a_destination_dtype_is_a_note_where_each_generation_reads_it() {
    // Every real MatMul leaves +0x23 and +0x28 zero; v2/v3 read the dtype at +0x23, v4 at +0x28.
    let b = bundle(0x02, &[]);
    for g in Generation::ALL {
        let f = amended(&b, g);
        let dtype: Vec<&Finding> = f.iter().filter(|x| x.code == "invalid-dtype" && x.field.starts_with("dst_dtype")).collect();
        assert!(!dtype.is_empty(), "{g}: the spec alone refuses a zero destination dtype");
        assert!(dtype.iter().all(|x| x.erratum == Some("matmul-dst-dtype-zero")), "{g}: {dtype:#?}");
    }
    // A non-zero tag outside the table stays an error.
    let bad = bundle(0x02, &[(0x28, 0x33)]);
    assert!(refused(&amended(&bad, Generation::V4)).contains(&("invalid-dtype", "dst_dtype_mx")));
}

/// `judge_stream` decides a bundle whose only findings are band bytes from
/// the placed errata, without the reporting checks: on generated valid
/// bundles of every opcode with byte rules, each band byte (and the bytes
/// the semaphore errata tie to it) swept over every value, its verdict is
/// `validate_as`'s under both profiles.
#[test]
fn verdicts_of_band_bytes_match_the_reporting_checks() {
    let mut raws: Vec<[u8; 64]> = Vec::new();
    let band_fields = ["perf_sel", "row_group", "col_group_norm", "op0", "op1", "alu_op", "cmp_op", "subtype", "wait_idx", "act_idx"];
    for g in Generation::ALL {
        for seed in 0..4000u64 {
            let bytes = tpb_isa::props::seeded_bytes(seed ^ 0x5eed, 256);
            let Ok(b) = tpb_isa::smith::bundle(&mut arbitrary::Unstructured::new(&bytes), g) else { continue };
            let layout = b.layout();
            let fields: Vec<(usize, usize)> = band_fields.iter().filter_map(|f| layout.resolve(f)).filter(|&(_, size)| size == 1).collect();
            if fields.is_empty() || raws.len() > 200_000 {
                continue;
            }
            let raw = b.encode();
            for (at, _) in fields {
                for v in 0..=u8::MAX {
                    let mut r = raw;
                    r[at] = v;
                    raws.push(r);
                }
            }
        }
    }
    assert!(raws.len() > 10_000, "only {} swept bundles", raws.len());
    let stream: Vec<u8> = raws.iter().flatten().copied().collect();
    for g in Generation::ALL {
        for profile in [Profile::Spec, Profile::Amended] {
            let mut got = Vec::new();
            validate::judge_stream(&stream, g, profile, |_, valid| got.push(valid));
            let want: Vec<bool> = raws.iter().map(|r| validate::is_valid(&validate::validate_as(&Bundle::decode(r), g, profile))).collect();
            assert!(got == want, "{g} {}: judge_stream differs from validate_as", profile.as_str());
            if profile == Profile::Amended {
                // The sweep reaches both sides: values the errata amend, and values still refused.
                assert!(got.iter().any(|v| *v) && got.iter().any(|v| !*v), "{g}: one-sided sweep");
            }
        }
    }
}

/// Every kernel's `judge_stream` gives `validate_as`'s verdict where the errata
/// decide by one byte (the amended fast-path tables fold those in): on
/// generated bundles of every opcode an erratum names, each one-byte field an
/// erratum lists, each slot's dtype byte, every byte of the fields an erratum's
/// condition reads and the low and top byte of a listed address swept over
/// every value, under both profiles.
#[test]
fn verdicts_of_every_value_of_the_bytes_the_errata_read_match_the_reporting_checks() {
    use tpb_isa::errata::{Accepts, ERRATA};
    use tpb_isa::validate::Kernel;
    let mut raws: Vec<[u8; 64]> = Vec::new();
    let mut ops = std::collections::BTreeSet::new();
    for g in Generation::ALL {
        let mut per_op = std::collections::HashMap::new();
        for seed in 0..20_000u64 {
            let bytes = tpb_isa::props::seeded_bytes(seed ^ 0xe77a, 256);
            let Ok(b) = tpb_isa::smith::bundle(&mut arbitrary::Unstructured::new(&bytes), g) else { continue };
            let op = b.opcode();
            let named = || ERRATA.iter().filter(|e| e.amends.opcodes.contains(&op) && e.amends.generations.contains(&g));
            let layout = b.layout();
            let mut fields: Vec<usize> = named()
                .flat_map(|e| e.amends.fields.listed().iter().filter_map(|f| layout.resolve(f)))
                .filter(|&(_, size)| size == 1)
                .map(|(at, _)| at)
                .collect();
            // The fields an erratum reads besides the finding's: every byte of each (the fast path folds
            // the semaphore's wait and action fields and TensorTensor's out_dtype); a listed address's low and top byte.
            for e in named() {
                let read: Vec<&str> = match e.accepts {
                    Accepts::Values { all } => all.iter().map(|c| c.field).filter(|f| !f.is_empty()).collect(),
                    Accepts::AlignedTo { by } => vec![by],
                    _ => vec![],
                };
                fields.extend(read.iter().filter_map(|f| layout.resolve(f)).flat_map(|(at, size)| at..at + size));
                let words = e.amends.fields.listed().iter().filter_map(|f| layout.resolve(f)).filter(|&(_, size)| size == 4);
                fields.extend(words.flat_map(|(at, _)| [at, at + 3]));
            }
            if fields.is_empty() {
                continue;
            }
            let n = per_op.entry(op).or_insert(0);
            if *n >= 3 {
                continue;
            }
            *n += 1;
            ops.insert(op);
            fields.extend(tpb_isa::operands::placed(op).iter().filter_map(|p| p.dtype_at[g.index()]));
            fields.sort_unstable();
            fields.dedup();
            let raw = b.encode();
            for at in fields {
                for v in 0..=u8::MAX {
                    let mut r = raw;
                    r[at] = v;
                    raws.push(r);
                }
            }
        }
    }
    assert!([0x01, 0x02, 0x21, 0x41, 0x49, 0xA0].iter().all(|op| ops.contains(op)), "opcodes swept: {ops:02x?}");
    let stream: Vec<u8> = raws.iter().flatten().copied().collect();
    for g in Generation::ALL {
        for profile in [Profile::Spec, Profile::Amended] {
            let want: Vec<bool> = raws.iter().map(|r| validate::is_valid(&validate::validate_as(&Bundle::decode(r), g, profile))).collect();
            for kernel in Kernel::available_kernels() {
                let mut got = Vec::new();
                validate::judge_stream_with(kernel, &stream, g, profile, |_, valid| got.push(valid));
                let differ = got.iter().zip(&want).position(|(a, b)| a != b);
                assert!(
                    differ.is_none(),
                    "{g} {} on {}: judge_stream differs from validate_as at {differ:?}: {:02x?}",
                    profile.as_str(),
                    kernel.label(),
                    differ.map(|i| raws[i])
                );
            }
            assert!(want.iter().any(|v| *v) && want.iter().any(|v| !*v), "{g}: one-sided sweep");
        }
    }
}
