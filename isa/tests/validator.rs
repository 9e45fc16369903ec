//! Hand-written bundles (in the text format) against the validator.

use tpb_isa::text::asm_line;
use tpb_isa::validate::{self, is_valid, validate, Finding};
use tpb_isa::{Bundle, Generation, Severity};

fn bundle(line: &str) -> Bundle {
    let raw = asm_line(line).expect("assembles").expect("one bundle");
    Bundle::decode(&raw)
}

fn codes(f: &[Finding]) -> Vec<(&str, &str, usize)> {
    f.iter().map(|x| (x.code, x.field.as_str(), x.offset)).collect()
}

const MATMUL: &str = "0x02:MatMul moving.addr=0x00037b00 moving.stride=[1,0,0] moving.num=[128,1,1] in_dtype=f16 \
     dst_dtype_dense=f32 dst_dtype_mx=f32 psum_dst.addr=0x02000000 psum_dst.stride=[1,1,1] psum_dst.num=[128,1,1]";

#[test]
fn clean_matmul_on_every_generation() {
    let b = bundle(MATMUL);
    assert_eq!(codes(&validate(&b, Generation::V3)), vec![]);
    assert_eq!(codes(&validate(&b, Generation::V4)), vec![]);
}

#[test]
fn dense_dst_dtype_moves_with_the_generation() {
    let b = bundle(&MATMUL.replace("dst_dtype_dense=f32", "dst_dtype_dense=0x00"));
    assert_eq!(codes(&validate(&b, Generation::V3)), vec![("invalid-dtype", "dst_dtype_dense", 0x23)]);
    assert!(validate(&b, Generation::V4).is_empty(), "CoreV4 reads +0x28 instead");
    let b = bundle(&MATMUL.replace("dst_dtype_mx=f32", "dst_dtype_mx=0x00"));
    assert_eq!(codes(&validate(&b, Generation::V4)), vec![("invalid-dtype", "dst_dtype_mx", 0x28)]);
}

#[test]
fn matmul_destination_must_be_psum() {
    let b = bundle(&MATMUL.replace("psum_dst.addr=0x02000000", "psum_dst.addr=0x00001000"));
    let f = validate(&b, Generation::V3);
    assert_eq!(codes(&f), vec![("matmul-dst-not-psum", "psum_dst.addr", 0x30)]);
    assert_eq!(f[0].severity, Severity::Error);
    assert!(!is_valid(&f));
}

#[test]
fn bf16_nc_form_is_a_matmul_privilege() {
    let b = bundle(&MATMUL.replace("dst_dtype_dense=f32", "dst_dtype_dense=bf16"));
    assert!(validate(&b, Generation::V3).is_empty());
    let act = bundle("0x21:Activation src.addr=0x100 src.num=[1,1,1] in_dtype=bf16 out_dtype=bf16 dst.addr=0x02000000 dst.num=[1,1,1]");
    assert_eq!(codes(&validate(&act, Generation::V2)), vec![("psum-write-dtype", "dst.addr", 0x30)]);
}

#[test]
fn unknown_opcode_is_the_only_finding() {
    let b = bundle("0xb1:unknown");
    assert_eq!(codes(&validate(&b, Generation::V3)), vec![("unknown-opcode", "opcode", 0)]);
}

#[test]
fn saturate_length_only_for_quantize_mx_on_v4() {
    let q = bundle("0xe3:QuantizeMx inst_word_len=0x11");
    assert!(validate(&q, Generation::V4).is_empty());
    let f = validate(&q, Generation::V3);
    assert_eq!(codes(&f), vec![("opcode-unavailable", "opcode", 0)]);
    let n = bundle("0xa4:NoOp inst_word_len=0x11");
    assert_eq!(codes(&validate(&n, Generation::V3)), vec![("inst-word-len", "inst_word_len", 1)]);
}

#[test]
fn strong_family_assignment_caps_severity() {
    // 0x47's Family C body is STRONG, so a broken slot rule there is a warning.
    let b = bundle("0x47:TensorCopyCast src.addr=0x100 src.num=[1,1,1,0] src_dtype=f32 dst_dtype=f32 out.addr=0x200 out.num=[1,1,1,1]");
    let f = validate(&b, Generation::V2);
    assert_eq!(codes(&f), vec![("zero-num", "src.num[3]", 0x1E)]);
    assert_eq!(f[0].severity, Severity::Warning);
    assert!(is_valid(&f));
}

