//! `neuron_isa_tpb.h`: the C view of the format, generated from the same
//! description the Rust codec uses ([`crate::catalog::layouts`], the opcode,
//! dtype and enumeration tables, the ADDR4 masks), so the two cannot drift.
//!
//! The header is self-contained C11 (also valid C++11): packed structs with the
//! C type names recovered from the binary, the spec's member names, a
//! `_Static_assert` on every size and member offset, and one comment per member
//! with its spec section and confidence. [`shim`] holds the C programs the tests
//! and the `c_layout` fuzz target compile against it, plus the Rust-side
//! expectations they are compared with.

pub mod shim;
pub mod spelling;

pub use spelling::{SpecSpelling, SPEC_SPELLINGS};

use crate::addr4;
use crate::bundle::header::{BUNDLE_BYTES, INST_WORD_LEN, INST_WORD_LEN_SATURATE};
use crate::bundle::BodyKind;
use crate::dtype::{self, DTYPES};
use crate::enums::{self, EnumTable};
use crate::layout::{Fmt, Layout, Leaf, Ty};
use crate::opcode::{self, OpcodeInfo, OPCODES};
use crate::provenance::{Confidence, Provenance};
use std::fmt::Write as _;

/// File name users `#include`.
pub const FILE_NAME: &str = "neuron_isa_tpb.h";
/// Include guard: the spec header's own, so ours replaces it drop-in and a unit never gets both.
pub const GUARD: &str = "NEURON_ISA_TPB_H";
/// Prefix of every type and macro the header defines.
pub const PREFIX: &str = "NEURON_ISA_TPB_";
/// The discriminated 64-byte bundle union.
pub const UNION_NAME: &str = "NEURON_ISA_TPB_INST_UNION";
/// C type of the ADDR4 word (a name recovered from the binary's symbols, §2.2).
pub const ADDR4_NAME: &str = crate::layout::Prim::Addr4.c_type();
/// Assertion macro: `_Static_assert` in C, `static_assert` in C++.
const ASSERT: &str = "NEURON_ISA_TPB_STATIC_ASSERT";

/// Every leaf of a layout as C reaches it: `(C member path, leaf)`, first the
/// description's own paths, then the same leaves under each [`SPEC_SPELLINGS`] name.
pub fn c_leaves(l: &Layout) -> Vec<(String, Leaf)> {
    let leaves = l.leaves();
    let mut out: Vec<(String, Leaf)> = leaves.iter().map(|x| (x.path.clone(), x.clone())).collect();
    for s in SPEC_SPELLINGS.iter().filter(|s| s.struct_c_name == l.c_name) {
        for leaf in &leaves {
            if leaf.path == s.field {
                out.push((s.spelling.to_string(), leaf.clone()));
            } else if let Some(rest) = leaf.path.strip_prefix(s.field).and_then(|r| r.strip_prefix('.')) {
                out.push((format!("{}.{rest}", s.spelling), leaf.clone()));
            }
        }
    }
    out
}

/// The union member that views a bundle through `kind`'s body: the body's C
/// name without the `NEURON_ISA_TPB_` / `BUNDLE_` prefix, lower-cased
/// (`matmul`, `matmul_mx`, `tensortensor`, `semaphore`, `opaque`, …).
pub fn union_member(kind: BodyKind) -> String {
    let c = kind.layout().c_name;
    let s = c.strip_prefix(PREFIX).unwrap_or(c);
    s.strip_prefix("BUNDLE_").unwrap_or(s).to_ascii_lowercase()
}

/// The `NEURON_ISA_TPB_BODY_KIND` enumerator of a body kind.
pub fn body_enumerator(kind: BodyKind) -> String {
    format!("{PREFIX}BODY_{}", union_member(kind).to_ascii_uppercase())
}

/// The opcode enumerator: `NEURON_ISA_TPB_OP_<UPPER_SNAKE(name)>_<HEX>`. The
/// byte suffix keeps names unique (Activation is both 0x21 and 0x25) and stable
/// when a later table revision adds another byte with an existing name.
pub fn opcode_enumerator(o: &OpcodeInfo) -> String {
    format!("{PREFIX}OP_{}_{:02X}", upper_snake(o.name), o.byte)
}

