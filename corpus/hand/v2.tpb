# Hand-checked seed bundles for CoreV2 (Trn1), one per line in the `tpb disasm`
# text format; fields left out are zero. Each line was laid out by hand from the
# spec's field tables (section in the comment). A line's comment may end with
# `expect: code, code`: the exact validator findings that line must produce on
# this generation (none = it validates clean). `cargo test` checks every line.

# Family A, matmul (2.1 / 2.5 / 2.10): LoadStationary stages bf16 weights from SBUF
# (no destination operand); CoreV2 row/column groups come from {1,2,4,8} / {1,2,4,8,16}.
0x01:LoadStationary moving.addr=0x00010000 moving.stride=[1,1,1] moving.num=[128,1,1] in_dtype=bf16 row_group=1 col_group_norm=1 wt_base_rows=128 num_active_cols=128
# MatMul: bf16 moving tensor, fp32 PSUM accumulator at the window base, start+stop, 2 KiB bank (log2 = 11).
0x02:MatMul moving.addr=0x00020000 moving.stride=[1,1,1] moving.num=[128,1,1] in_dtype=bf16 dst_dtype_dense=f32 row_group=1 col_group_norm=1 accumulate=0x03 psum_zero_region=11 psum_dst.addr=0x02000000 psum_dst.stride=[1,1,1] psum_dst.num=[128,1,1]
# The same matmul writing its result into SBUF: a matmul destination must be in PSUM (2.5).
0x02:MatMul moving.addr=0x00020000 moving.stride=[1,1,1] moving.num=[128,1,1] in_dtype=bf16 dst_dtype_dense=f32 row_group=1 col_group_norm=1 accumulate=0x03 psum_zero_region=11 psum_dst.addr=0x00040000 psum_dst.stride=[1,1,1] psum_dst.num=[128,1,1] # expect: matmul-dst-not-psum
# A row group of 3 is not a CoreV2 PE tiling (2.5, INFERRED: a warning, not an error).
0x02:MatMul moving.addr=0x00020000 moving.stride=[1,1,1] moving.num=[128,1,1] in_dtype=bf16 dst_dtype_dense=f32 row_group=3 col_group_norm=1 accumulate=0x03 psum_zero_region=11 psum_dst.addr=0x02000000 psum_dst.stride=[1,1,1] psum_dst.num=[128,1,1] # expect: matmul-row-group
# Sparse matmul parts are not encoded on CoreV2 (opcode table).
0x06:LoadTagsSparse moving.addr=0x00010000 moving.stride=[1,1,1] moving.num=[128,1,1] in_dtype=bf16 row_group=1 col_group_norm=1 # expect: opcode-unavailable

# Family A, activation (2.1): fp32 PSUM source, bf16 SBUF destination, table 0.
0x21:Activation src.addr=0x02000000 src.stride=[1,1,1] src.num=[512,1,1] in_dtype=f32 out_dtype=bf16 act_tbl_sel=0 dst.addr=0x00030000 dst.stride=[1,1,1] dst.num=[512,1,1]
# A bf16 destination in PSUM: PSUM writes need a 4-byte dtype (2.2 / 2.10).
0x21:Activation src.addr=0x00030000 src.stride=[1,1,1] src.num=[512,1,1] in_dtype=bf16 out_dtype=bf16 act_tbl_sel=2 dst.addr=0x02000400 dst.stride=[1,1,1] dst.num=[512,1,1] # expect: psum-write-dtype

# Family A, TensorScalar (2.1): out = (in * s0) + s1 over a 2-D bf16 tile in SBUF.
0x43:TensorScalar src.addr=0x00030000 src.stride=[1,64,1] src.num=[64,8,1] in_dtype=bf16 out_dtype=bf16 op0=mult op1=add dst.addr=0x00034000 dst.stride=[1,64,1] dst.num=[64,8,1]
# An odd start address for a 2-byte dtype is misaligned (2.2).
0x43:TensorScalar src.addr=0x00030001 src.stride=[1,1,1] src.num=[64,1,1] in_dtype=bf16 out_dtype=bf16 op0=max op1=min dst.addr=0x00034000 dst.stride=[1,1,1] dst.num=[64,1,1] # expect: misaligned-address

