//! Inputs: bare libraries and wheels, and every kind of bad input — each a
//! clear error naming the file and exit code 1, never a panic. The command
//! functions here are exactly what `tpb check` / `tpb facts` print and return.

use std::path::{Path, PathBuf};
use tpb_oracle::fixture::elf::elf32_header;
use tpb_oracle::fixture::wheel::wheel;
use tpb_oracle::fixture::Fixture;
use tpb_oracle::walrus::command::{check_command, facts_command, Outcome};
use tpb_oracle::walrus::{Input, WalrusError, DEFAULT_MAX_BYTES, WHEEL_MEMBER};

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write fixture");
    p
}

fn moved() -> Vec<u8> {
    Fixture::moved().build().expect("fixture")
}

fn open(p: &Path) -> Result<Input, WalrusError> {
    Input::open(p, DEFAULT_MAX_BYTES)
}

fn check(p: &Path) -> Outcome {
    check_command(p, false, DEFAULT_MAX_BYTES)
}

/// An error outcome: exit 1, nothing on stdout, one message naming `p`.
fn assert_error(o: &Outcome, p: &Path, says: &str) {
    assert_eq!(o.code, 1, "{o:?}");
    assert!(o.stdout.is_empty());
    assert!(o.stderr.starts_with("tpb: error: "), "{}", o.stderr);
    assert!(o.stderr.contains(&p.display().to_string()), "names the file: {}", o.stderr);
    assert!(o.stderr.contains(says), "expected `{says}` in: {}", o.stderr);
}

#[test]
fn bare_library_and_wheel_give_the_same_facts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = moved();
    let so = write(dir.path(), "libwalrus.so", &lib);
    let whl = write(
        dir.path(),
        "neuronx_cc-9.9-cp310-linux_x86_64.whl",
        &wheel(&[("neuronxcc/__init__.py", b""), (WHEEL_MEMBER, &lib)], true).expect("zip"),
    );
    let i = open(&whl).expect("wheel opens");
    assert_eq!(i.member.as_deref(), Some(WHEEL_MEMBER));
    assert_eq!(i.bytes, lib);
    assert!(i.label().ends_with(&format!("!{WHEEL_MEMBER}")));
    let (a, b) = (check(&so), check(&whl));
    assert_eq!((a.code, b.code), (0, 0), "{}{}", a.stderr, b.stderr);
    assert!(b.stdout.contains(WHEEL_MEMBER), "the report names the member");
    let json = check_command(&whl, true, DEFAULT_MAX_BYTES);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("json report");
    assert_eq!(v["member"], WHEEL_MEMBER);
    assert_eq!(v["exit"], 0);
}

#[test]
fn wheel_member_elsewhere_is_found_by_file_name_and_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let whl = write(dir.path(), "w.whl", &wheel(&[("other/lib/libwalrus.so", &moved())], false).expect("zip"));
    assert_eq!(open(&whl).expect("opens").member.as_deref(), Some("other/lib/libwalrus.so"));
    let two = write(dir.path(), "two.whl", &wheel(&[("a/libwalrus.so", b"x"), ("b/libwalrus.so", b"y")], false).expect("zip"));
    assert!(matches!(open(&two), Err(WalrusError::AmbiguousMember { .. })));
}

#[test]
fn known_fixture_through_a_wheel_exits_4() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = Fixture::known().expect("profile").build().expect("fixture");
    let whl = write(dir.path(), "known.whl", &wheel(&[(WHEEL_MEMBER, &lib)], false).expect("zip"));
    let o = check(&whl);
    assert_eq!(o.code, 4, "{}", o.stderr);
    assert!(o.stdout.contains("DIFFERS  identity.md5"));
}

