//! The NEFF container reader on containers these tests build themselves:
//! header fields, both digest forms, SHA-256 for pkg_version 1, and every
//! kind of malformed container, each of which must be a clear error naming
//! file, member and offset, never a panic or a huge allocation.

use std::io::Write;
use tpb_isa::Generation;
use tpb_oracle::conform;
use tpb_oracle::neff::integrity::{self, Algorithm, Form};
use tpb_oracle::neff::{self, At, Compression, Engine, Limits, NeffHeader, HEADER_BYTES};
use tpb_oracle::programs;
use zerocopy::{FromZeros, IntoBytes};

const INFO: &[u8] = br#"{"tool_version": "9.9.1+test", "num_tpb": 1}"#;
const KELF_CAYMAN: &[u8] = br#"{"graphs": [{"definition": "sg00/def.json", "name": "sg00"}], "version": "0.5", "target": "cayman"}"#;
const KELF_SUNDA: &[u8] = br#"{"graphs": [{"definition": "sg00/def.json", "name": "sg00"}], "version": "0.5", "target": "sunda"}"#;

/// A graph definition as real ones name their streams (only these keys are read).
const DEF: &[u8] = br#"{"act_instr": "Activation.bin", "dve_instr": "DVE.bin", "pe": "PE.json", "pe_instr": "PE.bin", "pool_instr": "Pool.bin", "sp_instr": "SP.bin"}"#;

fn bundle(op: u8) -> [u8; 64] {
    let mut b = [0u8; 64];
    b[0] = op;
    b[1] = tpb_isa::bundle::INST_WORD_LEN;
    b
}

fn stream(ops: &[u8]) -> Vec<u8> {
    ops.iter().flat_map(|op| bundle(*op)).collect()
}

fn tar(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in members {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, data.as_slice()).unwrap();
    }
    b.into_inner().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn members(kelf: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("info.json", INFO.to_vec()),
        ("kelf-0.json", kelf.to_vec()),
        ("neff.json", b"{}".to_vec()),
        ("sg00/def.json", DEF.to_vec()),
        ("sg00/PE.bin", stream(&[0xB1, 0xCC, 0x01, 0x02])),
        ("sg00/Activation.bin", stream(&[0xB1, 0xCC, 0x23])),
        ("sg00/DVE.bin", stream(&[0xB1, 0xCC])),
        ("sg00/Pool.bin", stream(&[0xB1, 0xCC, 0xA4])),
        ("sg00/SP.bin", stream(&[0xB1, 0xCC, 0xA0])),
        ("sg00/PE.json", b"{}".to_vec()),
    ]
}

/// A container around `payload` with the digest of `alg` stored in `form`.
fn container(pkg_version: u64, payload: &[u8], digest: Option<(Algorithm, Form)>) -> Vec<u8> {
    let mut h = NeffHeader::new_zeroed();
    h.pkg_version.set(pkg_version);
    h.header_size.set(HEADER_BYTES as u64);
    h.data_size.set(payload.len() as u64);
    h.neff_version_major.set(2);
    h.unnamed_0a8.set(1);
    h.name[..9].copy_from_slice(b"file.neff");
    h.uuid = [0xAB; 16];
    h.requested_tpb_count.set(1);
    h.feature_bits.set(0x209c00);
    h.vnc_size.set(2);
    if let Some((alg, form)) = digest {
        let d = integrity::stored_digest(alg, payload, form);
        h.hash[..d.len()].copy_from_slice(&d);
    }
    let mut out = h.as_bytes().to_vec();
    out.extend_from_slice(payload);
    out
}

fn good_v2() -> Vec<u8> {
    let payload = gzip(&tar(&members(KELF_CAYMAN)));
    container(2, &payload, Some((Algorithm::Md5, Form::WordReversed)))
}

fn err(bytes: &[u8]) -> neff::NeffError {
    match neff::parse(bytes, "t.neff") {
        Ok(_) => panic!("malformed container parsed"),
        Err(e) => e,
    }
}

#[test]
fn header_fields_members_streams_and_target() {
    let n = neff::parse(&good_v2(), "t.neff").unwrap();
    assert_eq!(n.header.pkg_version.get(), 2);
    assert_eq!(n.header.neff_version_major.get(), 2);
    assert_eq!(n.header.name_text(), "file.neff");
    assert_eq!(n.header.uuid_hex(), "ab".repeat(16));
    assert_eq!(n.header.requested_tpb_count.get(), 1);
    assert_eq!(n.header.feature_bits.get(), 0x209c00);
    assert_eq!(n.header.vnc_size.get(), 2);
    assert_eq!(n.compression, Compression::Gzip);
    assert_eq!(n.integrity.matched, Some(Form::WordReversed));
    assert_eq!(n.tool_version.as_deref(), Some("9.9.1+test"));
    assert_eq!(n.target(), Some("cayman"));
    assert_eq!(n.generation(), Some(Generation::V3));
    assert_eq!(n.members.len(), 10);
    assert_eq!(n.members[4].name, "sg00/PE.bin");
    assert_eq!(n.members[4].size, 256);
    assert_eq!(n.subgraphs(), vec!["sg00"]);
    let engines: Vec<Engine> = n.streams.iter().map(|s| s.engine.clone()).collect();
    assert_eq!(engines, Engine::ALL.to_vec());
    let pe = &n.streams[0];
    assert_eq!((pe.member.as_str(), pe.subgraph.as_str(), pe.len()), ("sg00/PE.bin", "sg00", 4));
    assert_eq!(pe.generation, Some(Generation::V3));
    assert_eq!(pe.opcode_histogram().get(&0x02), Some(&1));
    assert_eq!(n.bundles(), 15);
    assert!(n.notes.is_empty(), "{:?}", n.notes);
    assert!(neff::sniff(&good_v2()));
}