/// The C type name of an enumeration table.
pub fn enum_type_name(t: &EnumTable) -> String {
    // The tables' own names are the member they type (`comp_op`, `func`); the C
    // name says which record they belong to.
    let stem = match t.name {
        "comp_op" => "BRANCH_COMP_OP".to_string(),
        "cmp_op" => "SEMAPHORE_CMP_OP".to_string(),
        "subtype" => "SEMAPHORE_SUBTYPE".to_string(),
        "func" => "POOL_FUNC".to_string(),
        other => other.to_ascii_uppercase(),
    };
    format!("{PREFIX}{stem}")
}

/// `MatMulMx` → `MAT_MUL_MX`, `BNStats` → `BN_STATS`, `DMATrigger` → `DMA_TRIGGER`.
pub fn upper_snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let next = chars.get(i + 1).copied();
        if c.is_ascii_uppercase() {
            let boundary = match prev {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary {
                out.push('_');
            }
        }
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out
}

/// Text safe inside a `/* */` comment, ASCII only.
fn comment(s: &str) -> String {
    let mut out = String::new();
    for c in s.trim().chars() {
        match c {
            '§' => out.push_str("sec. "),
            '→' => out.push_str("->"),
            '×' => out.push('x'),
            '–' | '—' => out.push('-'),
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_ascii() => out.push(c),
            _ => out.push('?'),
        }
    }
    out.replace("*/", "* /").replace("/*", "/ *")
}

/// `[2.1 CONFIRMED]`.
fn tag(p: Provenance) -> String {
    format!("[{} {}]", comment(p.section), p.confidence.as_str())
}

/// One C member of a struct: a description field, with the header's fields
/// already inlined.
struct Member {
    name: &'static str,
    /// C type name and array suffix (`uint16_t`, `[3]`).
    ty: String,
    suffix: String,
    offset: usize,
    prov: Provenance,
    doc: &'static str,
    /// Set when the type could not be expressed; emitted as `#error`.
    problem: Option<String>,
}

fn c_type(ty: Ty) -> (String, String) {
    match ty {
        Ty::Array(elem, n) => {
            let (t, s) = c_type(elem());
            (t, format!("[{n}]{s}"))
        }
        Ty::Struct(l) => (l().c_name.to_string(), String::new()),
        t => (t.prim().map_or("uint8_t", |p| p.c_type()).to_string(), String::new()),
    }
}

/// The C members of a layout, `Fmt::Inline` structs flattened into their parent
/// (so `u.matmul.opcode` works like the header word's own member).
fn members(l: &Layout, base: usize, out: &mut Vec<Member>) {
    for f in l.fields {
        let ty = (f.ty)();
        if let Fmt::Inline = f.fmt {
            match ty {
                Ty::Struct(inner) => members(inner(), base + f.offset, out),
                _ => out.push(Member {
                    name: f.name,
                    ty: String::new(),
                    suffix: String::new(),
                    offset: base + f.offset,
                    prov: f.prov,
                    doc: f.doc,
                    problem: Some(format!("{}.{} is inline but not a struct", l.c_name, f.name)),
                }),
            }
            continue;
        }
        let (t, suffix) = c_type(ty);
        out.push(Member { name: f.name, ty: t, suffix, offset: base + f.offset, prov: f.prov, doc: f.doc, problem: None });
    }
}

/// Writes the current header as `<dir>/neuron_isa_tpb.h` and returns its path;
/// for the nightly report run, so users can fetch the latest header. The write
/// is atomic (temp file + rename): a reader never sees half a header.
pub fn write_report(dir: &std::path::Path) -> Result<std::path::PathBuf, WriteError> {
    std::fs::create_dir_all(dir).map_err(|error| WriteError::CreateDir { dir: dir.to_path_buf(), error })?;
    let path = dir.join(FILE_NAME);
    let tmp = dir.join(format!(".{FILE_NAME}.tmp{}", std::process::id()));
    std::fs::write(&tmp, generate()).map_err(|error| WriteError::Write { tmp: tmp.clone(), error })?;
    std::fs::rename(&tmp, &path).map_err(|error| {
        let _ = std::fs::remove_file(&tmp);
        WriteError::Rename { path: path.clone(), error }
    })?;
    Ok(path)
}

