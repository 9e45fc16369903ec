//! Valid bundles from arbitrary bytes.

use super::{put, put_at};
use crate::addr4::{Addr4, MODE_ACTIVE, MODE_INDIRECT, PSUM_BASE, PSUM_SPAN, REGID_LIMIT, REGISTER_BIT};
use crate::bundle::claims::claims;
use crate::bundle::{header, BodyKind, Bundle, Raw, BUNDLE_BYTES};
use crate::descriptor::{MxIndirect16b, MxMemPattern1d};
use crate::dtype::{DtypeInfo, BF16, DTYPES};
use crate::enums;
use crate::generation::Generation;
use crate::layout::Layout;
use crate::opcode::{OpcodeInfo, OPCODES, QUANTIZE_MX};
use crate::operands::{self, DtypeRef, Role, Slot, SlotType};
use crate::validate::{byte_values, MX_SCALE_PARTS, MX_STEP_DIRS};
use arbitrary::{Result, Unstructured};

/// Opcodes the generator may pick on a generation: every available one.
pub fn candidate_opcodes(g: Generation) -> impl Iterator<Item = &'static OpcodeInfo> {
    OPCODES.iter().filter(move |o| o.available(g))
}

/// A valid bundle for `g`; typed bodies are picked more often than opaque ones.
pub fn bundle(u: &mut Unstructured, g: Generation) -> Result<Bundle> {
    let (typed, all) = &candidate_lists()[g.index()];
    let op = if u.ratio(4, 5)? { *u.choose(typed)? } else { *u.choose(all)? };
    bundle_for(u, g, op)
}

/// Per generation, the typed and all candidate opcodes, listed once per
/// process: filtering the opcode table twice per bundle was a tenth of the
/// `validate` fuzz target's time.
fn candidate_lists() -> &'static [(Vec<&'static OpcodeInfo>, Vec<&'static OpcodeInfo>); 3] {
    static LISTS: std::sync::OnceLock<[(Vec<&'static OpcodeInfo>, Vec<&'static OpcodeInfo>); 3]> = std::sync::OnceLock::new();
    LISTS.get_or_init(|| {
        Generation::ALL.map(|g| (candidate_opcodes(g).filter(|o| o.body != BodyKind::Opaque).collect(), candidate_opcodes(g).collect()))
    })
}

/// A valid bundle of one opcode for `g`.
pub fn bundle_for(u: &mut Unstructured, g: Generation, op: &OpcodeInfo) -> Result<Bundle> {
    let mut raw: Raw = [0; BUNDLE_BYTES];
    u.fill_buffer(&mut raw)?;
    raw[0] = op.byte;
    raw[1] = if op.byte == QUANTIZE_MX && u.ratio(1, 2)? { header::INST_WORD_LEN_SATURATE } else { header::INST_WORD_LEN };
    raw[2] = 0;
    raw[3] = 0;
    let layout = op.body.layout();
    for slot in operands::live_slots(op) {
        match slot.ty {
            SlotType::Pattern(_) => pattern(u, g, &mut raw, layout, slot)?,
            SlotType::Mx => mx(u, g, &mut raw, layout, slot)?,
        }
    }
    band(u, g, &mut raw, layout, op)?;
    claimed(u, g, &mut raw, layout, op)?;
    Ok(Bundle::decode(&raw))
}

/// Dtypes valid on `g` that a slot may carry.
fn dtypes(g: Generation, nibble: bool, psum_dst: bool, matmul: bool) -> Vec<&'static DtypeInfo> {
    DTYPES.iter().filter(|d| d.since <= g && (!nibble || d.tag <= 0x0F)).filter(|d| !psum_dst || d.psum_write || (matmul && d.tag == BF16)).collect()
}

fn pick_dtype(u: &mut Unstructured, g: Generation, r: DtypeRef, psum_dst: bool, matmul: bool) -> Result<&'static DtypeInfo> {
    Ok(*u.choose(&dtypes(g, matches!(r, DtypeRef::Nibble(..)), psum_dst, matmul))?)
}

/// An address word in `psum` or SBUF, aligned to `align`, static or active.
fn memory_word(u: &mut Unstructured, psum: bool, align: u32) -> Result<u32> {
    let offset = if psum { u.int_in_range(0..=PSUM_SPAN)? } else { u.int_in_range(0..=PSUM_BASE - 1)? };
    let addr = (if psum { PSUM_BASE + offset } else { offset }) & !(align - 1);
    let mode = if u.ratio(1, 4)? { MODE_ACTIVE } else { 0 };
    Ok(Addr4::new(mode).with_addr29(addr).word())
}

fn register_word(u: &mut Unstructured) -> Result<u32> {
    Ok(REGISTER_BIT | u.int_in_range(0..=REGID_LIMIT - 1)?)
}