#[test]
fn register_mode_rules() {
    let ok = "0x41:TensorTensor in_dtype_nibbles=f32/f32 out_dtype=f32 alu_op=add dst.addr=0x80000003 dst.num=[1,1,1] \
              in0.addr=0x100 in0.num=[1,1,1] in1.addr=0x200 in1.num=[1,1,1]";
    assert!(validate(&bundle(ok), Generation::V2).is_empty());
    let bad_id = bundle(&ok.replace("0x80000003", "0x80000040"));
    assert_eq!(codes(&validate(&bad_id, Generation::V2)), vec![("register-id", "dst.addr", 0x10)]);
    let bad_bits = bundle(&ok.replace("0x80000003", "0x80010003"));
    assert_eq!(codes(&validate(&bad_bits, Generation::V2)), vec![("register-reserved-bits", "dst.addr", 0x10)]);
}

#[test]
fn gather_slot_reads_as_indirect() {
    // Index ADDR4 in indirect mode: the static num region is inert, so num 0 is not a finding.
    let b = bundle(
        "0x41:TensorTensor in_dtype_nibbles=f32/f32 out_dtype=f32 alu_op=add dst.addr=0x100 dst.num=[1,1,1] \
                    in0.addr=0x20000100 in0.stride=[0x200,0,0] in0.num=[0,0,0] in1.addr=0x200 in1.num=[1,1,1]",
    );
    assert!(validate(&b, Generation::V2).is_empty());
    let dead_data = bundle(
        "0x41:TensorTensor in_dtype_nibbles=f32/f32 out_dtype=f32 alu_op=add dst.addr=0x100 dst.num=[1,1,1] \
                    in0.addr=0x20000100 in0.stride=[0,0x6000,0] in0.num=[0,0,0] in1.addr=0x200 in1.num=[1,1,1]",
    );
    assert_eq!(codes(&validate(&dead_data, Generation::V2)), vec![("dead-addr-mode", "in0.data", 0x24)]);
}

#[test]
fn pool_band() {
    let ok = "0x45:Pool src.addr=0x100 src.num=[1,1,1,1] src_dtype=f32 dst_dtype=f32 func=max mode=3 scale_or_fill=0x3f800000 out.addr=0x200 out.num=[1,1,1,1]";
    assert!(validate(&bundle(ok), Generation::V2).is_empty());
    let avg = bundle(&ok.replace("func=max", "func=avg").replace("0x3f800000", "0x3e800000"));
    assert!(validate(&avg, Generation::V2).is_empty(), "1/4 is a valid avg scale");
    let bad = bundle(&ok.replace("0x3f800000", "0x3f000000"));
    let found = validate(&bad, Generation::V2);
    assert_eq!(codes(&found), vec![("pool-scale", "scale_or_fill", 0x28)]);
    // The message says which rule: max wants 1.0 exactly, avg a reciprocal in (0, 1].
    assert_eq!(found[0].message, "max pool scale is 0x3f000000, not 1.0");
    let avg_bad = validate(&bundle(&ok.replace("func=max", "func=avg").replace("0x3f800000", "0x40000000")), Generation::V2);
    assert_eq!(avg_bad.iter().map(|f| f.message.as_str()).collect::<Vec<_>>(), ["avg pool scale 2 is not a reciprocal in (0, 1]"]);
}

#[test]
fn mx_rules_on_v4() {
    let ok = "0x0a:MatMulMx moving.data=0x00000100 moving.scale=0x00000200 moving.k_extent=32 moving.step_dir=0x01 \
              moving.scale_base_part=5 in_dtype=f8e4m3 dst_dtype_mx=f32 psum_dst.addr=0x02000000 psum_dst.num=[1,1,1]";
    assert!(validate(&bundle(ok), Generation::V4).is_empty());
    let psum_scale = bundle(&ok.replace("moving.scale=0x00000200", "moving.scale=0x02000200"));
    assert_eq!(codes(&validate(&psum_scale, Generation::V4)), vec![("mx-scale-not-sbuf", "moving.scale", 0x14)]);
    let part = bundle(&ok.replace("scale_base_part=5", "scale_base_part=128"));
    assert_eq!(codes(&validate(&part, Generation::V4)), vec![("mx-scale-part-range", "moving.scale_base_part", 0x1B)]);
    let f = validate(&bundle(ok), Generation::V2);
    assert_eq!(codes(&f), vec![("opcode-unavailable", "opcode", 0)]);
}

