# Hand-checked seed bundles for CoreV3 (Trn2), one per line in the `tpb disasm`
# text format; fields left out are zero. A line's comment may end with
# `expect: code, code`: the exact validator findings on this generation.

# Family A, matmul (2.1 / 2.5 / 2.10). CoreV3 packs the row/col group into +0x2C and
# still reads the dense destination dtype at +0x23.
0x01:LoadStationary moving.addr=0x00010000 moving.stride=[1,1,1] moving.num=[128,1,1] in_dtype=f8e4m3 rowcol_group_v3=0x11 wt_base_rows=128 num_active_cols=128
0x02:MatMul moving.addr=0x00020000 moving.stride=[1,1,1] moving.num=[128,1,1] in_dtype=f8e4m3 perf_sel=2 dst_dtype_dense=f32 accumulate=0x01 rowcol_group_v3=0x11 psum_zero_region=11 psum_dst.addr=0x02000800 psum_dst.stride=[1,1,1] psum_dst.num=[128,1,1]
# bf16 is the one 2-byte dtype a matmul may write to PSUM (the "nc" form, 2.10).
0x02:MatMul moving.addr=0x00020000 moving.stride=[1,1,1] moving.num=[128,1,1] in_dtype=bf16 dst_dtype_dense=bf16 accumulate=0x03 psum_zero_region=11 psum_dst.addr=0x02000000 psum_dst.stride=[1,1,1] psum_dst.num=[128,1,1]
# Sparse matmul exists from CoreV3 on.
0x06:LoadTagsSparse moving.addr=0x00010000 moving.stride=[1,1,1] moving.num=[128,1,1] in_dtype=bf16
0x07:MatMulSparse moving.addr=0x00020000 moving.stride=[1,1,1] moving.num=[128,1,1] in_dtype=bf16 dst_dtype_dense=f32 accumulate=0x03 psum_zero_region=11 psum_dst.addr=0x02001000 psum_dst.stride=[1,1,1] psum_dst.num=[128,1,1]
# Perf selector 1 is not one of 0/2/3 (2.5, INFERRED).
0x02:MatMul moving.addr=0x00020000 moving.stride=[1,1,1] moving.num=[128,1,1] in_dtype=bf16 perf_sel=1 dst_dtype_dense=f32 accumulate=0x03 psum_zero_region=11 psum_dst.addr=0x02000000 psum_dst.stride=[1,1,1] psum_dst.num=[128,1,1] # expect: matmul-perf-sel

# Family A, activation (2.1): still opcode 0x21 on CoreV3.
0x21:Activation src.addr=0x02000000 src.stride=[1,1,1] src.num=[128,1,1] in_dtype=f32 out_dtype=f8e4m3 act_tbl_sel=1 dst.addr=0x00031000 dst.stride=[1,1,1] dst.num=[128,1,1]
# The FP4-x4 tag 16 does not exist before CoreV4 (D-M08).
0x21:Activation src.addr=0x00030000 src.stride=[1,1,1] src.num=[128,1,1] in_dtype=bf16 out_dtype=0x10 act_tbl_sel=1 dst.addr=0x00031000 dst.stride=[1,1,1] dst.num=[128,1,1] # expect: dtype-unavailable

# Family A, TensorScalar (2.1), and its OrPtr variant 0x53, with a register-mode source address (reg 7).
0x43:TensorScalar src.addr=0x00030000 src.stride=[1,1,1] src.num=[256,1,1] in_dtype=f32 out_dtype=f32 op0=add op1=max dst.addr=0x00038000 dst.stride=[1,1,1] dst.num=[256,1,1]
0x53:TensorScalar src.addr=0x80000007 src.stride=[1,1,1] src.num=[256,1,1] in_dtype=f32 out_dtype=f32 op0=mult op1=add dst.addr=0x00038000 dst.stride=[1,1,1] dst.num=[256,1,1]
# Register ids are below 0x40 (2.2).
0x43:TensorScalar src.addr=0x80000041 src.stride=[1,1,1] src.num=[256,1,1] in_dtype=f32 out_dtype=f32 op0=add op1=add dst.addr=0x00038000 dst.stride=[1,1,1] dst.num=[256,1,1] # expect: register-id

