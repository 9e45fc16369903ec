//! A library built by the real toolchain (`g++ -shared`): real mangled names,
//! a GNU hash table, the linker's own layout. The facts come from `isa`; the
//! setupHeader bodies are emitted as raw bytes under their mangled names.
//! Skipped, with a note, where no C++ compiler is installed.

use std::fmt::Write;
use std::process::Command;
use tpb_isa::bundle::header::SETUP_HEADER_CODE;
use tpb_isa::dtype::BIR_TO_WIRE;
use tpb_isa::Generation;
use tpb_oracle::fixture::{expected_strings, setup_symbol};
use tpb_oracle::walrus::image::Image;
use tpb_oracle::walrus::report::{Located, Status};
use tpb_oracle::walrus::symbols::SymbolSource;
use tpb_oracle::walrus::{check_image, Profiles};

fn bytes_list(b: &[u8]) -> String {
    b.iter().map(|x| format!("0x{x:02x}")).collect::<Vec<_>>().join(",")
}

fn source(setup: &[u8]) -> String {
    let mut s = String::from("namespace walrus { namespace isa {\n");
    for name in tpb_isa::roster::type_names() {
        let _ = writeln!(s, "struct {name} {{ int x; }};\n__attribute__((visibility(\"default\"))) int encode(const {name}* p) {{ return p->x; }}");
    }
    s.push_str("}}\n");
    for (i, text) in expected_strings().iter().enumerate() {
        let _ = writeln!(s, "extern const char walrus_assert_{i}[] = \"{text}\";");
    }
    let _ = writeln!(s, "extern const unsigned char walrus_dtype_lut[{}] = {{{}}};", BIR_TO_WIRE.len(), bytes_list(&BIR_TO_WIRE));
    for g in Generation::ALL {
        let sym = setup_symbol(g);
        let _ = writeln!(
            s,
            "asm(\".text\\n.globl {sym}\\n.type {sym}, @function\\n{sym}:\\n.byte {}\\n.size {sym}, {}\\n\");",
            bytes_list(setup),
            setup.len()
        );
    }
    s
}

/// Builds the library, or `None` (with a note) where g++ is missing or fails.
fn build(dir: &std::path::Path, setup: &[u8]) -> Option<Vec<u8>> {
    let src = dir.join("walrus.cpp");
    let out = dir.join("libwalrus.so");
    std::fs::write(&src, source(setup)).ok()?;
    let run = Command::new("g++").args(["-shared", "-fPIC", "-O1", "-Wl,--build-id", "-Wl,--hash-style=gnu", "-o"]).arg(&out).arg(&src).output();
    match run {
        Ok(o) if o.status.success() => std::fs::read(&out).ok(),
        Ok(o) => {
            tpb_isa::test_skip::skipped(&format!("library_toolchain: g++ failed: {}", String::from_utf8_lossy(&o.stderr)));
            None
        }
        Err(e) => {
            tpb_isa::test_skip::skipped(&format!("library_toolchain: no g++ ({e})"));
            None
        }
    }
}

#[test]
fn toolchain_built_library_is_checked_by_discovery() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(lib) = build(dir.path(), &SETUP_HEADER_CODE) else { return };
    let profiles = Profiles::embedded().expect("profiles");
    let img = Image::parse("g++ libwalrus.so", &lib).expect("parses");
    let r = check_image(&img, &profiles).expect("checks");
    assert!(!r.known && r.build_id.is_some(), "a real build-id, not a known one");
    assert_eq!(r.symbols.source, SymbolSource::Dynamic, "read through PT_DYNAMIC (GNU hash)");
    let failed: Vec<&str> = r.failed().map(|x| x.id.as_str()).collect();
    assert!(failed.is_empty(), "{failed:?}\n{}", tpb_oracle::walrus::render::report_text(&r));
    assert_eq!(r.exit, 0);
    let s = r.row("setup_header.v3").expect("row");
    assert_eq!((s.status, s.located), (Status::Holds, Located::Symbol));

    let mut bad = SETUP_HEADER_CODE;
    bad[6] = 0x11; // mov byte [rsi+1], 0x11: the saturate length, everywhere
    let Some(lib) = build(dir.path(), &bad) else { return };
    let img = Image::parse("g++ libwalrus.so", &lib).expect("parses");
    let r = check_image(&img, &profiles).expect("checks");
    let failed: Vec<&str> = r.failed().map(|x| x.id.as_str()).collect();
    assert_eq!(failed, ["setup_header.v2", "setup_header.v3", "setup_header.v4"]);
}