#[test]
fn findings_serialize_with_the_cli_fields() {
    let b = bundle(&MATMUL.replace("in_dtype=f16", "in_dtype=0x00"));
    let f = validate(&b, Generation::V3);
    let v = serde_json::to_value(&f[0]).expect("serializes");
    for k in ["code", "field", "offset", "severity", "message", "section"] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    assert_eq!(v["severity"], "error");
}

/// Valid, single-fault and random bundles of every generation, then a
/// trailing partial bundle: more than one batch of the stream functions,
/// and a last partial batch.
fn mixed_stream() -> Vec<u8> {
    use tpb_isa::{props, smith, BUNDLE_BYTES};
    let mut stream = Vec::new();
    for seed in 0..600u64 {
        let bytes = props::seeded_bytes(seed, 512);
        let mut u = arbitrary::Unstructured::new(&bytes);
        for g in Generation::ALL {
            if let Ok(b) = smith::bundle(&mut u, g) {
                stream.extend_from_slice(&b.encode());
                if let Ok(Some(m)) = smith::mutate(&mut u, &b, g) {
                    stream.extend_from_slice(&m.bundle.encode());
                }
            }
        }
        stream.extend_from_slice(&props::seeded_bytes(seed ^ 0xbad, BUNDLE_BYTES));
    }
    // An odd count: whatever the (power-of-two) batch size, the last batch is partial.
    if (stream.len() / BUNDLE_BYTES).is_multiple_of(2) {
        stream.extend_from_slice(&props::seeded_bytes(0x0dd, BUNDLE_BYTES));
    }
    stream.extend_from_slice(&[0xA4, 0x10, 0, 0]);
    stream
}

/// Findings of every whole bundle of `stream`, validated one by one.
fn one_by_one(stream: &[u8], g: Generation) -> Vec<(usize, validate::Finding)> {
    let mut found = Vec::new();
    for (i, raw) in stream.chunks_exact(tpb_isa::BUNDLE_BYTES).enumerate() {
        let Some(b) = Bundle::decode_slice(raw) else { continue };
        found.extend(validate::validate(&b, g).into_iter().map(|f| (i, f)));
    }
    found
}

#[test]
fn a_stream_validates_like_its_bundles_one_by_one() {
    let stream = mixed_stream();
    let whole = stream.len() / tpb_isa::BUNDLE_BYTES;
    assert!(whole > 1000 && whole % 2 == 1, "{whole} bundles: want many batches and a partial one");
    for g in Generation::ALL {
        let mut streamed = Vec::new();
        let n = validate::validate_stream(&stream, g, |i, f| streamed.push((i, f)));
        assert_eq!(n, whole, "{g}: bundles read");
        let expected = one_by_one(&stream, g);
        assert!(expected.len() > 1000, "{g}: too few findings to compare ({})", expected.len());
        assert_eq!(streamed, expected, "{g}");
    }
}

#[test]
fn a_decoded_stream_gives_every_bundle_with_its_findings() {
    let stream = mixed_stream();
    for g in Generation::ALL {
        let (mut bundles, mut found) = (Vec::new(), Vec::new());
        let n = validate::decode_stream(&stream, g, |i, b, f| {
            bundles.push((i, *b));
            found.extend(f.iter().cloned().map(|f| (i, f)));
        });
        let expected: Vec<_> = stream.chunks_exact(tpb_isa::BUNDLE_BYTES).filter_map(Bundle::decode_slice).enumerate().collect();
        assert_eq!(n, expected.len(), "{g}: bundles read");
        assert_eq!(bundles, expected, "{g}: every bundle, in order, decoded");
        assert_eq!(found, one_by_one(&stream, g), "{g}");
    }
}