#[test]
fn bytes_after_the_payload_are_counted_and_noted_with_their_offset() {
    let good = good_v2();
    for extra in [1usize, 4096] {
        let mut bytes = good.clone();
        bytes.resize(good.len() + extra, 0xA5);
        let n = neff::parse(&bytes, "t.neff").unwrap();
        assert_eq!(n.trailing_file_bytes, extra as u64);
        let want = format!("{extra} bytes after the payload (file offset {:#x})", good.len());
        assert_eq!(n.notes, vec![want], "{extra} trailing bytes");
        assert_eq!(n.bundles(), 15, "the payload is read as before");
    }
    // None: no note, and the count is zero (the clean container's test requires no notes at all).
    assert_eq!(neff::parse(&good, "t.neff").unwrap().trailing_file_bytes, 0);
}

#[test]
fn sunda_target_is_v2() {
    let payload = gzip(&tar(&members(KELF_SUNDA)));
    let n = neff::parse(&container(2, &payload, Some((Algorithm::Md5, Form::Plain))), "t.neff").unwrap();
    assert_eq!(n.generation(), Some(Generation::V2));
    assert!(n.streams.iter().all(|s| s.generation == Some(Generation::V2)));
}

#[test]
fn plain_md5_is_accepted_and_reported_as_plain() {
    let payload = gzip(&tar(&members(KELF_CAYMAN)));
    let n = neff::parse(&container(2, &payload, Some((Algorithm::Md5, Form::Plain))), "t.neff").unwrap();
    assert_eq!(n.integrity.matched, Some(Form::Plain));
    assert!(n.integrity.describe().contains("plain"));
}

#[test]
fn wrong_md5_parses_but_integrity_fails() {
    let mut bytes = good_v2();
    let at = NeffHeader::LAYOUT.field_offset("hash").unwrap();
    bytes[at] ^= 0xFF;
    let n = neff::parse(&bytes, "t.neff").unwrap();
    assert!(!n.integrity.ok());
    assert_eq!(n.integrity.algorithm, Some(Algorithm::Md5));
    assert!(n.integrity.describe().contains("MISMATCH"), "{}", n.integrity.describe());
}

#[test]
fn a_payload_packed_otherwise_than_its_pkg_version_says_is_noted() {
    let tar_bytes = tar(&members(KELF_CAYMAN));
    let gz = gzip(&tar_bytes);
    // pkg_version 1 promises a plain tar, 2 a gzip: each packed the other way parses, with a note.
    for (version, payload, packing) in [(1, &gz, "gzip tar"), (2, &tar_bytes, "bare tar")] {
        let alg = if version == 1 { Algorithm::Sha256 } else { Algorithm::Md5 };
        let n = neff::parse(&container(version, payload, Some((alg, Form::Plain))), "t.neff").unwrap();
        let want = format!("pkg_version {version} payload is a {packing}, not the expected packing");
        assert!(n.notes.iter().any(|m| m.starts_with(&want)), "{version}: {:?}", n.notes);
    }
    // Packed as promised: no such note.
    for (version, payload, alg) in [(1, &tar_bytes, Algorithm::Sha256), (2, &gz, Algorithm::Md5)] {
        let n = neff::parse(&container(version, payload, Some((alg, Form::Plain))), "t.neff").unwrap();
        assert!(!n.notes.iter().any(|m| m.contains("expected packing")), "{version}: {:?}", n.notes);
    }
}

#[test]
fn pkg_version_1_is_raw_tar_with_sha256() {
    let payload = tar(&members(KELF_CAYMAN));
    let n = neff::parse(&container(1, &payload, Some((Algorithm::Sha256, Form::Plain))), "t.neff").unwrap();
    assert_eq!(n.integrity.algorithm, Some(Algorithm::Sha256));
    assert_eq!(n.integrity.matched, Some(Form::Plain));
    assert_eq!(n.compression, Compression::None);
    assert_eq!(n.streams.len(), 5);
    // The MD5 digest stored where SHA-256 is expected does not pass.
    let bad = container(1, &payload, Some((Algorithm::Md5, Form::Plain)));
    assert!(!neff::parse(&bad, "t.neff").unwrap().integrity.ok());
}

/// The test members as a bare tar, with a symlink member `link` after them.
fn build_tar_with_symlink() -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in members(KELF_CAYMAN) {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        b.append_data(&mut h, name, &data[..]).unwrap();
    }
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(tar::EntryType::Symlink);
    h.set_size(0);
    b.append_link(&mut h, "link", "sg00/PE.bin").unwrap();
    b.into_inner().unwrap()
}

