//! `tpb diff OLD NEW`: exit bits 1 error, 4 constants differ, 8 NEW fails.

use std::path::{Path, PathBuf};
use tpb_isa::Generation;
use tpb_oracle::fixture::Fixture;
use tpb_oracle::walrus::command::diff_command;
use tpb_oracle::walrus::diff::{BIT_CHANGED, BIT_ERROR, BIT_NEW_FAILS};
use tpb_oracle::walrus::DEFAULT_MAX_BYTES;

fn write(dir: &Path, name: &str, f: &Fixture) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, f.build().expect("fixture")).expect("write");
    p
}

#[test]
fn exit_bits_follow_abidiff() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let good = write(d, "good.so", &Fixture::moved());
    let mut symtab = Fixture::moved();
    symtab.tables = tpb_oracle::fixture::Tables::Symtab;
    let other = write(d, "other.so", &symtab);
    let bad_lut = write(d, "badlut.so", &Fixture::moved().lut_byte(4, 0x0a));
    let bad_setup = write(d, "badsetup.so", &Fixture::moved().setup_byte(Generation::V4, 15, 0xcc));

    let run = |a: &Path, b: &Path| diff_command(a, b, false, DEFAULT_MAX_BYTES);
    let same = run(&good, &good);
    assert_eq!(same.code, 0, "{}", same.stdout);
    assert!(same.stdout.contains("(no difference in any value or address)"));

    // A different file with the same constants: identity changes, constants do not.
    let o = run(&good, &other);
    assert_eq!(o.code, 0, "{}", o.stdout);
    assert!(o.stdout.contains("-identity.md5 = "), "the unified diff shows the identity change");

    let o = run(&good, &bad_lut);
    assert_eq!(o.code, BIT_CHANGED | BIT_NEW_FAILS, "{}", o.stdout);
    assert!(o.stdout.contains("-dtype.bir_to_wire = 03 02 10 0d 0e"), "{}", o.stdout);
    assert!(o.stdout.contains("+dtype.bir_to_wire = 03 02 10 0d 0a"), "{}", o.stdout);
    // The summary lines name what changed and what NEW fails; none is named when there is none.
    assert!(o.stdout.contains("\n1 constant(s) changed between OLD and NEW: dtype.bir_to_wire\n"), "{}", o.stdout);
    assert!(o.stdout.contains("\n1 fact(s) NEW fails against isa/profile: dtype.bir_to_wire\n"), "{}", o.stdout);
    assert!(same.stdout.contains("\n0 constant(s) changed between OLD and NEW\n0 fact(s) NEW fails against isa/profile\n"), "{}", same.stdout);

    // OLD was the broken one: a change, but NEW agrees with isa again.
    let o = run(&bad_setup, &good);
    assert_eq!(o.code, BIT_CHANGED, "{}", o.stdout);
    assert!(o.stdout.contains("setup_header.v4"));

    let o = run(&good, &d.join("missing.so"));
    assert_eq!(o.code, BIT_ERROR);
    assert!(o.stderr.contains("missing.so"));
}

#[test]
fn known_build_as_new_fails_on_identity_and_json_has_both_sides() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let old = write(d, "moved.so", &Fixture::moved());
    let new = write(d, "known.so", &Fixture::known().expect("profile"));
    let o = diff_command(&old, &new, true, DEFAULT_MAX_BYTES);
    // Same constants, but the fixture's MD5 is not the real build's.
    assert_eq!(o.code, BIT_NEW_FAILS, "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    assert_eq!(v["new"]["known"], true);
    assert_eq!(v["old"]["known"], false);
    assert_eq!(v["changed"].as_array().map(|a| a.len()), Some(0));
    assert_eq!(v["new_fails"], serde_json::json!(["identity.md5", "identity.size"]));
    let lut = v["pairs"].as_array().and_then(|p| p.iter().find(|x| x["id"] == "dtype.bir_to_wire")).expect("pair");
    assert_eq!(lut["moved"], true);
    assert_eq!(lut["new"]["address"], "0x1dfbad0");
    assert!(v["unified"].as_str().is_some_and(|u| u.contains("+dtype.bir_to_wire") && u.contains("@ 0x1dfbad0")));
}
