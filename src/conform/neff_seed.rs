//! Seed inputs for the `neff` target: two small containers built here — the
//! gzip + MD5 form every real file uses and the raw-tar + SHA-256 form the
//! loader also names — holding the clean CoreV3 hand bundles as engine
//! streams. Header offsets come from the container description in
//! `tpb_oracle::neff`, the digest from its integrity module.

use super::hand;
use crate::error::{Context as _, Error, Result};
use std::io::Write as _;
use tpb_isa::bundle::{Raw, BUNDLE_BYTES, INST_WORD_LEN};
use tpb_isa::opcode;
use tpb_isa::Generation;
use tpb_oracle::neff::integrity::{self, Algorithm, Form};
use tpb_oracle::neff::{Engine, NeffHeader, HEADER_BYTES};

/// Opcodes that open every engine stream of real 2.23 files (not in the spec's tables).
const STREAM_PROLOGUE: [u8; 2] = [0xB1, 0xCC];

/// The NEFF seeds by file name: the two whole containers; each cut (after
/// the header, halfway, one byte short) and with its digest wrong; the
/// other digest on each payload form; a payload larger than the header
/// says, or empty; and payloads that test how streams are found (another
/// target's generation, an unknown target, no definition, a definition
/// naming a missing stream, a stream ending in a partial bundle, no kelf,
/// streams of their prologue only).
pub fn seeds() -> Result<Vec<(&'static str, Vec<u8>)>> {
    let tar = tar_payload(&Variant::default())?;
    let gz = gzip(&tar)?;
    let md5 = |payload: &[u8]| container(integrity::PKG_VERSION_MD5, payload, Algorithm::Md5, Form::WordReversed);
    let sha = |payload: &[u8]| container(integrity::PKG_VERSION_SHA256, payload, Algorithm::Sha256, Form::Plain);
    let gzip_md5 = md5(&gz)?;
    let tar_sha = sha(&tar)?;
    let cut = |b: &[u8], at: usize| b[..at.min(b.len())].to_vec();
    let wrong_digest = |b: &[u8]| -> Result<Vec<u8>> {
        let (off, size) = NeffHeader::LAYOUT.resolve("hash").ok_or(Error::from("NEFF header has no field `hash`"))?;
        let mut b = b.to_vec();
        b[off..off + size].iter_mut().for_each(|x| *x ^= 0x5A);
        Ok(b)
    };
    let variant = |v: Variant| -> Result<Vec<u8>> { md5(&gzip(&tar_payload(&v)?)?) };
    let mut out = vec![
        ("neff-gzip-md5-cut-header.bin", cut(&gzip_md5, HEADER_BYTES)),
        ("neff-gzip-md5-cut-half.bin", cut(&gzip_md5, (HEADER_BYTES + gzip_md5.len()) / 2)),
        ("neff-gzip-md5-cut-last-byte.bin", cut(&gzip_md5, gzip_md5.len() - 1)),
        ("neff-gzip-md5-wrong-digest.bin", wrong_digest(&gzip_md5)?),
        ("neff-tar-sha256-cut-header.bin", cut(&tar_sha, HEADER_BYTES)),
        ("neff-tar-sha256-cut-half.bin", cut(&tar_sha, (HEADER_BYTES + tar_sha.len()) / 2)),
        ("neff-tar-sha256-wrong-digest.bin", wrong_digest(&tar_sha)?),
        ("neff-gzip-sha256.bin", sha(&gz)?),
        ("neff-tar-md5.bin", md5(&tar)?),
        ("neff-gzip-md5-trailing-bytes.bin", [&gzip_md5[..], &[0u8; 64][..]].concat()),
        ("neff-gzip-md5-empty-payload.bin", md5(&[])?),
        ("neff-target-sunda.bin", variant(Variant { target: "sunda", ..Variant::default() })?),
        ("neff-target-unknown.bin", variant(Variant { target: "tpb-unknown", ..Variant::default() })?),
        ("neff-no-definition.bin", variant(Variant { definition: None, ..Variant::default() })?),
        ("neff-definition-names-missing-stream.bin", variant(Variant { definition: Some(MISSING_STREAM_DEF), ..Variant::default() })?),
        ("neff-partial-bundle.bin", variant(Variant { partial: true, ..Variant::default() })?),
        ("neff-no-kelf.bin", variant(Variant { kelf: false, ..Variant::default() })?),
        ("neff-prologue-only.bin", variant(Variant { hand: false, ..Variant::default() })?),
    ];
    out.push(("neff-gzip-md5.bin", gzip_md5));
    out.push(("neff-tar-sha256.bin", tar_sha));
    Ok(out)
}

