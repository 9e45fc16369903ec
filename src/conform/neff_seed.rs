//! Seed inputs for the `neff` target: two small containers built here — the
//! gzip + MD5 form every real file uses and the raw-tar + SHA-256 form the
//! loader also names — holding the clean CoreV3 hand bundles as engine
//! streams. Header offsets come from the container description in
//! `tpb_oracle::neff`, the digest from its integrity module.

use super::hand;
use std::io::Write as _;
use tpb_isa::bundle::{Raw, BUNDLE_BYTES, INST_WORD_LEN};
use tpb_isa::opcode;
use tpb_isa::Generation;
use tpb_oracle::neff::integrity::{self, Algorithm, Form};
use tpb_oracle::neff::{Engine, NeffHeader, HEADER_BYTES};

/// Opcodes that open every engine stream of real 2.23 files (not in the spec's tables).
const STREAM_PROLOGUE: [u8; 2] = [0xB1, 0xCC];

/// The NEFF seeds by file name.
pub fn seeds() -> Result<Vec<(&'static str, Vec<u8>)>, String> {
    let tar = tar_payload()?;
    let gz = gzip(&tar)?;
    Ok(vec![
        ("neff-gzip-md5.bin", container(integrity::PKG_VERSION_MD5, &gz, Algorithm::Md5, Form::WordReversed)?),
        ("neff-tar-sha256.bin", container(integrity::PKG_VERSION_SHA256, &tar, Algorithm::Sha256, Form::Plain)?),
    ])
}

fn header_bundle(op: u8) -> Raw {
    let mut b = [0u8; BUNDLE_BYTES];
    b[0] = op;
    b[1] = INST_WORD_LEN;
    b
}

/// The engine whose stream an opcode goes in (its table engine, first listed).
fn engine_of(op: u8) -> Engine {
    // An op of any engine, or of one that owns no stream (DMA), goes in SP's.
    let usual = opcode::lookup(op).and_then(|o| o.engine.first()).map(Engine::Isa);
    usual.filter(|e| Engine::ALL.contains(e)).unwrap_or(Engine::Isa(tpb_isa::Engine::SP))
}

fn tar_payload() -> Result<Vec<u8>, String> {
    let mut streams: Vec<(Engine, Vec<u8>)> =
        Engine::ALL.iter().map(|e| (e.clone(), STREAM_PROLOGUE.iter().flat_map(|o| header_bundle(*o)).collect())).collect();
    for b in hand::all()?.iter().filter(|b| b.generation == Generation::V3 && b.expect.is_empty()) {
        let e = engine_of(b.raw[0]);
        if let Some((_, s)) = streams.iter_mut().find(|(x, _)| *x == e) {
            s.extend_from_slice(&b.raw);
        }
    }
    let mut members: Vec<(String, Vec<u8>)> = vec![
        ("info.json".into(), br#"{"tool_version": "0.0.0+tpb-seed", "num_tpb": 1}"#.to_vec()),
        ("kelf-0.json".into(), br#"{"graphs": [{"definition": "sg00/def.json", "name": "sg00"}], "version": "0.5", "target": "cayman"}"#.to_vec()),
        ("neff.json".into(), b"{}".to_vec()),
        // As real definitions do, it names each engine's stream (the reader finds them through it).
        (
            "sg00/def.json".into(),
            br#"{"act_instr": "Activation.bin", "dve_instr": "DVE.bin", "pe_instr": "PE.bin", "pool_instr": "Pool.bin", "sp_instr": "SP.bin"}"#
                .to_vec(),
        ),
    ];
    members.extend(streams.into_iter().map(|(e, s)| (format!("sg00/{}.bin", e.stem()), s)));
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in &members {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_cksum();
        b.append_data(&mut h, name, data.as_slice()).map_err(|e| format!("tar {name}: {e}"))?;
    }
    b.into_inner().map_err(|e| format!("tar: {e}"))
}

fn gzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    // mtime 0 keeps the output deterministic.
    let mut e = flate2::GzBuilder::new().mtime(0).write(Vec::new(), flate2::Compression::best());
    e.write_all(bytes).map_err(|e| format!("gzip: {e}"))?;
    e.finish().map_err(|e| format!("gzip: {e}"))
}

/// Header + payload, every field placed by its offset in the description.
fn container(pkg_version: u64, payload: &[u8], alg: Algorithm, form: Form) -> Result<Vec<u8>, String> {
    let mut out = vec![0u8; HEADER_BYTES];
    let mut put = |field: &str, bytes: &[u8]| -> Result<(), String> {
        let (off, size) = NeffHeader::LAYOUT.resolve(field).ok_or_else(|| format!("NEFF header has no field `{field}`"))?;
        let n = bytes.len().min(size);
        out[off..off + n].copy_from_slice(&bytes[..n]);
        Ok(())
    };
    put("pkg_version", &pkg_version.to_le_bytes())?;
    put("header_size", &(HEADER_BYTES as u64).to_le_bytes())?;
    put("data_size", &(payload.len() as u64).to_le_bytes())?;
    put("neff_version_major", &2u64.to_le_bytes())?;
    put("unnamed_0a8", &1u32.to_le_bytes())?;
    put("hash", &integrity::stored_digest(alg, payload, form))?;
    put("uuid", &[0x5e; 16])?;
    put("name", b"tpb-seed.neff")?;
    put("requested_tpb_count", &1u32.to_le_bytes())?;
    put("unnamed_1e0", &1u32.to_le_bytes())?;
    put("vnc_size", &1u32.to_le_bytes())?;
    out.extend_from_slice(payload);
    Ok(out)
}
