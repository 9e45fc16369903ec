//! What `tpb neff` shows: the header's fields, the digest check, the members,
//! and per engine the bundle count and opcode histogram. Text and JSON.

use super::choice::Choice;
use super::header::hex;
use super::stream::Engine;
use super::Neff;
use crate::text_safe::escape;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use tpb_isa::opcode;

/// The histogram of every stream of one engine, summed over subgraphs.
pub fn engine_totals(n: &Neff) -> BTreeMap<Engine, (usize, BTreeMap<u8, usize>)> {
    let mut out: BTreeMap<Engine, (usize, BTreeMap<u8, usize>)> = BTreeMap::new();
    for s in &n.streams {
        let e = out.entry(s.engine.clone()).or_default();
        e.0 += s.len();
        for (op, c) in s.opcode_histogram() {
            *e.1.entry(op).or_insert(0) += c;
        }
    }
    out
}

fn histogram_text(h: &BTreeMap<u8, usize>) -> String {
    let parts: Vec<String> = h.iter().map(|(op, c)| format!("{op:#04x} {} x{c}", opcode::name(*op))).collect();
    parts.join(", ")
}

fn histogram_json(h: &BTreeMap<u8, usize>) -> Value {
    Value::Array(
        h.iter()
            .map(|(op, c)| json!({"opcode": opcode::hex(*op), "name": opcode::name(*op), "known": opcode::lookup(*op).is_some(), "count": c}))
            .collect(),
    )
}

/// The header fields as JSON, every field of the layout.
pub fn header_json(n: &Neff) -> Value {
    let h = &n.header;
    json!({
        "pkg_version": h.pkg_version.get(),
        "header_size": h.header_size.get(),
        "data_size": h.data_size.get(),
        "neff_version_major": h.neff_version_major.get(),
        "neff_version_minor": h.neff_version_minor.get(),
        "build_version": h.build_version_text(),
        "unnamed_0a8": h.unnamed_0a8.get(),
        "hash": hex(&h.hash),
        "uuid": h.uuid_hex(),
        "name": h.name_text(),
        "requested_tpb_count": h.requested_tpb_count.get(),
        "unnamed_1e0": h.unnamed_1e0.get(),
        "feature_bits": h.feature_bits.get(),
        "vnc_size": h.vnc_size.get(),
        "reserved_nonzero_offsets": h.reserved_nonzero(),
    })
}

/// Everything `tpb neff --json` prints for one file, its generation chosen by [`Neff::choose`].
pub fn json(n: &Neff) -> Value {
    json_with(n, &n.choose(None))
}

/// [`json()`] with the generation already chosen: `generation` is the one its
/// bundles are judged under, `generation_from` says how (`target`, or
/// `guessed` with `generation_fit` when the target names none).
pub fn json_with(n: &Neff, choice: &Choice) -> Value {
    let streams: Vec<Value> = n
        .streams
        .iter()
        .map(|s| {
            json!({
                "member": s.member, "subgraph": s.subgraph, "engine": s.engine.stem(),
                "bundles": s.len(), "opcodes": histogram_json(&s.opcode_histogram()),
            })
        })
        .collect();
    let mut engines = Map::new();
    for (e, (count, h)) in engine_totals(n) {
        engines.insert(e.stem().to_string(), json!({"bundles": count, "opcodes": histogram_json(&h)}));
    }
    json!({
        "file": n.name,
        "file_len": n.file_len,
        "header": header_json(n),
        "integrity": n.integrity,
        "compression": n.compression,
        "members": n.members,
        "tool_version": n.tool_version,
        "target": n.target(),
        "generation": choice.generation,
        "generation_from": choice.from,
        "generation_fit": choice.fit,
        "subgraphs": n.subgraphs(),
        "bundles": n.bundles(),
        "streams": streams,
        "engines": engines,
        "trailing_file_bytes": n.trailing_file_bytes,
        "trailing_payload_bytes": n.trailing_payload_bytes,
        "trailing_tar_bytes": n.trailing_tar_bytes,
        "archive_end": n.archive_end,
        "notes": n.notes,
    })
}

/// The human-readable summary of one file, its generation chosen by [`Neff::choose`].
pub fn text(n: &Neff) -> String {
    text_with(n, &n.choose(None))
}

/// [`text`] with the generation already chosen. Every string from the input
/// (file and member names, compiler, target, notes) has its control
/// characters escaped, so each item stays on its own line.
pub fn text_with(n: &Neff, choice: &Choice) -> String {
    let h = &n.header;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: NEFF pkg_version {}, neff_version {}.{}, {} bytes",
        escape(&n.name),
        h.pkg_version.get(),
        h.neff_version_major.get(),
        h.neff_version_minor.get(),
        n.file_len
    );
    let _ = writeln!(
        s,
        "  header: header_size {:#x}, data_size {} ({}), name {:?}, build_version {:?}, uuid {}",
        h.header_size.get(),
        h.data_size.get(),
        n.compression.as_str(),
        h.name_text(),
        h.build_version_text(),
        h.uuid_hex()
    );
    let _ = writeln!(
        s,
        "          requested_tpb_count {}, feature_bits {:#x}, vnc_size {}, unnamed_0a8 {:#x}, unnamed_1e0 {:#x}",
        h.requested_tpb_count.get(),
        h.feature_bits.get(),
        h.vnc_size.get(),
        h.unnamed_0a8.get(),
        h.unnamed_1e0.get()
    );
    let _ = writeln!(s, "  integrity: {}", n.integrity.describe());
    let _ = writeln!(s, "  compiler: {}", escape(n.tool_version.as_deref().unwrap_or("unknown (no info.json tool_version)")));
    let gen = match &choice.fit {
        Some(fit) => format!("no known generation; {} by fit (invalid bundles {})", choice.generation, fit.counts()),
        None => choice.generation.to_string(),
    };
    let _ = writeln!(s, "  target: {} -> {gen}", escape(n.target().unwrap_or("unknown")));
    let _ = writeln!(s, "  subgraphs: {}", escape(&n.subgraphs().join(" ")));
    let _ = writeln!(s, "  members: {}", n.members.len());
    for m in &n.members {
        let kind = if m.kind == "file" { String::new() } else { format!(" ({})", m.kind) };
        let _ = writeln!(s, "    {:>10}  {}{kind}", m.size, escape(&m.name));
    }
    let _ = writeln!(s, "  streams: {} with {} bundles", n.streams.len(), n.bundles());
    for st in &n.streams {
        let _ = writeln!(s, "    {}: {} bundles: {}", escape(&st.member), st.len(), histogram_text(&st.opcode_histogram()));
    }
    let _ = writeln!(s, "  per engine:");
    for (e, (count, hist)) in engine_totals(n) {
        let _ = writeln!(s, "    {}: {count} bundles: {}", e.stem(), histogram_text(&hist));
    }
    for note in &n.notes {
        let _ = writeln!(s, "  note: {}", escape(note));
    }
    s
}
