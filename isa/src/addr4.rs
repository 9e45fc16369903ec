//! ADDR4: the 32-bit start-address word that opens every descriptor (§2.2).

use crate::enums::ADDR4_MODE;
use crate::layout::{Ty, Wire};
use crate::provenance::{Confidence, Provenance};
use serde::Serialize;
use zerocopy::little_endian::U32;

/// Where the ADDR4 word is described: spec §2.2, confirmed.
pub const PROV: Provenance = Provenance::new("2.2", Confidence::Confirmed);

/// Bits 0..28: the byte address.
pub const ADDR_MASK: u32 = 0x1FFF_FFFF;
/// Bits 25..28: zero for SBUF, non-zero for PSUM.
pub const REGION_MASK: u32 = 0x1E00_0000;
/// Base of the PSUM window (32 MiB).
pub const PSUM_BASE: u32 = 0x0200_0000;
/// Span of the PSUM window minus one (4 MiB).
pub const PSUM_SPAN: u32 = 0x003F_FFFF;
/// Bits 29..30 (`byte3 & 0x60`): the mode nibble.
pub const MODE_MASK: u32 = 0x6000_0000;
/// Mode bit 29 alone: indirect, the word addresses a gather index.
pub const MODE_INDIRECT: u32 = 0x2000_0000;
/// Mode bit 30 alone: active, a dynamic access pattern.
pub const MODE_ACTIVE: u32 = 0x4000_0000;
/// Both mode bits: the dead mode, which the compiler never produces.
pub const MODE_DEAD: u32 = 0x6000_0000;
/// Bit 31: register mode; byte 0 is then a register id.
pub const REGISTER_BIT: u32 = 0x8000_0000;
/// Register ids are below this bound.
pub const REGID_LIMIT: u32 = 0x40;
/// In register mode bits 8..30 must be zero.
pub const REGISTER_RESERVED_MASK: u32 = 0x7FFF_FF00;

/// The address word. A transparent u32 so every bit pattern round-trips.
#[repr(transparent)]
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Debug,
    Default,
    zerocopy::FromBytes,
    zerocopy::IntoBytes,
    zerocopy::KnownLayout,
    zerocopy::Immutable,
    zerocopy::Unaligned,
)]
pub struct Addr4(pub U32);

impl Wire for Addr4 {
    fn ty() -> Ty {
        Ty::Addr4
    }
}

/// Where an address points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Region {
    /// State buffer: the region bits (25..28) are zero.
    Sbuf,
    /// Partial-sum buffer: the address is inside the 4 MiB window at [`PSUM_BASE`].
    Psum,
    /// Region bits set but outside the 4 MiB PSUM window.
    Outside,
}

