//! The generated `neuron_isa_tpb.h` proven by the system C compiler: it compiles
//! warning-free as C11, the compiler places every member where the Rust layout
//! says, and C reading bundles through its union sees exactly the values the
//! Rust decoder reports.
//!
//! The compiler is `$CC` (may carry arguments, e.g. `ccache gcc`), else `cc`.
//! With neither, these tests fail and say so: the header is only proven when a
//! compiler has seen it (CI installs gcc).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use tpb_isa::bundle::{BodyKind, Raw, BUNDLE_BYTES};
use tpb_isa::c_header::{self, shim};

const STRICT: &[&str] = &["-Wall", "-Wextra", "-pedantic", "-std=c11", "-Werror"];

/// A compiler command line: program plus leading arguments.
struct Compiler {
    program: String,
    args: Vec<String>,
    from: &'static str,
}

/// Resolves the compiler named by `var` (the value of an environment variable),
/// falling back to `default`; an error says what was tried and how to fix it.
fn find_compiler(var_name: &'static str, var: Option<String>, default: &str) -> Result<Compiler, String> {
    let (line, from) = match var.filter(|v| !v.trim().is_empty()) {
        Some(v) => (v, var_name),
        None => (default.to_string(), "default"),
    };
    let mut words = line.split_whitespace().map(str::to_string);
    let program = words.next().unwrap_or_default();
    let args: Vec<String> = words.collect();
    let missing = |why: String| {
        format!(
            "no C compiler: `{line}` (from {from}) cannot be started ({why}). The C header tests need one: \
             set {var_name}=<compiler> or install gcc (apt-get install gcc)"
        )
    };
    match Command::new(&program).args(&args).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status() {
        Ok(s) if s.success() => Ok(Compiler { program, args, from }),
        // 127 is "could not be executed", as shells say it, and as a spawn under qemu-user
        // (an emulated cross-architecture test run) reports a missing program.
        Ok(s) if s.code() == Some(127) => Err(missing(format!("{s}"))),
        Ok(s) => Err(format!("C compiler `{line}` (from {from}) does not run: `--version` exited with {s}; set {var_name} to a working compiler")),
        Err(e) => Err(missing(e.to_string())),
    }
}

fn cc() -> Compiler {
    find_compiler("CC", std::env::var("CC").ok(), "cc").unwrap_or_else(|e| panic!("{e}"))
}

/// A fresh directory per test under cargo's integration-test scratch space,
/// holding the generated header.
fn workdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_header").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    write(&dir, c_header::FILE_NAME, &c_header::generate());
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    p
}

/// Compiles `sources` with the strict flags; `-c` when `out` is `None`.
/// Fails on a non-zero exit or on any diagnostic at all.
fn compile(c: &Compiler, dir: &Path, flags: &[&str], sources: &[&str], out: Option<&str>) {
    let mut cmd = Command::new(&c.program);
    cmd.args(&c.args).args(flags).arg("-I").arg(dir).current_dir(dir);
    match out {
        Some(o) => cmd.arg("-o").arg(o),
        None => cmd.arg("-c"),
    };
    cmd.args(sources);
    let res = cmd.output().unwrap_or_else(|e| panic!("cannot run {} (from {}): {e}", c.program, c.from));
    let diag = String::from_utf8_lossy(&res.stderr);
    assert!(res.status.success(), "{} {flags:?} {sources:?} failed in {}:\n{diag}", c.program, dir.display());
    assert!(diag.trim().is_empty(), "{} {flags:?} {sources:?} printed diagnostics in {}:\n{diag}", c.program, dir.display());
}

fn run(exe: &Path, stdin: &[u8]) -> String {
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
    let mut input = child.stdin.take().unwrap_or_else(|| panic!("no stdin pipe"));
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || input.write_all(&data));
    let res = child.wait_with_output().unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
    feeder.join().unwrap_or_else(|_| panic!("stdin feeder panicked")).unwrap_or_else(|e| panic!("writing stdin: {e}"));
    assert!(res.status.success(), "{} failed: {}", exe.display(), String::from_utf8_lossy(&res.stderr));
    String::from_utf8(res.stdout).unwrap_or_else(|e| panic!("{} printed non-UTF-8: {e}", exe.display()))
}

