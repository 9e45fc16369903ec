/* tpb_worker_c.c: an independent C decoder of the AWS Neuron TPB 64-byte
 * instruction bundle, the "C worker" of the differential-fuzzing harness.
 *
 * It is built ONLY from the generated header neuron_isa_tpb.h (`tpb header`):
 * the union member is chosen by neuron_isa_tpb_body_kind(opcode), every field
 * is read through the header's packed structs, and enumeration names come from
 * the header's enums. Nothing is taken from the Rust codec, so a disagreement
 * with `tpb disasm` points at a real difference between the two descriptions.
 *
 * Answer: space-separated `path=value` tokens, `opcode=0xNN` first, then every
 * field of the selected body in struct order, with the paths `tpb disasm`
 * prints (`src.addr`, `src.stride`, `pattern1d_0c.stride0`, `body`, ...).
 * Values: hex words, decimal counts, signed strides, `[a,b]` arrays, byte
 * arrays as contiguous lowercase hex, enum/dtype names where the header names
 * the value (its hex tag otherwise). No allocation, no stdio formatting.
 */
#include "neuron_isa_tpb.h"
#include "tpb_worker.h" /* the worker ABI (tpb header --worker): the compiler checks the definition against it */

#include <stddef.h>
#include <stdint.h>
#include <string.h>


/* ---- little-endian member reads (the header: big-endian hosts must swap) ---- */

static int host_is_big_endian(void)
{
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 0;
}

static uint16_t le16(uint16_t v)
{
    return host_is_big_endian() ? (uint16_t)((v >> 8) | (v << 8)) : v;
}

static uint32_t le32(uint32_t v)
{
    if (!host_is_big_endian())
        return v;
    return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

static uint64_t le64(uint64_t v)
{
    if (!host_is_big_endian())
        return v;
    return ((uint64_t)le32((uint32_t)v) << 32) | le32((uint32_t)(v >> 32));
}

/* ---- names from the header's enumerations ---- */

static const char *const dtype_names[256] = {
    [ISA_DT_UINT64] = "u64",          [ISA_DT_INT8] = "i8",
    [ISA_DT_UINT8] = "u8",            [ISA_DT_INT16] = "i16",
    [ISA_DT_UINT16] = "u16",          [ISA_DT_BFLOAT16] = "bf16",
    [ISA_DT_FLOAT16] = "f16",         [ISA_DT_INT32] = "i32",
    [ISA_DT_UINT32] = "u32",          [ISA_DT_FLOAT32] = "f32",
    [ISA_DT_FLOAT32R] = "f32r",       [ISA_DT_INT64] = "i64",
    [ISA_DT_FLOAT8_E3] = "f8e3",      [ISA_DT_FLOAT8_E4M3] = "f8e4m3",
    [ISA_DT_FLOAT8_E5M2] = "f8e5m2",  [ISA_DT_FLOAT4_E2M1_X4] = "f4e2m1x4",
};

static const char *const alu_names[256] = {
    [NEURON_ISA_TPB_ALU_OP_ADD] = "add",       [NEURON_ISA_TPB_ALU_OP_SUB] = "sub",
    [NEURON_ISA_TPB_ALU_OP_MULT] = "mult",     [NEURON_ISA_TPB_ALU_OP_MAX] = "max",
    [NEURON_ISA_TPB_ALU_OP_MIN] = "min",       [NEURON_ISA_TPB_ALU_OP_IS_GT] = "is_gt",
    [NEURON_ISA_TPB_ALU_OP_IS_GE] = "is_ge",   [NEURON_ISA_TPB_ALU_OP_IS_LE] = "is_le",
    [NEURON_ISA_TPB_ALU_OP_IS_LT] = "is_lt",   [NEURON_ISA_TPB_ALU_OP_NOT_EQ] = "not_eq",
    [NEURON_ISA_TPB_ALU_OP_ABS] = "abs",       [NEURON_ISA_TPB_ALU_OP_POW] = "pow",
    [NEURON_ISA_TPB_ALU_OP_MOD] = "mod",       [NEURON_ISA_TPB_ALU_OP_RSQRT] = "rsqrt",
};

static const char *const branch_comp_names[256] = {
    [NEURON_ISA_TPB_BRANCH_COMP_OP_ALWAYS] = "always", [NEURON_ISA_TPB_BRANCH_COMP_OP_IMM_LT] = "imm_lt",
    [NEURON_ISA_TPB_BRANCH_COMP_OP_IMM_2] = "imm_2",   [NEURON_ISA_TPB_BRANCH_COMP_OP_IMM_3] = "imm_3",
    [NEURON_ISA_TPB_BRANCH_COMP_OP_IMM_4] = "imm_4",   [NEURON_ISA_TPB_BRANCH_COMP_OP_IMM_5] = "imm_5",
    [NEURON_ISA_TPB_BRANCH_COMP_OP_IMM_GT] = "imm_gt", [NEURON_ISA_TPB_BRANCH_COMP_OP_REG_LT] = "reg_lt",
    [NEURON_ISA_TPB_BRANCH_COMP_OP_REG_10] = "reg_10", [NEURON_ISA_TPB_BRANCH_COMP_OP_REG_11] = "reg_11",
    [NEURON_ISA_TPB_BRANCH_COMP_OP_REG_12] = "reg_12", [NEURON_ISA_TPB_BRANCH_COMP_OP_REG_13] = "reg_13",
    [NEURON_ISA_TPB_BRANCH_COMP_OP_REG_GT] = "reg_gt",
};

static const char *const sem_cmp_names[256] = {
    [NEURON_ISA_TPB_SEMAPHORE_CMP_OP_EQ] = "eq",
    [NEURON_ISA_TPB_SEMAPHORE_CMP_OP_WAIT_DEC] = "wait_dec",
    [NEURON_ISA_TPB_SEMAPHORE_CMP_OP_GE] = "ge",
    [NEURON_ISA_TPB_SEMAPHORE_CMP_OP_GE_REG] = "ge_reg",
};

static const char *const sem_subtype_names[256] = {
    [NEURON_ISA_TPB_SEMAPHORE_SUBTYPE_EVT_SET] = "evt_set",
    [NEURON_ISA_TPB_SEMAPHORE_SUBTYPE_INC] = "inc",
    [NEURON_ISA_TPB_SEMAPHORE_SUBTYPE_DEC] = "dec",
    [NEURON_ISA_TPB_SEMAPHORE_SUBTYPE_ADD_IMM] = "add_imm",
    [NEURON_ISA_TPB_SEMAPHORE_SUBTYPE_SUB_IMM] = "sub_imm",
    [NEURON_ISA_TPB_SEMAPHORE_SUBTYPE_SET] = "set",
};

static const char *const pool_func_names[256] = {
    [NEURON_ISA_TPB_POOL_FUNC_MAX] = "max",
    [NEURON_ISA_TPB_POOL_FUNC_AVG] = "avg",
};

/* ---- hand-written formatting into a bounded scratch buffer ---- */

static const char hex_digits[16] = {'0', '1', '2', '3', '4', '5', '6', '7',
                                    '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};

static char *put_str(char *p, const char *s)
{
    while (*s)
        *p++ = *s++;
    return p;
}

/* " key=" — every field token starts with a separating space. */
static char *put_key(char *p, const char *key)
{
    *p++ = ' ';
    p = put_str(p, key);
    *p++ = '=';
    return p;
}

/* " prefix.key=" for the members of an embedded access pattern. */
static char *put_key2(char *p, const char *prefix, const char *key)
{
    *p++ = ' ';
    p = put_str(p, prefix);
    *p++ = '.';
    p = put_str(p, key);
    *p++ = '=';
    return p;
}

/* 0x followed by exactly `digits` hex digits. */
static char *put_hex(char *p, uint64_t v, int digits)
{
    *p++ = '0';
    *p++ = 'x';
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
        *p++ = hex_digits[(v >> shift) & 0xfu];
    return p;
}

static char *put_udec(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(v % 10u));
        v /= 10u;
    } while (v != 0u);
    while (n > 0)
        *p++ = tmp[--n];
    return p;
}

