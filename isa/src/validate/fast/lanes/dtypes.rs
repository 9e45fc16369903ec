//! A dtype byte's class in lanes, for every section of one rules' scalar
//! dtype table (the spec's and the errata's alike): two 128-entry tables
//! looked up in turn. A slot reads `x = (byte >> shift) & mask`, the first
//! [`READINGS`] its section's column is a function of (a nibble tag, a byte
//! tag, or nothing); the row table, at the section's start plus `x >> 4`,
//! gives where `x`'s row of 16 classes starts in the class table, and
//! `x & 15` is the column. Any function of a byte is held so: an amended
//! column that reads a byte as two nibble tags
//! (`activation-in-dtype-nibbles`) as well as the spec's tag readings.
//! Rows and sections shared or overlapping are stored once.

use super::super::classes::{PsumWrite, SECTION};
use super::super::plan::Planned;

/// Entries of each table (two 512-bit registers).
pub(super) const ENTRIES: usize = 128;
/// How a slot may read its dtype byte: `(shift, mask)`, in the order tried.
pub(super) const READINGS: [(u32, u32); 4] = [(0, 0), (0, 0x0F), (4, 0x0F), (0, 0xFF)];
const _: () = {
    let mut i = 0;
    while i < READINGS.len() {
        // A reading stays inside the byte (the lane's next byte is the band byte).
        assert!(READINGS[i].1 <= 0xFF >> READINGS[i].0);
        i += 1;
    }
};
/// `x >> ROW_BITS` picks the row, the rest the column.
pub(super) const ROW_BITS: u32 = 4;
pub(super) const COLUMN_MASK: u32 = (1 << ROW_BITS) - 1;

/// Where one section of the scalar table sits in the lanes' tables, and how its slots read the byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Section {
    /// Its first entry in the row table.
    pub(super) rows_at: u8,
    pub(super) shift: u32,
    pub(super) mask: u32,
}

impl Section {
    /// What an unused lane reads: the rows' start, read as nothing.
    pub(super) const UNUSED: Section = Section { rows_at: 0, shift: 0, mask: 0 };
}

/// One rules' tables, and the sections they hold by their base in the scalar table.
pub(super) struct DtypeLanes {
    pub(super) rows: [u8; ENTRIES],
    pub(super) classes: [u8; ENTRIES],
    pub(super) sections: Vec<(u16, Section)>,
}

impl DtypeLanes {
    /// The tables of every section `t`'s used slots read, the no-field section first (so
    /// a lane that reads nothing, at row 0, finds its class); `None` when they do not fit.
    pub(super) fn build(t: &Planned) -> Option<DtypeLanes> {
        let no_field = super::super::classes::dtype_base(None, PsumWrite::Reads);
        let used = t.plans.iter().flat_map(|p| p.slots.iter().take(usize::from(p.head.used)));
        let bases = used.filter(|s| s.mode_base != super::super::classes::ModeSection::Unused.base()).map(|s| s.dtype_base);
        let mut d = DtypeLanes { rows: [0; ENTRIES], classes: [0; ENTRIES], sections: Vec::new() };
        let (mut rows_len, mut classes_len) = (0, 0);
        for base in std::iter::once(no_field).chain(bases) {
            if d.section(base).is_some() {
                continue;
            }
            let column = t.dtypes.get(usize::from(base)..usize::from(base) + SECTION)?;
            let ((shift, mask), by_x) = reading(column)?;
            let mut starts = Vec::new();
            for row in by_x.chunks(1 << ROW_BITS) {
                starts.push(u8::try_from(place(&mut d.classes, &mut classes_len, row)?).ok()?);
            }
            let rows_at = u8::try_from(place(&mut d.rows, &mut rows_len, &starts)?).ok()?;
            d.sections.push((base, Section { rows_at, shift, mask }));
        }
        // Every byte, read as each section reads it, must find its class in the scalar table.
        let holds =
            d.sections.iter().all(|&(base, s)| (0..=u8::MAX).all(|b| d.class(s, b) == t.dtypes.get(usize::from(base) + usize::from(b)).copied()));
        holds.then_some(d)
    }

