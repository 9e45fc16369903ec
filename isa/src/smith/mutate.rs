//! Single-invariant mutations of a valid bundle.

use super::{get, put};
use crate::addr4::{Addr4, PSUM_BASE};
use crate::bundle::claims::{claims, Claim};
use crate::bundle::{BodyKind, Bundle, Raw};
use crate::checks::{self as c, Check};
use crate::descriptor::{MxIndirect16b, MxMemPattern1d};
use crate::dtype::{self, BF16, DTYPES};
use crate::enums;
use crate::generation::Generation;
use crate::layout::{unsigned_max, Layout};
use crate::opcode::{self, OpcodeInfo, OPCODES};
use crate::operands::{self, DtypeRef, Role, Slot, SlotType};
use crate::validate::{byte_values, MX_SCALE_PARTS, MX_STEP_DIRS};
use arbitrary::{Result, Unstructured};

/// A mutated bundle and the one check the validator must report for it.
#[derive(Debug, Clone)]
pub struct Mutation {
    /// The valid bundle with one invariant broken.
    pub bundle: Bundle,
    /// The check that must now fail.
    pub expect: &'static Check,
    /// What was changed, for failure messages.
    pub what: String,
}

type Apply = Box<dyn Fn(&mut Unstructured, &mut Raw) -> Result<String>>;

/// Breaks exactly one invariant of `valid` (a bundle valid on `g`); `None`
/// when no mutation applies (never for a typed body).
pub fn mutate(u: &mut Unstructured, valid: &Bundle, g: Generation) -> Result<Option<Mutation>> {
    let Some(op) = opcode::lookup(valid.opcode()) else { return Ok(None) };
    let layout = valid.layout();
    let mut raw = valid.encode();
    let cands = candidates(&raw, layout, op, g);
    if cands.is_empty() {
        return Ok(None);
    }
    let i = u.choose_index(cands.len())?;
    let (expect, apply) = &cands[i];
    let what = apply(u, &mut raw)?;
    Ok(Some(Mutation { bundle: Bundle::decode(&raw), expect, what }))
}

/// Breaks one claim of a recovered family's field in `valid` (a bundle whose
/// claims hold, as the generator makes them): the recovered layer
/// ([`crate::validate::recovered_claims`]) must report it, and the spec's
/// validator must not notice. Kept out of [`mutate`], whose mutations the
/// spec's validator reports. `None` when the opcode claims nothing.
pub fn break_claim(u: &mut Unstructured, valid: &Bundle, g: Generation) -> Result<Option<Mutation>> {
    let layout = valid.layout();
    let mut raw = valid.encode();
    let fields: Vec<(&'static str, Claim, usize, usize)> = claims(valid.opcode())
        .filter_map(|(f, c)| layout.resolve(f).map(|(off, size)| (f, c, off, size)))
        .filter(|&(_, c, _, size)| breakable(c, size))
        .collect();
    if fields.is_empty() {
        return Ok(None);
    }
    let (field, claim, off, size) = fields[u.choose_index(fields.len())?];
    let Some(bytes) = raw.get_mut(off..off + size) else { return Ok(None) };
    let i = u.choose_index(size)?;
    match claim {
        Claim::Zero => bytes[i] = u.int_in_range(1..=0xFF)?,
        // Neither printable nor NUL: breaks the text or the padding, wherever it lands.
        Claim::Ascii => bytes[i] = *u.choose(&(1..=0xFFu8).filter(|b| !b.is_ascii_graphic()).collect::<Vec<_>>())?,
        Claim::Mask => bytes[i] = u.int_in_range(1..=0xFE)?,
        Claim::AluOp => bytes[0] = *u.choose(&(0..=0xFFu8).filter(|b| !enums::ALU_OP.contains(*b)).collect::<Vec<_>>())?,
        Claim::Below(n) => {
            let v = u.int_in_range(n..=unsigned_max(size))?;
            bytes.iter_mut().zip(v.to_le_bytes()).for_each(|(d, s)| *d = s);
        }
        Claim::Bytes(_) => bytes[i] ^= u.int_in_range(1..=0xFF)?,
        Claim::Dtype => bytes[0] = *u.choose(&(0..=0xFFu8).filter(|&t| dtype::info(t).is_none_or(|d| d.since > g)).collect::<Vec<_>>())?,
    }
    let what = format!("{field} = {} (breaks {claim:?})", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>());
    Ok(Some(Mutation { bundle: Bundle::decode(&raw), expect: &c::RECOVERED_CLAIM, what }))
}

/// Whether a field of `size` bytes can break the claim (a bound it cannot reach, it always holds).
fn breakable(c: Claim, size: usize) -> bool {
    size > 0 && !matches!(c, Claim::Below(n) if n > unsigned_max(size))
}

/// The checks one mutation of `raw` can break on `g` (those [`mutate`]
/// chooses among), each once: what a bundle can agree or disagree with.
/// A byte outside the opcode table can break only the header's checks.
pub fn applicable(raw: &Raw, g: Generation) -> Vec<&'static Check> {
    let Some(op) = opcode::lookup(raw[0]) else { return vec![&c::INST_WORD_LEN, &c::HEADER_RESERVED, &c::UNKNOWN_OPCODE] };
    let mut out = Checks(Vec::with_capacity(c::ALL.len()));
    offer_candidates(&mut out, raw, Bundle::decode(raw).layout(), op, g);
    out.0
}