/// Why [`write_report`] could not put the header in place. The I/O error is
/// part of the message (so it is not also given as `source()`, which would
/// print it twice).
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The report directory could not be created.
    #[error("{}: cannot create report directory: {error}", dir.display())]
    CreateDir {
        /// The directory.
        dir: std::path::PathBuf,
        /// What the file system said.
        error: std::io::Error,
    },
    /// The temporary file beside the header could not be written.
    #[error("{}: cannot write header: {error}", tmp.display())]
    Write {
        /// The temporary file (`.neuron_isa_tpb.h.tmp<pid>` in the directory).
        tmp: std::path::PathBuf,
        /// What the file system said.
        error: std::io::Error,
    },
    /// The temporary file could not be renamed over the header (it is removed).
    #[error("{}: cannot move header into place: {error}", path.display())]
    Rename {
        /// The header's path.
        path: std::path::PathBuf,
        /// What the file system said.
        error: std::io::Error,
    },
}

/// The whole header text.
pub fn generate() -> String {
    let mut h = String::new();
    preamble(&mut h);
    constants(&mut h);
    enums_section(&mut h);
    addr4_section(&mut h);
    let _ = writeln!(h, "#pragma pack(push, 1)\n");
    for l in crate::catalog::layouts() {
        struct_def(&mut h, l);
    }
    union_def(&mut h);
    let _ = writeln!(h, "#pragma pack(pop)\n");
    body_kind_fn(&mut h);
    spec_names(&mut h);
    let _ = writeln!(h, "#endif /* {GUARD} */");
    h
}

fn preamble(h: &mut String) {
    let _ = write!(
        h,
        "\
/* {FILE_NAME}: the AWS Neuron TPB 64-byte instruction bundle, for C11 and C++11.
 *
 * Generated by `tpb header` from the tpb_isa {version} description -- the same
 * data the Rust codec is built from. Do not edit; regenerate instead.
 *
 * Every struct is packed to 1 and pinned by a static assertion on its size and
 * on every member offset, so a compiler that disagrees with the wire refuses to
 * build. Each member's comment gives its offset, the spec section it comes from
 * and the spec's confidence (CONFIRMED / STRONG / INFERRED).
 *
 * Byte order: multi-byte fields are little-endian on the wire. Reading them
 * through these structs is correct on little-endian hosts (x86-64, AArch64 in
 * its usual mode); a big-endian host must byte-swap every uint16_t, int16_t,
 * uint32_t, uint64_t and ADDR4 member after reading and before writing.
 *
 * Type names are the ones recovered from the vendor binary's symbols; member
 * names follow the spec. The union member is chosen by the opcode byte:
 * neuron_isa_tpb_body_kind(u.header.opcode).
 */
#ifndef {GUARD}
#define {GUARD}

#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
#define {ASSERT}(cond, msg) static_assert(cond, msg)
#else
#define {ASSERT}(cond, msg) _Static_assert(cond, msg)
#endif

",
        version = env!("CARGO_PKG_VERSION"),
    );
}

fn constants(h: &mut String) {
    let p21 = Provenance::new("2.1", Confidence::Confirmed);
    let p13 = Provenance::new("1.3", Confidence::Confirmed);
    let _ = writeln!(h, "/* ---- bundle constants ---- */");
    let _ = writeln!(h, "#define {PREFIX}BUNDLE_BYTES {BUNDLE_BYTES}u /* {} bytes per bundle: 16 dwords */", tag(p21));
    let _ = writeln!(h, "#define {PREFIX}INST_WORD_LEN {INST_WORD_LEN:#04x}u /* {} header byte 1 */", tag(p21));
    let _ = writeln!(h, "#define {PREFIX}INST_WORD_LEN_SATURATE {INST_WORD_LEN_SATURATE:#04x}u /* {} QuantizeMx SATURATE form only */", tag(p13));
    let _ = writeln!(
        h,
        "#define {PREFIX}QUANTIZE_MX_OPCODE {:#04x}u /* {} the one opcode allowed the SATURATE length */",
        opcode::QUANTIZE_MX,
        tag(opcode::OPCODE_PROV)
    );
    let lut: Vec<String> = dtype::BIR_TO_WIRE.iter().map(|b| format!("{b:#04x}")).collect();
    let _ = writeln!(
        h,
        "/* {} BIR dtype ordinal -> wire dtype tag; an initializer for a uint8_t[{}]. */\n#define {PREFIX}BIR_TO_WIRE_INIT {{ {} }}",
        tag(dtype::BIR_TO_WIRE_PROV),
        lut.len(),
        lut.join(", ")
    );
    h.push('\n');
}

