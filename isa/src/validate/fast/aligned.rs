//! Slots whose alignment an erratum relaxes, in the amended tables: an
//! address aligned to the class of another field's dtype is accepted too
//! (`tensortensor-inputs-aligned-to-out`). The slot's dtype section there
//! holds no alignment, and this check, run on the bundles of such an
//! opcode only, asks for its own dtype's alignment or the erratum's, by the
//! predicate the amending reads (`amend::AlignAmender`). It fails the whole
//! bundle, as a misaligned slot does.

use super::super::amend::AlignAmender;
use super::classes::{dclass, mode_row, ModeClass, DTYPE_ENTRIES, MODE_ENTRIES, MODE_KEY_SHIFT};
use super::Raw;

/// A slot checked here: its address word, the mode section it is classed
/// by, its dtype byte and the spec's section for it (its own alignment).
#[derive(Clone, Debug)]
pub(super) struct AlignedSlot {
    pub(super) word_at: u8,
    pub(super) mode_base: u16,
    pub(super) dtype_at: u8,
    pub(super) own_base: u16,
    pub(super) errata: Vec<AlignAmender>,
}

impl AlignedSlot {
    /// Whether this slot is aligned as the spec or an erratum asks, where
    /// its address mode is one alignment is checked for (elsewhere the
    /// slot's own rules decide), looked up in a generation's `modes` and
    /// `dtypes` tables.
    #[inline]
    pub(super) fn clean(&self, raw: Raw, modes: &[u8; MODE_ENTRIES], dtypes: &[u8; DTYPE_ENTRIES]) -> bool {
        let word = raw.word(self.word_at);
        let row = modes[(usize::from(self.mode_base) + (word >> MODE_KEY_SHIFT) as usize) & (MODE_ENTRIES - 1)];
        let checked = row == mode_row(ModeClass::Plain) || row == mode_row(ModeClass::PlainPsum);
        let own = dtypes[(usize::from(self.own_base) + usize::from(raw.byte(self.dtype_at))) & (DTYPE_ENTRIES - 1)];
        !checked || word & dclass::align_clear(own) == 0 || self.errata.iter().any(|e| e.accepts(raw.0, usize::from(self.word_at)))
    }
}