#[test]
fn a_member_cut_short_by_the_end_of_a_bare_tar_is_named_with_what_is_there() {
    // pkg_version 1: the payload is the tar itself, so the reader meets the end of the
    // bytes inside the last member's data.
    let mut raw = tar(&[("sg00/PE.bin", stream(&[0x02; 16]))]);
    raw.truncate(512 + 600);
    let e = err(&container(1, &raw, Some((Algorithm::Sha256, Form::Plain))));
    let s = e.to_string();
    // Named as the member it is, with the bytes there are, at the offset where they end.
    assert!(s.contains("sg00/PE.bin: tar offset 0x458: member truncated: 600 of 1024 bytes present"), "{s}");
}

#[test]
fn truncated_payload_is_an_error_with_an_offset() {
    let payload = gzip(&tar(&members(KELF_CAYMAN)));
    let cut = &payload[..payload.len() / 2];
    let e = err(&container(2, cut, Some((Algorithm::Md5, Form::WordReversed))));
    assert_eq!(e.file, "t.neff");
    assert!(matches!(e.at, At::Tar(_)), "{e}");
    let s = e.to_string();
    assert!(s.starts_with("t.neff: ") && s.contains("tar offset 0x") && s.contains("truncated"), "{s}");
}

#[test]
fn gzip_trailer_is_checked() {
    let mut payload = gzip(&tar(&members(KELF_CAYMAN)));
    let n = payload.len();
    payload[n - 8] ^= 0xFF; // the CRC32 of the trailer
    let e = err(&container(2, &payload, None));
    assert_eq!(e.member, "payload");
    assert!(e.to_string().contains("gzip"), "{e}");
}