static char *put_sdec(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_udec(p, (uint64_t)0 - (uint64_t)v);
    }
    return put_udec(p, (uint64_t)v);
}

/* A byte array as contiguous lowercase hex, in wire order. */
static char *put_bytes(char *p, const char *key, const uint8_t *bytes, size_t n)
{
    p = put_key(p, key);
    for (size_t i = 0; i < n; i++) {
        *p++ = hex_digits[bytes[i] >> 4];
        *p++ = hex_digits[bytes[i] & 0xfu];
    }
    return p;
}

static char *put_x8(char *p, const char *key, uint8_t v) { return put_hex(put_key(p, key), v, 2); }
static char *put_x16(char *p, const char *key, uint16_t v) { return put_hex(put_key(p, key), le16(v), 4); }
static char *put_x32(char *p, const char *key, uint32_t v) { return put_hex(put_key(p, key), le32(v), 8); }
static char *put_x64(char *p, const char *key, uint64_t v) { return put_hex(put_key(p, key), le64(v), 16); }
static char *put_d8(char *p, const char *key, uint8_t v) { return put_udec(put_key(p, key), v); }
static char *put_d32(char *p, const char *key, uint32_t v) { return put_udec(put_key(p, key), le32(v)); }

/* A byte whose value an enumeration names: the name, or the hex tag. */
static char *put_enum(char *p, const char *key, uint8_t v, const char *const names[256])
{
    p = put_key(p, key);
    return names[v] ? put_str(p, names[v]) : put_hex(p, v, 2);
}

