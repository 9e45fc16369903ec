//! Every layout against the offsets and sizes the spec gives.

use tpb_isa::bundle::*;
use tpb_isa::catalog;
use tpb_isa::descriptor::*;
use tpb_isa::layout::{Layout, LeafFmt, Prim};

fn at(l: &Layout, path: &str) -> (usize, usize) {
    l.resolve(path).unwrap_or_else(|| panic!("{}: no field {path}", l.name))
}

#[test]
fn descriptor_sizes_follow_the_4_plus_4n_rule() {
    assert_eq!(Tensor1d::LAYOUT.size, pattern_size(1));
    assert_eq!(Tensor2d::LAYOUT.size, pattern_size(2));
    assert_eq!(Tensor3d::LAYOUT.size, pattern_size(3));
    assert_eq!(Tensor4d::LAYOUT.size, pattern_size(4));
    assert_eq!([8, 12, 16, 20], [1, 2, 3, 4].map(pattern_size));
    assert_eq!(MxMemPattern1d::LAYOUT.size, 16);
    assert_eq!(MxIndirect16b::LAYOUT.size, 16);
    assert_eq!(Indirect16b::LAYOUT.size, 16);
    assert_eq!(Indirect20b::LAYOUT.size, 20);
}

#[test]
fn named_values_are_bytes() {
    // The text format prints a dtype, a dtype pair or an enum value by name only
    // from one byte (`text::disasm` has no case for a wider named field).
    let mut named = 0;
    for layout in catalog::layouts() {
        for leaf in layout.leaves() {
            if matches!(leaf.fmt, LeafFmt::Dtype | LeafFmt::DtypeNibbles | LeafFmt::Enum(_)) {
                assert_eq!((leaf.prim, leaf.len), (Prim::U8, None), "{}.{}", layout.name, leaf.path);
                named += 1;
            }
        }
    }
    assert!(named > 20, "only {named} named fields");
}

#[test]
fn a_pattern_slot_reads_as_the_tensor_of_its_dims() {
    // Two, three and four dims; a slot the tables give no other count reads as 3-D.
    let names = [2, 3, 4, 0].map(|d| pattern_layout(d).name);
    assert_eq!(names, ["Tensor2d", "Tensor3d", "Tensor4d", "Tensor3d"]);
    assert_eq!([2, 3, 4].map(|d| pattern_layout(d).size), [2, 3, 4].map(pattern_size));
}

#[test]
fn strides_then_nums_as_separate_arrays() {
    assert_eq!(at(&Tensor1d::LAYOUT, "stride0"), (4, 2));
    assert_eq!(at(&Tensor1d::LAYOUT, "num0"), (6, 2));
    assert_eq!(at(&Tensor2d::LAYOUT, "num"), (8, 4));
    assert_eq!(at(&Tensor3d::LAYOUT, "stride[2]"), (8, 2));
    assert_eq!(at(&Tensor3d::LAYOUT, "num[0]"), (0x0A, 2));
    assert_eq!(at(&Tensor4d::LAYOUT, "stride[3]"), (0x0A, 2));
    assert_eq!(at(&Tensor4d::LAYOUT, "num[0]"), (0x0C, 2));
    assert_eq!(at(&Tensor4d::LAYOUT, "num[3]"), (0x12, 2));
}

#[test]
fn mem_patterns_have_the_sizes_the_binary_asserts() {
    // The library's .rodata asserts "ISA mem pattern ND must have 4+4N bytes to encode"
    // (12, 16, 20); the C names are the ones its symbol table lists.
    for (mp, dims, bytes, c_name) in [
        (&MemPattern2d::LAYOUT, 2, 12, "NEURON_ISA_TPB_MEM_PATTERN2D"),
        (&MemPattern3d::LAYOUT, 3, 16, "NEURON_ISA_TPB_MEM_PATTERN3D"),
        (&MemPattern4d::LAYOUT, 4, 20, "NEURON_ISA_TPB_MEM_PATTERN4D"),
    ] {
        assert_eq!((mp.size, pattern_size(dims)), (bytes, bytes), "{c_name}");
        assert_eq!(mp.c_name, c_name);
        assert_eq!(at(mp, "num").1, 2 * dims, "{c_name}: one 16-bit num per dim");
    }
}