/// Code in the style of the spec's own header: its type names, member names
/// (`in` included), dtype enumerators and constants.
const SPEC_STYLE_USER: &str = r#"
#include "neuron_isa_tpb.h"
#include "neuron_isa_tpb.h" /* the include guard holds */
#include <string.h>

int encode_matmul(NEURON_ISA_TPB_INST_UNION *u, NEURON_ISA_TPB_ADDR4 src, NEURON_ISA_TPB_ADDR4 dst);
int encode_matmul(NEURON_ISA_TPB_INST_UNION *u, NEURON_ISA_TPB_ADDR4 src, NEURON_ISA_TPB_ADDR4 dst) {
    NEURON_ISA_TPB_TENSOR3D moving;
    NEURON_ISA_TPB_MEM_PATTERN3D out;
    memset(u->raw, 0, NEURON_ISA_BUNDLE_BYTES);
    moving.addr = src;
    moving.stride[0] = -1;
    moving.num[2] = 1;
    out = moving;
    out.addr = dst;
    u->matmul.opcode = ISA_OP_MATMUL;
    u->matmul.inst_word_len = NEURON_ISA_WORD_LEN;
    u->matmul.reserved = 0;
    u->matmul.moving = moving;
    u->matmul.in_dtype = ISA_DT_BFLOAT16;
    u->matmul.dst_dtype_dense = ISA_DT_FLOAT32;
    u->matmul.dst_dtype_mx = 0;
    u->matmul.accumulate = 1;
    u->matmul._ctl2D = 0;
    u->matmul.psum_zero_region = 0;
    u->matmul.psum_dst = out;
    return neuron_isa_tpb_addr4_is_psum(u->matmul.psum_dst.addr) + ADDR4_IS_REGISTER(dst) + (int)ADDR4_REGID(src)
        + (ADDR4_MODE(src) == ISA_ADDR_INDIRECT) + (ADDR4_ADDR29(dst) - ADDR4_PSUM_BASE <= ADDR4_PSUM_SPAN)
        + (ADDR4_REGION(dst) != 0u) + (u->header.opcode == NEURON_ISA_TPB_OP_MAT_MUL_02);
}

int touch_others(NEURON_ISA_TPB_INST_UNION *u);
int touch_others(NEURON_ISA_TPB_INST_UNION *u) {
    NEURON_ISA_TPB_MXMEM_PATTERN1D mx;
    NEURON_ISA_TPB_MXINDIRECT16B mxi;
    NEURON_ISA_TPB_INDIRECT16B i16;
    NEURON_ISA_TPB_INDIRECT20B i20;
    NEURON_ISA_TPB_TENSOR1D t1;
    NEURON_ISA_TPB_MEM_PATTERN2D m2;
    NEURON_ISA_ADDR4_MODE mode = ISA_ADDR_INDIRECT;
    NEURON_ISA_TPB_DTYPE dt = ISA_DT_FLOAT4_E2M1_X4;
    memset(&mx, 0, sizeof mx);
    mx.k_extent = 4;
    mx.step_dir = 1;
    mx.scale_base_part = 0;
    mx._reserved[3] = 0;
    u->matmul_mx.moving = mx;
    memset(&mxi, 0, sizeof mxi);
    mxi.index = (NEURON_ISA_TPB_ADDR4)mode << 24;
    mxi._spare = 0;
    memset(&i16, 0, sizeof i16);
    i16.num = 2;
    i16._inert[5] = 0;
    memset(&i20, 0, sizeof i20);
    i20._inert[9] = 0;
    memset(&t1, 0, sizeof t1);
    t1.stride0 = -3;
    t1.num0 = 3;
    memset(&m2, 0, sizeof m2);
    m2.num[1] = 1;
    u->poolcopy.in.stride[3] = t1.stride0;
    u->poolcopy.src_dtype = (uint8_t)dt;
    u->poolcopy.func = NEURON_ISA_TPB_POOL_FUNC_MAX;
    u->poolcopy.scale_or_fill = 0x3F800000u;
    u->poolcopy.out.num[3] = 1;
    u->bnstats.out = m2;
    u->tensortensor.in_dtype_nibbles = (uint8_t)(ISA_DT_INT32 | (ISA_DT_FLOAT32 << 4));
    u->tensortensor.alu_op = NEURON_ISA_TPB_ALU_OP_ADD;
    u->tensortensor.in1.num[0] = 1;
    u->semaphore.cmp_op = NEURON_ISA_TPB_SEMAPHORE_CMP_OP_GE;
    u->semaphore.subtype = NEURON_ISA_TPB_SEMAPHORE_SUBTYPE_INC;
    u->semaphore._r0C[0] = 0;
    u->semaphore._r2C[0] = 0;
    u->semaphore.wait_value = 1;
    u->branch.comp_op = NEURON_ISA_TPB_BRANCH_COMP_OP_ALWAYS;
    u->branch.target_pc = 0x40u;
    u->branch.opcode = ISA_OP_BRANCH;
    u->activation.act_tbl_sel = 0;
    u->tensorscalar.op0 = NEURON_ISA_TPB_ALU_OP_MULT;
    u->opaque.body[59] = 0;
    return (int)neuron_isa_tpb_body_kind(u->header.opcode) + (int)sizeof i20;
}
"#;