fn enum_block(h: &mut String, type_name: &str, doc: &str, entries: &[(String, u64, String)]) {
    let _ = writeln!(h, "/* {} */", comment(doc));
    let _ = writeln!(h, "typedef enum {{");
    let width = entries.iter().map(|e| e.0.len()).max().unwrap_or(0);
    for (name, value, note) in entries {
        let _ = writeln!(h, "    {name:<width$} = {value:#04x}, /* {} */", comment(note));
    }
    let _ = writeln!(h, "}} {type_name};\n");
}

fn enums_section(h: &mut String) {
    let _ = writeln!(h, "/* ---- enumerations (values of uint8_t members) ---- */\n");
    let dt: Vec<(String, u64, String)> = DTYPES
        .iter()
        .map(|d| {
            let psum = if d.psum_write { ", PSUM-writable" } else { "" };
            (
                d.c_name.to_string(),
                u64::from(d.tag),
                format!("{}: align {}{psum}, since Core{}", d.name, d.align, d.since.as_str().to_ascii_uppercase()),
            )
        })
        .collect();
    enum_block(h, crate::roster::DTYPE_C_NAME, &format!("{} The on-wire dtype tag (not the BIR dtype ordinal).", tag(dtype::DTYPE_PROV)), &dt);

    let ops: Vec<(String, u64, String)> = OPCODES
        .iter()
        .map(|o| {
            let gens: Vec<&str> = crate::generation::Generation::ALL
                .iter()
                .map(|g| match o.avail[g.index()] {
                    opcode::Avail::Yes => g.as_str(),
                    opcode::Avail::No => "-",
                    opcode::Avail::Copy => "copy",
                })
                .collect();
            let body = union_member(o.body);
            let note = if o.notes.is_empty() { String::new() } else { format!("; {}", o.notes) };
            (opcode_enumerator(o), u64::from(o.byte), format!("{} {} [{}] body {body} {}{note}", o.name, o.engine, gens.join(" "), tag(o.body_prov)))
        })
        .collect();
    enum_block(
        h,
        &format!("{PREFIX}OPCODE"),
        &format!(
            "{} L3 opcode: bundle byte 0, the union discriminant. Availability per CoreV2/V3/V4, then the body layout.",
            tag(opcode::OPCODE_PROV)
        ),
        &ops,
    );

    let kinds: Vec<(String, u64, String)> = BodyKind::ALL
        .iter()
        .enumerate()
        .map(|(i, k)| (body_enumerator(*k), i as u64, format!("union member `{}`: {}", union_member(*k), k.layout().c_name)))
        .collect();
    enum_block(h, &format!("{PREFIX}BODY_KIND"), "Which union member an opcode's body is read through; see neuron_isa_tpb_body_kind().", &kinds);

    for t in enums::ALL {
        let ty = enum_type_name(t);
        let entries: Vec<(String, u64, String)> =
            t.entries.iter().map(|(v, n)| (format!("{ty}_{}", upper_snake(n)), u64::from(*v), (*n).to_string())).collect();
        let complete = if t.complete { "" } else { " (incomplete list)" };
        enum_block(h, &ty, &format!("{} {}.{complete}", tag(t.prov), t.doc), &entries);
    }
    let _ = writeln!(h, "/* The spec header's name for the ADDR4 mode enumeration. */");
    let _ = writeln!(h, "typedef {} NEURON_ISA_ADDR4_MODE;\n", enum_type_name(&enums::ADDR4_MODE));
}

