//! A band byte rule as the fast path plans it: which byte, and which of the
//! byte-rule sets ([`crate::validate::band::BYTE_RULES`]) it must be in.
//! Below the plans, the tied bands and the amended tables, which all name it.

use super::super::band::BYTE_RULES;

/// One band byte rule, planned: the byte's offset and the index of its set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct BandTest {
    pub(super) at: u8,
    pub(super) set: u8,
}

/// Byte-rule sets, rounded up to a power of two; the spare ones allow every value.
pub(super) const SETS: usize = 16;
const _: () = assert!(BYTE_RULES.len() < SETS);
