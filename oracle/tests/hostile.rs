//! The NEFF and wheel readers under hostile input (issue 16): memory bounded
//! by the caps whatever the metadata holds, no silent last-one-wins (a second
//! `kelf-0.json`, a second gzip member, bytes after the tar's end, a library
//! stored twice in a wheel), errors that name the real cause, and text
//! reports where no string from the input can start a line of its own.
//! Each test fails on the reader as it was before the fix.

use std::path::Path;
use tpb_isa::Generation;
use tpb_oracle::conform;
use tpb_oracle::fixture::wheel::wheel;
use tpb_oracle::fixture::Fixture;
use tpb_oracle::neff::build::{self, container, container_with, Odd};
use tpb_oracle::neff::integrity::{self, Algorithm, Form};
use tpb_oracle::neff::{self, At, Limits, NeffError, NeffHeader, HEADER_BYTES, MAX_METADATA};
use tpb_oracle::walrus::command::{check_command, diff_command};
use tpb_oracle::walrus::{image::Image, Input, WalrusError, DEFAULT_MAX_BYTES, WHEEL_MEMBER};
use zerocopy::{FromZeros, IntoBytes};

const INFO: &[u8] = br#"{"tool_version": "2.23.6484.0+3b612583", "num_tpb": 1}"#;
const CAYMAN: &[u8] = br#"{"graphs": [{"definition": "sg00/def.json", "name": "sg00"}], "version": "0.5", "target": "cayman"}"#;
const SUNDA: &[u8] = br#"{"graphs": [{"definition": "sg00/def.json", "name": "sg00"}], "version": "0.5", "target": "sunda"}"#;

use tpb_isa::bundle::header_only_stream as bundles;

/// A graph definition naming its one stream, as real ones do.
const DEF: &[u8] = br#"{"pe_instr": "PE.bin"}"#;

/// An ordinary program: info, kelf (cayman), one PE stream, and the graph's
/// definition naming it (last, so the others keep their tar offsets).
fn program(pe: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    vec![("info.json", INFO.to_vec()), ("kelf-0.json", CAYMAN.to_vec()), ("sg00/PE.bin", pe.to_vec()), ("sg00/def.json", DEF.to_vec())]
}