/* Two dtype tags packed in one byte: "low/high" when both name a dtype. */
static char *put_dtype_pair(char *p, const char *key, uint8_t v)
{
    const char *lo = dtype_names[v & 0xfu];
    const char *hi = dtype_names[v >> 4];
    p = put_key(p, key);
    if (!lo || !hi)
        return put_hex(p, v, 2);
    p = put_str(p, lo);
    *p++ = '/';
    return put_str(p, hi);
}

/* ---- the header's descriptor structs ---- */

static char *put_addr4(char *p, const char *key, NEURON_ISA_TPB_ADDR4 w) { return put_x32(p, key, w); }

static char *put_tensor1d(char *p, const char *name, const NEURON_ISA_TPB_TENSOR1D *t)
{
    p = put_hex(put_key2(p, name, "addr"), le32(t->addr), 8);
    p = put_sdec(put_key2(p, name, "stride0"), (int16_t)le16((uint16_t)t->stride0));
    return put_udec(put_key2(p, name, "num0"), le16(t->num0));
}

/* Shared by TENSOR2D/3D/4D: `addr`, then `stride` (signed) and `num` arrays. */
#define PUT_PATTERN(p, name, t, dims)                                            \
    do {                                                                         \
        p = put_hex(put_key2(p, name, "addr"), le32((t)->addr), 8);              \
        p = put_key2(p, name, "stride");                                         \
        *p++ = '[';                                                              \
        for (int i_ = 0; i_ < (dims); i_++) {                                    \
            if (i_)                                                              \
                *p++ = ',';                                                      \
            p = put_sdec(p, (int16_t)le16((uint16_t)(t)->stride[i_]));           \
        }                                                                        \
        *p++ = ']';                                                              \
        p = put_key2(p, name, "num");                                            \
        *p++ = '[';                                                              \
        for (int i_ = 0; i_ < (dims); i_++) {                                    \
            if (i_)                                                              \
                *p++ = ',';                                                      \
            p = put_udec(p, le16((t)->num[i_]));                                 \
        }                                                                        \
        *p++ = ']';                                                              \
    } while (0)

#define DIMS(t) ((int)(sizeof((t)->num) / sizeof((t)->num[0])))

static char *put_tensor2d(char *p, const char *name, const NEURON_ISA_TPB_TENSOR2D *t)
{
    PUT_PATTERN(p, name, t, DIMS(t));
    return p;
}

static char *put_tensor3d(char *p, const char *name, const NEURON_ISA_TPB_TENSOR3D *t)
{
    PUT_PATTERN(p, name, t, DIMS(t));
    return p;
}

static char *put_tensor4d(char *p, const char *name, const NEURON_ISA_TPB_TENSOR4D *t)
{
    PUT_PATTERN(p, name, t, DIMS(t));
    return p;
}

static char *put_mxmem1d(char *p, const char *name, const NEURON_ISA_TPB_MXMEM_PATTERN1D *m)
{
    p = put_hex(put_key2(p, name, "data"), le32(m->data), 8);
    p = put_hex(put_key2(p, name, "scale"), le32(m->scale), 8);
    p = put_udec(put_key2(p, name, "k_extent"), le16(m->k_extent));
    p = put_hex(put_key2(p, name, "step_dir"), m->step_dir, 2);
    p = put_udec(put_key2(p, name, "scale_base_part"), m->scale_base_part);
    p = put_key2(p, name, "_reserved");
    for (size_t i = 0; i < sizeof m->_reserved; i++) {
        *p++ = hex_digits[m->_reserved[i] >> 4];
        *p++ = hex_digits[m->_reserved[i] & 0xfu];
    }
    return p;
}

#define BYTES(p, key, arr) put_bytes(p, key, arr, sizeof(arr))

/* ---- one function per union member, fields in struct order ---- */

static char *body_matmul(char *p, const NEURON_ISA_TPB_BUNDLE_MATMUL *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = BYTES(p, "_pad0c", b->_pad0c);
    p = put_tensor3d(p, "moving", &b->moving);
    p = put_enum(p, "in_dtype", b->in_dtype, dtype_names);
    p = put_d8(p, "perf_sel", b->perf_sel);
    p = put_x8(p, "_ctl22", b->_ctl22);
    p = put_enum(p, "dst_dtype_dense", b->dst_dtype_dense, dtype_names);
    p = put_d8(p, "row_group", b->row_group);
    p = put_d8(p, "col_group", b->col_group);
    p = put_d8(p, "wt_base_rows", b->wt_base_rows);
    p = put_d8(p, "num_active_cols", b->num_active_cols);
    p = put_enum(p, "dst_dtype_mx", b->dst_dtype_mx, dtype_names);
    p = BYTES(p, "_ctl29", b->_ctl29);
    p = put_x8(p, "accumulate", b->accumulate);
    p = put_x8(p, "rowcol_group_v3", b->rowcol_group_v3);
    p = put_x8(p, "_ctl2d", b->_ctl2d);
    p = put_d8(p, "col_group_norm", b->col_group_norm);
    p = put_d8(p, "psum_zero_region", b->psum_zero_region);
    return put_tensor3d(p, "psum_dst", &b->psum_dst);
}

