//! The assembler on hand-written text: what it refuses, and that every
//! symbolic value it accepts reads back as written.

use tpb_isa::dtype::DTYPES;
use tpb_isa::text::{asm_line, disasm};
use tpb_isa::Bundle;

const TENSOR_TENSOR: &str = "0x41:TensorTensor";

#[test]
fn every_dtype_pair_in_a_nibble_field_reads_back_or_is_refused() {
    let mut accepted = 0;
    for lo in DTYPES {
        for hi in DTYPES {
            let value = format!("{}/{}", lo.name, hi.name);
            let line = format!("{TENSOR_TENSOR} in_dtype_nibbles={value}");
            match asm_line(&line) {
                Ok(Some(raw)) => {
                    assert!(lo.tag <= 0x0F && hi.tag <= 0x0F, "{value} accepted though a tag needs 5 bits");
                    let text = disasm(&Bundle::decode(&raw));
                    assert!(text.contains(&format!("in_dtype_nibbles={value}")), "{value} reads back as: {text}");
                    accepted += 1;
                }
                Ok(None) => panic!("{line}: no bundle"),
                Err(e) => {
                    assert!(lo.tag > 0x0F || hi.tag > 0x0F, "{value} refused: {e}");
                    assert!(e.to_string().contains("does not fit a 4-bit dtype field"), "{value}: {e}");
                }
            }
        }
    }
    let narrow = DTYPES.iter().filter(|d| d.tag <= 0x0F).count();
    assert_eq!(accepted, narrow * narrow);
}

#[test]
fn numbers_take_digits_only() {
    for bad in ["inst_word_len=+16", "reserved=0x+0", "reserved=-+1", "reserved=0x", "reserved=", "reserved=1_0"] {
        let line = format!("{TENSOR_TENSOR} {bad}");
        assert!(asm_line(&line).is_err(), "accepted: {line}");
    }
    for (good, at, byte) in [("inst_word_len=16", 1, 16), ("inst_word_len=0x11", 1, 0x11), ("inst_word_len=0X0f", 1, 0x0F)] {
        let raw = asm_line(&format!("{TENSOR_TENSOR} {good}")).expect("assembles").expect("one bundle");
        assert_eq!(raw[at], byte, "{good}");
    }
    assert!(asm_line("+0x41:TensorTensor").is_err());
}

#[test]
fn the_value_names_are_every_dtype_every_dtype_pair_and_every_enum_entry() {
    use tpb_isa::{enums, props};
    let names = props::value_names();
    let entries: usize = enums::ALL.iter().map(|t| t.entries.len()).sum();
    assert_eq!(names.len(), DTYPES.len() + DTYPES.len() * DTYPES.len() + entries);
    let (first, last) = (DTYPES[0].name, DTYPES[DTYPES.len() - 1].name);
    for want in [first.to_string(), format!("{first}/{last}"), format!("{last}/{first}"), last.to_string()] {
        assert!(names.contains(&want), "{want}");
    }
    for t in enums::ALL {
        for (_, e) in t.entries {
            assert!(names.iter().any(|n| n == e), "{}: {e}", t.name);
        }
    }
}

#[test]
fn every_value_name_in_every_field_of_every_body_reads_back_as_a_name() {
    use tpb_isa::{props, smith, Generation};
    let names = props::value_names().len();
    let mut bodies = std::collections::HashSet::new();
    for seed in 0..400u64 {
        let bytes = props::seeded_bytes(seed, 512);
        let mut u = arbitrary::Unstructured::new(&bytes);
        let Ok(b) = smith::bundle(&mut u, Generation::V4) else { continue };
        if !bodies.insert(b.kind()) {
            continue;
        }
        let line = disasm(&b);
        let keys: std::collections::BTreeSet<String> =
            line.split('#').next().unwrap_or("").split_whitespace().filter_map(|t| t.split_once('=')).map(|(k, _)| k.to_string()).collect();
        let fields = line.split('#').next().unwrap_or("").split_whitespace().filter(|t| t.contains('=')).count();
        let (mut edited, mut set) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
        for field in 0..fields {
            for name in 0..names {
                let [lo, hi] = u16::try_from(name).expect("few names").to_le_bytes();
                let pick = [u8::try_from(field).expect("few fields"), lo, hi];
                match props::edited_name_reads_back(&line, pick) {
                    Ok(Some((key, value))) => {
                        edited.insert(key);
                        set.insert(value);
                    }
                    Ok(None) => {}
                    Err(e) => panic!("{e}"),
                }
            }
        }
        // Each field of the line was the one edited for some pick, and each name was set.
        assert_eq!(edited, keys, "{line}");
        // (Names, not indices: an enum value may share its name with another's.)
        let distinct: std::collections::BTreeSet<&str> = props::value_names().iter().map(String::as_str).collect();
        assert_eq!(set, distinct, "{line}");
    }
    assert!(bodies.len() >= 8, "only {} body kinds generated", bodies.len());
}

#[test]
fn an_unknown_name_is_refused_with_the_names_the_field_takes() {
    let e = asm_line(&format!("{TENSOR_TENSOR} out_dtype=float17")).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("`out_dtype=float17`: `float17` is not a number or a dtype name (one of "), "{e}");
    for d in DTYPES {
        assert!(e.contains(d.name), "{} missing: {e}", d.name);
    }
    let e = asm_line(&format!("{TENSOR_TENSOR} in_dtype_nibbles=f32/float17")).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("LOW/HIGH dtype names (each one of ") && e.contains("bf16"), "{e}");
    let e = asm_line(&format!("{TENSOR_TENSOR} alu_op=frobnicate")).err().map(|e| e.to_string()).unwrap_or_default();
    let names: Vec<&str> = tpb_isa::enums::ALU_OP.entries.iter().map(|e| e.1).collect();
    assert!(e.contains(&format!("`frobnicate` is not a number or a name of alu_op (one of {})", names.join(", "))), "{e}");
}

#[test]
fn a_field_value_reads_as_the_disassembly_prints_that_field() {
    use tpb_isa::text::{format_value, leaves};
    use tpb_isa::{props, smith, Generation};
    let mut checked = 0;
    for seed in 0..200u64 {
        let bytes = props::seeded_bytes(seed, 512);
        let Ok(b) = smith::bundle(&mut arbitrary::Unstructured::new(&bytes), Generation::V4) else { continue };
        let line = disasm(&b);
        let tokens: std::collections::BTreeMap<&str, &str> = line.split_whitespace().filter_map(|t| t.split_once('=')).collect();
        for leaf in leaves(b.kind()).iter().filter(|l| l.path != "opcode") {
            let Some(&printed) = tokens.get(leaf.path.as_str()) else { panic!("{line}: no `{}`", leaf.path) };
            let whole = &b.as_bytes()[leaf.offset..leaf.offset + leaf.size()];
            let value = match leaf.len {
                // A number array prints its elements, each as a scalar of its own.
                Some(n) if printed.starts_with('[') => {
                    let each: Vec<String> = (0..n).map(|i| format_value(leaf, &whole[i * leaf.prim.size()..][..leaf.prim.size()])).collect();
                    format!("[{}]", each.join(","))
                }
                _ => format_value(leaf, whole),
            };
            assert_eq!(value, printed, "{line}: `{}`", leaf.path);
            checked += 1;
        }
    }
    assert!(checked > 500, "{checked} fields");
}