    /// Where the section at `base` of the scalar table sits.
    pub(super) fn section(&self, base: u16) -> Option<Section> {
        self.sections.iter().find(|&&(b, _)| b == base).map(|&(_, s)| s)
    }

    /// The class the lanes find for `byte` in section `s`: the kernel's two lookups.
    pub(super) fn class(&self, s: Section, byte: u8) -> Option<u8> {
        let x = (u32::from(byte) >> s.shift) & s.mask;
        let row = *self.rows.get(usize::from(s.rows_at) + (x >> ROW_BITS) as usize)?;
        self.classes.get(usize::from(row) + (x & COLUMN_MASK) as usize).copied()
    }
}

/// The first of [`READINGS`] through which `column` (a class per byte value) is a
/// function of what the slot reads, and that function (by `x`, `0..=mask`).
fn reading(column: &[u8]) -> Option<((u32, u32), Vec<u8>)> {
    READINGS.iter().find_map(|&(shift, mask)| {
        let mut by_x: Vec<Option<u8>> = vec![None; mask as usize + 1];
        for (b, &c) in column.iter().enumerate() {
            let x = by_x.get_mut(((b as u32 >> shift) & mask) as usize)?;
            match *x {
                Some(seen) if seen != c => return None,
                _ => *x = Some(c),
            }
        }
        Some(((shift, mask), by_x.into_iter().map(|c| c.unwrap_or(0)).collect()))
    })
}

/// Puts `s` into the table whose first `*len` entries are taken: at the first
/// place it agrees with what is there (a copy, or an overlap with the end),
/// at the end if none; where it starts, `None` when the table is too small.
fn place(table: &mut [u8; ENTRIES], len: &mut usize, s: &[u8]) -> Option<usize> {
    let at = (0..=*len).find(|&at| {
        let end = (*len).min(at + s.len());
        table[at..end] == s[..end - at]
    })?;
    table.get_mut(at..at + s.len())?.copy_from_slice(s);
    *len = (*len).max(at + s.len());
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::{place, reading, ENTRIES};

    #[test]
    fn a_column_is_read_the_first_way_it_is_a_function_of() {
        let constant = [7u8; 256];
        assert_eq!(reading(&constant), Some(((0, 0), vec![7])));
        let low: Vec<u8> = (0..=255u8).map(|b| b & 0x0F).collect();
        assert_eq!(reading(&low), Some(((0, 0x0F), (0..16).collect())));
        let high: Vec<u8> = (0..=255u8).map(|b| b >> 4).collect();
        assert_eq!(reading(&high), Some(((4, 0x0F), (0..16).collect())));
        // Two nibble tags: a function of the whole byte only (as the errata read Activation's).
        let pair: Vec<u8> = (0..=255u8).map(|b| u8::from(b == 0x10) | (b & 0x0F)).collect();
        let Some(((shift, mask), by_x)) = reading(&pair) else { panic!("every column is a function of the byte") };
        assert_eq!((shift, mask, by_x), (0, 0xFF, pair.clone()));
    }

    #[test]
    fn a_placed_row_reuses_what_agrees_and_refuses_to_overflow() {
        let mut t = [0u8; ENTRIES];
        let mut len = 0;
        assert_eq!(place(&mut t, &mut len, &[1, 2, 3]), Some(0));
        assert_eq!(place(&mut t, &mut len, &[2, 3]), Some(1), "a copy is found");
        assert_eq!(place(&mut t, &mut len, &[3, 4, 5]), Some(2), "an overlap with the end");
        assert_eq!((len, &t[..5]), (5, &[1, 2, 3, 4, 5][..]));
        assert_eq!(place(&mut t, &mut len, &[9]), Some(5));
        let long = vec![8u8; ENTRIES - len];
        assert_eq!(place(&mut t, &mut len, &long), Some(6));
        assert_eq!(len, ENTRIES);
        assert_eq!(place(&mut t, &mut len, &[6]), None, "full");
        assert_eq!(place(&mut t, &mut len, &[8, 8]), Some(6), "yet a copy still fits");
    }
}