static char *body_matmul_mx(char *p, const NEURON_ISA_TPB_BUNDLE_MATMUL_MX *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = BYTES(p, "_pad0c", b->_pad0c);
    p = put_mxmem1d(p, "moving", &b->moving);
    p = put_enum(p, "in_dtype", b->in_dtype, dtype_names);
    p = put_d8(p, "perf_sel", b->perf_sel);
    p = BYTES(p, "_ctl22", b->_ctl22);
    p = put_enum(p, "dst_dtype_mx", b->dst_dtype_mx, dtype_names);
    p = BYTES(p, "_ctl29", b->_ctl29);
    p = put_x8(p, "accumulate", b->accumulate);
    p = BYTES(p, "_ctl2c", b->_ctl2c);
    p = put_d8(p, "psum_zero_region", b->psum_zero_region);
    return put_tensor3d(p, "psum_dst", &b->psum_dst);
}

static char *body_activation(char *p, const NEURON_ISA_TPB_BUNDLE_ACTIVATION *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = BYTES(p, "_pad0c", b->_pad0c);
    p = put_tensor3d(p, "src", &b->src);
    p = put_enum(p, "in_dtype", b->in_dtype, dtype_names);
    p = put_enum(p, "out_dtype", b->out_dtype, dtype_names);
    p = put_x8(p, "_ctl22", b->_ctl22);
    p = put_d8(p, "act_tbl_sel", b->act_tbl_sel);
    p = BYTES(p, "_ctl24", b->_ctl24);
    return put_tensor3d(p, "dst", &b->dst);
}

static char *body_tensorscalar(char *p, const NEURON_ISA_TPB_BUNDLE_TENSORSCALAR *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = BYTES(p, "_pad0c", b->_pad0c);
    p = put_tensor3d(p, "src", &b->src);
    p = put_enum(p, "in_dtype", b->in_dtype, dtype_names);
    p = put_enum(p, "out_dtype", b->out_dtype, dtype_names);
    p = put_x8(p, "scalar_base", b->scalar_base);
    p = put_x8(p, "_ctl23", b->_ctl23);
    p = put_enum(p, "op0", b->op0, alu_names);
    p = put_enum(p, "op1", b->op1, alu_names);
    p = put_x8(p, "reverse", b->reverse);
    p = BYTES(p, "_ctl27", b->_ctl27);
    return put_tensor3d(p, "dst", &b->dst);
}

static char *body_tensortensor(char *p, const NEURON_ISA_TPB_BUNDLE_TENSORTENSOR *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = put_dtype_pair(p, "in_dtype_nibbles", b->in_dtype_nibbles);
    p = put_enum(p, "out_dtype", b->out_dtype, dtype_names);
    p = put_enum(p, "alu_op", b->alu_op, alu_names);
    p = put_d8(p, "num_active_parts", b->num_active_parts);
    p = put_tensor3d(p, "dst", &b->dst);
    p = put_tensor3d(p, "in0", &b->in0);
    return put_tensor3d(p, "in1", &b->in1);
}

static char *body_poolcopy(char *p, const NEURON_ISA_TPB_BUNDLE_POOLCOPY *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = put_tensor4d(p, "src", &b->src);
    p = put_enum(p, "src_dtype", b->src_dtype, dtype_names);
    p = put_enum(p, "dst_dtype", b->dst_dtype, dtype_names);
    p = BYTES(p, "_ctl22", b->_ctl22);
    p = put_enum(p, "func", b->func, pool_func_names);
    p = put_d8(p, "mode", b->mode);
    p = BYTES(p, "_ctl26", b->_ctl26);
    p = put_x32(p, "scale_or_fill", b->scale_or_fill);
    return put_tensor4d(p, "out", &b->out);
}

static char *body_bnstats(char *p, const NEURON_ISA_TPB_BUNDLE_BNSTATS *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = put_tensor4d(p, "src", &b->src);
    p = put_enum(p, "src_dtype", b->src_dtype, dtype_names);
    p = put_enum(p, "dst_dtype", b->dst_dtype, dtype_names);
    p = BYTES(p, "_ctl22", b->_ctl22);
    p = put_tensor2d(p, "out", &b->out);
    return BYTES(p, "_tail", b->_tail);
}

static char *body_semaphore(char *p, const NEURON_ISA_TPB_SEMAPHORE *b)
{
    p = BYTES(p, "events", b->events);
    p = BYTES(p, "_r0c", b->_r0c);
    p = put_enum(p, "cmp_op", b->cmp_op, sem_cmp_names);
    p = put_d8(p, "wait_idx", b->wait_idx);
    p = put_enum(p, "subtype", b->subtype, sem_subtype_names);
    p = put_d8(p, "act_idx", b->act_idx);
    p = put_x32(p, "wait_value", b->wait_value);
    p = put_x32(p, "act_value", b->act_value);
    return BYTES(p, "_r2c", b->_r2c);
}

