//! `tpb infer --op OPCODE… [--arch v2|v3|v4] [--json] [--max-bytes N] PATH…`:
//! layouts proposed for opcodes the spec leaves opaque, from real bundles.
//! Per opcode: per byte and aligned 16/32-bit word of the body the values,
//! the shapes the spec defines that hold on every bundle (ADDR4, patterns,
//! dtype tags, enumerations), relations between offsets, what differs between
//! generations and compiler builds, and a proposed layout whose fields tile
//! 0x04..0x3F, each INFERRED and named by what it looks like. Deterministic.
//! Exit 0 (an opcode with no bundle is a warning); 2 usage/I-O (an unreadable
//! input, or a NEFF from which no bundle is read, is reported, the others
//! still read).

use crate::programs;
use std::path::PathBuf;
use tpb_isa::{opcode, Generation};
use tpb_oracle::infer::Inference;

#[derive(clap::Args)]
#[command(
    after_help = "Exit codes: 0 (an opcode with no bundle is a warning); 2 usage or I/O error (an unreadable input is reported, the others still read)."
)]
pub struct Args {
    /// An opcode to infer a layout for: a byte (`0xC1`) or a name from the opcode table (`StreamMask`). Repeatable.
    #[arg(long = "op", value_name = "OPCODE", required = true)]
    ops: Vec<String>,
    /// Pretty JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Generation of every stream (v2, v3, v4). Default: the container's target's, else the
    /// generation its bundles fit best (said on stderr); v2 for a raw file.
    #[arg(long)]
    arch: Option<Generation>,
    /// Refuse a file larger than this many bytes (pipes and devices included).
    #[arg(long, default_value_t = tpb_oracle::neff::MAX_FILE)]
    max_bytes: u64,
    /// NEFF containers or raw bundle files; a folder is searched for `*.neff` (symlinks not followed).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// An `--op` argument that names no opcode (the argument as given; escaped when shown).
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum BadOp {
    #[error("--op {}: not an opcode byte (0x00..0xFF)", tpb_oracle::text_safe::escape(.0))]
    NotAByte(String),
    #[error("--op {}: no opcode of that name (give a byte such as 0xC1, or a name from `tpb facts`)", tpb_oracle::text_safe::escape(.0))]
    NoSuchName(String),
}

/// The opcode bytes an `--op` argument names: `0xNN`, or every row of the
/// opcode table with that name (case-insensitive), narrowed to those `arch`
/// encodes when it encodes some (Activation is 0x21 on v2/v3, 0x25 on v4).
pub fn parse_op(s: &str, arch: Option<Generation>) -> Result<Vec<u8>, BadOp> {
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return u8::from_str_radix(hex, 16).map(|b| vec![b]).map_err(|_| BadOp::NotAByte(s.to_string()));
    }
    let rows: Vec<&opcode::OpcodeInfo> = opcode::OPCODES.iter().filter(|o| o.name.eq_ignore_ascii_case(s)).collect();
    if rows.is_empty() {
        return Err(BadOp::NoSuchName(s.to_string()));
    }
    let available: Vec<u8> = rows.iter().filter(|o| arch.is_some_and(|g| o.available(g))).map(|o| o.byte).collect();
    Ok(if available.is_empty() { rows.iter().map(|o| o.byte).collect() } else { available })
}

pub fn run(a: Args) -> u8 {
    let mut ops = Vec::new();
    for s in &a.ops {
        match parse_op(s, a.arch) {
            Ok(b) => ops.extend(b),
            Err(e) => return super::fail(format!("infer: {e}")),
        }
    }
    ops.sort_unstable();
    ops.dedup();
    let mut inf = Inference::new(&ops);
    // The usage/I-O code once any input could not be read.
    let code = programs::each_program(&a.paths, a.arch, a.max_bytes, |shown, p, c| {
        for s in p.streams() {
            inf.add_stream(shown, s.build, c.generation, s.bytes);
        }
    });
    for op in inf.opcodes().filter(|o| o.bundles == 0) {
        eprintln!("tpb: warning: infer: no bundle of opcode {:#04x} {} in the inputs", op.opcode, opcode::name(op.opcode));
    }
    let text = if a.json {
        match serde_json::to_string_pretty(&inf.to_json()) {
            Ok(j) => j + "\n",
            Err(e) => return super::fail(format!("infer: cannot render JSON: {e}")),
        }
    } else {
        inf.to_text()
    };
    crate::out::print(&text, code)
}