# Family B, TensorTensor (2.1 / D-J05): fp32 = fp32 + fp32, in0 dtype in the low nibble, in1 in the high one.
0x41:TensorTensor in_dtype_nibbles=f32/f32 out_dtype=f32 alu_op=add num_active_parts=128 dst.addr=0x00050000 dst.stride=[1,1,1] dst.num=[256,1,1] in0.addr=0x00051000 in0.stride=[1,1,1] in0.num=[256,1,1] in1.addr=0x00052000 in1.stride=[1,1,1] in1.num=[256,1,1]
# A zero count in a static pattern is illegal (2.3).
0x41:TensorTensor in_dtype_nibbles=bf16/bf16 out_dtype=bf16 alu_op=sub num_active_parts=64 dst.addr=0x00050000 dst.stride=[1,1,1] dst.num=[256,1,1] in0.addr=0x00051000 in0.stride=[1,1,1] in0.num=[256,0,1] in1.addr=0x00052000 in1.stride=[1,1,1] in1.num=[256,1,1] # expect: zero-num

# Family C (2.1 / D-J03 / D-J06): 2x2 average pool, scale = 1/4 (0x3E800000), mode 3.
0x45:Pool src.addr=0x00060000 src.stride=[1,2,32,64] src.num=[2,2,16,16] src_dtype=bf16 dst_dtype=bf16 func=avg mode=3 scale_or_fill=0x3e800000 out.addr=0x00068000 out.stride=[1,1,16,1] out.num=[1,1,16,16]
# Max pool with scale 1.0 but mode 2 instead of the constant 3.
0x45:Pool src.addr=0x00060000 src.stride=[1,2,32,64] src.num=[2,2,16,16] src_dtype=f32 dst_dtype=f32 func=max mode=2 scale_or_fill=0x3f800000 out.addr=0x00068000 out.stride=[1,1,16,1] out.num=[1,1,16,16] # expect: pool-mode
# TensorCopy fp32 PSUM -> bf16 SBUF (the usual PSUM evacuation).
0x46:TensorCopy src.addr=0x02000000 src.stride=[1,1,1,1] src.num=[512,1,1,1] src_dtype=f32 dst_dtype=bf16 out.addr=0x00070000 out.stride=[1,1,1,1] out.num=[512,1,1,1]
# Memset: destination only, fill value 0.
0x49:Memset dst_dtype=f32 scale_or_fill=0x00000000 out.addr=0x00072000 out.stride=[1,1,1,1] out.num=[1024,1,1,1]

# Mixed-width Family C (2.1): BNStats, 4-D bf16 source, 2-D fp32 statistics out.
0x61:BNStats src.addr=0x00080000 src.stride=[1,512,1,1] src.num=[512,4,1,1] src_dtype=bf16 dst_dtype=f32 out.addr=0x00088000 out.stride=[1,6] out.num=[6,4]

# Semaphore record (1.14): wait until sema 3 >= 1, then decrement it.
0xA0:EventSemaphore cmp_op=ge wait_idx=3 subtype=dec act_idx=3 wait_value=0x00000001 act_value=0x00000001
# Comparator 0x02 is not in the table (1.6).
0xA0:EventSemaphore cmp_op=0x02 wait_idx=3 subtype=inc act_idx=4 wait_value=0x00000001 act_value=0x00000001 # expect: semaphore-cmp-op

# Branch (D-M10): unconditional jump, then "if r5 < 16 goto" with an i32 scalar register.
0xA9:Branch comp_op=always target_pc=0x0000000000000040
0xA9:Branch comp_op=imm_lt lhs_dtype=i32 ap_kind=3 rhs_imm=0x00000010 lhs_reg=5 target_pc=0x0000000000000100

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