#[test]
fn mx_and_gather_descriptors() {
    let mx = &MxMemPattern1d::LAYOUT;
    assert_eq!(at(mx, "scale"), (4, 4));
    assert_eq!(at(mx, "k_extent"), (8, 2));
    assert_eq!(at(mx, "step_dir"), (0x0A, 1));
    assert_eq!(at(mx, "scale_base_part"), (0x0B, 1));
    let mi = &MxIndirect16b::LAYOUT;
    assert_eq!(at(mi, "scale"), (8, 4));
    assert_eq!(at(mi, "k_extent"), (0x0C, 2));
    assert_eq!(at(mi, "scale_base_part"), (0x0F, 1));
    assert_eq!(at(&Indirect16b::LAYOUT, "num"), (8, 2));
    assert_eq!(at(&Indirect20b::LAYOUT, "_inert"), (0x0A, 10));
}

#[test]
fn family_a_slots_and_control_band() {
    let m = &MatmulBundle::LAYOUT;
    assert_eq!(at(m, "moving.addr"), (0x10, 4));
    assert_eq!(at(m, "in_dtype"), (0x20, 1));
    assert_eq!(at(m, "dst_dtype_dense"), (0x23, 1));
    assert_eq!(at(m, "dst_dtype_mx"), (0x28, 1));
    assert_eq!(at(m, "accumulate"), (0x2B, 1));
    assert_eq!(at(m, "psum_zero_region"), (0x2F, 1));
    assert_eq!(at(m, "psum_dst.addr"), (0x30, 4));
    assert_eq!(at(m, "psum_dst.num[2]"), (0x3E, 2));
    let x = &MatmulMxBundle::LAYOUT;
    assert_eq!(at(x, "moving.k_extent"), (0x18, 2));
    assert_eq!(at(x, "dst_dtype_mx"), (0x28, 1));
    let a = &ActivationBundle::LAYOUT;
    assert_eq!(at(a, "out_dtype"), (0x21, 1));
    assert_eq!(at(a, "act_tbl_sel"), (0x23, 1));
    assert_eq!(at(a, "dst.addr"), (0x30, 4));
    let t = &TensorScalarBundle::LAYOUT;
    assert_eq!(at(t, "scalar_base"), (0x22, 1));
    assert_eq!(at(t, "op0"), (0x24, 1));
    assert_eq!(at(t, "op1"), (0x25, 1));
    assert_eq!(at(t, "reverse"), (0x26, 1));
}

#[test]
fn family_b_and_c() {
    let b = &TensorTensorBundle::LAYOUT;
    assert_eq!(at(b, "in_dtype_nibbles"), (0x0C, 1));
    assert_eq!(at(b, "alu_op"), (0x0E, 1));
    assert_eq!(at(b, "dst.addr"), (0x10, 4));
    assert_eq!(at(b, "in0.addr"), (0x20, 4));
    assert_eq!(at(b, "in1.num[2]"), (0x3E, 2));
    let c = &PoolCopyBundle::LAYOUT;
    assert_eq!(at(c, "src.addr"), (0x0C, 4));
    assert_eq!(at(c, "src_dtype"), (0x20, 1));
    assert_eq!(at(c, "func"), (0x24, 1));
    assert_eq!(at(c, "mode"), (0x25, 1));
    assert_eq!(at(c, "scale_or_fill"), (0x28, 4));
    assert_eq!(at(c, "out.addr"), (0x2C, 4));
    assert_eq!(at(c, "out.num[3]"), (0x3E, 2));
    let n = &BnStatsBundle::LAYOUT;
    assert_eq!(at(n, "src.addr"), (0x0C, 4));
    assert_eq!(at(n, "out.addr"), (0x30, 4));
}