# Family B (2.1): compare two int32 tiles; the bit-vector variant 0x51 shares the layout.
0x41:TensorTensor in_dtype_nibbles=i32/i32 out_dtype=u8 alu_op=is_gt num_active_parts=128 dst.addr=0x00050000 dst.stride=[1,1,1] dst.num=[64,1,1] in0.addr=0x00051000 in0.stride=[1,1,1] in0.num=[64,1,1] in1.addr=0x00052000 in1.stride=[1,1,1] in1.num=[64,1,1]
0x51:TensorTensorBitvec in_dtype_nibbles=u8/u8 out_dtype=u8 alu_op=max num_active_parts=32 dst.addr=0x00050000 dst.stride=[1,1,1] dst.num=[64,1,1] in0.addr=0x00051000 in0.stride=[1,1,1] in0.num=[64,1,1] in1.addr=0x00052000 in1.stride=[1,1,1] in1.num=[64,1,1]
# ALU byte 0x07 is not one the spec lists (1.4, STRONG: a warning).
0x41:TensorTensor in_dtype_nibbles=f32/f32 out_dtype=f32 alu_op=0x07 num_active_parts=128 dst.addr=0x00050000 dst.stride=[1,1,1] dst.num=[64,1,1] in0.addr=0x00051000 in0.stride=[1,1,1] in0.num=[64,1,1] in1.addr=0x00052000 in1.stride=[1,1,1] in1.num=[64,1,1] # expect: unknown-alu-op

# Family C (2.1): casting copy bf16 -> fp8, a 3x3 max pool (scale 1.0), Iota (destination only).
0x47:TensorCopyCast src.addr=0x00060000 src.stride=[1,1,1,1] src.num=[2048,1,1,1] src_dtype=bf16 dst_dtype=f8e5m2 out.addr=0x00064000 out.stride=[1,1,1,1] out.num=[2048,1,1,1]
0x45:Pool src.addr=0x00060000 src.stride=[1,1,30,30] src.num=[3,3,10,10] src_dtype=f16 dst_dtype=f16 func=max mode=3 scale_or_fill=0x3f800000 out.addr=0x00068000 out.stride=[1,1,10,1] out.num=[1,1,10,10]
0x7E:Iota dst_dtype=i32 out.addr=0x00070000 out.stride=[1,1,1,1] out.num=[128,1,1,1]
# An average pool whose scale is 2.0 is not a reciprocal 1/N.
0x45:Pool src.addr=0x00060000 src.stride=[1,1,30,30] src.num=[3,3,10,10] src_dtype=f32 dst_dtype=f32 func=avg mode=3 scale_or_fill=0x40000000 out.addr=0x00068000 out.stride=[1,1,10,1] out.num=[1,1,10,10] # expect: pool-scale

# Mixed-width Family C: BNStats with transpose.
0x82:BNStatsTranspose src.addr=0x00080000 src.stride=[1,256,1,1] src.num=[256,2,1,1] src_dtype=f32 dst_dtype=f32 out.addr=0x00088000 out.stride=[1,6] out.num=[6,2]

# Semaphore record (1.14): set sema 10 to 0 without waiting (wait_dec, threshold 0).
0xA0:EventSemaphore cmp_op=wait_dec wait_idx=10 subtype=set act_idx=10 wait_value=0x00000000 act_value=0x00000000
0xA0:EventSemaphore cmp_op=eq wait_idx=1 subtype=0x12 act_idx=1 wait_value=0x00000002 act_value=0x00000001 # expect: semaphore-subtype

# Branch (D-M10): register compare "if r1 > r2 goto".
0xA9:Branch comp_op=reg_gt lhs_dtype=i32 ap_kind=3 lhs_reg=1 rhs_reg=2 target_pc=0x0000000000000200
# A conditional branch whose operand kind is not a scalar register.
0xA9:Branch comp_op=reg_lt lhs_dtype=i32 ap_kind=1 lhs_reg=1 rhs_reg=2 target_pc=0x0000000000000200 # expect: branch-ap-kind

# Bodies recovered from real programs (R, INFERRED; isa/src/bundle/recovered.rs): laid out by
# hand from the recovered layouts, not copied from a program. The validator checks only their
# header, so each line validates clean.
0x23:LoadActFuncSet byte_23=1
0x69:StreamMask words_20=[0xffffffff,0xffffffff,0x00000000,0x00000000,0x00000000,0x00000000,0xffffffff,0xffffffff]
0xA4:NoOp
0xA8:RegisterAlu alu_0c=add byte_0d=0x09 byte_0e=0x01 word_10=0x0000003c word_14=0x0000003d word_18=0x00010000
0xC1:DMATrigger queue_name=7154657374300000000000000000000000000000 word_30=7
0xD4:Dma addr8_10=0x0000000100000000 word_18=0x00001000 word_1c=0x00000001 word_20=0x00010080 addr8_28=0x0000000200000000 word_30=0x00001000 word_34=0x00000001 word_38=0x00010080
0xCE:TensorLoad word_0c=0x01010009 word_14=0x00010100 word_18=0x00000001 word_1c=0x00000008 word_20=0x0000003d
0xDA:CollectiveComputeCoarse byte_0f=0x10

