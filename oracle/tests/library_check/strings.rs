//! Assert texts, size strings and the LUT found by bytes, and how the report shows them.

use super::*;

#[test]
fn a_size_assert_stated_twice_says_how_many_strings_state_it() {
    let mut f = Fixture::moved();
    let r = report(&f);
    assert!(!row(&r, "assert.pattern_2d_size").notes.iter().any(|n| n.contains("strings state")), "{:?}", row(&r, "assert.pattern_2d_size").notes);
    let Some(two) = f.strings.iter().find(|s| s.contains("pattern 2D")).cloned() else { panic!("no 2D size assert") };
    f.strings.push(two);
    let r = report(&f);
    let notes = &row(&r, "assert.pattern_2d_size").notes;
    assert!(notes.iter().any(|n| n == "2 strings state a 2D size"), "{notes:?}");
}

#[test]
fn symbols_are_collected_by_key_only() {
    let lib = Fixture::moved().build().unwrap();
    let img = Image::parse("fixture", &lib).unwrap();
    let all = tpb_oracle::walrus::symbols::Symbols::collect(&img, &["setupHeader", "encode"]);
    let setup = tpb_oracle::walrus::symbols::Symbols::collect(&img, &["setupHeader"]);
    assert!(all.named.len() > setup.named.len() && !setup.named.is_empty(), "{} vs {}", all.named.len(), setup.named.len());
    assert!(setup.named.iter().all(|n| n.raw.contains("setupHeader")), "{:?}", setup.named.iter().map(|n| &n.raw).collect::<Vec<_>>());
    assert_eq!(setup.total, all.total, "every symbol is looked at");
}

#[test]
fn the_lut_found_twice_by_its_bytes_says_so() {
    // The table's bytes are valid UTF-8 with no NUL: a string of .rodata can carry a copy.
    let mut f = Fixture::moved();
    assert!(row(&report(&f), "dtype.bir_to_wire").notes.iter().all(|n| !n.contains("copies")));
    f.strings.push(BIR_TO_WIRE.iter().map(|&b| char::from(b)).collect());
    let r = report(&f);
    let notes = &row(&r, "dtype.bir_to_wire").notes;
    assert!(notes.iter().any(|n| n.starts_with("2 copies: ")), "{notes:?}");
}

/// A size assert is quoted up to its NUL: the string alone, not the one the
/// fixture writes after it (each is NUL-terminated in .rodata).
#[test]
fn a_size_assert_is_quoted_to_its_nul() {
    let want = tpb_oracle::fixture::expected_strings();
    for f in [Fixture::known().expect("profile"), Fixture::moved()] {
        let r = report(&f);
        let mut quoted = 0;
        for dims in 1..=4 {
            let Some(x) = r.row(&format!("assert.pattern_{dims}d_size")) else { continue };
            let head = format!("ISA mem pattern {dims}D");
            let text = want.iter().find(|s| s.starts_with(&head)).expect("the fixture writes each size assert");
            assert_eq!(x.notes.first(), Some(&format!("\"{text}\"")), "{dims}D: {:?}", x.notes);
            quoted += 1;
        }
        assert!(quoted >= 3, "only {quoted} size asserts reported");
    }
}

#[test]
fn the_text_report_shows_each_row_s_address_or_a_dash() {
    // The address column is what a user copies into a disassembler: hex where the
    // fact was found, "-" where it has none.
    let r = report(&Fixture::moved());
    let text = tpb_oracle::walrus::render::report_text(&r);
    let (mut with, mut without) = (0, 0);
    for row in &r.rows {
        let line = text.lines().find(|l| l.split_whitespace().nth(1) == Some(row.id.as_str())).unwrap_or_else(|| panic!("no line for {}", row.id));
        let shown = match row.address {
            Some(a) => {
                with += 1;
                format!("{a:#x}")
            }
            None => {
                without += 1;
                "-".to_string()
            }
        };
        // The column right of the confidence, right-aligned in ten.
        let cell = format!(" {:<9} {shown:>10}  ", row.confidence.as_str());
        assert!(line.contains(&cell), "{line:?} lacks {cell:?}");
    }
    assert!(with > 0 && without > 0, "{with} rows with an address, {without} without");
}

#[test]
fn e_ident_and_the_elf64_header_are_each_needed_whole() {
    // Cut short inside e_ident (16 bytes) the file is refused for e_ident; from 16 bytes
    // on, for the 64-byte header; a header of exactly 64 bytes and nothing else is read.
    let lib = Fixture::moved().build().unwrap();
    for len in 4..=64 {
        let mut cut = lib[..len].to_vec();
        if len == 64 {
            cut[0x20..0x30].fill(0); // e_phoff, e_shoff
            cut[0x38..0x40].fill(0); // e_phnum, e_shentsize, e_shnum, e_shstrndx
        }
        let got = Image::parse("fixture", &cut).map(|_| ()).map_err(|e| e.to_string());
        let want = match len {
            ..16 => Err(format!("fixture: truncated: ELF identification (e_ident) at offset 0x0 needs 0x10 bytes but the file has {len:#x}")),
            16..64 => Err(format!("fixture: truncated: ELF64 header at offset 0x0 needs 0x40 bytes but the file has {len:#x}")),
            _ => Ok(()),
        };
        assert_eq!(got, want, "{len} bytes");
    }
}