/// The ADDR4 masks as macros, with the helpers the Rust [`addr4::Addr4`] has.
fn addr4_section(h: &mut String) {
    let t = tag(addr4::PROV);
    let _ = writeln!(h, "/* ---- ADDR4: the start-address word that opens every descriptor {t} ---- */");
    let _ = writeln!(h, "typedef uint32_t {ADDR4_NAME};");
    let masks: [(&str, u32, &str); 11] = [
        ("ADDR_MASK", addr4::ADDR_MASK, "bits 0..28: byte address"),
        ("REGION_MASK", addr4::REGION_MASK, "zero for SBUF, non-zero for PSUM"),
        ("PSUM_BASE", addr4::PSUM_BASE, "PSUM window base"),
        ("PSUM_SPAN", addr4::PSUM_SPAN, "PSUM window span minus one"),
        ("MODE_MASK", addr4::MODE_MASK, "mode bits 29..30"),
        ("MODE_INDIRECT_BIT", addr4::MODE_INDIRECT, "bit 29: gather index"),
        ("MODE_ACTIVE_BIT", addr4::MODE_ACTIVE, "bit 30: dynamic pattern"),
        ("MODE_DEAD_BITS", addr4::MODE_DEAD, "both mode bits: never produced"),
        ("REGISTER_BIT", addr4::REGISTER_BIT, "bit 31: register mode, byte 0 is a register id"),
        ("REGID_LIMIT", addr4::REGID_LIMIT, "register ids are below this"),
        ("REGISTER_RESERVED_MASK", addr4::REGISTER_RESERVED_MASK, "must be zero in register mode"),
    ];
    for (name, v, doc) in masks {
        let _ = writeln!(h, "#define {ADDR4_NAME}_{name:<22} {v:#010X}u /* {doc} */");
    }
    let p = "neuron_isa_tpb_addr4";
    let _ = write!(
        h,
        "
static inline uint32_t {p}_addr29({ADDR4_NAME} w) {{ return w & {ADDR4_NAME}_ADDR_MASK; }}
/* The mode as the byte value byte3 & 0x60 (a NEURON_ISA_TPB_ADDR4_MODE value). */
static inline uint8_t {p}_mode({ADDR4_NAME} w) {{ return (uint8_t)((w & {ADDR4_NAME}_MODE_MASK) >> 24); }}
static inline int {p}_is_indirect({ADDR4_NAME} w) {{ return (w & {ADDR4_NAME}_MODE_MASK) == {ADDR4_NAME}_MODE_INDIRECT_BIT; }}
static inline int {p}_is_register({ADDR4_NAME} w) {{ return (w & {ADDR4_NAME}_REGISTER_BIT) != 0u; }}
static inline uint8_t {p}_regid({ADDR4_NAME} w) {{ return (uint8_t)(w & 0xFFu); }}
static inline int {p}_is_psum({ADDR4_NAME} w) {{ return (uint32_t)({p}_addr29(w) - {ADDR4_NAME}_PSUM_BASE) <= {ADDR4_NAME}_PSUM_SPAN; }}

"
    );
}

fn struct_def(h: &mut String, l: &Layout) {
    let _ = writeln!(h, "/* {} {} bytes {}: {} */", l.c_name, l.size, tag(l.prov), comment(l.doc));
    if let Some(of) = l.alias_of {
        let target = of().c_name;
        let _ = writeln!(h, "typedef {target} {};", l.c_name);
        let _ = writeln!(h, "{ASSERT}(sizeof({}) == {}, \"{} must be {} bytes\");\n", l.c_name, l.size, l.c_name, l.size);
        return;
    }
    let mut ms = Vec::new();
    members(l, 0, &mut ms);
    let _ = writeln!(h, "typedef struct {} {{", l.c_name);
    let mut asserts = Vec::new();
    for m in &ms {
        if let Some(p) = &m.problem {
            let _ = writeln!(h, "#error \"tpb header generator: {}\"", comment(p));
            continue;
        }
        let note = format!("/* +{:#04x} {} {} */", m.offset, tag(m.prov), comment(m.doc));
        let spelling = SPEC_SPELLINGS.iter().find(|s| s.struct_c_name == l.c_name && s.field == m.name);
        match spelling {
            Some(s) => {
                let _ = writeln!(h, "    {:<44} {note}", "union {");
                let _ = writeln!(h, "        {} {}{};", m.ty, m.name, m.suffix);
                let spelled = format!("{} {}{};", m.ty, s.spelling, m.suffix);
                let _ = writeln!(h, "        {spelled:<40} /* the spec's spelling {} */", tag(s.prov));
                let _ = writeln!(h, "    }};");
                asserts.push((s.spelling, m.offset));
            }
            None => {
                let decl = format!("{} {}{};", m.ty, m.name, m.suffix);
                let _ = writeln!(h, "    {decl:<44} {note}");
            }
        }
        asserts.push((m.name, m.offset));
    }
    let _ = writeln!(h, "}} {};", l.c_name);
    let _ = writeln!(h, "{ASSERT}(sizeof({}) == {}, \"{} must be {} bytes\");", l.c_name, l.size, l.c_name, l.size);
    for (name, off) in asserts {
        let _ = writeln!(h, "{ASSERT}(offsetof({}, {name}) == {off:#04x}, \"{}.{name} must sit at +{off:#04x}\");", l.c_name, l.c_name);
    }
    h.push('\n');
}