# More bodies recovered from real programs (R, INFERRED): constant runs as every real bundle holds them,
# the other fields set by hand. The validator checks only their header.
0x74:TensorScalarAddr pattern2d_0c.addr=0x00001040 pattern2d_0c.stride=[1,1] pattern2d_0c.num=[8,1] addr4_18=0x00002080 word_20=0x00000010 pattern1d_28.addr=0x00001180 pattern1d_28.stride0=1 pattern1d_28.num0=8 pattern2d_34.addr=0x00001200 pattern2d_34.stride=[1,1] pattern2d_34.num=[8,1]
0x86:CustomOpArg pattern1d_0c.addr=0x00001040 pattern1d_0c.stride0=1 pattern1d_0c.num0=8 byte_18=0x02 byte_1a=0x8e byte_1c=0x8e addr4_28=0x00002240 byte_2c=0x8e byte_2d=0x01 const_2e=000001000000 byte_34=0x8e byte_35=0x01
0x24:ReadActivationAccumulator const_0c=00000000000000000000000000000000010000000a00 byte_22=0x40 addr4_2c=0x00002100 const_30=01000100000000000000000000000000
0xD6:IndirectDma addr4_0c=0x00002040 const_10=0100010001000100 addr4_18=0x000020c0 byte_20=0xc0 byte_21=0x02 byte_22=0x29 const_23=0000000000113101000000 byte_2e=0x09 count_30=1 word_34=0x00000010 const_38=0100010001000100
0xC4:IndirectDmaChecked addr4_0c=0x00002040 const_10=010000000000040001000000 byte_1c=0x09 addr4_20=0x00002140 dtype_24=i16 const_25=0000000000040001000000 byte_30=0x09 byte_34=0x40 byte_35=0x01 addr4_38=0x00002340 byte_3c=0x01
0x63:BNGradients const_0c=08008000 word_10=0x00000010 const_14=01000100 pattern3d_18.addr=0x00001100 pattern3d_18.stride=[1,1,1] pattern3d_18.num=[8,1,1] addr4_28=0x00002140 const_2c=01000100 half_30=0x0010 const_32=810001000300 addr4_38=0x00002240 addr4_3c=0x00002280
0x64:BNBackprop const_0c=000000000000000001000100030001000000c8460a0020000000000000000000 addr4_2c=0x00002080 const_30=01000000000000000000000000000000
0x65:BNBackpropParamLoad pattern1d_0c.addr=0x00001040 pattern1d_0c.stride0=1 pattern1d_0c.num0=8 const_14=01000100 pattern3d_18.addr=0x000010c0 pattern3d_18.stride=[1,1,1] pattern3d_18.num=[8,1,1] pattern3d_28.addr=0x00001100 pattern3d_28.stride=[1,1,1] pattern3d_28.num=[8,1,1] addr4_38=0x00002140 const_3c=01000100
0x85:CustomOpHeader const_0c=0500 byte_0e=0x00 const_0f=04000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
0x6D:MaxIndexValues addr4_10=0x00002080 const_14=0100010008000100000000000a00 byte_22=0x1f
0x6F:MatchReplace8 pattern3d_0c.addr=0x00001040 pattern3d_0c.stride=[1,1,1] pattern3d_0c.num=[8,1,1] const_1c=010001000a0a byte_22=0x1f const_23=0000000000000080ff pattern3d_2c.addr=0x00001140 pattern3d_2c.stride=[1,1,1] pattern3d_2c.num=[8,1,1] const_3c=01000100
0x92:TensorScalarAffineSelect const_0c=0x80 const_0e=033d0000000001000100010001008000010001000100 byte_24=0xa8 byte_25=0x6a const_26=00000100010080000100 byte_30=0xa8 byte_31=0x6a const_32=00000100010080000100ffffffff
0x67:PoolBufferLoad pattern3d_0c.addr=0x00001040 pattern3d_0c.stride=[1,1,1] pattern3d_0c.num=[8,1,1] const_1c=010001000a0002000000000000000000ff01000000000000000000000000000000000000
0xA7:RegisterMove const_0c=0109010000000000000000003d000000000000000000803f00000000000000000000000000000000000000000000000000000000