static char *body_branch(char *p, const NEURON_ISA_TPB_BUNDLE_BRANCH *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = put_enum(p, "comp_op", b->comp_op, branch_comp_names);
    p = put_enum(p, "lhs_dtype", b->lhs_dtype, dtype_names);
    p = put_d8(p, "ap_kind", b->ap_kind);
    p = put_x8(p, "_r0f", b->_r0f);
    p = put_x32(p, "rhs_imm", b->rhs_imm);
    p = BYTES(p, "_r14", b->_r14);
    p = put_d8(p, "lhs_reg", b->lhs_reg);
    p = put_d8(p, "rhs_reg", b->rhs_reg);
    p = BYTES(p, "_r22", b->_r22);
    p = put_x64(p, "target_pc", b->target_pc);
    return BYTES(p, "_r38", b->_r38);
}

static char *body_load_act_func_set(char *p, const NEURON_ISA_TPB_BUNDLE_LOAD_ACT_FUNC_SET *b)
{
    p = BYTES(p, "zero_04", b->zero_04);
    p = put_d8(p, "byte_23", b->byte_23);
    return BYTES(p, "zero_24", b->zero_24);
}

static char *body_stream_mask(char *p, const NEURON_ISA_TPB_BUNDLE_STREAM_MASK *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = BYTES(p, "zero_0c", b->zero_0c);
    p = put_key(p, "words_20");
    *p++ = '[';
    for (size_t i = 0; i < sizeof b->words_20 / sizeof b->words_20[0]; i++) {
        if (i)
            *p++ = ',';
        p = put_hex(p, le32(b->words_20[i]), 8);
    }
    *p++ = ']';
    return p;
}

static char *body_noop(char *p, const NEURON_ISA_TPB_BUNDLE_NOOP *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    return BYTES(p, "zero_0c", b->zero_0c);
}

static char *body_register_alu(char *p, const NEURON_ISA_TPB_BUNDLE_REGISTER_ALU *b)
{
    p = BYTES(p, "zero_04", b->zero_04);
    p = put_enum(p, "alu_0c", b->alu_0c, alu_names);
    p = put_x8(p, "byte_0d", b->byte_0d);
    p = put_x8(p, "byte_0e", b->byte_0e);
    p = put_x8(p, "byte_0f", b->byte_0f);
    p = put_x32(p, "word_10", b->word_10);
    p = put_x32(p, "word_14", b->word_14);
    p = put_x32(p, "word_18", b->word_18);
    return BYTES(p, "zero_1c", b->zero_1c);
}

static char *body_dma_trigger(char *p, const NEURON_ISA_TPB_BUNDLE_DMA_TRIGGER *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = BYTES(p, "queue_name", b->queue_name);
    p = BYTES(p, "zero_20", b->zero_20);
    p = put_d32(p, "word_30", b->word_30);
    return BYTES(p, "zero_34", b->zero_34);
}

static char *body_dma(char *p, const NEURON_ISA_TPB_BUNDLE_DMA *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = put_x32(p, "word_0c", b->word_0c);
    p = put_x64(p, "addr8_10", b->addr8_10);
    p = put_x32(p, "word_18", b->word_18);
    p = put_x32(p, "word_1c", b->word_1c);
    p = put_x32(p, "word_20", b->word_20);
    p = put_x32(p, "word_24", b->word_24);
    p = put_x64(p, "addr8_28", b->addr8_28);
    p = put_x32(p, "word_30", b->word_30);
    p = put_x32(p, "word_34", b->word_34);
    p = put_x32(p, "word_38", b->word_38);
    return put_x32(p, "word_3c", b->word_3c);
}

static char *body_tensor_load(char *p, const NEURON_ISA_TPB_BUNDLE_TENSOR_LOAD *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = put_x32(p, "word_0c", b->word_0c);
    p = BYTES(p, "zero_10", b->zero_10);
    p = put_x32(p, "word_14", b->word_14);
    p = put_x32(p, "word_18", b->word_18);
    p = put_x32(p, "word_1c", b->word_1c);
    p = put_x32(p, "word_20", b->word_20);
    return BYTES(p, "zero_24", b->zero_24);
}

static char *body_collective_coarse(char *p, const NEURON_ISA_TPB_BUNDLE_COLLECTIVE_COARSE *b)
{
    p = BYTES(p, "zero_04", b->zero_04);
    p = put_x8(p, "byte_0f", b->byte_0f);
    return BYTES(p, "zero_10", b->zero_10);
}

