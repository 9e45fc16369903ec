# Hand-checked seed bundles for CoreV4, one per line in the `tpb disasm` text
# format; fields left out are zero. A line's comment may end with
# `expect: code, code`: the exact validator findings on this generation.

# Family A, dense matmul (2.10): CoreV4 reads the PSUM destination dtype at +0x28.
0x01:LoadStationary moving.addr=0x00010000 moving.stride=[1,1,1] moving.num=[128,1,1] in_dtype=bf16
0x02:MatMul moving.addr=0x00020000 moving.stride=[1,1,1] moving.num=[128,1,1] in_dtype=bf16 dst_dtype_mx=f32 accumulate=0x03 psum_zero_region=11 psum_dst.addr=0x02000000 psum_dst.stride=[1,1,1] psum_dst.num=[128,1,1]
# On CoreV4 the +0x23 byte is not the destination dtype: a PSUM write typed u8 at +0x28 fails.
0x02:MatMul moving.addr=0x00020000 moving.stride=[1,1,1] moving.num=[128,1,1] in_dtype=bf16 dst_dtype_dense=f32 dst_dtype_mx=u8 accumulate=0x03 psum_zero_region=11 psum_dst.addr=0x02000000 psum_dst.stride=[1,1,1] psum_dst.num=[128,1,1] # expect: psum-write-dtype

# MX matmul (2.6): FP4-x4 data in SBUF, E8M0 scales in SBUF, K = 4 x 32, step +1, scale partition 0.
0x09:LdWeightMx moving.data=0x00010000 moving.scale=0x00018000 moving.k_extent=128 moving.step_dir=0x01 moving.scale_base_part=0 in_dtype=f4e2m1x4
0x0A:MatMulMx moving.data=0x00020000 moving.scale=0x00028000 moving.k_extent=128 moving.step_dir=0x01 moving.scale_base_part=0 in_dtype=f4e2m1x4 dst_dtype_mx=f32 accumulate=0x03 psum_zero_region=11 psum_dst.addr=0x02000000 psum_dst.stride=[1,1,1] psum_dst.num=[128,1,1]
# An FP8 MX operand walking backwards (step 0xFF), bf16 "nc" PSUM destination.
0x0A:MatMulMx moving.data=0x00020000 moving.scale=0x00028000 moving.k_extent=64 moving.step_dir=0xff moving.scale_base_part=64 in_dtype=f8e4m3 dst_dtype_mx=bf16 accumulate=0x01 psum_zero_region=11 psum_dst.addr=0x02000800 psum_dst.stride=[1,1,1] psum_dst.num=[64,1,1]
# MX scales may only live in SBUF (2.6).
0x0A:MatMulMx moving.data=0x00020000 moving.scale=0x02010000 moving.k_extent=128 moving.step_dir=0x01 moving.scale_base_part=0 in_dtype=f4e2m1x4 dst_dtype_mx=f32 accumulate=0x03 psum_zero_region=11 psum_dst.addr=0x02000000 psum_dst.stride=[1,1,1] psum_dst.num=[128,1,1] # expect: mx-scale-not-sbuf
# scale_base_part is taken modulo the 128 PEs; 200 is out of range (2.6).
0x09:LdWeightMx moving.data=0x00010000 moving.scale=0x00018000 moving.k_extent=128 moving.step_dir=0x01 moving.scale_base_part=200 in_dtype=f4e2m1x4 # expect: mx-scale-part-range

# Family A activation is renumbered to 0x25 on CoreV4; 0x21 is no longer encoded.
0x25:Activation src.addr=0x02000000 src.stride=[1,1,1] src.num=[128,1,1] in_dtype=f32 out_dtype=bf16 act_tbl_sel=3 dst.addr=0x00030000 dst.stride=[1,1,1] dst.num=[128,1,1]
0x21:Activation src.addr=0x02000000 src.stride=[1,1,1] src.num=[128,1,1] in_dtype=f32 out_dtype=bf16 act_tbl_sel=3 dst.addr=0x00030000 dst.stride=[1,1,1] dst.num=[128,1,1] # expect: opcode-unavailable

# Family A TensorScalar reduce variant (0x9A), with an active (dynamic, bit 30) source address.
0x9A:TensorScalarReduce src.addr=0x40030000 src.stride=[1,1,1] src.num=[128,1,1] in_dtype=bf16 out_dtype=f32 op0=add op1=add dst.addr=0x00034000 dst.stride=[1,1,1] dst.num=[1,1,1]

# Family B (2.1): fp32 multiply into PSUM.
0x41:TensorTensor in_dtype_nibbles=f32/bf16 out_dtype=f32 alu_op=mult num_active_parts=128 dst.addr=0x02000000 dst.stride=[1,1,1] dst.num=[128,1,1] in0.addr=0x00051000 in0.stride=[1,1,1] in0.num=[128,1,1] in1.addr=0x00052000 in1.stride=[1,1,1] in1.num=[128,1,1]
# The dead ADDR4 mode nibble 0x60 (bits 29 and 30) has no producer (2.2).
0x41:TensorTensor in_dtype_nibbles=f32/f32 out_dtype=f32 alu_op=add num_active_parts=128 dst.addr=0x00050000 dst.stride=[1,1,1] dst.num=[128,1,1] in0.addr=0x60051000 in0.stride=[1,1,1] in0.num=[128,1,1] in1.addr=0x00052000 in1.stride=[1,1,1] in1.num=[128,1,1] # expect: dead-addr-mode

# Family C (2.1): a gather-form copy (index ADDR4 with bit 29 reads as INDIRECT20B, 2.7:
# data word 0x00006000 over stride[0..1], 64 indices in stride[2], the rest inert),
# a TensorReduce, and a Memset whose destination lies past the PSUM window.
0x46:TensorCopy src.addr=0x20004000 src.stride=[0x6000,0,64,0] src.num=[0,0,0,0] src_dtype=bf16 dst_dtype=bf16 out.addr=0x00070000 out.stride=[1,1,1,1] out.num=[64,1,1,1]
0x42:TensorReduce src.addr=0x00060000 src.stride=[1,64,1,1] src.num=[64,16,1,1] src_dtype=f32 dst_dtype=f32 out.addr=0x00068000 out.stride=[1,1,1,1] out.num=[16,1,1,1]
0x49:Memset dst_dtype=f32 scale_or_fill=0x3f800000 out.addr=0x04000000 out.stride=[1,1,1,1] out.num=[64,1,1,1] # expect: address-outside-memory

# Mixed-width Family C: BNStats.
0x61:BNStats src.addr=0x00080000 src.stride=[1,128,1,1] src.num=[128,8,1,1] src_dtype=bf16 dst_dtype=f32 out.addr=0x00088000 out.stride=[1,6] out.num=[6,8]

# Semaphore record (1.14): wait for sema 7 == 2, then add 5 to sema 8.
0xA0:EventSemaphore cmp_op=eq wait_idx=7 subtype=add_imm act_idx=8 wait_value=0x00000002 act_value=0x00000005

# Branch (D-M10): unconditional, and a conditional one whose comparator 7 is unassigned.
0xA9:Branch comp_op=always target_pc=0x0000000000001000
0xA9:Branch comp_op=0x07 lhs_dtype=i32 ap_kind=3 lhs_reg=1 target_pc=0x0000000000001000 # expect: branch-comp-op

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
0xA7:RegisterMove const_0c=0109010000000000000000003d000000000000000000803f00000000000000000000000000000000000000000000000000000000