#[test]
fn bad_inputs_are_clear_errors_with_exit_1() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let lib = moved();

    let p = write(d, "notes.txt", b"hello, not a library\n");
    assert_error(&check(&p), &p, "neither an ELF file nor a wheel");
    let p = write(d, "empty.so", b"");
    assert_error(&check(&p), &p, "(empty file)");
    // Shorter than a magic number: the bytes there are, named.
    let p = write(d, "short.so", b"\x7fEL");
    assert_error(&check(&p), &p, "7f 45 4c");
    let p = d.join("absent.so");
    assert_error(&check(&p), &p, "cannot read");

    let p = write(d, "truncated.so", &lib[..lib.len() / 2]);
    assert_error(&check(&p), &p, "truncated");
    let p = write(d, "header-only.so", &lib[..40]);
    assert_error(&check(&p), &p, "truncated: ELF64 header");
    let p = write(d, "elf32.so", &elf32_header());
    assert_error(&check(&p), &p, "32-bit ELF");
    let mut be = Fixture::moved();
    be.big_endian = true;
    let p = write(d, "be.so", &be.build().expect("builds"));
    assert_error(&check(&p), &p, "big-endian");
    let mut nr = Fixture::moved();
    nr.rodata_section = false;
    let p = write(d, "norodata.so", &nr.build().expect("builds"));
    assert_error(&check(&p), &p, "no .rodata");

    let good = wheel(&[(WHEEL_MEMBER, &lib)], true).expect("zip");
    let p = write(d, "cut.whl", &good[..good.len() - 30]);
    assert_error(&check(&p), &p, "corrupt wheel");
    let mut flipped = good.clone();
    let mid = flipped.len() / 3;
    for b in &mut flipped[mid..mid + 64] {
        *b ^= 0x5a;
    }
    let p = write(d, "flipped.whl", &flipped);
    assert_error(&check(&p), &p, "corrupt wheel");
    // The same zip with its one member marked LZMA (method 14) in the local and central headers.
    let stored = wheel(&[(WHEEL_MEMBER, &lib)], false).expect("zip");
    let mut lzma = stored.clone();
    for (sig, method_at) in [(b"PK\x03\x04", 8), (b"PK\x01\x02", 10)] {
        let at = stored.windows(4).position(|w| w == sig).expect("zip header");
        lzma[at + method_at..at + method_at + 2].copy_from_slice(&14u16.to_le_bytes());
    }
    let p = write(d, "lzma.whl", &lzma);
    assert_error(&check(&p), &p, "unsupported wheel");
    let p = write(d, "nomember.whl", &wheel(&[("neuronxcc/__init__.py", b"")], true).expect("zip"));
    assert_error(&check(&p), &p, "no member neuronxcc/starfish/lib/libwalrus.so");
    let p = write(d, "big.whl", &good);
    let o = check_command(&p, false, 1000);
    assert_error(&o, &p, "over the 1000-byte cap");
    let p = write(d, "big.so", &lib);
    assert_error(&check_command(&p, false, 1000), &p, "over the 1000-byte cap");
}

#[test]
fn facts_lists_isa_and_oracle_facts_with_provenance() {
    let o = facts_command(false);
    assert_eq!(o.code, 0);
    assert!(o.stdout.contains("bir_to_wire_lut"), "isa's catalog");
    assert!(o.stdout.contains("pinned in 92b4d331a42d7e80bb839e03218d2b9b0c23c346 at 0x1dfbad0"));
    let j = facts_command(true);
    let v: serde_json::Value = serde_json::from_str(&j.stdout).expect("json");
    let oracle = v["oracle"].as_array().expect("oracle facts");
    let md5 = oracle.iter().find(|f| f["id"] == "identity.md5").expect("md5 fact");
    assert_eq!(md5["per_build"]["92b4d331a42d7e80bb839e03218d2b9b0c23c346"], "1d93972b81e619ce6d178a0e4b9003b3");
    assert!(oracle.iter().all(|f| f["section"].is_string() && f["confidence"].is_string()));
    assert_eq!(v["isa"].as_array().map(|a| a.len()), Some(tpb_isa::catalog::facts().len()));
}

#[test]
fn a_library_or_wheel_member_is_read_up_to_the_cap_exactly() {
    // A library or member of exactly the cap is read whole; one byte more is refused, never cut short.
    let dir = tempfile::tempdir().unwrap();
    let lib = moved();
    let cap = lib.len() as u64;
    let so = write(dir.path(), "libwalrus.so", &lib);
    let Ok(input) = Input::open(&so, cap) else { panic!("a library of exactly the cap was refused") };
    assert_eq!(input.bytes, lib);
    match Input::open(&so, cap - 1) {
        Err(WalrusError::TooLarge { size, cap: c, .. }) => assert_eq!((size, c), (cap, cap - 1)),
        other => panic!("one byte over the cap: {:?}", other.map(|i| i.bytes.len())),
    }
    for deflate in [false, true] {
        let whl = write(dir.path(), "neuronx_cc-2.0-py3-none-any.whl", &wheel(&[(WHEEL_MEMBER, &lib)], deflate).unwrap());
        let Ok(input) = Input::open(&whl, cap) else { panic!("a member of exactly the cap was refused") };
        assert_eq!(input.bytes.len(), lib.len());
        match Input::open(&whl, cap - 1) {
            Err(WalrusError::TooLarge { size, cap: c, .. }) => assert_eq!((size, c), (cap, cap - 1)),
            other => panic!("one byte over the cap: {:?}", other.map(|i| i.bytes.len())),
        }
    }
}