static char *body_tensor_scalar_addr(char *p, const NEURON_ISA_TPB_BUNDLE_TENSOR_SCALAR_ADDR *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = put_tensor2d(p, "pattern2d_0c", &b->pattern2d_0c);
    p = put_addr4(p, "addr4_18", b->addr4_18);
    p = BYTES(p, "zero_1c", b->zero_1c);
    p = put_x32(p, "word_20", b->word_20);
    p = BYTES(p, "mask_24", b->mask_24);
    p = put_tensor1d(p, "pattern1d_28", &b->pattern1d_28);
    p = BYTES(p, "zero_30", b->zero_30);
    return put_tensor2d(p, "pattern2d_34", &b->pattern2d_34);
}

static char *body_custom_op_arg(char *p, const NEURON_ISA_TPB_BUNDLE_CUSTOM_OP_ARG *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = put_tensor1d(p, "pattern1d_0c", &b->pattern1d_0c);
    p = BYTES(p, "zero_14", b->zero_14);
    p = put_x8(p, "byte_18", b->byte_18);
    p = put_x8(p, "zero_19", b->zero_19);
    p = put_x8(p, "byte_1a", b->byte_1a);
    p = put_x8(p, "zero_1b", b->zero_1b);
    p = put_x8(p, "byte_1c", b->byte_1c);
    p = BYTES(p, "zero_1d", b->zero_1d);
    p = put_addr4(p, "addr4_28", b->addr4_28);
    p = put_x8(p, "byte_2c", b->byte_2c);
    p = put_x8(p, "byte_2d", b->byte_2d);
    p = BYTES(p, "const_2e", b->const_2e);
    p = put_x8(p, "byte_34", b->byte_34);
    p = put_x8(p, "byte_35", b->byte_35);
    return BYTES(p, "zero_36", b->zero_36);
}

static char *body_read_act_accumulator(char *p, const NEURON_ISA_TPB_BUNDLE_READ_ACT_ACCUMULATOR *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = BYTES(p, "const_0c", b->const_0c);
    p = put_x8(p, "byte_22", b->byte_22);
    p = BYTES(p, "zero_23", b->zero_23);
    p = put_addr4(p, "addr4_2c", b->addr4_2c);
    return BYTES(p, "const_30", b->const_30);
}

static char *body_indirect_dma(char *p, const NEURON_ISA_TPB_BUNDLE_INDIRECT_DMA *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = put_addr4(p, "addr4_0c", b->addr4_0c);
    p = BYTES(p, "const_10", b->const_10);
    p = put_addr4(p, "addr4_18", b->addr4_18);
    p = BYTES(p, "zero_1c", b->zero_1c);
    p = put_x8(p, "byte_20", b->byte_20);
    p = put_x8(p, "byte_21", b->byte_21);
    p = put_x8(p, "byte_22", b->byte_22);
    p = BYTES(p, "const_23", b->const_23);
    p = put_x8(p, "byte_2e", b->byte_2e);
    p = put_x8(p, "zero_2f", b->zero_2f);
    p = put_d8(p, "count_30", b->count_30);
    p = BYTES(p, "zero_31", b->zero_31);
    p = put_x32(p, "word_34", b->word_34);
    return BYTES(p, "const_38", b->const_38);
}

static char *body_indirect_dma_checked(char *p, const NEURON_ISA_TPB_BUNDLE_INDIRECT_DMA_CHECKED *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = put_addr4(p, "addr4_0c", b->addr4_0c);
    p = BYTES(p, "const_10", b->const_10);
    p = put_x8(p, "byte_1c", b->byte_1c);
    p = BYTES(p, "zero_1d", b->zero_1d);
    p = put_addr4(p, "addr4_20", b->addr4_20);
    p = put_enum(p, "dtype_24", b->dtype_24, dtype_names);
    p = BYTES(p, "const_25", b->const_25);
    p = put_x8(p, "byte_30", b->byte_30);
    p = BYTES(p, "zero_31", b->zero_31);
    p = put_x8(p, "byte_34", b->byte_34);
    p = put_x8(p, "byte_35", b->byte_35);
    p = BYTES(p, "zero_36", b->zero_36);
    p = put_addr4(p, "addr4_38", b->addr4_38);
    p = put_x8(p, "byte_3c", b->byte_3c);
    return BYTES(p, "zero_3d", b->zero_3d);
}

static char *body_bn_gradients(char *p, const NEURON_ISA_TPB_BUNDLE_BN_GRADIENTS *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = BYTES(p, "const_0c", b->const_0c);
    p = put_x32(p, "word_10", b->word_10);
    p = BYTES(p, "const_14", b->const_14);
    p = put_tensor3d(p, "pattern3d_18", &b->pattern3d_18);
    p = put_addr4(p, "addr4_28", b->addr4_28);
    p = BYTES(p, "const_2c", b->const_2c);
    p = put_x16(p, "half_30", b->half_30);
    p = BYTES(p, "const_32", b->const_32);
    p = put_addr4(p, "addr4_38", b->addr4_38);
    return put_addr4(p, "addr4_3c", b->addr4_3c);
}