/// Where [`offer_candidates`] puts each mutation it finds: kept to be applied
/// ([`mutate`]), or only its check noted ([`applicable`], which so builds no
/// closure: it runs once per distinct real bundle the evidence counts).
trait Offer {
    fn offer(&mut self, check: &'static Check, apply: impl Fn(&mut Unstructured, &mut Raw) -> Result<String> + 'static);
}

impl Offer for Vec<(&'static Check, Apply)> {
    fn offer(&mut self, check: &'static Check, apply: impl Fn(&mut Unstructured, &mut Raw) -> Result<String> + 'static) {
        self.push((check, Box::new(apply)));
    }
}

/// The checks offered, each once, in the order first offered.
struct Checks(Vec<&'static Check>);

impl Offer for Checks {
    fn offer(&mut self, check: &'static Check, _: impl Fn(&mut Unstructured, &mut Raw) -> Result<String> + 'static) {
        if !self.0.iter().any(|c| std::ptr::eq(*c, check)) {
            self.0.push(check);
        }
    }
}

/// How a live slot's address is used in a valid bundle.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Static,
    Register,
    Indirect,
}

fn form(a: Addr4) -> Form {
    if a.is_register() {
        Form::Register
    } else if a.is_indirect() {
        Form::Indirect
    } else {
        Form::Static
    }
}

fn word_at(raw: &Raw, off: usize) -> Addr4 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&raw[off..off + 4]);
    Addr4::new(u32::from_le_bytes(w))
}

fn set_word(raw: &mut Raw, off: usize, w: u32) {
    raw[off..off + 4].copy_from_slice(&w.to_le_bytes());
}

