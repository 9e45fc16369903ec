//! A generation's plans and tables, built once: every opcode planned
//! (`plan.rs`), the amended tables' changes made (`amended.rs`), all laid
//! out in one [`Planned`] block.

use super::super::band::BYTE_RULES;
use super::band_rule::SETS;
use super::classes::*;
use super::entry::{entries4, entry};
use super::plan::{mx_fields, plan, HeadEntry, Plan, Planned, BELOW_LANES};
use super::Rules;
use crate::errata::Profile;
use std::sync::OnceLock;

/// `v` as a fixed-size array (the lengths are constants, so this cannot fail).
fn filled<T: Copy + Default, const N: usize>(v: impl IntoIterator<Item = T>) -> [T; N] {
    let mut a = [T::default(); N];
    a.iter_mut().zip(v).for_each(|(slot, x)| *slot = x);
    a
}

/// Every [`Rules`]' [`Planned`], by [`Rules::index`].
pub(super) fn tables() -> &'static [Box<Planned>; 6] {
    static T: OnceLock<[Box<Planned>; 6]> = OnceLock::new();
    T.get_or_init(|| Rules::ALL.map(|r| Box::new(Planned::build(r))))
}

impl Planned {
    fn build(rules: Rules) -> Planned {
        let g = rules.generation;
        // A row per band set, a byte per value: 1 where the set allows it.
        let mut allowed = [[0u8; 0x100]; SETS];
        for (set, row) in allowed.iter_mut().enumerate() {
            for (v, cell) in (0..=u8::MAX).zip(row.iter_mut()) {
                *cell = u8::from(BYTE_RULES.get(set).is_none_or(|r| (r.allows)(v)));
            }
        }
        let mut plans: [Plan; 0x100] = filled((0..=u8::MAX).map(|op| plan(op, g)));
        let sections = PSUM_KINDS.iter().flat_map(|&k| TAG_READS.iter().map(move |&r| (k, r)));
        let tagged = sections.flat_map(|(k, r)| (0..=u8::MAX).map(move |byte| dtype_class(Some(r.tag(byte)), k, g)));
        let mut dtypes: [u8; DTYPE_ENTRIES] = filled(tagged.chain((0..SECTION).map(|_| dtype_class(None, PsumWrite::Reads, g))));
        let checks = match rules.profile {
            Profile::Amended => super::amended::amend(g, &mut plans, &mut dtypes, &mut allowed),
            Profile::Spec => super::amended::Checks { tests: Vec::new(), aligned: Vec::new() },
        };
        Planned {
            slot_items: filled(plans.iter().flat_map(|p| p.slots)),
            needs: filled(BELOW_LANES.iter().flat_map(|&below| {
                let pairs = ModeClass::ALL.iter().flat_map(|&c| (0..1u8 << DTYPE_CLASS_BITS).map(move |d| need(c, d)));
                // Each below count's section is NEEDS long: the spare classes' entries default.
                filled::<Need, NEEDS>(pairs).map(|n| slot_need(n, below))
            })),
            gathered_clear: GATHERED_MUST_BE_CLEAR,
            modes: filled(ModeSection::ALL.iter().flat_map(|&m| (0..MODE_KEYS as u32).map(move |key| mode_row(mode_class(key, m))))),
            dtypes,
            band_items: filled(plans.iter().flat_map(|p| p.band)),
            items4: filled((0..=u8::MAX).map(|op| entries4(entry(0, op)))),
            heads: filled(plans.iter().map(|p| HeadEntry { head: p.head, counts: p.head.counts() })),
            allowed,
            plans,
            mx: mx_fields().unwrap_or_default(),
            amended: checks.tests,
            aligned: checks.aligned,
        }
    }
}

/// [`SlotNeed`] of `n` for a slot whose nums read has lanes `below` below the nums.
fn slot_need(n: Need, below: u64) -> SlotNeed {
    let flags = [u64::from(n.fail) << FAIL_SHIFT, u64::from(n.gathered_sel) << SEL_SHIFT];
    SlotNeed { nums_or: below | n.nums_off, clear: flags.into_iter().fold(u64::from(n.word_clear), super::disjoint) }
}