fn pattern(u: &mut Unstructured, g: Generation, raw: &mut Raw, layout: &Layout, slot: &Slot) -> Result<()> {
    let SlotType::Pattern(dims) = slot.ty else { return Ok(()) };
    let name = slot.name;
    let matmul = slot.role == (Role::Dst { matmul: true });
    let form = u.int_in_range(0..=9u8)?;
    if form < 7 {
        // Static memory operand.
        let psum = matmul || (u.ratio(1, 3)?);
        let d = pick_dtype(u, g, slot.dtype, psum && slot.is_dst(), matmul)?;
        slot.dtype.write(layout, g, raw, d.tag);
        put(raw, layout, &format!("{name}.addr"), u64::from(memory_word(u, psum, d.align)?));
    } else if form < 9 || slot.is_dst() {
        // Register-mode address.
        let d = pick_dtype(u, g, slot.dtype, false, matmul)?;
        slot.dtype.write(layout, g, raw, d.tag);
        put(raw, layout, &format!("{name}.addr"), u64::from(register_word(u)?));
    } else {
        // A gather: index (indirect mode) then a data address; the rest is inert.
        let d = pick_dtype(u, g, slot.dtype, false, false)?;
        slot.dtype.write(layout, g, raw, d.tag);
        let index = MODE_INDIRECT | (u.int_in_range(0..=PSUM_BASE - 1)?);
        put(raw, layout, &format!("{name}.addr"), u64::from(index));
        let psum = u.ratio(1, 3)?;
        let data = memory_word(u, psum, 1)?;
        let off = slot.offset(layout) + 4;
        raw[off..off + 4].copy_from_slice(&data.to_le_bytes());
        return Ok(());
    }
    for i in 0..dims {
        put(raw, layout, &format!("{name}.num[{i}]"), u64::from(u.int_in_range(1..=u16::MAX)?));
    }
    Ok(())
}

fn mx(u: &mut Unstructured, g: Generation, raw: &mut Raw, layout: &Layout, slot: &Slot) -> Result<()> {
    let d = pick_dtype(u, g, slot.dtype, false, false)?;
    slot.dtype.write(layout, g, raw, d.tag);
    let base = slot.offset(layout);
    // The scale is an SBUF address, or in a register (whose region no rule can check).
    let scale = if u.ratio(1, 6)? { register_word(u)? } else { memory_word(u, false, 1)? };
    let k: u16 = u.int_in_range(1..=u16::MAX)?;
    let part: u8 = u.int_in_range(0..=MX_SCALE_PARTS - 1)?;
    let gather = u.ratio(1, 5)?;
    let psum = u.ratio(1, 3)?;
    // A gather reads the slot as MXINDIRECT16B (its index in front), else as MXMEM_PATTERN1D.
    let (view, data) = if gather {
        let view = &MxIndirect16b::LAYOUT;
        put_at(raw, base, view, "index", u64::from(MODE_INDIRECT | u.int_in_range(0..=PSUM_BASE - 1)?));
        (view, memory_word(u, psum, d.align)?)
    } else {
        let view = &MxMemPattern1d::LAYOUT;
        put_at(raw, base, view, "step_dir", u64::from(*u.choose(&MX_STEP_DIRS)?));
        (view, if u.ratio(1, 6)? { register_word(u)? } else { memory_word(u, psum, d.align)? })
    };
    put_at(raw, base, view, "data", u64::from(data));
    put_at(raw, base, view, "scale", u64::from(scale));
    put_at(raw, base, view, "k_extent", u64::from(k));
    put_at(raw, base, view, "scale_base_part", u64::from(part));
    Ok(())
}

/// Gives each recovered field a value that holds its claim (what every real
/// bundle holds there); the fields no claim covers stay arbitrary.
fn claimed(u: &mut Unstructured, g: Generation, raw: &mut Raw, layout: &Layout, op: &OpcodeInfo) -> Result<()> {
    for (field, claim) in claims(op.byte) {
        let Some((off, size)) = layout.resolve(field) else { continue };
        let value = claim.arbitrary(u, size, g)?;
        if let Some(dst) = raw.get_mut(off..off + size) {
            dst.iter_mut().zip(&value).for_each(|(d, v)| *d = *v);
        }
    }
    Ok(())
}