/// The definition every engine's stream is named in (the reader finds them through it).
const DEFINITION: &str =
    r#"{"act_instr": "Activation.bin", "dve_instr": "DVE.bin", "pe_instr": "PE.bin", "pool_instr": "Pool.bin", "sp_instr": "SP.bin"}"#;
/// A definition that also names a stream the archive lacks.
const MISSING_STREAM_DEF: &str = r#"{"act_instr": "Activation.bin", "dve_instr": "DVE.bin", "pe_instr": "PE.bin", "pool_instr": "Pool.bin", "sp_instr": "SP.bin", "qsync_instr": "QSync.bin"}"#;

/// How a seed's payload differs from the whole one.
struct Variant {
    /// `kelf-0.json`'s target (`cayman`: CoreV3).
    target: &'static str,
    /// `sg00/def.json`, if any.
    definition: Option<&'static str>,
    /// Whether each stream ends in half a bundle.
    partial: bool,
    /// Whether `kelf-0.json` is there.
    kelf: bool,
    /// Whether the streams hold the hand bundles after their prologue.
    hand: bool,
}

impl Default for Variant {
    fn default() -> Variant {
        Variant { target: "cayman", definition: Some(DEFINITION), partial: false, kelf: true, hand: true }
    }
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

fn tar_payload(v: &Variant) -> Result<Vec<u8>> {
    let mut streams: Vec<(Engine, Vec<u8>)> =
        Engine::ALL.iter().map(|e| (e.clone(), STREAM_PROLOGUE.iter().flat_map(|o| header_bundle(*o)).collect())).collect();
    for b in hand::all()?.iter().filter(|b| v.hand && b.generation == Generation::V3 && b.expect.is_empty()) {
        let e = engine_of(b.raw[0]);
        if let Some((_, s)) = streams.iter_mut().find(|(x, _)| *x == e) {
            s.extend_from_slice(&b.raw);
        }
    }
    if v.partial {
        streams.iter_mut().for_each(|(_, s)| s.extend_from_slice(&header_bundle(STREAM_PROLOGUE[0])[..BUNDLE_BYTES / 2]));
    }
    let mut members: Vec<(String, Vec<u8>)> = vec![("info.json".into(), br#"{"tool_version": "0.0.0+tpb-seed", "num_tpb": 1}"#.to_vec())];
    if v.kelf {
        let kelf = format!(r#"{{"graphs": [{{"definition": "sg00/def.json", "name": "sg00"}}], "version": "0.5", "target": "{}"}}"#, v.target);
        members.push(("kelf-0.json".into(), kelf.into_bytes()));
    }
    members.push(("neff.json".into(), b"{}".to_vec()));
    if let Some(def) = v.definition {
        members.push(("sg00/def.json".into(), def.as_bytes().to_vec()));
    }
    members.extend(streams.into_iter().map(|(e, s)| (format!("sg00/{}.bin", e.stem()), s)));
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in &members {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_cksum();
        b.append_data(&mut h, name, data.as_slice()).context_with(|| format!("tar {name}"))?;
    }
    b.into_inner().context_with(|| "tar")
}

fn gzip(bytes: &[u8]) -> Result<Vec<u8>> {
    // mtime 0 keeps the output deterministic.
    let mut e = flate2::GzBuilder::new().mtime(0).write(Vec::new(), flate2::Compression::best());
    e.write_all(bytes).context_with(|| "gzip")?;
    e.finish().context_with(|| "gzip")
}

/// Header + payload, every field placed by its offset in the description.
fn container(pkg_version: u64, payload: &[u8], alg: Algorithm, form: Form) -> Result<Vec<u8>> {
    let mut out = vec![0u8; HEADER_BYTES];
    let mut put = |field: &str, bytes: &[u8]| -> Result<()> {
        let (off, size) = NeffHeader::LAYOUT.resolve(field).ok_or_else(|| Error::Message(format!("NEFF header has no field `{field}`")))?;
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