fn union_def(h: &mut String) {
    let _ = writeln!(h, "/* {UNION_NAME} {BUNDLE_BYTES} bytes [2.1 CONFIRMED]: one bundle; raw[0] (the opcode) selects the member. */");
    let _ = writeln!(h, "typedef union {UNION_NAME} {{");
    let _ = writeln!(h, "    {:<44} /* the wire bytes */", format!("uint8_t raw[{PREFIX}BUNDLE_BYTES];"));
    let hl = &crate::bundle::Header::LAYOUT;
    let _ = writeln!(h, "    {:<44} /* {}: the word every bundle shares */", format!("{} header;", hl.c_name), tag(hl.prov));
    for k in BodyKind::ALL {
        let l = k.layout();
        let ops: Vec<String> = OPCODES.iter().filter(|o| o.body == *k).map(|o| format!("{:#04x}", o.byte)).collect();
        let ops = if *k == BodyKind::Opaque {
            "every opcode without a body layout, and every byte outside the table".to_string()
        } else {
            format!("opcodes {}", ops.join(" "))
        };
        let _ = writeln!(h, "    {:<44} /* {}: {ops} */", format!("{} {};", l.c_name, union_member(*k)), tag(l.prov));
    }
    let _ = writeln!(h, "}} {UNION_NAME};");
    let _ = writeln!(h, "{ASSERT}(sizeof({UNION_NAME}) == {BUNDLE_BYTES}, \"{UNION_NAME} must be {BUNDLE_BYTES} bytes\");");
    let _ = writeln!(h, "{ASSERT}(offsetof({UNION_NAME}, header) == 0, \"{UNION_NAME}.header must sit at +0x00\");");
    for k in BodyKind::ALL {
        let m = union_member(*k);
        let _ = writeln!(h, "{ASSERT}(sizeof((({UNION_NAME} *)0)->{m}) == {BUNDLE_BYTES}, \"{UNION_NAME}.{m} must span the bundle\");");
    }
    h.push('\n');
}

/// The discriminant as code: opcode byte -> union member, from the opcode table.
fn body_kind_fn(h: &mut String) {
    let _ = writeln!(h, "/* {} Which union member reads a bundle with this opcode byte. */", tag(opcode::OPCODE_PROV));
    let _ = writeln!(h, "static inline {PREFIX}BODY_KIND neuron_isa_tpb_body_kind(uint8_t opcode) {{");
    let _ = writeln!(h, "    switch (opcode) {{");
    for k in BodyKind::ALL.iter().filter(|k| **k != BodyKind::Opaque) {
        for o in OPCODES.iter().filter(|o| o.body == *k) {
            let _ = writeln!(h, "    case {}:", opcode_enumerator(o));
        }
        let _ = writeln!(h, "        return {};", body_enumerator(*k));
    }
    let _ = writeln!(h, "    default:\n        return {};\n    }}\n}}\n", body_enumerator(BodyKind::Opaque));
}