/// Fixes the control-band fields the spec constrains.
fn band(u: &mut Unstructured, g: Generation, raw: &mut Raw, layout: &Layout, op: &OpcodeInfo) -> Result<()> {
    let pick = |u: &mut Unstructured, t: &enums::EnumTable| -> Result<u64> { Ok(u64::from(u.choose(t.entries)?.0)) };
    match op.body {
        BodyKind::Matmul | BodyKind::MatmulMx => {
            let mut allowed = |field: &str| -> Result<()> {
                put(raw, layout, field, u64::from(*u.choose(&byte_values(field, true))?));
                Ok(())
            };
            allowed("perf_sel")?;
            if op.body == BodyKind::Matmul && g == Generation::V2 {
                allowed("row_group")?;
                allowed("col_group_norm")?;
            }
        }
        BodyKind::TensorScalar => {
            put(raw, layout, "op0", pick(u, &enums::ALU_OP)?);
            put(raw, layout, "op1", pick(u, &enums::ALU_OP)?);
        }
        BodyKind::TensorTensor => put(raw, layout, "alu_op", pick(u, &enums::ALU_OP)?),
        BodyKind::PoolCopy if op.byte == crate::validate::POOL_OPCODE => {
            let func = pick(u, &enums::POOL_FUNC)?;
            put(raw, layout, "func", func);
            put(raw, layout, "mode", u64::from(crate::validate::POOL_SUB_MODE));
            let scale = if enums::POOL_FUNC.name_of(func as u8) == Some("max") {
                crate::validate::POOL_MAX_SCALE
            } else {
                (1.0f32 / f32::from(u.int_in_range(1..=u16::MAX)?)).to_bits()
            };
            put(raw, layout, "scale_or_fill", u64::from(scale));
        }
        BodyKind::Semaphore => {
            put(raw, layout, "cmp_op", pick(u, &enums::SEMAPHORE_CMP_OP)?);
            put(raw, layout, "subtype", pick(u, &enums::SEMAPHORE_SUBTYPE)?);
        }
        BodyKind::Branch => {
            let c = pick(u, &enums::BRANCH_COMP_OP)?;
            put(raw, layout, "comp_op", c);
            if c != 0 {
                put(raw, layout, "lhs_dtype", u64::from(pick_dtype(u, g, DtypeRef::Field("lhs_dtype"), false, false)?.tag));
                put(raw, layout, "ap_kind", u64::from(crate::validate::BRANCH_AP_KIND_SCALAR));
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::addr4::Addr4;
    use crate::opcode;

    /// A gather's index word lies in SBUF whatever the input, even one whose
    /// index draw is at the top of the byte range: the generator's ranges
    /// end where the memory it names ends.
    #[test]
    fn a_gather_index_stays_in_sbuf_at_the_ends_of_the_input_range() {
        let Some(op) = opcode::lookup(0x41) else { panic!("TensorTensor missing") };
        let layout = op.body.layout();
        let Some(src) = operands::live_slots(op).find(|s| !s.is_dst()) else { panic!("no source slot") };
        for draw in [0x01FF_FFFFu32, 0x0200_0000, 0x0200_0001, 0x0200_0002, 0x7FFF_FFFF, 0xFFFF_FFFF] {
            // The form byte (9: a gather), the dtype choice, then the index draw (big-endian).
            let mut data = vec![9u8, 0];
            data.extend_from_slice(&draw.to_be_bytes());
            data.resize(64, 0);
            let mut raw: Raw = [0; BUNDLE_BYTES];
            assert!(pattern(&mut Unstructured::new(&data), Generation::V2, &mut raw, layout, src).is_ok());
            let at = src.offset(layout);
            let Some(word) = raw.get(at..at + 4).and_then(|w| <[u8; 4]>::try_from(w).ok()) else { panic!("slot outside the bundle") };
            let index = Addr4::new(u32::from_le_bytes(word));
            assert!(index.is_indirect(), "draw {draw:#x}: {:#010x} is not a gather", index.word());
            assert!(index.addr29() < PSUM_BASE, "draw {draw:#x}: index {:#010x} outside SBUF", index.word());
        }
    }

    /// An avg Pool's scale is drawn from the reciprocals 1/n, n up to 65535:
    /// many values in (0, 1], not only 1.0 (a clean stream exercises the
    /// validator's range check, not one constant).
    #[test]
    fn avg_pool_scales_are_many_reciprocals() {
        let Some(op) = opcode::lookup(crate::validate::POOL_OPCODE) else { panic!("Pool missing") };
        let mut scales = std::collections::BTreeSet::new();
        for seed in 0..400u64 {
            let bytes = crate::props::seeded_bytes(seed, 256);
            let Ok(crate::Bundle::PoolCopy(b)) = bundle_for(&mut Unstructured::new(&bytes), Generation::V3, op) else { continue };
            if enums::POOL_FUNC.name_of(b.func) == Some("avg") {
                let s = f32::from_bits(b.scale_or_fill.get());
                assert!(s > 0.0 && s <= 1.0, "scale {s}");
                scales.insert(b.scale_or_fill.get());
            }
        }
        assert!(scales.len() > 50, "{} distinct avg scales: {scales:x?}", scales.len());
        assert!(scales.iter().any(|&s| f32::from_bits(s) < 0.01), "no small scale: {scales:x?}");
    }
}