#[test]
fn generated_header_compiles_cleanly_as_c11() {
    let c = cc();
    let dir = workdir("compile");
    write(&dir, "user.c", SPEC_STYLE_USER);
    compile(&c, &dir, STRICT, &["user.c"], None);
}

#[test]
fn spec_names_can_be_left_out() {
    let c = cc();
    let dir = workdir("no_spec_names");
    let user = "#define NEURON_ISA_TPB_NO_SPEC_NAMES\n#include \"neuron_isa_tpb.h\"\n\
                #ifdef ADDR4_MODE\n#error ADDR4_MODE leaked\n#endif\n\
                #ifdef ISA_OP_MATMUL\n#error ISA_OP_MATMUL leaked\n#endif\n\
                int f(void);\nint f(void) { return NEURON_ISA_TPB_OP_MAT_MUL_02; }\n";
    write(&dir, "user.c", user);
    compile(&c, &dir, STRICT, &["user.c"], None);
}

#[test]
fn generated_header_compiles_cleanly_as_cxx11() {
    // C++ users include the same header; only checked where a C++ compiler exists.
    let cxx = match find_compiler("CXX", std::env::var("CXX").ok(), "c++") {
        Ok(c) => c,
        Err(e) => {
            tpb_isa::test_skip::skipped(&format!("c_header: the C++ check: {e}"));
            return;
        }
    };
    let dir = workdir("compile_cxx");
    write(&dir, "user.cc", SPEC_STYLE_USER);
    compile(&cxx, &dir, &["-Wall", "-Wextra", "-pedantic", "-std=c++11", "-Werror"], &["user.cc"], None);
}

#[test]
fn c_layout_matches_the_rust_layout() {
    let c = cc();
    let dir = workdir("layout");
    write(&dir, "probe.c", &shim::layout_probe_source());
    compile(&c, &dir, STRICT, &["probe.c"], Some("probe"));
    let out = run(&dir.join("probe"), &[]);
    let problems = shim::compare_layout(&out);
    assert!(problems.is_empty(), "C and Rust disagree on {} member(s):\n{}", problems.len(), problems.join("\n"));
    // The probe must have covered every leaf of every struct, not just agreed on a few.
    let fields = out.lines().filter(|l| l.starts_with("field ")).count();
    let want: usize = tpb_isa::catalog::layouts().iter().map(|l| c_header::c_leaves(l).len()).sum::<usize>() + 2 + BodyKind::ALL.len();
    assert_eq!(fields, want, "probe printed {fields} members, the description has {want}");
}