#[test]
fn a_gather_index_must_lie_in_memory_in_pattern_and_mx_slots() {
    const OUTSIDE: u32 = 0x3e00_0100; // indirect mode, region bits set outside the PSUM window
    let pattern = "0x41:TensorTensor in_dtype_nibbles=f32/f32 out_dtype=f32 alu_op=add dst.addr=0x100 dst.num=[1,1,1] \
                   in0.addr=0x20000100 in0.num=[0,0,0] in1.addr=0x200 in1.num=[1,1,1]";
    assert!(validate(&bundle(pattern), Generation::V2).is_empty());
    let far = bundle(&pattern.replace("in0.addr=0x20000100", &format!("in0.addr={OUTSIDE:#010x}")));
    assert_eq!(codes(&validate(&far, Generation::V2)), vec![("address-outside-memory", "in0.addr", 0x20)]);

    // An MX operand whose first word is indirect reads as MXINDIRECT16B: index, data, scale, k_extent, spare, part.
    let mx = "0x0A:MatMulMx moving.data=0x00020000 moving.scale=0x00028000 moving.k_extent=128 moving.step_dir=0x01 \
              moving.scale_base_part=0 in_dtype=f4e2m1x4 dst_dtype_mx=f32 accumulate=0x03 psum_zero_region=11 \
              psum_dst.addr=0x02000000 psum_dst.stride=[1,1,1] psum_dst.num=[128,1,1]";
    let mut raw = asm_line(mx).expect("assembles").expect("one bundle");
    let gather = |raw: &mut [u8; 64], index: u32| {
        raw[0x10..0x14].copy_from_slice(&index.to_le_bytes());
        raw[0x14..0x18].copy_from_slice(&0x0002_0000u32.to_le_bytes());
        raw[0x18..0x1C].copy_from_slice(&0x0002_8000u32.to_le_bytes());
        raw[0x1C..0x20].copy_from_slice(&[8, 0, 0, 0]);
    };
    gather(&mut raw, 0x2000_0100);
    assert_eq!(codes(&validate(&Bundle::decode(&raw), Generation::V4)), vec![]);
    gather(&mut raw, OUTSIDE);
    assert_eq!(codes(&validate(&Bundle::decode(&raw), Generation::V4)), vec![("address-outside-memory", "moving.index", 0x10)]);
}

/// Two rules broken at once are both reported, also when their bits
/// coincide: a PSUM write of a 2-byte dtype at an odd address (the
/// alignment bit and the always-fails bit are both bit 0), and a register
/// operand with reserved bit 15 set whose first num is zero (the reserved
/// bit and the zero-num lane's high bit are both bit 15). The fast path
/// folds such rules into one word; a fold that could cancel would pass
/// these bundles as clean.
#[test]
fn coinciding_violations_are_all_reported() {
    let psum_odd = bundle(
        "0x41:TensorTensor in_dtype_nibbles=f32/f32 out_dtype=bf16 alu_op=add dst.addr=0x02000001 dst.num=[1,1,1] \
         in0.addr=0x100 in0.num=[1,1,1] in1.addr=0x200 in1.num=[1,1,1]",
    );
    let findings = validate(&psum_odd, Generation::V2);
    let found = codes(&findings);
    assert!(found.contains(&("psum-write-dtype", "dst.addr", 0x10)), "{found:?}");
    assert!(found.contains(&("misaligned-address", "dst.addr", 0x10)), "{found:?}");

    let pool = "0x45:Pool src.addr=0x80000003 src.num=[1,2,2,2] src_dtype=f32 dst_dtype=f32 func=max mode=3 \
                scale_or_fill=0x3f800000 out.addr=0x200 out.num=[1,1,1,1]";
    assert!(validate(&bundle(pool), Generation::V2).is_empty());
    let both = bundle(&pool.replace("0x80000003", "0x80008003").replace("src.num=[1,2,2,2]", "src.num=[0,2,2,2]"));
    let findings = validate(&both, Generation::V2);
    let found = codes(&findings);
    assert!(found.iter().any(|f| f.0 == "register-reserved-bits"), "{found:?}");
    assert!(found.iter().any(|f| f.0 == "zero-num"), "{found:?}");
}