static char *body_bn_backprop(char *p, const NEURON_ISA_TPB_BUNDLE_BN_BACKPROP *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = BYTES(p, "const_0c", b->const_0c);
    p = put_addr4(p, "addr4_2c", b->addr4_2c);
    return BYTES(p, "const_30", b->const_30);
}

static char *body_bn_backprop_param_load(char *p, const NEURON_ISA_TPB_BUNDLE_BN_BACKPROP_PARAM_LOAD *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = put_tensor1d(p, "pattern1d_0c", &b->pattern1d_0c);
    p = BYTES(p, "const_14", b->const_14);
    p = put_tensor3d(p, "pattern3d_18", &b->pattern3d_18);
    p = put_tensor3d(p, "pattern3d_28", &b->pattern3d_28);
    p = put_addr4(p, "addr4_38", b->addr4_38);
    return BYTES(p, "const_3c", b->const_3c);
}

static char *body_custom_op_header(char *p, const NEURON_ISA_TPB_BUNDLE_CUSTOM_OP_HEADER *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = BYTES(p, "const_0c", b->const_0c);
    p = put_x8(p, "byte_0e", b->byte_0e);
    return BYTES(p, "const_0f", b->const_0f);
}

static char *body_max_index_values(char *p, const NEURON_ISA_TPB_BUNDLE_MAX_INDEX_VALUES *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = BYTES(p, "zero_0c", b->zero_0c);
    p = put_addr4(p, "addr4_10", b->addr4_10);
    p = BYTES(p, "const_14", b->const_14);
    p = put_x8(p, "byte_22", b->byte_22);
    return BYTES(p, "zero_23", b->zero_23);
}

static char *body_match_replace8(char *p, const NEURON_ISA_TPB_BUNDLE_MATCH_REPLACE8 *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = put_tensor3d(p, "pattern3d_0c", &b->pattern3d_0c);
    p = BYTES(p, "const_1c", b->const_1c);
    p = put_x8(p, "byte_22", b->byte_22);
    p = BYTES(p, "const_23", b->const_23);
    p = put_tensor3d(p, "pattern3d_2c", &b->pattern3d_2c);
    return BYTES(p, "const_3c", b->const_3c);
}

static char *body_tensor_scalar_affine_select(char *p,
                                              const NEURON_ISA_TPB_BUNDLE_TENSOR_SCALAR_AFFINE_SELECT *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = put_x8(p, "const_0c", b->const_0c);
    p = put_dtype_pair(p, "dtypes_0d", b->dtypes_0d);
    p = BYTES(p, "const_0e", b->const_0e);
    p = put_x8(p, "byte_24", b->byte_24);
    p = put_x8(p, "byte_25", b->byte_25);
    p = BYTES(p, "const_26", b->const_26);
    p = put_x8(p, "byte_30", b->byte_30);
    p = put_x8(p, "byte_31", b->byte_31);
    return BYTES(p, "const_32", b->const_32);
}

static char *body_pool_buffer_load(char *p, const NEURON_ISA_TPB_BUNDLE_POOL_BUFFER_LOAD *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    p = put_tensor3d(p, "pattern3d_0c", &b->pattern3d_0c);
    return BYTES(p, "const_1c", b->const_1c);
}

static char *body_register_move(char *p, const NEURON_ISA_TPB_BUNDLE_REGISTER_MOVE *b)
{
    p = BYTES(p, "_pad04", b->_pad04);
    return BYTES(p, "const_0c", b->const_0c);
}

static char *body_opaque(char *p, const NEURON_ISA_TPB_BUNDLE_OPAQUE *b)
{
    return BYTES(p, "body", b->body);
}

/* ---- the entry point ---- */

/* Every field prints at a bounded width, so an answer is bounded too: the
 * longest seen over all opcodes with extreme bytes is 519 characters. */
#define SCRATCH_BYTES 2048

static int finish(const char *text, size_t len, char *answer, size_t capacity)
{
    if (capacity > 0 && answer != NULL) {
        size_t n = len < capacity - 1 ? len : capacity - 1;
        memcpy(answer, text, n);
        answer[n] = '\0';
    }
    return (int)len;
}

