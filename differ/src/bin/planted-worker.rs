//! A worker with planted bugs, of the kinds real decoders have, each
//! switched on by name: `planted-worker signed,byteswap` (or `all`; none:
//! a worker that agrees with the description). The tests and the
//! walkthrough in docs/differential.md fuzz it with `tpb differ` and expect
//! every bug found and reduced to its field, and nothing with none on.
//!
//! Bugs, each narrow as real ones are:
//! - `signed`:   TensorCopy (0x46) `src.stride` elements read unsigned;
//! - `bitfield`: TensorTensor (0x41) `in_dtype_nibbles` high nibble taken one bit too high;
//! - `byteswap`: MatMul (0x02) `moving.addr` read big-endian;
//! - `dtype`:    the dtype name table has bf16 and f16 swapped (every plain dtype field);
//! - `rule`:     the validator lacks the `zero-num` check;
//! - `crash`:    decoding TensorScalar (0x43) aborts;
//! - `hang`:     decoding Pool (0x45) never returns.

use std::io::{BufRead, Write};
use tpb_differ::reference;
use tpb_differ::request::{parse_hex, parse_line, Ask};
use tpb_isa::layout::{Leaf, LeafFmt, Prim};
use tpb_isa::{Bundle, Generation, Profile};

const BUGS: [&str; 7] = ["signed", "bitfield", "byteswap", "dtype", "rule", "crash", "hang"];

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_default();
    let on: Vec<&str> = if arg == "all" { BUGS.to_vec() } else { arg.split(',').filter(|b| !b.is_empty()).collect() };
    if let Some(bad) = on.iter().find(|b| !BUGS.contains(b)) {
        eprintln!("planted-worker: unknown bug `{bad}` (known: {}, or all)", BUGS.join(", "));
        std::process::exit(2);
    }
    let mut input = std::io::BufReader::new(std::io::stdin().lock());
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let answer = answer(&on, &line);
        if writeln!(out, "{answer}").is_err() {
            break;
        }
        // Flushed when no request is waiting: a batch is answered in one write.
        if input.buffer().is_empty() && out.flush().is_err() {
            break;
        }
    }
    let _ = out.flush();
}

fn answer(on: &[&str], line: &str) -> String {
    let (ask, g, rest) = match parse_line(line) {
        Ok(p) => p,
        Err(e) => return format!("error {e}"),
    };
    match ask {
        Ask::Encode => match tpb_isa::text::asm_line(&format!("{} {}", mnemonic(&rest), rest.split_once(' ').map_or("", |r| r.1))) {
            Ok(Some(raw)) => tpb_differ::request::hex(&raw),
            Ok(None) => "error no fields".to_string(),
            Err(e) => format!("error {e}"),
        },
        Ask::Decode => match parse_hex(&rest) {
            Ok(raw) => decode(on, &raw),
            Err(e) => format!("error {e}"),
        },
        Ask::Validate => match parse_hex(&rest) {
            Ok(raw) => validate(on, g, &raw),
            Err(e) => format!("error {e}"),
        },
    }
}

/// `opcode=0x46 …` → `0x46:TensorCopy`, the assembler's first token.
fn mnemonic(fields: &str) -> String {
    let op = fields
        .split_whitespace()
        .next()
        .and_then(|t| t.strip_prefix("opcode="))
        .and_then(|v| u8::from_str_radix(v.trim_start_matches("0x"), 16).ok());
    op.map_or_else(String::new, tpb_isa::text::mnemonic)
}

fn decode(on: &[&str], raw: &[u8; 64]) -> String {
    let op = raw[0];
    if on.contains(&"crash") && op == 0x43 {
        std::process::abort();
    }
    if on.contains(&"hang") && op == 0x45 {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    let b = Bundle::decode(raw);
    let mut s = format!("opcode={op:#04x}");
    for leaf in tpb_isa::text::leaves(b.kind()).iter().filter(|l| l.path != "opcode") {
        s.push(' ');
        s.push_str(&leaf.path);
        s.push('=');
        s.push_str(&value(on, op, leaf, raw));
    }
    s
}

/// One field as this worker reads it, bugs included.
fn value(on: &[&str], op: u8, leaf: &Leaf, raw: &[u8; 64]) -> String {
    let at = &raw[leaf.offset..leaf.offset + leaf.size()];
    let elem = |i: usize| &at[i * leaf.prim.size()..(i + 1) * leaf.prim.size()];
    match (leaf.path.as_str(), op) {
        ("src.stride", 0x46) if on.contains(&"signed") => {
            let parts: Vec<String> = (0..leaf.len.unwrap_or(1)).map(|i| u16::from_le_bytes([elem(i)[0], elem(i)[1]]).to_string()).collect();
            return format!("[{}]", parts.join(","));
        }
        ("in_dtype_nibbles", 0x41) if on.contains(&"bitfield") => {
            let lo = at[0] & 0xF;
            let hi = (at[0] >> 5) & 0xF;
            return format!("{:#04x}", lo | hi << 4);
        }
        ("moving.addr", 0x02) if on.contains(&"byteswap") => {
            return format!("{:#010x}", u32::from_be_bytes([at[0], at[1], at[2], at[3]]));
        }
        _ => {}
    }
    if matches!(leaf.fmt, LeafFmt::Dtype) && on.contains(&"dtype") {
        let name = tpb_isa::dtype::info(at[0]).map(|d| d.name);
        return match name {
            Some("bf16") => "f16".to_string(),
            Some("f16") => "bf16".to_string(),
            _ => tpb_isa::text::format_value(leaf, at),
        };
    }
    match leaf.len {
        Some(n) if leaf.prim != Prim::U8 => format!("[{}]", (0..n).map(|i| tpb_isa::text::format_value(leaf, elem(i))).collect::<Vec<_>>().join(",")),
        _ => tpb_isa::text::format_value(leaf, at),
    }
}

fn validate(on: &[&str], g: Generation, raw: &[u8; 64]) -> String {
    let mut errors = reference::errors(&Bundle::decode(raw), g, Profile::Amended);
    if on.contains(&"rule") {
        errors.retain(|f| f.code != "zero-num");
    }
    reference::verdict_text(&errors)
}
