//! The opcode and dtype tables against the spec's facts; and, when the shared
//! reference table is present, against `opcodes.tsv` row by row.

use tpb_isa::dtype::{self, BIR_TO_WIRE};
use tpb_isa::opcode::{self, Avail, OPCODES};
use tpb_isa::{BodyKind, Generation};

#[test]
fn activation_is_renumbered_on_v4() {
    let a21 = opcode::lookup(0x21).map(|o| o.avail);
    let a25 = opcode::lookup(0x25).map(|o| o.avail);
    assert_eq!(a21, Some([Avail::Yes, Avail::Yes, Avail::No]));
    assert_eq!(a25, Some([Avail::No, Avail::No, Avail::Yes]));
    assert_eq!(opcode::body_kind(0x25), BodyKind::Activation);
}

#[test]
fn unknown_bytes_decode_opaque() {
    for b in [0x00u8, 0xB1, 0xCC, 0xFF] {
        assert!(opcode::lookup(b).is_none());
        assert_eq!(opcode::body_kind(b), BodyKind::Opaque);
    }
    let sorted = OPCODES.windows(2).all(|w| w[0].byte < w[1].byte);
    assert!(sorted, "table must be sorted and unique");
}

#[test]
fn dtype_alignment_classes() {
    let align: Vec<u32> = dtype::DTYPES.iter().map(|d| d.align).collect();
    assert_eq!(align, [8, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 8, 1, 1, 1, 1]);
    let psum: Vec<u8> = dtype::DTYPES.iter().filter(|d| d.psum_write).map(|d| d.tag).collect();
    assert_eq!(psum, [8, 9, 10, 11]);
    assert_eq!(dtype::info(16).map(|d| d.since), Some(Generation::V4));
    assert!(dtype::info(0).is_none() && dtype::info(17).is_none());
}

#[test]
fn bir_lut_maps_into_the_tag_set() {
    assert_eq!(BIR_TO_WIRE[2], 0x10, "FP4-x4 gets its own tag");
    assert_eq!(BIR_TO_WIRE[6], 0x03, "E8M0 maps to uint8");
    assert_eq!((BIR_TO_WIRE[8], BIR_TO_WIRE[9]), (0x0E, 0x0F));
    assert!(BIR_TO_WIRE.iter().all(|t| dtype::info(*t).is_some()));
}

/// Row-by-row comparison with the shared opcode table, when it is there.
#[test]
fn opcode_table_matches_reference_tsv() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/reference/opcodes.tsv");
    let tsv = match std::fs::read_to_string(&path) {
        Ok(tsv) => tsv,
        // `.ci/run` sets TPB_REQUIRE_SHARED when ../shared is there, so losing the file fails CI.
        Err(e) if std::env::var_os("TPB_REQUIRE_SHARED").is_some() => panic!("{}: {e} (TPB_REQUIRE_SHARED is set)", path.display()),
        Err(_) => {
            tpb_isa::test_skip::skipped(&format!("tables: {} not present: the reference comparison", path.display()));
            return;
        }
    };
    let mut rows = 0;
    for line in tsv.lines().filter(|l| !l.starts_with('#') && !l.starts_with("opcode")) {
        let cols: Vec<&str> = line.split('\t').collect();
        let byte = u8::from_str_radix(cols[0].trim_start_matches("0x"), 16).expect("hex opcode");
        let row = opcode::lookup(byte).unwrap_or_else(|| panic!("{:#04x} missing from the table", byte));
        assert_eq!(row.name, cols[1], "{byte:#04x} name");
        assert_eq!(row.engine.to_string(), cols[2], "{byte:#04x} engine");
        let avail = |s: &str| match s {
            "y" => Avail::Yes,
            "copy" => Avail::Copy,
            _ => Avail::No,
        };
        assert_eq!(row.avail, [avail(cols[3]), avail(cols[4]), avail(cols[5])], "{byte:#04x} availability");
        rows += 1;
    }
    assert_eq!(rows, OPCODES.len(), "row count");
}

/// `--arch` takes the short and the long name of every generation, in any
/// case, and names it back in its short form.
#[test]
fn every_generation_parses_from_its_names() {
    for g in Generation::ALL {
        let short = g.as_str();
        let long = format!("core{short}");
        for name in [short.to_string(), long.clone(), short.to_uppercase(), long.to_uppercase()] {
            assert_eq!(name.parse::<Generation>(), Ok(g), "{name}");
        }
        assert_eq!(g.to_string(), short);
    }
    for bad in ["v1", "v5", "core", "", "v4 "] {
        assert!(bad.parse::<Generation>().is_err(), "accepted `{bad}`");
    }
}

/// A check's code (what findings, errata and `tpb` print) finds that check
/// and no other; an unknown code finds none.
#[test]
fn every_check_is_found_by_its_code() {
    use tpb_isa::checks::{by_code, ALL};
    for c in ALL {
        let Some(found) = by_code(c.code) else { panic!("{} not found", c.code) };
        assert!(std::ptr::eq(found, *c), "{} found {}", c.code, found.code);
    }
    assert!(by_code("no-such-check").is_none());
}