int tpb_worker_decode(int generation, const unsigned char bundle[64], char *answer, size_t capacity)
{
    char scratch[SCRATCH_BYTES];
    char *p = scratch;
    NEURON_ISA_TPB_INST_UNION u;

    if (generation < 2 || generation > 4) {
        static const char msg[] = "error unsupported generation (want 2, 3 or 4)";
        return finish(msg, sizeof msg - 1, answer, capacity);
    }
    if (bundle == NULL) {
        static const char msg[] = "error no bundle";
        return finish(msg, sizeof msg - 1, answer, capacity);
    }
    memcpy(u.raw, bundle, NEURON_ISA_TPB_BUNDLE_BYTES);

    p = put_str(p, "opcode=");
    p = put_hex(p, u.header.opcode, 2);
    p = put_x8(p, "inst_word_len", u.header.inst_word_len);
    p = put_x16(p, "reserved", u.header.reserved);

    switch (neuron_isa_tpb_body_kind(u.header.opcode)) {
    case NEURON_ISA_TPB_BODY_MATMUL: p = body_matmul(p, &u.matmul); break;
    case NEURON_ISA_TPB_BODY_MATMUL_MX: p = body_matmul_mx(p, &u.matmul_mx); break;
    case NEURON_ISA_TPB_BODY_ACTIVATION: p = body_activation(p, &u.activation); break;
    case NEURON_ISA_TPB_BODY_TENSORSCALAR: p = body_tensorscalar(p, &u.tensorscalar); break;
    case NEURON_ISA_TPB_BODY_TENSORTENSOR: p = body_tensortensor(p, &u.tensortensor); break;
    case NEURON_ISA_TPB_BODY_POOLCOPY: p = body_poolcopy(p, &u.poolcopy); break;
    case NEURON_ISA_TPB_BODY_BNSTATS: p = body_bnstats(p, &u.bnstats); break;
    case NEURON_ISA_TPB_BODY_SEMAPHORE: p = body_semaphore(p, &u.semaphore); break;
    case NEURON_ISA_TPB_BODY_BRANCH: p = body_branch(p, &u.branch); break;
    case NEURON_ISA_TPB_BODY_LOAD_ACT_FUNC_SET: p = body_load_act_func_set(p, &u.load_act_func_set); break;
    case NEURON_ISA_TPB_BODY_STREAM_MASK: p = body_stream_mask(p, &u.stream_mask); break;
    case NEURON_ISA_TPB_BODY_NOOP: p = body_noop(p, &u.noop); break;
    case NEURON_ISA_TPB_BODY_REGISTER_ALU: p = body_register_alu(p, &u.register_alu); break;
    case NEURON_ISA_TPB_BODY_DMA_TRIGGER: p = body_dma_trigger(p, &u.dma_trigger); break;
    case NEURON_ISA_TPB_BODY_DMA: p = body_dma(p, &u.dma); break;
    case NEURON_ISA_TPB_BODY_TENSOR_LOAD: p = body_tensor_load(p, &u.tensor_load); break;
    case NEURON_ISA_TPB_BODY_COLLECTIVE_COARSE: p = body_collective_coarse(p, &u.collective_coarse); break;
    case NEURON_ISA_TPB_BODY_TENSOR_SCALAR_ADDR: p = body_tensor_scalar_addr(p, &u.tensor_scalar_addr); break;
    case NEURON_ISA_TPB_BODY_CUSTOM_OP_ARG: p = body_custom_op_arg(p, &u.custom_op_arg); break;
    case NEURON_ISA_TPB_BODY_READ_ACT_ACCUMULATOR: p = body_read_act_accumulator(p, &u.read_act_accumulator); break;
    case NEURON_ISA_TPB_BODY_INDIRECT_DMA: p = body_indirect_dma(p, &u.indirect_dma); break;
    case NEURON_ISA_TPB_BODY_INDIRECT_DMA_CHECKED: p = body_indirect_dma_checked(p, &u.indirect_dma_checked); break;
    case NEURON_ISA_TPB_BODY_BN_GRADIENTS: p = body_bn_gradients(p, &u.bn_gradients); break;
    case NEURON_ISA_TPB_BODY_BN_BACKPROP: p = body_bn_backprop(p, &u.bn_backprop); break;
    case NEURON_ISA_TPB_BODY_BN_BACKPROP_PARAM_LOAD: p = body_bn_backprop_param_load(p, &u.bn_backprop_param_load); break;
    case NEURON_ISA_TPB_BODY_CUSTOM_OP_HEADER: p = body_custom_op_header(p, &u.custom_op_header); break;
    case NEURON_ISA_TPB_BODY_MAX_INDEX_VALUES: p = body_max_index_values(p, &u.max_index_values); break;
    case NEURON_ISA_TPB_BODY_MATCH_REPLACE8: p = body_match_replace8(p, &u.match_replace8); break;
    case NEURON_ISA_TPB_BODY_TENSOR_SCALAR_AFFINE_SELECT:
        p = body_tensor_scalar_affine_select(p, &u.tensor_scalar_affine_select);
        break;
    case NEURON_ISA_TPB_BODY_POOL_BUFFER_LOAD: p = body_pool_buffer_load(p, &u.pool_buffer_load); break;
    case NEURON_ISA_TPB_BODY_REGISTER_MOVE: p = body_register_move(p, &u.register_move); break;
    case NEURON_ISA_TPB_BODY_OPAQUE: p = body_opaque(p, &u.opaque); break;
    default: {
        /* A body kind this worker was not written for: the header grew. */
        static const char msg[] = "error body kind not handled by this worker";
        return finish(msg, sizeof msg - 1, answer, capacity);
    }
    }
    return finish(scratch, (size_t)(p - scratch), answer, capacity);
}