/// splitmix64: a fixed seed makes the smoke set reproducible.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Every opcode byte with several bodies each: all-zero, all-ones and random.
fn smoke_bundles() -> Vec<Raw> {
    let mut rng = Rng(0x7b_c0de_5eed);
    let mut out = Vec::new();
    for op in 0..=255u8 {
        for variant in 0..6 {
            let mut raw = [0u8; BUNDLE_BYTES];
            match variant {
                0 => {}
                1 => raw.fill(0xFF),
                _ => raw.chunks_mut(8).for_each(|c| c.copy_from_slice(&rng.next().to_le_bytes()[..c.len()])),
            }
            raw[0] = op;
            out.push(raw);
        }
    }
    out
}

#[test]
fn c_reads_every_field_like_the_rust_decoder() {
    let c = cc();
    let dir = workdir("dump");
    write(&dir, "dump.c", &shim::field_dump_source());
    write(&dir, "main.c", &shim::field_dump_main_source());
    compile(&c, &dir, STRICT, &["dump.c", "main.c"], Some("dump"));

    let bundles = smoke_bundles();
    let input: Vec<u8> = bundles.iter().flatten().copied().collect();
    let out = run(&dir.join("dump"), &input);
    let dumps: Vec<&str> = out.split_terminator("\n\n").collect();
    assert_eq!(dumps.len(), bundles.len(), "C printed {} dumps for {} bundles", dumps.len(), bundles.len());

    let mut kinds = std::collections::HashSet::new();
    let mut failures = Vec::new();
    for (raw, dump) in bundles.iter().zip(&dumps) {
        kinds.insert(tpb_isa::Bundle::decode(raw).kind());
        if let Some(msg) = shim::compare_dump(raw, &format!("{dump}\n")) {
            failures.push(msg);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} bundles differ; first ones:\n{}",
        failures.len(),
        bundles.len(),
        failures[..failures.len().min(10)].join("\n")
    );
    for k in BodyKind::ALL {
        assert!(kinds.contains(k), "smoke set never exercised body {k:?}");
    }
}

#[test]
fn a_missing_compiler_is_named_with_the_fix() {
    let err = find_compiler("CC", Some("/nonexistent/tpb-no-such-cc".to_string()), "cc").err().unwrap_or_default();
    assert!(err.contains("no C compiler") && err.contains("/nonexistent/tpb-no-such-cc") && err.contains("set CC="), "{err}");
}

/// Every constant and opcode of the header says where it comes from and how
/// sure the spec is, as `[section CONFIDENCE]` (no compiler needed).
#[test]
fn every_opcode_and_constant_names_its_source_and_confidence() {
    use tpb_isa::opcode::{OPCODES, OPCODE_PROV};
    let h = c_header::generate();
    let tag = |p: tpb_isa::provenance::Provenance| format!("[{} {}]", p.section, p.confidence.as_str());
    assert!(h.contains("#define NEURON_ISA_TPB_BUNDLE_BYTES 64u /* [2.1 CONFIRMED] "), "{h}");
    assert!(h.contains(&format!("#define NEURON_ISA_TPB_QUANTIZE_MX_OPCODE 0xe3u /* {} ", tag(OPCODE_PROV))), "{h}");
    for o in OPCODES {
        let at = format!("= {:#04x}, /* {} ", o.byte, o.name);
        let Some(line) = h.lines().find(|l| l.contains(&at)) else { panic!("no enumerator for {:#04x} {}", o.byte, o.name) };
        assert!(line.contains(&tag(o.body_prov)), "{:#04x}: {line}", o.byte);
    }
    // Where each kind of body mapping comes from, one opcode of each: a spec family, a spec
    // record, a layout recovered from real programs, none given.
    for (byte, want) in [
        (0x01, "body matmul [2.1 Family A / 2.5 CONFIRMED]"),
        (0xa0, "body semaphore [1.14 CONFIRMED]"),
        (0xa4, "body noop [R (recovered from real programs) INFERRED]"),
        (0xb0, "body opaque [G3 (no body layout given) CONFIRMED]"),
    ] {
        let at = format!("= {byte:#04x}, /* ");
        let line = h.lines().find(|l| l.contains("_OP_") && l.contains(&at)).unwrap_or_else(|| panic!("no opcode {byte:#04x}"));
        assert!(line.contains(want), "{byte:#04x}: {line}");
    }
}