#[test]
fn semaphore_and_branch_records() {
    let s = &SemaphoreBundle::LAYOUT;
    assert_eq!(at(s, "events"), (0x04, 8));
    assert_eq!(at(s, "cmp_op"), (0x20, 1));
    assert_eq!(at(s, "act_idx"), (0x23, 1));
    assert_eq!(at(s, "wait_value"), (0x24, 4));
    assert_eq!(at(s, "act_value"), (0x28, 4));
    let b = &BranchBundle::LAYOUT;
    assert_eq!(at(b, "comp_op"), (0x0C, 1));
    assert_eq!(at(b, "rhs_imm"), (0x10, 4));
    assert_eq!(at(b, "lhs_reg"), (0x20, 1));
    assert_eq!(at(b, "target_pc"), (0x30, 8));
}

/// Every body covers all 64 bytes exactly once, so decoding is lossless by construction.
#[test]
fn every_body_tiles_64_bytes() {
    for k in BodyKind::ALL {
        let l = k.layout();
        assert_eq!(l.size, 64, "{}", l.name);
        let mut covered = [0u8; 64];
        for leaf in l.leaves() {
            for b in &mut covered[leaf.offset..leaf.offset + leaf.size()] {
                *b += 1;
            }
        }
        assert!(covered.iter().all(|c| *c == 1), "{}: coverage {covered:?}", l.name);
        assert_eq!(at(l, "opcode"), (0, 1));
        assert_eq!(at(l, "inst_word_len"), (1, 1));
        assert_eq!(at(l, "reserved"), (2, 2));
    }
}

#[test]
fn catalog_lists_every_layout_once() {
    let names: Vec<_> = catalog::layouts().iter().map(|l| l.c_name).collect();
    let mut dedup = names.clone();
    dedup.sort();
    dedup.dedup();
    assert_eq!(names.len(), dedup.len());
    assert!(names.contains(&"NEURON_ISA_TPB_TENSOR3D"));
    assert!(names.contains(&"NEURON_ISA_TPB_BUNDLE_MATMUL"));
}

#[test]
fn a_stream_splits_into_whole_bundles_with_their_offsets() {
    let bytes: Vec<u8> = (0..3 * BUNDLE_BYTES).map(|i| (i / BUNDLE_BYTES) as u8 + 1).collect();
    let got: Vec<(usize, u8)> = stream(&bytes).expect("whole bundles").map(|(at, raw)| (at, raw[0])).collect();
    assert_eq!(got, [(0, 1), (64, 2), (128, 3)]);
    assert!(stream(&bytes).expect("whole bundles").all(|(at, raw)| raw[..] == bytes[at..at + BUNDLE_BYTES]));
    assert_eq!(stream(&[]).expect("no bundles").count(), 0);
    let e = stream(&bytes[..2 * BUNDLE_BYTES + 5]).err().expect("a partial bundle");
    assert_eq!(e, PartialBundle { offset: 128, len: 133 });
    assert_eq!(e.to_string(), "trailing partial bundle at offset 0x80: 133 bytes is not a multiple of 64");
}

#[test]
fn le_u64_reads_up_to_eight_bytes_little_endian() {
    use tpb_isa::layout::le_u64;
    assert_eq!(le_u64(&[]), 0);
    assert_eq!(le_u64(&[0x34, 0x12]), 0x1234);
    assert_eq!(le_u64(&[1, 2, 3, 4, 5, 6, 7, 0x88]), 0x8807_0605_0403_0201);
    // A ninth byte is past the value.
    assert_eq!(le_u64(&[1, 0, 0, 0, 0, 0, 0, 0, 0xFF]), 1);
}

#[test]
fn an_array_index_resolves_only_inside_the_array() {
    // TENSOR4D: addr at +0, then num[4] (u16) at +4.
    let (num, _) = at(&Tensor4d::LAYOUT, "num");
    for i in 0..4 {
        assert_eq!(at(&Tensor4d::LAYOUT, &format!("num[{i}]")), (num + 2 * i, 2), "num[{i}]");
    }
    for path in ["num[4]", "num[99]", "num[x]", "addr[0]"] {
        assert_eq!(Tensor4d::LAYOUT.resolve(path), None, "{path}");
    }
}