fn candidates(raw: &Raw, layout: &'static Layout, op: &'static OpcodeInfo, g: Generation) -> Vec<(&'static Check, Apply)> {
    let mut v: Vec<(&'static Check, Apply)> = Vec::new();
    offer_candidates(&mut v, raw, layout, op, g);
    v
}

/// Every single-invariant mutation of `raw`, offered to `v` with the check it breaks.
fn offer_candidates(v: &mut impl Offer, raw: &Raw, layout: &'static Layout, op: &'static OpcodeInfo, g: Generation) {
    let len_ok = raw[1] == crate::bundle::INST_WORD_LEN;
    v.offer(&c::INST_WORD_LEN, |u, r| {
        let b = loop {
            let b: u8 = u.arbitrary()?;
            if b != 0x10 && b != 0x11 {
                break b;
            }
            if u.is_empty() {
                break 0;
            }
        };
        r[1] = b;
        Ok(format!("inst_word_len = {b:#04x}"))
    });
    v.offer(&c::HEADER_RESERVED, |u, r| {
        let x: u16 = u.int_in_range(1..=u16::MAX)?;
        r[2..4].copy_from_slice(&x.to_le_bytes());
        Ok(format!("reserved = {x:#06x}"))
    });
    if len_ok {
        v.offer(&c::UNKNOWN_OPCODE, |u, r| {
            let unknown: Vec<u8> = (0..=255u8).filter(|b| opcode::lookup(*b).is_none()).collect();
            r[0] = *u.choose(&unknown)?;
            Ok(format!("opcode = {:#04x}", r[0]))
        });
        let unavailable = move |o: &&OpcodeInfo| !o.available(g) && o.body == BodyKind::Opaque;
        if OPCODES.iter().any(|o| unavailable(&o)) {
            v.offer(&c::OPCODE_UNAVAILABLE, move |u, r| {
                let bytes: Vec<u8> = OPCODES.iter().filter(unavailable).map(|o| o.byte).collect();
                r[0] = *u.choose(&bytes)?;
                Ok(format!("opcode = {:#04x}", r[0]))
            });
        }
    }
    for slot in operands::live_slots(op) {
        slot_mutations(v, raw, layout, slot, g);
    }
    band_mutations(v, raw, layout, op, g);
}

fn slot_mutations(v: &mut impl Offer, raw: &Raw, layout: &'static Layout, slot: &'static Slot, g: Generation) {
    let base = slot.offset(layout);
    let a = word_at(raw, base);
    let f = form(a);
    let dref = slot.dtype;
    let tag = dref.read(layout, g, raw).unwrap_or(0);
    let dt = dtype::info(tag);

    v.offer(&c::INVALID_DTYPE, move |u, r| {
        let bad = match dref {
            DtypeRef::Nibble(..) => 0,
            _ => *u.choose(&[0u8, 17, 0x20, 0xFF])?,
        };
        dref.write(layout, g, r, bad);
        Ok(format!("{} = {bad:#04x}", dref.field(g)))
    });
    if g != Generation::V4 && !matches!(dref, DtypeRef::Nibble(..)) {
        v.offer(&c::DTYPE_UNAVAILABLE, move |_, r| {
            dref.write(layout, g, r, 16);
            Ok(format!("{} = 16", dref.field(g)))
        });
    }
    let name = slot.name;
    let matmul_dst = slot.role == (Role::Dst { matmul: true });
    match (slot.ty, f) {
        (SlotType::Pattern(dims), Form::Static) => {
            if dt.is_some_and(|d| d.align >= 2) {
                v.offer(&c::MISALIGNED_ADDRESS, move |_, r| {
                    set_word(r, base, word_at(r, base).misaligned().word());
                    Ok(format!("{name}.addr |= 1"))
                });
            }
            if slot.is_dst() && a.is_psum() {
                v.offer(&c::PSUM_WRITE_DTYPE, move |u, r| {
                    let narrow: Vec<u8> = DTYPES
                        .iter()
                        .filter(|d| d.since <= g && d.align <= 2 && !d.psum_write && !(matmul_dst && d.tag == BF16))
                        .map(|d| d.tag)
                        .collect();
                    let t = *u.choose(&narrow)?;
                    dref.write(layout, g, r, t);
                    Ok(format!("{} = {t}", dref.field(g)))
                });
            }
            if matmul_dst {
                v.offer(&c::MATMUL_DST_NOT_PSUM, move |u, r| {
                    let sbuf = u.int_in_range(0..=PSUM_BASE - 1)? & !7;
                    set_word(r, base, word_at(r, base).with_addr29(sbuf).word());
                    Ok(format!("{name}.addr -> SBUF {sbuf:#x}"))
                });
            } else {
                v.offer(&c::ADDRESS_OUTSIDE_MEMORY, move |u, r| {
                    let out = u.int_in_range(0x0400_0000..=crate::addr4::ADDR_MASK)? & !7;
                    set_word(r, base, word_at(r, base).with_addr29(out).word());
                    Ok(format!("{name}.addr -> {out:#x}"))
                });
            }
            v.offer(&c::DEAD_ADDR_MODE, move |_, r| {
                set_word(r, base, word_at(r, base).with_dead_mode().word());
                Ok(format!("{name}.addr mode = dead"))
            });
            zero_num(v, layout, name, dims);
        }
        (SlotType::Pattern(dims), Form::Register) => {
            register_mutations(v, base, name);
            zero_num(v, layout, name, dims);
        }
        (SlotType::Mx, form) => mx_mutations(v, raw, base, name, form, dt),
        (SlotType::Pattern(_), Form::Indirect) => {}
    }
}

fn zero_num(v: &mut impl Offer, layout: &'static Layout, name: &'static str, dims: usize) {
    v.offer(&c::ZERO_NUM, move |u, r| {
        let i = u.choose_index(dims)?;
        put(r, layout, &format!("{name}.num[{i}]"), 0);
        Ok(format!("{name}.num[{i}] = 0"))
    });
}

fn register_mutations(v: &mut impl Offer, off: usize, name: &'static str) {
    v.offer(&c::REGISTER_ID, move |u, r| {
        let id: u8 = u.int_in_range(0x40..=0xFF)?;
        r[off] = id;
        Ok(format!("{name} regid = {id:#04x}"))
    });
    v.offer(&c::REGISTER_RESERVED_BITS, move |u, r| {
        let bit = u.int_in_range(8..=30u32)?;
        set_word(r, off, word_at(r, off).with_reserved_register_bit(bit).word());
        Ok(format!("{name} register word bit {bit} set"))
    });
}

fn mx_mutations(v: &mut impl Offer, raw: &Raw, base: usize, name: &'static str, f: Form, dt: Option<&'static crate::dtype::DtypeInfo>) {
    let indirect = f == Form::Indirect;
    // The fields move when the slot reads as MXINDIRECT16B.
    let view = if indirect { &MxIndirect16b::LAYOUT } else { &MxMemPattern1d::LAYOUT };
    let at = |field: &str| view.field_offset(field);
    let (Some(scale_off), Some(k_off), Some(part_off), Some(step_off)) =
        (at("scale"), at("k_extent"), at("scale_base_part"), MxMemPattern1d::LAYOUT.field_offset("step_dir"))
    else {
        return;
    };
    if form(word_at(raw, base + scale_off)) == Form::Static {
        v.offer(&c::MX_SCALE_NOT_SBUF, move |u, r| {
            let p = PSUM_BASE + u.int_in_range(0..=crate::addr4::PSUM_SPAN)?;
            set_word(r, base + scale_off, word_at(r, base + scale_off).with_addr29(p).word());
            Ok(format!("{name}.scale -> PSUM {p:#x}"))
        });
    }
    v.offer(&c::MX_ZERO_K_EXTENT, move |_, r| {
        r[base + k_off..base + k_off + 2].fill(0);
        Ok(format!("{name}.k_extent = 0"))
    });
    v.offer(&c::MX_SCALE_PART_RANGE, move |u, r| {
        r[base + part_off] = u.int_in_range(MX_SCALE_PARTS..=u8::MAX)?;
        Ok(format!("{name}.scale_base_part = {}", r[base + part_off]))
    });
    if indirect {
        return;
    }
    v.offer(&c::MX_STEP_DIR, move |u, r| {
        let s = *u.choose(&(0..=u8::MAX).filter(|v| !MX_STEP_DIRS.contains(v)).collect::<Vec<_>>())?;
        r[base + step_off] = s;
        Ok(format!("{name}.step_dir = {s:#04x}"))
    });
    match form(word_at(raw, base)) {
        Form::Static => {
            if dt.is_some_and(|d| d.align >= 2) {
                v.offer(&c::MISALIGNED_ADDRESS, move |_, r| {
                    set_word(r, base, word_at(r, base).misaligned().word());
                    Ok(format!("{name}.data |= 1"))
                });
            }
            v.offer(&c::DEAD_ADDR_MODE, move |_, r| {
                set_word(r, base, word_at(r, base).with_dead_mode().word());
                Ok(format!("{name}.data mode = dead"))
            });
        }
        Form::Register => register_mutations(v, base, name),
        Form::Indirect => {}
    }
}

/// Offers writing one byte `gen` draws into the field at `path`.
fn byte_field(
    v: &mut impl Offer,
    layout: &'static Layout,
    check: &'static Check,
    path: &'static str,
    gen: impl Fn(&mut Unstructured) -> Result<u8> + 'static,
) {
    v.offer(check, move |u, r| {
        let x = gen(u)?;
        put(r, layout, path, u64::from(x));
        Ok(format!("{path} = {x:#04x}"))
    });
}

fn band_mutations(v: &mut impl Offer, raw: &Raw, layout: &'static Layout, op: &OpcodeInfo, g: Generation) {
    let not_in = |t: &'static enums::EnumTable| {
        move |u: &mut Unstructured| -> Result<u8> {
            let choices: Vec<u8> = (0..=255u8).filter(|b| !t.contains(*b)).collect();
            Ok(*u.choose(&choices)?)
        }
    };
    match op.body {
        BodyKind::Matmul | BodyKind::MatmulMx => {
            let refused = |field: &'static str| move |u: &mut Unstructured| Ok(*u.choose(&byte_values(field, false))?);
            byte_field(v, layout, &c::MATMUL_PERF_SEL, "perf_sel", refused("perf_sel"));
            if op.body == BodyKind::Matmul && g == Generation::V2 {
                byte_field(v, layout, &c::MATMUL_ROW_GROUP, "row_group", refused("row_group"));
                byte_field(v, layout, &c::MATMUL_COL_GROUP, "col_group_norm", refused("col_group_norm"));
            }
        }
        BodyKind::TensorScalar => {
            for p in ["op0", "op1"] {
                byte_field(v, layout, &c::UNKNOWN_ALU_OP, p, not_in(&enums::ALU_OP));
            }
        }
        BodyKind::TensorTensor => byte_field(v, layout, &c::UNKNOWN_ALU_OP, "alu_op", not_in(&enums::ALU_OP)),
        BodyKind::PoolCopy if op.byte == crate::validate::POOL_OPCODE => {
            byte_field(v, layout, &c::POOL_FUNC, "func", not_in(&enums::POOL_FUNC));
            byte_field(v, layout, &c::POOL_MODE, "mode", |u| Ok(*u.choose(&[0u8, 1, 2, 4, 0xFF])?));
            v.offer(&c::POOL_SCALE, move |u, r| {
                // 0, 2.0, NaN, -1.0: neither max's 1.0 nor a reciprocal in (0, 1] for avg.
                let bad = *u.choose(&[0u32, 0x4000_0000, 0x7FC0_0000, 0xBF80_0000])?;
                put(r, layout, "scale_or_fill", u64::from(bad));
                Ok(format!("scale_or_fill = {bad:#010x}"))
            });
        }
        BodyKind::Semaphore => {
            byte_field(v, layout, &c::SEMAPHORE_CMP_OP, "cmp_op", not_in(&enums::SEMAPHORE_CMP_OP));
            byte_field(v, layout, &c::SEMAPHORE_SUBTYPE, "subtype", not_in(&enums::SEMAPHORE_SUBTYPE));
        }
        BodyKind::Branch => {
            byte_field(v, layout, &c::BRANCH_COMP_OP, "comp_op", not_in(&enums::BRANCH_COMP_OP));
            if get(raw, layout, "comp_op") != 0 {
                byte_field(v, layout, &c::BRANCH_AP_KIND, "ap_kind", |u| Ok(*u.choose(&[0u8, 1, 2, 4, 0xFF])?));
                byte_field(v, layout, &c::INVALID_DTYPE, "lhs_dtype", |u| Ok(*u.choose(&[0u8, 17, 0xFF])?));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::candidates;
    use crate::bundle::Bundle;
    use crate::checks as c;
    use crate::generation::Generation;
    use crate::opcode;
    use crate::props::seeded_bytes;
    use crate::smith::generate;
    use crate::validate::{validate, POOL_OPCODE};
    use arbitrary::Unstructured;

    #[test]
    fn a_claim_is_breakable_only_where_its_field_can_hold_a_breaking_value() {
        use super::breakable;
        use crate::bundle::claims::Claim;
        // A bound at or above what the field holds is always met: nothing to break.
        assert!(breakable(Claim::Below(0xFF), 1) && breakable(Claim::Below(0x40), 4));
        assert!(!breakable(Claim::Below(0x100), 1) && !breakable(Claim::Below(0x1_0000), 2));
        assert!(breakable(Claim::Below(u64::MAX), 8));
        // A field of no bytes holds nothing.
        assert!(breakable(Claim::Zero, 1) && !breakable(Claim::Zero, 0) && !breakable(Claim::Below(1), 0));
    }

    /// The matmul-destination mutation moves the address into SBUF even at the
    /// ends of its draw's range (a draw of 2^25 lands on PSUM's first byte
    /// if the range is one too wide).
    #[test]
    fn a_matmul_destination_moved_to_sbuf_stays_below_psum_at_the_ends_of_the_draw() -> arbitrary::Result<()> {
        use crate::operands::{self, Role};
        let Some(op) = crate::opcode::OPCODES.iter().find(|o| operands::live_slots(o).any(|s| s.role == (Role::Dst { matmul: true }))) else {
            panic!("no matmul opcode")
        };
        let Some(g) = Generation::ALL.into_iter().find(|g| op.available(*g)) else { panic!("{} is on no generation", op.name) };
        let mut tried = 0;
        for seed in 0..64 {
            let bytes = seeded_bytes(seed, 4096);
            let valid = generate::bundle_for(&mut Unstructured::new(&bytes), g, op)?;
            let raw = valid.encode();
            // Offered only while the destination is a plain address.
            for (_, apply) in candidates(&raw, valid.layout(), op, g).iter().filter(|(e, _)| e.code == c::MATMUL_DST_NOT_PSUM.code) {
                for draw in [0x01FF_FFFFu32, 0x0200_0000, 0x0200_0001, 0x0200_0002, 0xFFFF_FFFF] {
                    let mut r = raw;
                    let what = apply(&mut Unstructured::new(&draw.to_be_bytes()), &mut r)?;
                    let found = validate(&Bundle::decode(&r), g);
                    assert!(found.iter().any(|f| f.code == c::MATMUL_DST_NOT_PSUM.code), "draw {draw:#x}: `{what}` found {found:?}");
                    tried += 1;
                }
            }
        }
        assert!(tried > 0, "the matmul-destination mutation was never offered");
        Ok(())
    }

    /// The PSUM-write dtype mutation draws a narrow dtype the rule refuses:
    /// bf16 among them on an ordinary PSUM destination, never on a matmul's
    /// (where bf16 is allowed), and every draw is reported.
    #[test]
    fn a_psum_write_dtype_draw_is_one_the_destination_refuses() -> arbitrary::Result<()> {
        use crate::dtype::BF16;
        use crate::operands::{self, Role};
        // Tags drawn on [ordinary, matmul] destinations.
        let mut drawn: [std::collections::BTreeSet<u8>; 2] = Default::default();
        for op in opcode::OPCODES {
            let matmul = operands::live_slots(op).any(|s| s.role == (Role::Dst { matmul: true }));
            let Some(g) = Generation::ALL.into_iter().rev().find(|g| op.available(*g)) else { continue };
            for seed in 0..24 {
                let bytes = seeded_bytes(seed, 4096);
                let Ok(valid) = generate::bundle_for(&mut Unstructured::new(&bytes), g, op) else { continue };
                let raw = valid.encode();
                for (_, apply) in candidates(&raw, valid.layout(), op, g).iter().filter(|(e, _)| e.code == c::PSUM_WRITE_DTYPE.code) {
                    for draw in 0..16u8 {
                        let mut r = raw;
                        let what = apply(&mut Unstructured::new(&[draw; 8]), &mut r)?;
                        let found = validate(&Bundle::decode(&r), g);
                        assert!(found.iter().any(|f| f.code == c::PSUM_WRITE_DTYPE.code), "{} {g}: `{what}` found {found:?}", op.name);
                        let Some(tag) = what.rsplit("= ").next().and_then(|t| t.parse().ok()) else { panic!("no tag in `{what}`") };
                        drawn[usize::from(matmul)].insert(tag);
                    }
                }
            }
        }
        let [ordinary, matmul] = &drawn;
        assert!(ordinary.contains(&BF16), "bf16 never drawn on an ordinary destination: {ordinary:?}");
        assert!(!matmul.is_empty() && !matmul.contains(&BF16), "on matmul destinations: {matmul:?}");
        Ok(())
    }

    /// Every draw of the Pool scale mutation breaks the scale rule, on max
    /// and on avg pooling.
    #[test]
    fn every_pool_scale_draw_breaks_the_scale_rule() -> arbitrary::Result<()> {
        let Some(op) = opcode::lookup(POOL_OPCODE) else { panic!("no Pool opcode") };
        let mut on = [0usize; 2];
        for g in Generation::ALL.into_iter().filter(|g| op.available(*g)) {
            for seed in 0..64 {
                let bytes = seeded_bytes(seed, 4096);
                let mut u = Unstructured::new(&bytes);
                let valid = generate::bundle_for(&mut u, g, op)?;
                let raw = valid.encode();
                let is_max = super::get(&raw, valid.layout(), "func") == 1;
                for (expect, apply) in candidates(&raw, valid.layout(), op, g).iter().filter(|(e, _)| e.code == c::POOL_SCALE.code) {
                    for draw in 0..8u8 {
                        let mut r = raw;
                        let what = apply(&mut Unstructured::new(&[draw, draw, draw, draw]), &mut r)?;
                        let found = validate(&Bundle::decode(&r), g);
                        assert!(found.iter().any(|f| f.code == expect.code), "{g} seed {seed}: `{what}` found {found:?}");
                        on[usize::from(is_max)] += 1;
                    }
                }
            }
        }
        assert!(on.iter().all(|n| *n > 0), "drawn on avg and max pooling {on:?} times");
        Ok(())
    }
}