#[test]
fn data_size_past_eof_is_refused_without_allocating() {
    let mut bytes = good_v2();
    let at = NeffHeader::LAYOUT.field_offset("data_size").unwrap();
    bytes[at..at + 8].copy_from_slice(&(1u64 << 60).to_le_bytes());
    let e = err(&bytes);
    assert_eq!((e.member.as_str(), e.at), ("header", At::File(at as u64)));
    assert!(e.to_string().contains("past the end of the file"), "{e}");
    // u64::MAX overflows header_size + data_size: still a clean error.
    bytes[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(err(&bytes).at, At::File(at as u64));
}

#[test]
fn bad_header_size_and_short_file() {
    let mut bytes = good_v2();
    let at = NeffHeader::LAYOUT.field_offset("header_size").unwrap();
    bytes[at..at + 8].copy_from_slice(&0x10u64.to_le_bytes());
    let e = err(&bytes);
    assert_eq!((e.member.as_str(), e.at), ("header", At::File(at as u64)));
    let says = format!("header_size 0x10 is outside 0x400..={:#x} (the file)", bytes.len());
    assert!(e.to_string().contains(&says), "{e}");
    assert_eq!(neff::not_neff(&bytes), Some(says));
    let e = err(&good_v2()[..100]);
    assert_eq!(e.member, "header");
    assert!(e.to_string().contains("shorter than the 1024-byte header"), "{e}");
}

/// A header_size at the end of the file leaves an empty payload, refused as
/// that; one byte past the end is refused as a header_size outside the file.
#[test]
fn header_size_may_end_at_the_end_of_the_file_but_not_past_it() {
    let mut bytes = container(2, &[], None);
    let e = err(&bytes);
    assert_eq!(e.member, "payload", "{e}");
    assert!(!e.to_string().contains("header_size"), "{e}");
    let sniffed = neff::not_neff(&bytes).unwrap_or_default();
    assert!(sniffed.contains("neither") && !sniffed.contains("header_size"), "{sniffed}");
    let at = NeffHeader::LAYOUT.field_offset("header_size").unwrap();
    bytes[at..at + 8].copy_from_slice(&(HEADER_BYTES as u64 + 1).to_le_bytes());
    let e = err(&bytes);
    assert_eq!((e.member.as_str(), e.at), ("header", At::File(at as u64)));
    assert!(e.to_string().contains("header_size 0x401 is outside 0x400..=0x400 (the file)"), "{e}");
    assert_eq!(neff::not_neff(&bytes).as_deref(), Some("header_size 0x401 is outside 0x400..=0x400 (the file)"));
}

#[test]
fn member_over_the_cap_is_refused() {
    let bytes = good_v2();
    let limits = Limits { max_member: 200, ..Limits::default() };
    let e = neff::parse_with(&bytes, "t.neff", &limits).err().unwrap();
    assert_eq!(e.member, "sg00/PE.bin");
    assert!(matches!(e.at, At::Tar(_)));
    assert!(e.to_string().contains("over the cap of 200 bytes"), "{e}");
}

#[test]
fn member_claiming_2_pow_60_bytes_is_refused() {
    // A tar entry whose size field claims 2^60 bytes, followed by a little data.
    let mut h = tar::Header::new_gnu();
    h.set_path("sg00/PE.bin").unwrap();
    h.set_size(1 << 60);
    h.set_cksum();
    let mut t = h.as_bytes().to_vec();
    t.extend_from_slice(&stream(&[0xB1]));
    let e = err(&container(2, &gzip(&t), None));
    assert_eq!(e.member, "sg00/PE.bin");
    assert!(e.to_string().contains("over the cap"), "{e}");
    // Not a kept member: skipping it runs into the end of the stream.
    h.set_path("big.npy").unwrap();
    h.set_cksum();
    let mut t = h.as_bytes().to_vec();
    t.extend_from_slice(&[0u8; 512]);
    let e = err(&container(2, &gzip(&t), None));
    assert!(matches!(e.at, At::Tar(_)), "{e}");
}

#[test]
fn decompressed_total_over_the_cap_is_refused() {
    let mut m = members(KELF_CAYMAN);
    m.push(("sg00/zeros.npy", vec![0u8; 1 << 20]));
    let bytes = container(2, &gzip(&tar(&m)), None);
    let limits = Limits { max_total: 64 << 10, ..Limits::default() };
    let e = neff::parse_with(&bytes, "t.neff", &limits).err().unwrap();
    assert!(e.to_string().contains("exceeds the cap of 65536 bytes"), "{e}");
}

#[test]
fn a_gzip_stream_whose_bytes_after_the_archive_end_exactly_at_the_cap_is_read() {
    // 8 KiB of zeros after the archive, inside the gzip member: the whole stream at the cap
    // is read, one byte over it is refused while reading what follows the archive.
    let mut t = tar(&members(KELF_CAYMAN));
    t.extend_from_slice(&[0u8; 8192]);
    let bytes = container(2, &gzip(&t), None);
    let total = t.len() as u64;
    let at_cap = Limits { max_total: total, ..Limits::default() };
    if let Err(e) = neff::parse_with(&bytes, "t.neff", &at_cap) {
        panic!("at the cap: {e}");
    }
    let over = Limits { max_total: total - 1, ..Limits::default() };
    let Err(e) = neff::parse_with(&bytes, "t.neff", &over) else { panic!("one byte over the cap was read") };
    assert!(e.to_string().contains("gzip stream after the archive: decompressed payload exceeds the cap"), "{e}");
}

#[test]
fn too_many_members_is_refused() {
    let limits = Limits { max_members: 3, ..Limits::default() };
    let e = neff::parse_with(&good_v2(), "t.neff", &limits).err().unwrap();
    assert!(e.to_string().contains("more than 3 archive members"), "{e}");
}

#[test]
fn stream_not_a_multiple_of_64_names_member_and_offset() {
    let mut m = members(KELF_CAYMAN);
    m[6].1.extend_from_slice(&[0xA4, 0x10, 0, 0, 0]);
    // With the right digest the error is the stream's alone (without, it
    // would start with the digest mismatch: see hostile.rs).
    let e = err(&container(2, &gzip(&tar(&m)), Some((Algorithm::Md5, Form::WordReversed))));
    assert_eq!((e.member.as_str(), e.at), ("sg00/DVE.bin", At::Member(128)));
    assert_eq!(e.to_string(), "t.neff: sg00/DVE.bin: offset 0x80: stream is 133 bytes, not a multiple of 64: trailing partial bundle of 5 bytes");
}

#[test]
fn payload_that_is_not_gzip_or_tar_is_refused() {
    let e = err(&container(2, b"PK\x03\x04 this is a zip, not a gzip tar", None));
    assert_eq!((e.member.as_str(), e.at), ("payload", At::File(0x400)));
    assert!(e.to_string().contains("neither gzip"), "{e}");
    // gzip magic but a broken deflate stream.
    let mut g = gzip(&tar(&members(KELF_CAYMAN)));
    for b in g.iter_mut().skip(10).take(40) {
        *b = 0xFF;
    }
    let e = err(&container(2, &g, None));
    assert!(e.to_string().contains("corrupt"), "{e}");
}

#[test]
fn malformed_kelf_json_names_member_and_byte() {
    let mut m = members(KELF_CAYMAN);
    m[1].1 = b"{\"target\": \"cayman\",\n \"graphs\": [}".to_vec();
    let e = err(&container(2, &gzip(&tar(&m)), None));
    assert_eq!(e.member, "kelf-0.json");
    assert_eq!(e.at, At::Member(33));
}

#[test]
fn missing_metadata_is_a_note_and_arch_is_needed() {
    let m: Vec<_> = members(KELF_CAYMAN).into_iter().filter(|(n, _)| !n.ends_with(".json")).collect();
    let n = neff::parse(&container(2, &gzip(&tar(&m)), None), "t.neff").unwrap();
    assert_eq!(n.generation(), None);
    assert!(n.notes.iter().any(|x| x.contains("target unknown")), "{:?}", n.notes);
    assert!(n.notes.iter().any(|x| x.contains("pkg_version") || x.contains("info.json")));
}

#[test]
fn raw_bundle_stream_is_not_sniffed_as_neff() {
    let raw = stream(&[0x01; 32]);
    assert!(!neff::sniff(&raw));
    let mut raw = stream(&[0x02; 32]);
    raw[8] = 0; // word 0 = 0x1002 even with a zero byte; never a pkg_version
    assert!(!neff::sniff(&raw));
}

#[test]
fn a_clean_bundle_on_an_engine_the_table_does_not_name_is_a_spec_disagreement() {
    // EventSemaphore (the table says SP) on the PE queue, with no finding: it disagrees with the
    // opcode table, not with the validator.
    let op = tpb_isa::opcode::lookup(0xA0).unwrap();
    let data = tpb_isa::props::seeded_bytes(7, 1024);
    let sema = tpb_isa::smith::bundle_for(&mut arbitrary::Unstructured::new(&data), Generation::V3, op).unwrap();
    let findings = tpb_isa::validate::validate(&sema, Generation::V3);
    assert!(findings.is_empty(), "{findings:?}");
    let mut m = members(KELF_CAYMAN);
    m.retain(|(name, _)| !name.ends_with(".bin") && *name != "sg00/def.json");
    m.push(("sg00/def.json", br#"{"pe_instr": "PE.bin"}"#.to_vec()));
    m.push(("sg00/PE.bin", sema.encode().repeat(3)));
    let n = neff::parse(&container(2, &gzip(&tar(&m)), None), "t.neff").unwrap();
    let c = conform::conform(&n, None);
    assert_eq!((c.bundles(), c.invalid_spec(), c.spec_disagreements()), (3, 0, 3));
    assert_eq!(c.engine_mismatches().get(&0xA0).map(|e| e.values().sum::<usize>()), Some(3));
}

#[test]
fn the_header_invariant_wants_both_the_word_length_and_a_zero_reserved_half_word() {
    // Three EventSemaphore bundles: one as generated, one with the saturating word length,
    // one with a reserved bit set. Only the first keeps the header invariant.
    let op = tpb_isa::opcode::lookup(0xA0).unwrap();
    let data = tpb_isa::props::seeded_bytes(7, 1024);
    let raw = tpb_isa::smith::bundle_for(&mut arbitrary::Unstructured::new(&data), Generation::V3, op).unwrap().encode();
    let (mut long, mut reserved) = (raw, raw);
    long[1] = tpb_isa::bundle::header::INST_WORD_LEN_SATURATE;
    reserved[2] = 1;
    let mut m = members(KELF_CAYMAN);
    m.retain(|(name, _)| !name.ends_with(".bin") && *name != "sg00/def.json");
    m.push(("sg00/def.json", br#"{"sp_instr": "SP.bin"}"#.to_vec()));
    m.push(("sg00/SP.bin", [raw, long, reserved].concat()));
    let n = neff::parse(&container(2, &gzip(&tar(&m)), None), "t.neff").unwrap();
    let j = conform::conform(&n, None).to_json();
    let Some(sema) = j["opcodes"].as_array().into_iter().flatten().find(|o| o["opcode"] == "0xa0") else { panic!("{j}") };
    assert_eq!((sema["count"].as_u64(), sema["header_invariant_ok"].as_u64()), (Some(3), Some(1)), "{sema}");
}

#[test]
fn conformance_on_a_built_container() {
    let n = neff::parse(&good_v2(), "t.neff").unwrap();
    let c = conform::conform(&n, None);
    assert_eq!(c.bundles(), 15);
    assert_eq!(c.harness_failures(), 0);
    assert_eq!(c.unknown_opcodes(), vec![(0xB1, 5), (0xCC, 5)]);
    assert!(c.spec_disagreements() >= 10);
    assert_eq!(c.sources()[0].generation, Generation::V3);
    let md = c.to_markdown();
    assert!(md.contains("| 0xb1 | 5 | Activation x1, DVE x1, PE x1, Pool x1, SP x1 |"), "{md}");
    assert!(md.contains("**harness failures: 0**"));
    // A field whose values all fit its top list says nothing of others.
    assert!(md.contains(" x5") && !md.contains("other x0"), "{md}");
    // Both verdicts count what the validator says of each bundle (some are invalid, some not).
    let (mut spec, mut amended, mut clean) = (0, 0, 0);
    for s in &n.streams {
        for (_, _, raw) in s.bundles() {
            let (b, g) = (tpb_isa::Bundle::decode(raw), s.generation.unwrap_or(Generation::V3));
            clean += usize::from(tpb_isa::validate::validate(&b, g).is_empty());
            let found = tpb_isa::validate::validate_as(&b, g, tpb_isa::errata::Profile::Spec);
            let mut with_errata = found.clone();
            tpb_isa::validate::amend(&b, g, &mut with_errata);
            spec += usize::from(!tpb_isa::validate::is_valid(&found));
            amended += usize::from(!tpb_isa::validate::is_valid(&with_errata));
        }
    }
    assert!(amended > 0 && amended < c.bundles(), "{amended}");
    assert_eq!((c.invalid_spec(), c.invalid_amended()), (spec, amended));
    let j = c.to_json();
    assert_eq!(j["bundles"], 15);
    // Every bundle was built with a clean header, and (no harness failure) every
    // bundle round-trips through the codec and the text form.
    let mut counted = 0;
    for op in j["opcodes"].as_array().into_iter().flatten() {
        assert_eq!(op["header_invariant_ok"], op["count"], "{op}");
        assert_eq!(op["codec_round_trip_ok"], op["count"], "{op}");
        assert_eq!(op["text_round_trip_ok"], op["count"], "{op}");
        counted += op["count"].as_u64().unwrap_or(0);
    }
    assert_eq!(counted, 15);
    // A bundle with a finding disagrees with the spec.
    assert!(clean > 0 && clean < 15, "{clean}");
    assert!(c.spec_disagreements() >= 15 - clean, "{}", c.spec_disagreements());
    // The per-opcode tables are a view of the evidence: each opcode's bundles, engines,
    // checks and field values are those of the evidence of the same streams, added here.
    let mut ev = tpb_oracle::evidence::Evidence::new();
    for s in &n.streams {
        ev.add_stream(&n.name, n.tool_version.as_deref(), Generation::V3, s.engine.stem(), &s.bytes);
    }
    let groups = ev.to_json()["groups"].as_array().cloned().unwrap_or_default();
    assert_eq!(groups.len(), j["opcodes"].as_array().map_or(0, Vec::len), "one build, one generation: a group per opcode");
    for (op, g) in j["opcodes"].as_array().into_iter().flatten().zip(&groups) {
        assert_eq!((&op["opcode"], &op["count"], &op["engines"]), (&g["opcode"], &g["bundles"], &g["engines"]), "{op}");
        let fired: Vec<&serde_json::Value> = g["checks"].as_array().into_iter().flatten().filter(|c| c["disagree"] != 0).collect();
        let listed: Vec<&serde_json::Value> = op["checks"].as_array().into_iter().flatten().collect();
        assert_eq!(listed.len(), fired.len(), "{op}");
        for (l, f) in listed.iter().zip(&fired) {
            assert_eq!((&l["code"], &l["disagree"], &l["accepted"], &l["refused"]), (&f["code"], &f["disagree"], &f["accepted"], &f["refused"]));
        }
        for (l, f) in op["fields"].as_array().into_iter().flatten().zip(g["fields"].as_array().into_iter().flatten()) {
            // The same values, as the disassembly prints them rather than in hex.
            let counts = |v: &serde_json::Value, key: &str| v.as_array().into_iter().flatten().map(|t| t[key].clone()).collect::<Vec<_>>();
            let theirs: Vec<serde_json::Value> = f["values"].as_array().into_iter().flatten().map(|t| t[1].clone()).collect();
            assert_eq!((&l["path"], counts(&l["top"], "count"), &l["other"]), (&f["field"], theirs, &f["other"]));
        }
    }
    // The errata section gives both verdicts with their share of the bundles.
    let pct = |n: usize| 100.0 * n as f64 / c.bundles() as f64;
    let em = c.errata_markdown();
    assert!(em.contains(&format!("**{amended} invalid by default** (the spec amended by the errata, {:.1}%)", pct(amended))), "{em}");
    assert!(em.contains(&format!("{spec} invalid under `--spec` (the spec alone, {:.1}%)", pct(spec))), "{em}");
    assert_eq!(j["spec_disagreements"]["unknown_opcodes"][0]["opcode"], "0xb1");
    // --arch overrides the target.
    let c4 = conform::conform(&n, Some(Generation::V4));
    assert_eq!(c4.sources()[0].generation, Generation::V4);
    // Merging two reports adds up.
    let mut both = conform::conform(&n, None);
    both.merge(c4);
    assert_eq!(both.bundles(), 30);
    assert_eq!(both.opcode_count(0xB1), 10);
    assert_eq!(both.sources().len(), 2);
    // Every count and distribution of a merged report is that of one report over both.
    let (a, b) = (neff::parse(&good_v2(), "t.neff").unwrap(), neff::parse(&good_v2(), "u.neff").unwrap());
    let mut merged = conform::conform(&a, None);
    merged.merge(conform::conform(&b, None));
    assert_eq!(merged.to_json(), conform::conform_all(&[a, b], None).to_json());
    // Merged into a report that has none of its finding codes yet, too (an empty one).
    let mut from_empty = conform::conform_all(&[], None);
    from_empty.merge(conform::conform(&n, None));
    assert_eq!(from_empty.to_json(), conform::conform_all(std::slice::from_ref(&n), None).to_json());
    // A field's values, asked by path, are that field's (as the JSON lists them).
    let mut asked = 0;
    for op in c.to_json()["opcodes"].as_array().into_iter().flatten() {
        let Some(byte) = op["opcode"].as_str().and_then(|o| u8::from_str_radix(o.trim_start_matches("0x"), 16).ok()) else { panic!("{op}") };
        for f in op["fields"].as_array().into_iter().flatten() {
            let Some(path) = f["path"].as_str() else { panic!("{f}") };
            let listed: Vec<(String, usize)> = f["top"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| (t["value"].as_str().unwrap_or("?").to_string(), t["count"].as_u64().unwrap_or(0) as usize))
                .collect();
            assert_eq!(c.field_values(byte, path), listed, "{byte:#04x} {path}");
            asked += 1;
        }
    }
    assert!(asked > 20, "{asked} fields");
    // Each check counts its bundles once, over its opcodes; the refused are among them.
    let j = merged.to_json();
    let Some(codes) = j["spec_disagreements"]["checks"].as_array().filter(|c| !c.is_empty()) else { panic!("no checks fired in {j}") };
    for c in codes {
        let by_op: u64 = c["opcodes"].as_array().map_or(0, |o| o.iter().filter_map(|x| x["bundles"].as_u64()).sum());
        assert_eq!(Some(by_op), c["bundles"].as_u64(), "{c}");
        assert!(c["refused"].as_u64() <= c["bundles"].as_u64(), "{c}");
    }
}

#[test]
fn summary_lists_header_integrity_members_and_histograms() {
    let n = neff::parse(&good_v2(), "t.neff").unwrap();
    let t = neff::summary::text(&n);
    assert!(t.contains("MD5 ok (word-byte-reversed form)"), "{t}");
    assert!(t.contains("target: cayman -> v3"), "{t}");
    assert!(t.contains("sg00/PE.bin: 4 bundles: 0x01 LoadStationary x1, 0x02 MatMul x1, 0xb1 unknown x1, 0xcc unknown x1"), "{t}");
    // Files are listed by size and name; a member of another kind says which.
    assert!(t.contains("  sg00/PE.bin\n") && !t.contains("(file)"), "{t}");
    let raw = build_tar_with_symlink();
    let linked = neff::parse(&container(1, &raw, Some((Algorithm::Sha256, Form::Plain))), "l.neff").unwrap();
    assert_eq!((n.compression.as_str(), linked.compression.as_str()), ("gzip tar", "bare tar"));
    let lt = neff::summary::text(&linked);
    assert!(lt.contains("  link (symlink)\n"), "{lt}");
    let j = neff::summary::json(&n);
    assert_eq!(j["header"]["vnc_size"], 2);
    assert_eq!(j["engines"]["PE"]["bundles"], 4);
    // The opcode histogram in JSON: per engine and per stream, in opcode order.
    let op = |code: &str, name: &str, known: bool| serde_json::json!({"opcode": code, "name": name, "known": known, "count": 1});
    let want = serde_json::json!([
        op("0x01", "LoadStationary", true),
        op("0x02", "MatMul", true),
        op("0xb1", "unknown", false),
        op("0xcc", "unknown", false)
    ]);
    assert_eq!(j["engines"]["PE"]["opcodes"], want);
    let streams = j["streams"].as_array().cloned().unwrap_or_default();
    let Some(pe) = streams.iter().find(|s| s["member"] == "sg00/PE.bin") else { panic!("no PE stream: {j}") };
    assert_eq!(pe["opcodes"], want);
    assert_eq!(j["integrity"]["matched"], "word_reversed");
}

#[test]
fn read_file_names_the_path() {
    let dir = tempdir();
    let p = dir.join("x.neff");
    std::fs::write(&p, good_v2()).unwrap();
    let n = neff::read_file(&p).unwrap();
    assert_eq!(n.name, p.display().to_string());
    let e = neff::read_file(&dir.join("missing.neff")).err().unwrap();
    assert!(e.to_string().contains("missing.neff") && e.to_string().contains("cannot read"), "{e}");
    let limits = Limits { max_file: 10, ..Limits::default() };
    assert!(neff::read_file_with(&p, &limits).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_container_exactly_at_the_file_cap_parses_and_one_byte_over_is_refused() {
    let bytes = good_v2();
    let at = |max_file: usize| neff::parse_with(&bytes, "x.neff", &Limits { max_file: max_file as u64, ..Limits::default() });
    assert!(at(bytes.len()).is_ok(), "{:?}", at(bytes.len()).err());
    let Err(e) = at(bytes.len() - 1) else { panic!("a file one byte over the cap was read") };
    assert!(e.to_string().contains(&format!("{} bytes is over the cap of {} bytes", bytes.len(), bytes.len() - 1)), "{e}");
}

#[test]
fn the_file_cap_holds_for_devices_and_pipes_whose_length_is_0() {
    // /dev/zero never ends and reports length 0: the cap must stop the read.
    let limits = Limits { max_file: 1 << 16, ..Limits::default() };
    let e = neff::read_file_with(std::path::Path::new("/dev/zero"), &limits).err().unwrap().to_string();
    assert!(e.starts_with("/dev/zero: file: file offset 0x10000: "), "{e}");
    assert!(e.contains("more than the cap of 65536 bytes"), "{e}");
    let e = programs::read_file(std::path::Path::new("/dev/zero"), 100).err().unwrap();
    assert!(matches!(e, programs::CapError::Over { cap: 100 }), "{e}");
    assert_eq!(programs::read_file(std::path::Path::new("/dev/null"), 0).unwrap(), Vec::<u8>::new());
}

/// A pipe reports length 0 and delivers its bytes a piece at a time: all of
/// them are read, up to the cap and no further, in no more than `cap + 1`
/// bytes of memory.
#[cfg(target_os = "linux")]
#[test]
fn a_pipe_is_read_to_its_end_under_the_cap() {
    use std::io::Write as _;
    use std::os::fd::AsRawFd as _;
    let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    for (cap, whole) in [(data.len() as u64, true), (data.len() as u64 - 1, false)] {
        let (reader, mut writer) = std::io::pipe().unwrap_or_else(|e| panic!("pipe: {e}"));
        let path = std::path::PathBuf::from(format!("/proc/self/fd/{}", reader.as_raw_fd()));
        let sent = data.clone();
        // Pieces smaller than the pipe's buffer, so the reader sees them apart.
        let feed = std::thread::spawn(move || {
            for piece in sent.chunks(4096) {
                if writer.write_all(piece).is_err() {
                    break; // the reader stopped at the cap
                }
            }
        });
        let got = programs::read_file(&path, cap);
        drop(reader);
        feed.join().unwrap_or_else(|_| panic!("the writer panicked"));
        match got {
            Ok(bytes) => {
                assert!(whole && bytes == data, "cap {cap}: {} bytes read", bytes.len());
                // The promise is memory, not only the bytes: growth stops at the cap.
                assert!(bytes.capacity() as u64 <= cap + 1, "cap {cap}: {} bytes held", bytes.capacity());
            }
            Err(e) => assert!(!whole && matches!(e, programs::CapError::Over { .. }), "cap {cap}: {e}"),
        }
    }
}

/// A reader that hands out at most `piece` bytes per call and counts its calls.
struct Trickle<'a> {
    data: &'a [u8],
    piece: usize,
    calls: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.calls += 1;
        let n = buf.len().min(self.piece).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[test]
fn a_long_stream_of_unknown_length_costs_few_reads() {
    let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    let pieces = data.len().div_ceil(4096);
    let mut r = Trickle { data: &data, piece: 4096, calls: 0 };
    let bytes = programs::Reader::new(&mut r, data.len() as u64).whole(0).unwrap();
    assert!(bytes == data && bytes.capacity() <= data.len() + 1, "{} bytes in {} held", bytes.len(), bytes.capacity());
    // One call per piece plus a few per growth step (a handful: the buffer doubles),
    // never a call per byte once the buffer nears the cap.
    assert!(r.calls <= pieces + 32, "{} reads for {pieces} pieces", r.calls);
    // A stated length over the cap is refused before any read.
    let mut r = Trickle { data: &data, piece: 4096, calls: 0 };
    let e = programs::Reader::new(&mut r, data.len() as u64 - 1).whole(data.len() as u64).err().unwrap();
    assert!(matches!(e, programs::CapError::Stated { .. }), "{e}");
    assert_eq!(r.calls, 0);
}

fn tempdir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("tpb-neff-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn fuzz_entry_survives_mutations_of_a_valid_container() {
    let good = good_v2();
    assert_eq!(conform::fuzz_neff(&good), conform::FuzzDepth::Conformed, "a valid container stops at the reader");
    // The fuzz caps are small, yet a valid container gets through them to everything downstream.
    let n = neff::parse_with(&good, "good.neff", &Limits::FUZZ).unwrap_or_else(|e| panic!("{e}"));
    assert!(!n.streams.is_empty());
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut depths = [0usize; 2];
    for _ in 0..300 {
        let mut b = good.clone();
        for _ in 0..1 + next() % 4 {
            let i = (next() as usize) % b.len();
            b[i] ^= 1 << (next() % 8);
        }
        let cut = (next() as usize) % (b.len() + 1);
        depths[conform::fuzz_neff(&b) as usize] += 1;
        conform::fuzz_neff(&b[..cut]);
    }
    // Bit flips land in the payload as often as in the header: some get through, some do not.
    assert!(depths.iter().all(|n| *n > 0), "refused, conformed: {depths:?}");
    for len in [0, 1, 8, 1023, 1024, 1025] {
        assert_eq!(conform::fuzz_neff(&vec![0u8; len]), conform::FuzzDepth::Refused, "{len} zero bytes");
    }
}

#[test]
fn reserved_header_bytes_are_reported_at_their_offsets() {
    let mut bytes = good_v2();
    let (a, b) = (NeffHeader::LAYOUT.field_offset("reserved_1e4").unwrap(), NeffHeader::LAYOUT.field_offset("reserved_22c").unwrap());
    bytes[a + 3] = 1;
    bytes[b + 5] = 0xFF;
    let n = neff::parse(&bytes, "t.neff").unwrap();
    assert_eq!(n.header.reserved_nonzero(), [a + 3, b + 5]);
    assert!(n.notes.iter().any(|x| x.contains(&format!("2 non-zero byte(s) in reserved header ranges, first at {:#x}", a + 3))), "{:?}", n.notes);
}

/// `tar_bytes` counts the whole decompressed tar stream: the members, the
/// end-of-archive blocks and whatever follows them, gzip member or bare tar.
#[test]
fn the_unpacked_tar_size_is_the_whole_tar_stream() {
    use tpb_oracle::neff::payload;
    let plain = tar(&[("a.bin", vec![7u8; 700]), ("b.txt", b"hello".to_vec())]);
    for after in [&b""[..], &[0u8; 512], b"junk after the end"] {
        let t = [&plain[..], after].concat();
        for (what, body) in [("gzip", gzip(&t)), ("tar", t.clone())] {
            let u = payload::unpack("t.neff", &body, 0, &Limits::default(), &|_| None)
                .unwrap_or_else(|e| panic!("{what} with {} bytes after: {e}", after.len()));
            assert_eq!(u.tar_bytes, t.len() as u64, "{what} with {} bytes after", after.len());
            assert_eq!(u.members.len(), 2, "{what}");
        }
    }
}

#[test]
fn a_stream_as_text_says_how_many_bundles_it_holds() {
    let raw = [0u8; 3 * tpb_isa::BUNDLE_BYTES];
    let text = tpb_oracle::neff::pack::stream_text("sg00/PE.bin", &raw);
    assert!(text.starts_with("# sg00/PE.bin: 3 bundles, one line each"), "{text}");
    assert_eq!(text.lines().count(), 4, "{text}");
}