impl Addr4 {
    /// The address word holding `word` as is.
    pub fn new(word: u32) -> Self {
        Addr4(U32::new(word))
    }
    /// The whole 32-bit word (read little-endian from the wire).
    pub fn word(self) -> u32 {
        self.0.get()
    }
    /// The byte address: bits 0..28, mode and register bits cleared.
    pub fn addr29(self) -> u32 {
        self.word() & ADDR_MASK
    }
    /// The same word with its 29-bit address replaced by `addr` (at most
    /// [`ADDR_MASK`], checked in debug builds): the top bits (mode) kept.
    /// `.cargo/mutants.toml` names this function: the two operands of its
    /// `|` share no bit.
    pub fn with_addr29(self, addr: u32) -> Addr4 {
        debug_assert_eq!(addr & !ADDR_MASK, 0, "{addr:#x} is wider than 29 bits");
        Addr4::new(self.word() & !ADDR_MASK | addr)
    }
    /// The same word with bit 0 set: an odd byte address (the generator's
    /// misalignment fault), whatever the word held.
    pub fn misaligned(self) -> Addr4 {
        Addr4::new(self.word() | 1)
    }
    /// The same word with both mode bits set: the dead mode, which is the
    /// whole mode field, so no bit outside it changes.
    pub fn with_dead_mode(self) -> Addr4 {
        const _: () = assert!(MODE_DEAD == MODE_MASK);
        Addr4::new(self.word() | MODE_DEAD)
    }
    /// The same word with reserved register bit `bit` (8 to 30, checked in
    /// debug builds) set, whatever the word held: the generator's
    /// reserved-bit fault.
    pub fn with_reserved_register_bit(self, bit: u32) -> Addr4 {
        debug_assert!(REGISTER_RESERVED_MASK & (1 << bit) != 0, "bit {bit} is not a reserved register bit");
        Addr4::new(self.word() | (1 << bit))
    }
    /// Whether bit 31 is set: the address is taken from register [`Addr4::regid`].
    pub fn is_register(self) -> bool {
        self.word() & REGISTER_BIT != 0
    }
    /// Byte 0: the register id in register mode (meaningful only then).
    pub fn regid(self) -> u8 {
        (self.word() & 0xFF) as u8
    }
    /// The mode nibble as the byte value `byte3 & 0x60`.
    pub fn mode(self) -> u8 {
        ((self.word() & MODE_MASK) >> 24) as u8
    }
    /// The mode's name in [`ADDR4_MODE`]: `static`, `indirect`, `active` or `dead`.
    pub fn mode_name(self) -> &'static str {
        ADDR4_MODE.name_of(self.mode()).unwrap_or("?")
    }
    /// Whether the mode is indirect exactly (bit 29 without bit 30).
    pub fn is_indirect(self) -> bool {
        self.word() & MODE_MASK == MODE_INDIRECT
    }
    /// Whether the byte address lies in the PSUM window
    /// ([`PSUM_BASE`] to [`PSUM_BASE`] + [`PSUM_SPAN`]).
    pub fn is_psum(self) -> bool {
        self.addr29().wrapping_sub(PSUM_BASE) <= PSUM_SPAN
    }
    /// Where the byte address points: PSUM, SBUF, or outside both.
    pub fn region(self) -> Region {
        if self.is_psum() {
            Region::Psum
        } else if self.word() & REGION_MASK == 0 {
            Region::Sbuf
        } else {
            Region::Outside
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misaligned_and_dead_mode_set_their_bits_whatever_was_there() {
        for word in [0u32, 1, 0x41, MODE_INDIRECT | 0x1234, MODE_ACTIVE | 0x7, MODE_DEAD | ADDR_MASK, REGISTER_BIT | MODE_INDIRECT] {
            let odd = Addr4::new(word).misaligned();
            assert_eq!(odd.word(), (word & !1) + 1, "{word:#x}");
            let dead = Addr4::new(word).with_dead_mode();
            assert_eq!((dead.mode_name(), dead.word() & !MODE_MASK), ("dead", word & !MODE_MASK), "{word:#x}");
        }
    }

    #[test]
    fn a_reserved_register_bit_is_set_whatever_was_there() {
        for word in [REGISTER_BIT | 0x3F, REGISTER_BIT | REGISTER_RESERVED_MASK | 0x01, 0x0000_0100, u32::MAX] {
            for bit in [8, 19, 30] {
                let w = Addr4::new(word).with_reserved_register_bit(bit).word();
                assert_eq!(w, word | (1 << bit), "{word:#x} bit {bit}");
            }
        }
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "not a reserved register bit")]
    fn a_bit_outside_the_reserved_ones_is_refused_in_debug_builds() {
        let _ = Addr4::new(REGISTER_BIT).with_reserved_register_bit(7);
    }

    #[test]
    fn each_mode_is_named_as_the_spec_names_it_whatever_the_other_bits() {
        for (mode, name) in [(0, "static"), (MODE_INDIRECT, "indirect"), (MODE_ACTIVE, "active"), (MODE_DEAD, "dead")] {
            for rest in [0, 0x1234, ADDR_MASK, REGISTER_BIT | 0x3F] {
                assert_eq!(Addr4::new(mode | rest).mode_name(), name, "{:#x}", mode | rest);
            }
        }
    }

    #[test]
    fn with_addr29_replaces_the_address_and_keeps_the_mode_bits() {
        for word in [0u32, MODE_INDIRECT | 0x1234, MODE_DEAD | ADDR_MASK, 0x8000_0000 | MODE_ACTIVE | 0x40] {
            for addr in [0, 8, PSUM_BASE, PSUM_BASE + PSUM_SPAN, ADDR_MASK] {
                let a = Addr4::new(word).with_addr29(addr);
                assert_eq!(a.addr29(), addr, "{word:#x} with {addr:#x}");
                assert_eq!(a.word() & !ADDR_MASK, word & !ADDR_MASK, "{word:#x} with {addr:#x}");
            }
        }
    }
}