fn refs<'a>(m: &'a [(&'a str, Vec<u8>)]) -> Vec<(&'a str, &'a [u8])> {
    m.iter().map(|(n, b)| (*n, b.as_slice())).collect()
}

fn parse(bytes: &[u8]) -> Result<neff::Neff, NeffError> {
    neff::parse(bytes, "h.neff")
}

fn err(bytes: &[u8]) -> NeffError {
    match parse(bytes) {
        Ok(n) => panic!("parsed, notes {:?}", n.notes),
        Err(e) => e,
    }
}

/// A pkg_version 2 container around an arbitrary payload, its digest right.
fn wrap(payload: &[u8]) -> Vec<u8> {
    let mut h = NeffHeader::new_zeroed();
    h.pkg_version.set(integrity::PKG_VERSION_MD5);
    h.header_size.set(HEADER_BYTES as u64);
    h.data_size.set(payload.len() as u64);
    let d = integrity::stored_digest(Algorithm::Md5, payload, Form::WordReversed);
    h.hash[..d.len()].copy_from_slice(&d);
    let mut out = h.as_bytes().to_vec();
    out.extend_from_slice(payload);
    out
}

// ---- 1. Memory bounded by the caps -------------------------------------------------

/// A JSON object of `len` bytes whose bulk is one array: the shape that took
/// 7 GB for a 400 MB member when it was parsed into a generic value.
fn json_with_array(len: usize, tool_version: &str) -> Vec<u8> {
    let head = format!(r#"{{"tool_version": "{tool_version}", "big": ["#);
    let mut j = head.clone().into_bytes();
    while j.len() + 5 <= len {
        j.extend_from_slice(b"0,");
    }
    j.extend_from_slice(b"0]}");
    if j.len() < len {
        j.insert(head.len(), b' ');
    }
    assert_eq!(j.len(), len);
    j
}

#[test]
fn metadata_over_the_cap_is_refused_naming_file_member_and_cap() {
    let pe = bundles(&[0xB1]);
    for member in ["info.json", "kelf-0.json"] {
        let big = json_with_array(MAX_METADATA as usize + 1, "2.0");
        let mut m = program(&pe);
        m.iter_mut().find(|(n, _)| *n == member).unwrap().1 = big;
        let e = err(&container(2, &refs(&m)).unwrap());
        assert_eq!((e.file.as_str(), e.member.as_str()), ("h.neff", member), "{e}");
        assert!(matches!(e.at, At::Tar(_)), "{e}");
        let s = e.to_string();
        assert!(s.contains(&format!("over the cap of {MAX_METADATA} bytes for metadata members")), "{s}");
    }
    // The cap is a limit like the others, and sits below the member cap.
    let limits = Limits { max_metadata: 1000, ..Limits::default() };
    let mut m = program(&pe);
    m[0].1 = json_with_array(1001, "2.0");
    let e = neff::parse_with(&container(2, &refs(&m)).unwrap(), "h.neff", &limits).unwrap_err();
    assert!(e.to_string().contains("over the cap of 1000 bytes"), "{e}");
    m[0].1 = json_with_array(1000, "2.0");
    assert_eq!(neff::parse_with(&container(2, &refs(&m)).unwrap(), "h.neff", &limits).unwrap().tool_version.as_deref(), Some("2.0"));
}

#[test]
fn metadata_under_the_cap_is_read_typed_skipping_what_is_not_used() {
    // 4 MiB less a byte of array: skipped, never built, and quickly.
    let pe = bundles(&[0xB1]);
    let mut m = program(&pe);
    m[0].1 = json_with_array(MAX_METADATA as usize, "9.9.9");
    m[1].1 = [&CAYMAN[..CAYMAN.len() - 1], b", \"extra\": ", &json_with_array(1 << 20, "x"), b"}"].concat();
    let t = std::time::Instant::now();
    let n = parse(&container(2, &refs(&m)).unwrap()).unwrap();
    assert_eq!(n.tool_version.as_deref(), Some("9.9.9"));
    assert_eq!(n.generation(), Some(Generation::V3));
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
}

#[test]
fn a_huge_kelf_graph_list_gives_a_bounded_list_of_notes() {
    // ~250k graphs under the 4 MiB cap: one note per graph (and a scan of the
    // graphs per stream) before; now 16 named and the rest counted.
    let mut kelf = br#"{"target": "cayman", "graphs": ["#.to_vec();
    let mut i = 0;
    while kelf.len() < (MAX_METADATA as usize) - 64 {
        kelf.extend_from_slice(format!(r#"{{"name":"{i:x}"}},"#).as_bytes());
        i += 1;
    }
    kelf.extend_from_slice(br#"{"name":"sg00"}]}"#);
    let pe = bundles(&[0xB1]);
    let mut m = program(&pe);
    m[1].1 = kelf;
    m.push(("sg99/PE.bin", pe.clone()));
    let n = parse(&container(2, &refs(&m)).unwrap()).unwrap();
    assert!(n.kelf.as_ref().unwrap().graphs.len() > 200_000);
    let empty: Vec<&String> = n.notes.iter().filter(|x| x.contains("has no engine streams")).collect();
    assert_eq!(empty.len(), 16, "{:?}", &n.notes[..20.min(n.notes.len())]);
    assert!(n.notes.iter().any(|x| x.starts_with("… and ") && x.ends_with(" more like the above")), "{:?}", n.notes);
    assert!(n.notes.iter().any(|x| x == "subgraph `sg99` has streams but is not a kelf graph"), "{:?}", n.notes);
    assert!(n.notes.len() < 25, "{}", n.notes.len());
}

#[test]
fn graphs_without_streams_are_all_named_up_to_the_bound_and_counted_past_it() {
    // 16 such graphs: all named, no count line; 17: 16 named and "… and 1 more".
    for (graphs, named, more) in [(16usize, 16usize, None), (17, 16, Some("… and 1 more like the above"))] {
        let names: Vec<String> = (0..graphs).map(|i| format!(r#"{{"name":"g{i}"}}"#)).collect();
        let kelf = format!(r#"{{"target": "cayman", "graphs": [{}, {{"name":"sg00"}}]}}"#, names.join(","));
        let pe = bundles(&[0xB1]);
        let mut m = program(&pe);
        m[1].1 = kelf.into_bytes();
        let n = parse(&container(2, &refs(&m)).unwrap()).unwrap();
        let empty = n.notes.iter().filter(|x| x.contains("has no engine streams")).count();
        let counted: Vec<&String> = n.notes.iter().filter(|x| x.starts_with("… and ")).collect();
        assert_eq!((empty, counted.first().map(|s| s.as_str())), (named, more), "{:?}", n.notes);
    }
}

// ---- 2. No silent last-one-wins ----------------------------------------------------

#[test]
fn a_member_name_twice_is_an_error_naming_it_and_both_offsets() {
    // A second kelf-0.json used to switch the generation silently (cayman -> sunda).
    let pe = bundles(&[0xB1, 0x02]);
    let m: Vec<(&str, &[u8])> = vec![("info.json", INFO), ("kelf-0.json", CAYMAN), ("sg00/PE.bin", &pe), ("kelf-0.json", SUNDA)];
    let e = err(&container(2, &m).unwrap());
    assert_eq!(e.member, "kelf-0.json");
    // Header and one data block each: info at 0, kelf at 0x400, PE at 0x800, kelf again at 0xc00.
    assert_eq!(e.at, At::Tar(0xc00));
    assert!(e.message.contains("appears twice in the archive, at tar offsets 0x400 and 0xc00"), "{e}");
    // `./kelf-0.json` is the same member, and so is any other name given twice.
    let m: Vec<(&str, &[u8])> = vec![("kelf-0.json", CAYMAN), ("./kelf-0.json", SUNDA), ("sg00/PE.bin", &pe)];
    assert_eq!(err(&container(2, &m).unwrap()).member, "kelf-0.json");
    let m: Vec<(&str, &[u8])> = vec![("kelf-0.json", CAYMAN), ("neff.json", b"{}"), ("neff.json", b"{}"), ("sg00/PE.bin", &pe)];
    assert_eq!(err(&container(2, &m).unwrap()).member, "neff.json");
}

#[test]
fn a_second_gzip_member_is_an_error() {
    let pe = bundles(&[0xB1]);
    let first = build::gzip(&build::tar(&refs(&program(&pe))).unwrap()).unwrap();
    let other = build::gzip(&build::tar(&refs(&program(&bundles(&[0x02; 8])))).unwrap()).unwrap();
    let odd = Odd { after_gzip: other.clone(), ..Odd::default() };
    let bytes = container_with(2, &refs(&program(&pe)), &odd).unwrap();
    let e = err(&bytes);
    assert_eq!((e.member.as_str(), e.at), ("payload", At::File((HEADER_BYTES + first.len()) as u64)), "{e}");
    assert!(e.message.starts_with(&format!("a second gzip member at payload offset {:#x}", first.len())), "{e}");
    assert!(!e.message.contains("zero bytes"), "no zero padding in front of it: {e}");
    // Zero padding in front of it hides nothing.
    let odd = Odd { after_gzip: [vec![0u8; 100], other].concat(), ..Odd::default() };
    let e = err(&container_with(2, &refs(&program(&pe)), &odd).unwrap());
    assert!(e.message.contains(&format!("at payload offset {:#x} after 100 zero bytes", first.len() + 100)), "{e}");
}

#[test]
fn other_bytes_after_the_gzip_member_are_counted_and_noted_unless_record_padding() {
    let pe = bundles(&[0xB1]);
    let m = program(&pe);
    let gz_len = build::gzip(&build::tar(&refs(&m)).unwrap()).unwrap().len();
    // Garbage: counted and noted.
    let odd = Odd { after_gzip: b"\x00garbage".to_vec(), ..Odd::default() };
    let n = parse(&container_with(2, &refs(&m), &odd).unwrap()).unwrap();
    assert_eq!(n.trailing_payload_bytes, 8);
    assert!(
        n.notes
            .iter()
            .any(|x| x.starts_with(&format!("8 bytes after the gzip stream (payload offset {gz_len:#x}")) && x.contains("7 of them non-zero")),
        "{:?}",
        n.notes
    );
    // Zero padding to a whole 10240-byte record, as every real file has: counted, no note.
    let pad = 10240 - gz_len % 10240;
    let odd = Odd { after_gzip: vec![0; pad], ..Odd::default() };
    let n = parse(&container_with(2, &refs(&m), &odd).unwrap()).unwrap();
    assert_eq!(n.trailing_payload_bytes, pad);
    assert!(n.notes.is_empty(), "{:?}", n.notes);
    // Zeros that end off the record are noted.
    let odd = Odd { after_gzip: vec![0; pad + 1], ..Odd::default() };
    let n = parse(&container_with(2, &refs(&m), &odd).unwrap()).unwrap();
    assert!(n.notes.iter().any(|x| x.contains("after the gzip stream") && x.contains("all zero")), "{:?}", n.notes);
}

#[test]
fn bytes_after_the_tar_end_are_counted_and_noted() {
    let pe = bundles(&[0xB1]);
    let m = program(&pe);
    // A whole hidden member after the two end-of-archive blocks, inside the gzip member.
    let hidden = build::tar(&[("sg01/PE.bin", &bundles(&[0x02; 4])[..])]).unwrap();
    for pkg in [2, 1] {
        let odd = Odd { after_tar: hidden.clone(), ..Odd::default() };
        let n = parse(&container_with(pkg, &refs(&m), &odd).unwrap()).unwrap();
        let tar_len = build::tar(&refs(&m)).unwrap().len() as u64;
        assert_eq!(n.trailing_tar_bytes, hidden.len() as u64, "pkg_version {pkg}");
        assert_eq!(n.archive_end.zero_blocks, 2);
        assert_eq!(n.archive_end.at, tar_len);
        assert_eq!(n.archive_end.first_nonzero, Some(tar_len));
        assert_eq!(n.archive_end.hidden_member.as_deref(), Some("sg01/PE.bin"));
        assert_eq!(n.trailing_payload_bytes, 0);
        let note = n.notes.iter().find(|x| x.contains("after the tar's end-of-archive blocks")).unwrap_or_else(|| panic!("{:?}", n.notes));
        assert!(note.starts_with(&format!("{} bytes after the tar's end-of-archive blocks (tar offset {tar_len:#x})", hidden.len())), "{note}");
        assert!(note.contains("member `sg01/PE.bin`, which is not listed or read"), "{note}");
        assert_eq!(n.members.len(), 4);
        assert!(neff::summary::json(&n)["trailing_tar_bytes"] == hidden.len() as u64);
    }
    // Zeros that end off a 10240-byte record are counted and noted.
    let tar_len = build::tar(&refs(&m)).unwrap().len();
    assert_eq!(tar_len, 5120);
    let odd = Odd { after_tar: vec![0; 4096], ..Odd::default() };
    let n = parse(&container_with(2, &refs(&m), &odd).unwrap()).unwrap();
    assert_eq!(n.trailing_tar_bytes, 4096);
    assert!(n.notes.iter().any(|x| x.contains("4096 bytes after the tar's end-of-archive blocks") && x.ends_with("all zero")), "{:?}", n.notes);
    // Zero padding to a whole record (GNU tar's and Python's blocking) is counted, not noted.
    let odd = Odd { after_tar: vec![0; 10240 - tar_len], ..Odd::default() };
    let n = parse(&container_with(2, &refs(&m), &odd).unwrap()).unwrap();
    assert_eq!(n.trailing_tar_bytes, (10240 - tar_len) as u64);
    assert!(n.notes.is_empty(), "{:?}", n.notes);
    // A whole record of zeros after a tar that already ends on a record is more than
    // blocking: noted.
    let mut whole = program(&pe);
    whole.push(("pad.bin", vec![7; 10240 - tar_len - 512]));
    assert_eq!(build::tar(&refs(&whole)).unwrap().len(), 10240);
    let odd = Odd { after_tar: vec![0; 10240], ..Odd::default() };
    let n = parse(&container_with(2, &refs(&whole), &odd).unwrap()).unwrap();
    assert_eq!(n.trailing_tar_bytes, 10240);
    assert!(
        n.notes.iter().any(|x| x.starts_with("10240 bytes after the tar's end-of-archive blocks (tar offset 0x2800)") && x.ends_with("all zero")),
        "{:?}",
        n.notes
    );
}

#[test]
fn a_hidden_member_is_named_whichever_way_its_checksum_is_padded() {
    // GNU tar writes "0012345\0 ", others " 012345\0" or "012345 \0": the octal digits
    // are read between any spaces and NULs.
    let pe = bundles(&[0xB1]);
    let m = program(&pe);
    let hidden = build::tar(&[("sg01/PE.bin", &bundles(&[0x02; 4])[..])]).unwrap();
    let stored = std::str::from_utf8(&hidden[148..155]).unwrap().trim_matches('\0').to_string();
    let sum = u64::from_str_radix(&stored, 8).unwrap();
    for field in [format!(" {sum:06o}\0"), format!("{sum:06o} \0"), format!("{sum:07o}\0")] {
        let mut h = hidden.clone();
        h[148..156].copy_from_slice(field.as_bytes());
        let odd = Odd { after_tar: h, ..Odd::default() };
        let n = parse(&container_with(2, &refs(&m), &odd).unwrap()).unwrap();
        assert_eq!(n.archive_end.hidden_member.as_deref(), Some("sg01/PE.bin"), "checksum field {field:?}");
    }
}

#[test]
fn a_hidden_member_is_named_from_ustar_prefix_and_name_and_from_the_gnu_name_alone() {
    // ustar splits a long name into prefix and name; GNU keeps other fields where ustar
    // has the prefix (its version field is " \0"), so they are no part of the name.
    let pe = bundles(&[0xB1]);
    let m = program(&pe);
    let hidden_name = |block: &tar::Header| {
        let odd = Odd { after_tar: block.as_bytes().to_vec(), ..Odd::default() };
        parse(&container_with(2, &refs(&m), &odd).unwrap()).unwrap().archive_end.hidden_member
    };
    let long = format!("{}/{}", "p".repeat(90), "n".repeat(59));
    let mut ustar = tar::Header::new_ustar();
    ustar.set_path(&long).unwrap();
    ustar.set_cksum();
    assert_eq!(hidden_name(&ustar).as_deref(), Some(long.as_str()));
    let mut gnu = tar::Header::new_gnu();
    gnu.set_path("sg01/PE.bin").unwrap();
    gnu.as_mut_bytes()[345..357].copy_from_slice(b"14567123456\0");
    gnu.set_cksum();
    assert_eq!(hidden_name(&gnu).as_deref(), Some("sg01/PE.bin"));
}

#[test]
fn a_tar_without_its_end_blocks_is_noted() {
    let pe = bundles(&[0xB1]);
    let t = build::tar(&refs(&program(&pe))).unwrap();
    let n = parse(&wrap(&build::gzip(&t[..t.len() - 1024]).unwrap())).unwrap();
    assert_eq!(n.archive_end.zero_blocks, 0);
    assert!(n.notes.iter().any(|x| x.contains("no end-of-archive blocks")), "{:?}", n.notes);
    let n = parse(&wrap(&build::gzip(&t[..t.len() - 512]).unwrap())).unwrap();
    assert_eq!(n.archive_end.zero_blocks, 1);
    assert!(n.notes.iter().any(|x| x.contains("one end-of-archive block")), "{:?}", n.notes);
    // One zero block, then bytes that are no header: the note is about those bytes.
    let junk = [&t[..t.len() - 512], &[0x41; 512][..]].concat();
    let n = parse(&wrap(&build::gzip(&junk).unwrap())).unwrap();
    assert_eq!((n.archive_end.zero_blocks, n.archive_end.trailing), (1, 512));
    assert!(!n.notes.iter().any(|x| x.contains("one end-of-archive block")), "{:?}", n.notes);
    assert!(
        n.notes.iter().any(|x| x.starts_with("512 bytes after the tar's end-of-archive blocks") && x.contains("512 of them non-zero")),
        "{:?}",
        n.notes
    );
    let n = parse(&wrap(&build::gzip(&t).unwrap())).unwrap();
    assert_eq!((n.archive_end.zero_blocks, n.trailing_tar_bytes), (2, 0));
    assert!(n.notes.is_empty(), "{:?}", n.notes);
    // Both end blocks, 20,000 zeros (more than one read of the rest), then one byte: its
    // tar offset is exact however the rest was read, and the end blocks stay two.
    let far = [&t[..], &[0; 20_000][..], &[0x41][..]].concat();
    let n = parse(&wrap(&build::gzip(&far).unwrap())).unwrap();
    let first = t.len() as u64 + 20_000;
    assert_eq!((n.archive_end.zero_blocks, n.archive_end.first_nonzero), (2, Some(first)));
    assert!(n.notes.iter().any(|x| x.contains(&format!("1 of them non-zero, the first at tar offset {first:#x}"))), "{:?}", n.notes);
}

/// A wheel holding the library twice under one name (zip writers refuse to,
/// so the second name is patched into place in the local and central headers).
#[test]
fn a_wheel_with_the_library_twice_is_an_error_naming_both() {
    let lib = Fixture::moved().build().unwrap();
    let decoy = format!("{}X", &WHEEL_MEMBER[..WHEEL_MEMBER.len() - 1]);
    let mut z = wheel(&[(WHEEL_MEMBER, &lib), ("neuronxcc/__init__.py", b""), (&decoy, b"\x7fELF not this one")], false).unwrap();
    let hits: Vec<usize> = memchr_all(&z, decoy.as_bytes());
    assert_eq!(hits.len(), 2, "local and central header");
    for at in hits {
        z[at..at + decoy.len()].copy_from_slice(WHEEL_MEMBER.as_bytes());
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("dup.whl");
    std::fs::write(&p, &z).unwrap();
    let e = Input::open(&p, DEFAULT_MAX_BYTES).unwrap_err();
    assert!(matches!(e, WalrusError::DuplicateMember { .. }), "{e}");
    let s = e.to_string();
    assert!(s.contains(&format!("wheel holds {WHEEL_MEMBER} more than once")), "{s}");
    assert!(s.contains("central directory entry #0, local header at offset 0x0; central directory entry #2, local header at offset 0x"), "{s}");
    let o = check_command(&p, false, DEFAULT_MAX_BYTES);
    assert_eq!(o.code, 1, "{o:?}");
}

/// Another member named twice says nothing of the library, which is read.
#[test]
fn a_wheel_with_another_member_twice_reads_the_library() {
    let lib = Fixture::moved().build().unwrap();
    let (name, decoy) = ("neuronxcc/__init__.py", "neuronxcc/__init__.pX");
    let mut z = wheel(&[(WHEEL_MEMBER, &lib), (name, b""), (decoy, b"# not this one")], false).unwrap();
    for at in memchr_all(&z, decoy.as_bytes()) {
        z[at..at + decoy.len()].copy_from_slice(name.as_bytes());
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("dup.whl");
    std::fs::write(&p, &z).unwrap();
    let input = Input::open(&p, DEFAULT_MAX_BYTES).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(input.bytes, lib);
    assert_eq!(check_command(&p, false, DEFAULT_MAX_BYTES).code, 0);
}

fn memchr_all(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    (0..=hay.len().saturating_sub(needle.len())).filter(|i| hay[*i..].starts_with(needle)).collect()
}

// ---- 3. Errors that name the cause -------------------------------------------------

#[test]
fn an_out_of_range_shstrndx_is_named_not_called_stripped() {
    let lib = Fixture::moved().build().unwrap();
    let shnum = u16::from_le_bytes([lib[0x3c], lib[0x3d]]);
    let mut bad = lib.clone();
    bad[0x3e..0x40].copy_from_slice(&(shnum + 3).to_le_bytes());
    let e = Image::parse("lib.so", &bad).err().expect("refused");
    let s = e.to_string();
    assert!(s.contains(&format!("section header string table index {} (e_shstrndx at offset 0x3e) is out of range", shnum + 3)), "{s}");
    assert!(s.contains(&format!("the file has {shnum} section headers")), "{s}");
    assert!(!s.contains("stripped"), "{s}");
    // SHN_XINDEX: the index is section 0's sh_link.
    let shoff = u64::from_le_bytes(lib[0x28..0x30].try_into().unwrap()) as usize;
    let mut bad = lib.clone();
    bad[0x3e..0x40].copy_from_slice(&0xffffu16.to_le_bytes());
    bad[shoff + 0x28..shoff + 0x2c].copy_from_slice(&999u32.to_le_bytes());
    let s = Image::parse("lib.so", &bad).err().expect("refused").to_string();
    assert!(s.contains("index 999 (section 0's sh_link") && s.contains("SHN_XINDEX"), "{s}");
    assert!(Image::parse("lib.so", &lib).is_ok());
}

#[test]
fn a_section_count_kept_in_section_0_reads_as_the_header_s_own() {
    // e_shnum 0 with section 0's sh_size holding the count (how more than 0xff00 sections are
    // written): the same library, read the same.
    let lib = Fixture::moved().build().unwrap();
    let shnum = u16::from_le_bytes([lib[0x3c], lib[0x3d]]);
    let shoff = u64::from_le_bytes(lib[0x28..0x30].try_into().unwrap()) as usize;
    let mut extended = lib.clone();
    extended[0x3c..0x3e].fill(0);
    extended[shoff + 0x20..shoff + 0x28].copy_from_slice(&u64::from(shnum).to_le_bytes());
    let (a, b) = (Image::parse("lib.so", &lib).unwrap(), Image::parse("lib.so", &extended).unwrap());
    let names = |i: &Image| i.elf.section_headers.iter().filter_map(|s| i.elf.shdr_strtab.get_at(s.sh_name).map(str::to_string)).collect::<Vec<_>>();
    assert_eq!(names(&b), names(&a));
    assert!(names(&a).iter().any(|n| n == ".rodata"), "{:?}", names(&a));
    let profiles = tpb_oracle::walrus::Profiles::embedded().unwrap();
    let rows = |i: &Image| {
        tpb_oracle::walrus::check_image(i, &profiles).unwrap().rows.iter().map(|r| (r.id.clone(), format!("{:?}", r.status))).collect::<Vec<_>>()
    };
    assert_eq!(rows(&b), rows(&a));
}

#[test]
fn a_segment_or_section_without_file_bytes_may_point_past_the_end_but_one_with_bytes_may_not() {
    let lib = Fixture::moved().build().unwrap();
    let word = |at: usize, n: usize| lib[at..at + n].iter().rev().fold(0u64, |v, b| v << 8 | u64::from(*b)) as usize;
    let (phoff, shoff, shnum) = (word(0x20, 8), word(0x28, 8), word(0x3c, 2));
    let past = (lib.len() as u64 + 0x1000).to_le_bytes();
    // Program header 1, the PT_NOTE (p_offset at +8, p_filesz at +0x20): no file bytes, so any offset is fine.
    let ph = phoff + 0x38;
    assert_eq!(word(ph, 4), 4, "the fixture's second program header is its PT_NOTE");
    let mut ok = lib.clone();
    ok[ph + 8..ph + 16].copy_from_slice(&past);
    ok[ph + 0x20..ph + 0x28].copy_from_slice(&0u64.to_le_bytes());
    if let Err(e) = Image::parse("lib.so", &ok) {
        panic!("a zero-size segment past the end was refused: {e}");
    }
    let mut bad = ok.clone();
    bad[ph + 0x20..ph + 0x28].copy_from_slice(&1u64.to_le_bytes());
    let s = Image::parse("lib.so", &bad).err().expect("refused").to_string();
    assert!(s.contains(&format!("segment 1 (p_type 0x4, program header at {ph:#x})")), "{s}");
    // The first SHT_PROGBITS section, .text (sh_offset at +0x18, sh_size at +0x20): the same rule.
    let i = (0..shnum).find(|i| word(shoff + i * 0x40 + 4, 4) == 1).expect("the fixture has .text");
    let at = shoff + i * 0x40;
    let mut ok = lib.clone();
    ok[at + 0x18..at + 0x20].copy_from_slice(&past);
    ok[at + 0x20..at + 0x28].copy_from_slice(&0u64.to_le_bytes());
    assert!(Image::parse("lib.so", &ok).is_ok(), "a zero-size section past the end was refused");
    let mut bad = ok.clone();
    bad[at + 0x20..at + 0x28].copy_from_slice(&1u64.to_le_bytes());
    let s = Image::parse("lib.so", &bad).err().expect("refused").to_string();
    assert!(s.contains(&format!("section {i} (header at {at:#x})")), "{s}");
}

#[test]
fn a_section_header_size_other_than_elf64s_is_refused_naming_its_offset() {
    let lib = Fixture::moved().build().unwrap();
    let mut bad = lib.clone();
    bad[0x3a..0x3c].copy_from_slice(&0x38u16.to_le_bytes());
    let s = Image::parse("lib.so", &bad).err().expect("refused").to_string();
    assert!(s.contains("e_shentsize 56 at offset 0x3a, expected 64"), "{s}");
    // Without a section header table (e_shoff 0) the entry size says nothing.
    let mut none = bad.clone();
    none[0x28..0x30].fill(0);
    none[0x3c..0x40].fill(0);
    if let Err(e) = Image::parse("lib.so", &none) {
        assert!(!e.to_string().contains("e_shentsize"), "{e}");
    }
}

#[test]
fn a_program_header_size_other_than_elf64s_is_refused_only_with_program_headers() {
    let lib = Fixture::moved().build().unwrap();
    let mut bad = lib.clone();
    bad[0x36..0x38].copy_from_slice(&0x30u16.to_le_bytes());
    let phnum = u16::from_le_bytes([lib[0x38], lib[0x39]]);
    assert!(phnum > 0);
    let s = Image::parse("lib.so", &bad).err().expect("refused").to_string();
    assert!(s.contains("e_phentsize 48 at offset 0x36, expected 56"), "{s}");
    // With no program headers (e_phnum 0) the entry size says nothing.
    let mut none = bad.clone();
    none[0x38..0x3a].fill(0);
    assert!(Image::parse("lib.so", &none).is_ok());
}

#[test]
fn without_program_headers_a_virtual_address_is_found_through_its_section() {
    let lib = Fixture::moved().build().unwrap();
    let with = Image::parse("lib.so", &lib).unwrap();
    let (rodata, bytes) = with.rodata().unwrap();
    let (addr, offset, size) = (rodata.addr, rodata.offset, rodata.size);
    assert_ne!(addr, 0);
    let mut bare = lib.clone();
    bare[0x38..0x3a].fill(0); // e_phnum
                              // Its address above its file offset, as a linker that starts a segment
                              // on a new page lays out a library: the section, not the address, says
                              // where the bytes are.
    let index = with.sections.iter().position(|s| s.name == ".rodata").unwrap();
    let shoff = u64::from_le_bytes(lib[0x28..0x30].try_into().unwrap());
    let sh_addr = usize::try_from(shoff).unwrap() + 64 * index + 16;
    let biased = addr + 0x20_0000;
    bare[sh_addr..sh_addr + 8].copy_from_slice(&biased.to_le_bytes());
    let img = Image::parse("lib.so", &bare).unwrap();
    for k in [0, 1, size / 2, size - 1] {
        assert_eq!(img.va_to_offset(biased + k), Some(offset + k), "va {:#x}", biased + k);
    }
    assert_eq!(img.read_va(biased, 16), Some(&bytes[..16]));
    // Below the section, or just past its last byte, in no section: nowhere in the file.
    assert_eq!(img.va_to_offset(biased - 0x1000), None);
    assert_eq!(img.va_to_offset(biased + size), None);
}

#[test]
fn without_section_headers_a_virtual_address_is_found_through_its_load_segment() {
    let lib = Fixture::moved().build().unwrap();
    let with = Image::parse("lib.so", &lib).unwrap();
    let (rodata, bytes) = with.rodata().unwrap();
    let (addr, offset, size) = (rodata.addr, rodata.offset, rodata.size);
    let mut bare = lib.clone();
    bare[0x28..0x30].fill(0); // e_shoff
    bare[0x3c..0x40].fill(0); // e_shnum, e_shstrndx
                              // The program headers rewritten: a PT_LOAD of the ELF header alone at address 0, the
                              // note, then the library's PT_LOAD moved up 2 MiB, where the dynamic array was (its
                              // addresses would have to move too). The segment, not the address, says where the bytes
                              // are; the first PT_LOAD starts below the address but does not hold it.
    let phoff = u64::from_le_bytes(lib[0x20..0x28].try_into().unwrap()) as usize;
    let phnum = usize::from(u16::from_le_bytes([lib[0x38], lib[0x39]]));
    let ph = |k: usize| phoff + 56 * k;
    let types: Vec<u32> = (0..phnum).map(|k| u32::from_le_bytes(lib[ph(k)..ph(k) + 4].try_into().unwrap())).collect();
    assert_eq!(types, [1, 4, 2], "PT_LOAD, PT_NOTE, PT_DYNAMIC");
    let bias = 0x20_0000u64;
    let mut load = lib[ph(0)..ph(0) + 56].to_vec();
    let vaddr = u64::from_le_bytes(load[16..24].try_into().unwrap()) + bias;
    load[16..24].copy_from_slice(&vaddr.to_le_bytes());
    bare[ph(2)..ph(2) + 56].copy_from_slice(&load);
    let mut head = [0u8; 56];
    head[0..4].copy_from_slice(&1u32.to_le_bytes()); // PT_LOAD
    head[4..8].copy_from_slice(&4u32.to_le_bytes()); // readable
    head[32..40].copy_from_slice(&0x40u64.to_le_bytes()); // p_filesz: the ELF header
    head[40..48].copy_from_slice(&0x40u64.to_le_bytes()); // p_memsz
    head[48..56].copy_from_slice(&0x1000u64.to_le_bytes()); // p_align
    bare[ph(0)..ph(0) + 56].copy_from_slice(&head);
    let img = Image::parse("lib.so", &bare).unwrap();
    assert!(img.sections.is_empty());
    for k in [0, 1, size / 2, size - 1] {
        assert_eq!(img.va_to_offset(addr + bias + k), Some(offset + k), "va {:#x}", addr + bias + k);
    }
    // The first segment holds the header's 0x40 bytes at address 0: its last byte is in the
    // file, the address after it is in no segment.
    assert_eq!((img.va_to_offset(0x3F), img.va_to_offset(0x40)), (Some(0x3F), None));
    assert_eq!(img.read_va(addr + bias, 16), Some(&bytes[..16]));
}

#[test]
fn an_empty_segment_may_sit_past_the_end_of_the_file() {
    // p_filesz 0: no bytes to read, wherever p_offset points (one byte would be refused).
    let lib = Fixture::moved().build().unwrap();
    let phoff = u64::from_le_bytes(lib[0x20..0x28].try_into().unwrap()) as usize;
    let note = phoff + 56; // PT_LOAD, PT_NOTE, PT_DYNAMIC
    assert_eq!(u32::from_le_bytes(lib[note..note + 4].try_into().unwrap()), 4);
    let mut empty = lib.clone();
    empty[note + 8..note + 16].copy_from_slice(&(lib.len() as u64 + 0x1000).to_le_bytes());
    empty[note + 32..note + 48].fill(0); // p_filesz, p_memsz
    if let Err(e) = Image::parse("lib.so", &empty) {
        panic!("{e}");
    }
    let mut one = empty.clone();
    one[note + 32..note + 40].copy_from_slice(&1u64.to_le_bytes());
    let Err(e) = Image::parse("lib.so", &one) else { panic!("a segment past the end was read") };
    assert!(e.to_string().contains("segment 1 (p_type 0x4"), "{e}");
    // A segment that ends exactly at the file's end is whole: the note copied there is read.
    let (offset, size) = (
        u64::from_le_bytes(lib[note + 8..note + 16].try_into().unwrap()) as usize,
        u64::from_le_bytes(lib[note + 32..note + 40].try_into().unwrap()) as usize,
    );
    let mut at_end = lib.clone();
    at_end[0x28..0x30].fill(0); // no section headers: the build-id comes from the segment
    at_end[0x3c..0x40].fill(0);
    at_end.extend_from_slice(&lib[offset..offset + size]);
    at_end[note + 8..note + 16].copy_from_slice(&(lib.len() as u64).to_le_bytes());
    let img = Image::parse("lib.so", &at_end).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(img.build_id(), Some(&tpb_oracle::fixture::MOVED_BUILD_ID[..]));
}

#[test]
fn without_section_headers_the_build_id_is_read_from_the_note_segment() {
    let lib = Fixture::moved().build().unwrap();
    let mut bare = lib.clone();
    bare[0x28..0x30].fill(0); // e_shoff
    bare[0x3c..0x40].fill(0); // e_shnum, e_shstrndx
    let img = Image::parse("lib.so", &bare).unwrap();
    assert!(img.section(".note.gnu.build-id").is_none());
    assert_eq!(img.build_id(), Some(&tpb_oracle::fixture::MOVED_BUILD_ID[..]));
}

#[test]
fn a_payload_that_fails_its_digest_and_then_its_tar_says_digest_first() {
    let pe = bundles(&[0xB1]);
    let good = container(2, &refs(&program(&pe))).unwrap();
    // Corrupt the deflate stream in the middle: digest and inflate both fail.
    let mut bad = good.clone();
    let mid = HEADER_BYTES + (good.len() - HEADER_BYTES) / 2;
    for b in &mut bad[mid..mid + 16] {
        *b ^= 0x5A;
    }
    let e = err(&bad);
    assert!(e.message.starts_with("payload digest mismatch (MD5 stored "), "{e}");
    assert!(e.message.contains("); then: "), "{e}");
    // With the digest right (recomputed over the corrupt payload) only the tar error remains.
    let mut fixed = bad.clone();
    let d = integrity::stored_digest(Algorithm::Md5, &fixed[HEADER_BYTES..], Form::WordReversed);
    let at = NeffHeader::LAYOUT.field_offset("hash").unwrap();
    fixed[at..at + 16].copy_from_slice(&d);
    let e2 = err(&fixed);
    assert!(!e2.message.contains("digest"), "{e2}");
    assert!(e.message.ends_with(&e2.message), "{e} / {e2}");
    // A bad JSON member after a digest mismatch says so first too.
    let mut m = program(&pe);
    m[1].1 = b"{\"target\": ".to_vec();
    let mut b = container(2, &refs(&m)).unwrap();
    b[at] ^= 1;
    let e = err(&b);
    assert_eq!(e.member, "kelf-0.json");
    assert!(e.message.starts_with("payload digest mismatch (") && e.message.contains("then: invalid JSON"), "{e}");
}

#[test]
fn bytes_that_are_no_neff_say_not_a_neff_container_and_why() {
    let pe = bundles(&[0xB1]);
    let good = container(2, &refs(&program(&pe))).unwrap();
    let elf = Fixture::moved().build().unwrap();
    let mut zip_payload = good[..HEADER_BYTES].to_vec();
    zip_payload.extend_from_slice(b"PK\x03\x04 a zip, not a gzip tar");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("short", b"hello".to_vec(), "file is 5 bytes, shorter than the 1024-byte header"),
        ("elf", elf, "pkg_version 282584257676671 (0x10102464c457f) is neither 2 (gzip tar, MD5) nor 1 (tar, SHA-256); then: "),
        ("zeros", vec![0; 4096], "pkg_version 0 (0x0) is neither"),
        ("zip payload", zip_payload, "payload is neither gzip (1f 8b) nor tar (ustar at +257); starts with [50 4b 03 04]"),
        // A header that ends exactly at the end of the file has a size in range and no payload.
        ("header only", good[..HEADER_BYTES].to_vec(), "payload is neither gzip (1f 8b) nor tar (ustar at +257); starts with []"),
    ];
    for (what, bytes, why) in cases {
        let e = err(&bytes);
        let expect = format!("not a NEFF container: {why}");
        assert!(e.message.starts_with(&expect), "{what}: {e}\nexpected {expect}");
        assert!(!neff::sniff(&bytes), "{what}");
        assert_eq!(neff::not_neff(&bytes).map(|w| e.message.contains(&w)), Some(true), "{what}");
    }
    // Through the file reader `tpb neff` uses, too.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("notes.txt");
    std::fs::write(&p, "just some text\n".repeat(100)).unwrap();
    let s = neff::read_file(&p).unwrap_err().to_string();
    assert!(s.starts_with(&format!("{}: header: file offset 0x8: not a NEFF container: pkg_version ", p.display())), "{s}");
    // A NEFF that is merely malformed is not called "not a NEFF".
    let mut cut = good.clone();
    cut.truncate(good.len() - 10);
    let at = NeffHeader::LAYOUT.field_offset("data_size").unwrap();
    cut[at..at + 8].copy_from_slice(&((good.len() - 10 - HEADER_BYTES) as u64).to_le_bytes());
    let e = err(&cut);
    assert!(!e.message.contains("not a NEFF"), "{e}");
    assert!(neff::not_neff(&good).is_none());
}

// ---- 4. Text reports: one item, one line -------------------------------------------

const EVIL_MEMBER: &str = "sg00\n0x02:MatMul x\n#/PE.bin";
const EVIL_TOOL: &str = "2.x\nintegrity: MD5 ok";

fn evil() -> Vec<u8> {
    let info = format!(r#"{{"tool_version": {}}}"#, serde_json::to_string(EVIL_TOOL).unwrap());
    let kelf = br#"{"target": "cay|man\u001b[2J\nnote: all clear", "graphs": [{"name": "sg\n00"}]}"#;
    let pe = bundles(&[0xB1, 0x02]);
    container(2, &[("info.json", info.as_bytes()), ("kelf-0.json", kelf), (EVIL_MEMBER, &pe), ("sg00/SP.bin", &pe)]).unwrap()
}

fn no_forged_lines(text: &str) {
    for line in text.lines() {
        for forged in ["integrity: MD5 ok", "0x02:MatMul", "#/PE.bin", "note: all clear", "00`"] {
            assert!(!line.starts_with(forged), "forged line {line:?} in:\n{text}");
        }
        assert!(!line.contains('\u{1b}'), "escape character in {line:?}");
    }
}

#[test]
fn input_strings_cannot_forge_lines_of_the_neff_summary() {
    let n = neff::parse(&evil(), "evil\n0x02:MatMul.neff").unwrap();
    assert_eq!(n.tool_version.as_deref(), Some(EVIL_TOOL));
    assert!(n.members.iter().any(|m| m.name == EVIL_MEMBER), "names are kept as they are; only text output escapes");
    let t = neff::summary::text(&n);
    no_forged_lines(&t);
    assert_eq!(t.lines().filter(|l| l.trim_start().starts_with("integrity:")).count(), 1, "{t}");
    assert!(t.contains("  compiler: 2.x\\nintegrity: MD5 ok\n"), "{t}");
    assert!(t.contains("sg00\\n0x02:MatMul x\\n#/PE.bin"), "{t}");
    assert!(t.lines().next().unwrap().starts_with("evil\\n0x02:MatMul.neff: NEFF"), "{t}");
    // The JSON keeps the strings exact.
    assert_eq!(neff::summary::json(&n)["tool_version"], EVIL_TOOL);
}

#[test]
fn input_strings_cannot_forge_rows_of_the_conformance_markdown() {
    let n = neff::parse(&evil(), "evil|\n0x02:MatMul.neff").unwrap();
    let md = conform::conform(&n, Some(Generation::V3)).to_markdown();
    no_forged_lines(&md);
    let row = md.lines().find(|l| l.starts_with("| evil")).unwrap_or_else(|| panic!("{md}"));
    assert!(row.starts_with("| evil\\|\\n0x02:MatMul.neff | 2.x\\nintegrity: MD5 ok | cay\\|man\\u{1b}[2J\\nnote: all clear |"), "{row}");
}

#[test]
fn container_errors_are_one_line() {
    let pe = bundles(&[0xB1]);
    let bytes = container(2, &[("kelf-0.json", CAYMAN), (EVIL_MEMBER, &pe), (EVIL_MEMBER, &pe)]).unwrap();
    let e = err(&bytes);
    assert_eq!(e.member, EVIL_MEMBER);
    let s = e.to_string();
    assert_eq!(s.lines().count(), 1, "{s}");
    assert!(s.starts_with("h.neff: sg00\\n0x02:MatMul x\\n#/PE.bin: tar offset 0x"), "{s}");
}

#[test]
fn a_wheel_member_name_cannot_forge_lines_of_check_or_diff() {
    let lib = Fixture::moved().build().unwrap();
    let member = "evil\n0x02 holds\u{1b}[2J/libwalrus.so";
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("w.whl");
    std::fs::write(&p, wheel(&[(member, &lib)], true).unwrap()).unwrap();
    let o = check_command(&p, false, DEFAULT_MAX_BYTES);
    assert!(o.stdout.starts_with("library   "), "{o:?}");
    let first = o.stdout.lines().next().unwrap();
    assert!(first.ends_with("!evil\\n0x02 holds\\u{1b}[2J/libwalrus.so"), "{first}");
    let d = diff_command(&p, Path::new(&p), false, DEFAULT_MAX_BYTES);
    for out in [&o.stdout, &d.stdout] {
        for line in out.lines() {
            assert!(!line.starts_with("0x02 holds") && !line.contains('\u{1b}'), "{line:?}");
        }
    }
    assert!(d.stdout.starts_with("OLD  ") && d.stdout.lines().nth(1).is_some_and(|l| l.starts_with("NEW  ")), "{}", d.stdout);
}

#[test]
fn end_of_archive_blocks_survive_unpack_and_pack_and_more_than_two_are_refused() {
    use tpb_oracle::neff::pack::{pack_from, unpack_to};
    let pe = bundles(&[0xB1]);
    let t = build::tar(&refs(&program(&pe))).unwrap();
    for keep in 0..=2usize {
        let neff = wrap(&build::gzip(&t[..t.len() - 512 * (2 - keep)]).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let u = unpack_to(&neff, "p.neff", dir.path(), &Limits::default()).unwrap();
        assert_eq!(usize::from(u.manifest.end_blocks), keep);
        let packed = pack_from(dir.path(), &Limits::default()).unwrap();
        assert_eq!(parse(&packed.bytes).unwrap().archive_end.zero_blocks, keep as u8, "{keep} end blocks");
        // A tar has at most the two blocks its end is written with.
        let manifest = dir.path().join("manifest.json");
        let text = std::fs::read_to_string(&manifest).unwrap().replace(&format!("\"end_blocks\": {keep}"), "\"end_blocks\": 3");
        std::fs::write(&manifest, text).unwrap();
        let Err(e) = pack_from(dir.path(), &Limits::default()) else { panic!("3 end blocks packed") };
        assert!(e.to_string().contains("end_blocks: 3 is over 2"), "{e}");
    }
}

#[test]
fn bytes_after_the_gzip_member_pack_back_as_they_were() {
    use tpb_oracle::neff::pack::{pack_from, unpack_to};
    let pe = bundles(&[0xB1]);
    let gz = build::gzip(&build::tar(&refs(&program(&pe))).unwrap()).unwrap();
    let to_record = 10240 - gz.len() % 10240;
    // Zero padding to the record (what compilers write) pads the new member to the record;
    // any other bytes (non-zero ones to the record, zeros short of it) come back exactly.
    for (tail, padding) in [(vec![0u8; to_record], true), (vec![0xABu8; to_record], false), (vec![0u8; to_record - 1], false), (vec![7u8; 3], false)]
    {
        let neff = wrap(&[gz.clone(), tail.clone()].concat());
        let dir = tempfile::tempdir().unwrap();
        unpack_to(&neff, "p.neff", dir.path(), &Limits::default()).unwrap();
        let packed = pack_from(dir.path(), &Limits::default()).unwrap().bytes;
        let n = parse(&packed).unwrap();
        let payload = &packed[HEADER_BYTES..];
        let after = &payload[payload.len() - n.trailing_payload_bytes..];
        if padding {
            assert!(payload.len().is_multiple_of(10240) && after.iter().all(|b| *b == 0) && after.len() < 10240, "{} bytes after", after.len());
        } else {
            assert!(after == &tail[..], "{} bytes of {:#04x} came back as {} bytes", tail.len(), tail[0], after.len());
        }
    }
}

#[test]
fn a_corrupt_header_is_placed_after_the_last_member_read() {
    // The second header's checksum broken: the error names the member before it.
    let pe = bundles(&[0xB1]);
    let m = program(&pe);
    let mut t = build::tar(&refs(&m)).unwrap();
    let second = 512 * (1 + m[0].1.len().div_ceil(512));
    t[second + 148] ^= 0x01;
    let Err(e) = parse(&wrap(&build::gzip(&t).unwrap())) else { panic!("a corrupt header was read") };
    assert!(e.to_string().contains(&format!("after {}", m[0].0)), "{e}");
}