/// The spec header's names for constants, opcodes, ADDR4 modes and helpers, as
/// macros over this header's own; define `NEURON_ISA_TPB_NO_SPEC_NAMES` to leave
/// them out (some are unprefixed).
fn spec_names(h: &mut String) {
    let _ = writeln!(h, "/* ---- the spec header's names {} ---- */", tag(spelling::ENUM_NAMES_PROV));
    let _ = writeln!(h, "#ifndef {PREFIX}NO_SPEC_NAMES");
    let _ = writeln!(h, "#define NEURON_ISA_BUNDLE_BYTES {PREFIX}BUNDLE_BYTES");
    let _ = writeln!(h, "#define NEURON_ISA_WORD_LEN {PREFIX}INST_WORD_LEN");
    for (name, byte) in spelling::OPCODE_NAMES {
        match opcode::lookup(*byte) {
            Some(o) => {
                let _ = writeln!(h, "#define {name} {}", opcode_enumerator(o));
            }
            None => {
                let _ = writeln!(h, "#error \"tpb header generator: {name} names opcode {byte:#04x}, which the table lacks\"");
            }
        }
    }
    let mode_type = enum_type_name(&enums::ADDR4_MODE);
    for (name, entry) in spelling::ADDR4_MODE_NAMES {
        match enums::ADDR4_MODE.value_of(entry) {
            Some(_) => {
                let _ = writeln!(h, "#define {name} {mode_type}_{}", upper_snake(entry));
            }
            None => {
                let _ = writeln!(h, "#error \"tpb header generator: {name} names ADDR4 mode {entry}, which the table lacks\"");
            }
        }
    }
    for (name, params, expansion) in spelling::ADDR4_MACROS {
        let _ = writeln!(h, "#define {name}{params} {expansion}");
    }
    let _ = writeln!(h, "#endif /* {PREFIX}NO_SPEC_NAMES */\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn a_report_write_error_names_the_path_and_the_cause() {
        let e = WriteError::CreateDir { dir: "reports/today".into(), error: std::io::Error::other("disk full") };
        assert_eq!(e.to_string(), "reports/today: cannot create report directory: disk full");
    }

    #[test]
    fn an_inline_struct_s_members_sit_at_its_offset_in_the_parent() {
        // Every Inline struct of today's tables is the header at offset 0; a synthetic
        // parent puts one at offset 4 and is itself placed at 8.
        use crate::layout::Field;
        const P: Provenance = Provenance::new("test", Confidence::Inferred);
        const fn field(name: &'static str, offset: usize, ty: fn() -> Ty, fmt: Fmt) -> Field {
            Field { name, offset, ty, fmt, prov: P, doc: "" }
        }
        static INNER: Layout = Layout {
            name: "Inner",
            c_name: "inner_t",
            size: 4,
            prov: P,
            doc: "",
            fields: &[field("lo", 0, || Ty::U16, Fmt::Hex), field("hi", 2, || Ty::U16, Fmt::Hex)],
            alias_of: None,
        };
        static OUTER: Layout = Layout {
            name: "Outer",
            c_name: "outer_t",
            size: 8,
            prov: P,
            doc: "",
            fields: &[
                field("tag", 0, || Ty::U32, Fmt::Hex),
                field("body", 4, || Ty::Struct(|| &INNER), Fmt::Inline),
                // Inline but no struct: a member with a problem, still at its offset.
                field("odd", 6, || Ty::U16, Fmt::Inline),
            ],
            alias_of: None,
        };
        let mut out = Vec::new();
        members(&OUTER, 8, &mut out);
        let got: Vec<(&str, usize, bool)> = out.iter().map(|m| (m.name, m.offset, m.problem.is_none())).collect();
        assert_eq!(got, [("tag", 8, true), ("lo", 12, true), ("hi", 14, true), ("odd", 14, false)]);
        assert_eq!(out[3].problem.as_deref(), Some("outer_t.odd is inline but not a struct"));
    }

    #[test]
    fn comments_are_ascii_and_cannot_close_early() {
        assert_eq!(comment(" §2.1 a→b ×2 – — x "), "sec. 2.1 a->b x2 - - x");
        assert_eq!(comment("naïve\tcafé\n"), "na?ve caf?");
        assert_eq!(comment("a */ b /* c"), "a * / b / * c");
        assert!(comment("日本語 ünïcödé").is_ascii());
    }

    #[test]
    fn write_report_puts_the_header_in_the_directory() -> Result<(), Box<dyn std::error::Error>> {
        let dir = std::env::temp_dir().join(format!("tpb-c-header-report-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = write_report(&dir.join("reports"))?;
        assert_eq!(path, dir.join("reports").join(FILE_NAME));
        assert_eq!(std::fs::read_to_string(&path)?, generate());
        let leftovers: Vec<_> = std::fs::read_dir(dir.join("reports"))?.filter_map(Result::ok).map(|e| e.file_name()).collect();
        assert_eq!(leftovers.len(), 1, "temp file left behind: {leftovers:?}");
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    }

    #[test]
    fn upper_snake_splits_words_and_acronyms() {
        assert_eq!(upper_snake("MatMulMx"), "MAT_MUL_MX");
        assert_eq!(upper_snake("BNStats"), "BN_STATS");
        assert_eq!(upper_snake("DMATrigger"), "DMA_TRIGGER");
        assert_eq!(upper_snake("Sb2sbCollective"), "SB2SB_COLLECTIVE");
        assert_eq!(upper_snake("TensorTensorGpsimdInt32"), "TENSOR_TENSOR_GPSIMD_INT32");
        assert_eq!(upper_snake("imm_lt"), "IMM_LT");
        // A capital after a separator starts no second word: one underscore, not two.
        assert_eq!(upper_snake("Foo_Bar"), "FOO_BAR");
    }

    #[test]
    fn enumerators_are_unique_c_identifiers() {
        let mut seen = HashSet::new();
        let mut names: Vec<String> = OPCODES.iter().map(opcode_enumerator).collect();
        names.extend(DTYPES.iter().map(|d| d.c_name.to_string()));
        names.extend(BodyKind::ALL.iter().map(|k| body_enumerator(*k)));
        for t in enums::ALL {
            names.extend(t.entries.iter().map(|(_, n)| format!("{}_{}", enum_type_name(t), upper_snake(n))));
        }
        for n in names {
            assert!(n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "{n} is not a C identifier");
            assert!(!n.starts_with(|c: char| c.is_ascii_digit()), "{n} starts with a digit");
            assert!(seen.insert(n.clone()), "duplicate enumerator {n}");
        }
    }

    #[test]
    fn union_members_are_the_expected_names() {
        let m: Vec<String> = BodyKind::ALL.iter().map(|k| union_member(*k)).collect();
        for want in ["matmul", "matmul_mx", "activation", "tensorscalar", "tensortensor", "poolcopy", "bnstats", "semaphore", "branch", "opaque"] {
            assert!(m.iter().any(|x| x == want), "union member {want} missing from {m:?}");
        }
    }

    #[test]
    fn each_union_member_lists_the_opcodes_with_its_body() {
        let h = generate();
        for k in BodyKind::ALL.iter().filter(|k| **k != BodyKind::Opaque) {
            let decl = format!("{} {};", k.layout().c_name, union_member(*k));
            let line = h.lines().find(|l| l.contains(&decl)).unwrap_or_else(|| panic!("no union member {decl}"));
            let listed = line.split("opcodes ").nth(1).and_then(|r| r.strip_suffix(" */")).unwrap_or_else(|| panic!("no opcode list: {line}"));
            let want: Vec<String> = OPCODES.iter().filter(|o| o.body == *k).map(|o| format!("{:#04x}", o.byte)).collect();
            assert!(!want.is_empty(), "{decl}: no opcode has this body");
            assert_eq!(listed.split(' ').collect::<Vec<_>>(), want, "{decl}");
        }
    }

    #[test]
    fn every_spec_spelling_names_a_real_member() {
        for s in SPEC_SPELLINGS {
            let l = crate::catalog::layouts().into_iter().find(|l| l.c_name == s.struct_c_name);
            let l = l.unwrap_or_else(|| panic!("no struct {}", s.struct_c_name));
            assert!(l.fields.iter().any(|f| f.name == s.field), "{}.{} does not exist", s.struct_c_name, s.field);
            assert!(!l.fields.iter().any(|f| f.name == s.spelling), "{}.{} already exists", s.struct_c_name, s.spelling);
        }
    }

    #[test]
    fn header_names_every_struct_and_asserts_every_member() {
        let h = generate();
        for l in crate::catalog::layouts() {
            assert!(h.contains(&format!("}} {};", l.c_name)) || h.contains(&format!(" {};\n", l.c_name)), "{} not defined", l.c_name);
            assert!(h.contains(&format!("sizeof({}) == {}", l.c_name, l.size)), "{} size not asserted", l.c_name);
            if l.alias_of.is_none() {
                let mut ms = Vec::new();
                members(l, 0, &mut ms);
                for m in ms {
                    assert!(
                        h.contains(&format!("offsetof({}, {}) == {:#04x}", l.c_name, m.name, m.offset)),
                        "{}.{} offset not asserted",
                        l.c_name,
                        m.name
                    );
                }
            }
        }
        assert!(h.contains("typedef NEURON_ISA_TPB_TENSOR3D NEURON_ISA_TPB_MEM_PATTERN3D;"));
        assert!(h.contains("NEURON_ISA_TPB_TENSOR3D moving;"));
        assert!(h.contains("NEURON_ISA_TPB_MEM_PATTERN3D psum_dst;"));
        assert!(!h.contains("#error"), "generator hit a type it cannot express");
        // A macro sharing an enumerator's name would silently replace it.
        let mut defined = HashSet::new();
        for line in h.lines() {
            let t = line.trim_start();
            let name = if let Some(rest) = t.strip_prefix("#define ") {
                rest.split([' ', '(']).next()
            } else if line.starts_with("    ") && t.split_whitespace().nth(1) == Some("=") {
                t.split_whitespace().next()
            } else {
                None
            };
            // The assertion macro has one definition per language branch.
            if let Some(n) = name.filter(|n| *n != ASSERT) {
                assert!(defined.insert(n.to_string()), "{n} is defined twice in the header");
            }
        }
        assert!(defined.len() > 100, "only {} names found: the scan is broken", defined.len());
        assert!(h.is_ascii(), "header must be plain ASCII");
    }
}
