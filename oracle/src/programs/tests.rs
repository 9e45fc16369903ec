//! The module's tests: files and pipes opened and loaded, streamed in chunks, refused.

use super::sniff::LOOKAHEAD;
use super::*;
use crate::neff::{self, choice};
use std::path::{Path, PathBuf};
use tpb_isa::Generation;

use tpb_isa::bundle::header_only_stream as bundles;

fn neff_bytes(target: &str) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let kelf = format!(r#"{{"target": "{target}", "graphs": [{{"name": "sg00"}}]}}"#);
    let pe = bundles(&[0xB1, 0x02]);
    let sp = bundles(&[0xA4]);
    Ok(neff::build::container(2, &[("kelf-0.json", kelf.as_bytes()), ("sg00/PE.bin", &pe), ("sg00/SP.bin", &sp)])?)
}

#[test]
fn raw_bundle_file_loads_as_one_raw_stream() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let p = dir.path().join("x.bin");
    std::fs::write(&p, bundles(&[0x01, 0x02, 0xA4]))?;
    let p = load(&p, neff::MAX_FILE, &mut |_| {})?;
    let s: Vec<Stream> = p.streams().collect();
    assert_eq!(s.len(), 1);
    assert_eq!((s[0].member, s[0].engine_name(), s[0].bytes.len(), p.is_container(), p.target()), ("", "", 192, false, None));
    assert_eq!(s[0].label(), p.file.display().to_string());
    let c = p.choose(None);
    assert_eq!((c.generation, c.from), (Generation::V2, choice::GenerationFrom::Default));
    Ok(())
}

#[test]
fn neff_loads_one_stream_per_engine_stream_by_name_or_by_header() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    for name in ["prog.neff", "prog.bin"] {
        let p = dir.path().join(name);
        std::fs::write(&p, neff_bytes("sunda")?)?;
        let prog = load(&p, neff::MAX_FILE, &mut |_| {})?;
        let s: Vec<Stream> = prog.streams().collect();
        let members: Vec<(&str, &str)> = s.iter().map(|s| (s.member, s.engine_name())).collect();
        assert_eq!(members, [("sg00/PE.bin", "PE"), ("sg00/SP.bin", "SP")], "{name}");
        assert_eq!(prog.choose(None).generation, Generation::V2);
        assert_eq!(s[0].label(), format!("{}:sg00/PE.bin", p.display()));
        assert_eq!(s[0].bytes.len(), 128);
    }
    let p = dir.path().join("c.neff");
    std::fs::write(&p, neff_bytes("cayman")?)?;
    let c = load(&p, neff::MAX_FILE, &mut |_| {})?.choose(None);
    assert_eq!((c.generation, c.from), (Generation::V3, choice::GenerationFrom::Target));
    Ok(())
}

#[test]
fn malformed_neff_is_an_error_naming_file_member_and_offset() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let p = dir.path().join("bad.neff");
    let mut b = neff_bytes("cayman")?;
    b.truncate(b.len() - 10);
    std::fs::write(&p, &b)?;
    let e = load(&p, neff::MAX_FILE, &mut |_| {}).err().map(|e| e.to_string()).ok_or("a truncated container loaded")?;
    assert!(e.starts_with(&format!("{}: header: file offset 0x10: data_size", p.display())), "{e}");
    // A raw stream named .neff is still read as a container, and refused.
    std::fs::write(&p, bundles(&[0x01; 20]))?;
    let e = load(&p, neff::MAX_FILE, &mut |_| {}).err().map(|e| e.to_string()).ok_or("a raw stream named .neff loaded")?;
    assert!(e.starts_with(&format!("{}: header: file offset 0x", p.display())) && e.contains("not a NEFF container"), "{e}");
    Ok(())
}

/// (offset, length) of each chunk, the bytes, the error.
type Drained = (Vec<(u64, usize)>, Vec<u8>, Option<String>);

/// Everything a raw input hands over, chunk by chunk.
fn drain(path: &Path, cap: u64) -> Result<Drained, Box<dyn std::error::Error>> {
    let Input::Raw(mut raw) = open(path, cap, &mut |_| {})? else { return Err("opened as a container".into()) };
    let (mut chunks, mut bytes, mut error) = (Vec::new(), Vec::new(), None);
    while let Some(c) = raw.next_chunk() {
        match c {
            Ok(c) => {
                chunks.push((c.at, c.bytes.len()));
                bytes.extend_from_slice(c.bytes);
            }
            Err(e) => error = Some(e.to_string()),
        }
    }
    Ok((chunks, bytes, error))
}

/// A path that reads `bytes` through a pipe (written by a thread).
pub(super) fn piped(bytes: Vec<u8>) -> Result<(PathBuf, std::io::PipeReader, std::thread::JoinHandle<()>), Box<dyn std::error::Error>> {
    use std::io::Write as _;
    use std::os::fd::AsRawFd as _;
    let (r, mut w) = std::io::pipe()?;
    let path = PathBuf::from(format!("/proc/self/fd/{}", r.as_raw_fd()));
    Ok((path, r, std::thread::spawn(move || drop(w.write_all(&bytes)))))
}

#[test]
fn a_raw_file_is_handed_over_in_chunks_of_whole_bundles() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let p = dir.path().join("x.bin");
    let all = tpb_isa::props::seeded_bytes(3, CHUNK * 2 + 64 * 5);
    std::fs::write(&p, &all)?;
    let (chunks, bytes, error) = drain(&p, neff::MAX_FILE)?;
    assert_eq!(chunks, [(0, CHUNK), (CHUNK as u64, CHUNK), (2 * CHUNK as u64, 320)]);
    assert!(bytes == all && error.is_none(), "{error:?}");
    // Through a pipe: the same, then a partial bundle is named at its offset.
    let mut odd = all.clone();
    odd.extend_from_slice(&[7; 10]);
    let (path, _r, w) = piped(odd)?;
    let (chunks, bytes, error) = drain(&path, neff::MAX_FILE)?;
    w.join().map_err(|_| "writer")?;
    assert_eq!(chunks.iter().map(|c| c.1).sum::<usize>(), all.len());
    assert!(bytes == all);
    let e = error.ok_or("no error")?;
    assert!(e.ends_with(&format!("trailing partial bundle at offset {:#x}: {} bytes is not a multiple of 64", all.len(), all.len() + 10)), "{e}");
    // Over the cap: the bundles before it, then the error naming the cap.
    let (path, r, w) = piped(all.clone())?;
    let (_, bytes, error) = drain(&path, CHUNK as u64 + 100)?;
    // The writer is left blocked on a full pipe: closing the read end lets it go.
    drop(r);
    w.join().map_err(|_| "writer")?;
    assert!(bytes[..] == all[..CHUNK + 64]);
    let e = error.ok_or("no error")?;
    assert!(e.contains(&format!("offset {:#x}: more than the cap of {} bytes (after {} bundles", CHUNK + 100, CHUNK + 100, CHUNK / 64 + 1)), "{e}");
    Ok(())
}

#[test]
fn open_refuses_empty_partial_oversized_and_text_input_before_reading_bundles() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("empty.bin", vec![], "offset 0x0: empty file"),
        ("odd.bin", vec![0x46; 100], "neither raw bundles nor a NEFF: trailing partial bundle at offset 0x40: 100 bytes is not a multiple of 64; not a NEFF: file is 100 bytes"),
        ("big.bin", bundles(&[0x46; 3]), "offset 0x80: 192 bytes is over the cap of 128 bytes"),
        (
            "prog.tpb",
            b"# prog.bin\n0x46:TensorCopy src.addr=0x100 # [0] +0x0\n".to_vec(),
            "offset 0x0: looks like bundle text: assemble it first with tpb asm FILE -o OUT",
        ),
    ];
    for (name, bytes, needle) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes)?;
        let e = open(&p, 128, &mut |_| {}).err().map(|e| e.to_string()).ok_or(name)?;
        assert!(e.starts_with(&format!("{}: {needle}", p.display())), "{name}: {e}");
    }
    // A name is escaped: the error stays one line.
    let p = dir.path().join("a\nb.bin");
    std::fs::write(&p, [])?;
    let e = open(&p, 128, &mut |_| {}).err().map(|e| e.to_string()).ok_or("empty")?;
    assert!(e.contains("a\\nb.bin") && !e.contains('\n'), "{e}");
    Ok(())
}

#[test]
fn owned_chunks_hand_over_the_same_bundles_and_errors() -> Result<(), Box<dyn std::error::Error>> {
    let all = tpb_isa::props::seeded_bytes(4, CHUNK + 64 * 5);
    let mut odd = all.clone();
    odd.extend_from_slice(&[7; 10]);
    // Through a pipe, so the trailing partial bundle is found at the end, not at open.
    let (path, _r, w) = piped(odd)?;
    let Input::Raw(mut raw) = open(&path, neff::MAX_FILE, &mut |_| {})? else { return Err("opened as a container".into()) };
    let (mut bytes, mut spare, mut error) = (Vec::new(), Vec::new(), None);
    while let Some(c) = raw.next_chunk_owned(std::mem::take(&mut spare)) {
        match c {
            Ok((at, chunk)) => {
                assert_eq!(at, bytes.len() as u64);
                bytes.extend_from_slice(&chunk);
                spare = chunk;
            }
            Err(e) => error = Some(e.to_string()),
        }
    }
    w.join().map_err(|_| "writer")?;
    assert!(bytes == all, "{} bytes handed over of {}", bytes.len(), all.len());
    let e = error.ok_or("no error")?;
    assert!(e.contains(&format!("trailing partial bundle at offset {:#x}", all.len())), "{e}");
    Ok(())
}

#[test]
fn a_pipe_is_read_no_further_than_one_byte_past_the_cap() -> Result<(), Box<dyn std::error::Error>> {
    use std::io::Write as _;
    use std::os::fd::AsRawFd as _;
    let cap = CHUNK as u64 + 100;
    let (r, mut w) = std::io::pipe()?;
    let path = PathBuf::from(format!("/proc/self/fd/{}", r.as_raw_fd()));
    // The writer counts what the reader took (and the pipe holds) until the reader leaves.
    let writer = std::thread::spawn(move || {
        let block = vec![0x46u8; 4096];
        let mut written = 0u64;
        while let Ok(n) = w.write(&block) {
            written += n as u64;
        }
        written
    });
    let (chunks, _, error) = drain(&path, cap)?;
    drop(r);
    let written = writer.join().map_err(|_| "writer")?;
    assert!(error.is_some_and(|e| e.contains("more than the cap")));
    assert_eq!(chunks.iter().map(|c| c.1 as u64).sum::<u64>(), cap - cap % 64);
    // A pipe holds 64 KiB (Linux's default; only its reader or writer could grow it): far less than a second chunk.
    assert!(written <= cap + 1 + (256 << 10), "{written} bytes written for a cap of {cap}");
    Ok(())
}

#[test]
fn a_file_of_exactly_the_cap_opens() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let p = dir.path().join("full.bin");
    std::fs::write(&p, bundles(&[0x46; 2]))?;
    // The cap is a size allowed: only a byte more is refused.
    open(&p, 128, &mut |_| {})?;
    // A container past the first chunk, read whole (from a file and from a pipe): the same.
    let kelf = br#"{"target": "trn1", "graphs": [{"name": "sg00"}]}"#;
    let noise = tpb_isa::props::seeded_bytes(9, CHUNK * 3 / 2);
    let neff = neff::build::container(2, &[("kelf-0.json", kelf), ("sg00/PE.bin", &bundles(&[0x46; 3])), ("noise.bin", &noise)])?;
    assert!(neff.len() > CHUNK, "{} bytes", neff.len());
    let p = dir.path().join("big.neff");
    std::fs::write(&p, &neff)?;
    let cap = neff.len() as u64;
    assert!(matches!(open(&p, cap, &mut |_| {})?, Input::Neff(_)));
    let (path, _r, w) = piped(neff.clone())?;
    let opened = open(&path, cap, &mut |_| {});
    w.join().map_err(|_| "writer")?;
    assert!(matches!(opened?, Input::Neff(_)));
    let (path, _r, w) = piped(neff)?;
    let refused = open(&path, cap - 1, &mut |_| {}).err().map(|e| e.to_string()).ok_or("a byte over the cap opened")?;
    w.join().map_err(|_| "writer")?;
    assert!(refused.contains("more than the cap"), "{refused}");
    Ok(())
}

#[test]
fn bundle_text_is_told_from_bundles() {
    for text in ["# sg00/PE.bin\n0x46:TensorCopy", "\n\n  0x02:MatMul a=1\r\n", "0xb1:unknown", "# caf\u{e9}\n0x46:T"] {
        assert!(looks_like_text(text.as_bytes()) && !looks_like_prose(text.as_bytes()), "{text:?}");
    }
    // Text with no bundle line (a README's headings are `#` lines too) is plain text, not bundle text.
    for text in [
        "hello\n",
        "0x46 TensorCopy\n",
        "0x:nothing\n",
        "0xzz:x\n",
        "x0x46:TensorCopy\n",
        "# just a comment\n",
        "# Title\n\nSome prose.\n",
        "Prose\n0x46:TensorCopy\n",
    ] {
        assert!(!looks_like_text(text.as_bytes()), "{text:?}");
        assert!(looks_like_prose(text.as_bytes()), "{text:?}");
    }
    // Printable bytes with no line end may be bundles of a body no table names: not called text.
    assert!(!looks_like_prose(&[0x46; 100]));
    assert!(!looks_like_prose(b"\x46\x10\x00\x00") && !looks_like_prose(b"  \n"));
    // Control bytes (a bundle's inst_word_len, 0x10) are never text.
    assert!(!looks_like_text(b"#\x10\n0x46:T"));
    assert!(!looks_like_text(&bundles(&[b'#'; 4])));
    // A sample cut inside a character is still text; one with a byte that is never UTF-8 is not.
    let cut = "# caf\u{e9}\n0x46:T\n# caf\u{e9}";
    assert!(looks_like_text(&cut.as_bytes()[..cut.len() - 1]));
    assert!(!looks_like_text(b"# comment\n\xff\xfe"));
}

#[test]
fn load_refuses_a_file_over_the_cap_at_its_offset_and_a_partial_bundle() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let p = dir.path().join("x.bin");
    std::fs::write(&p, bundles(&[0x46; 3]))?;
    assert_eq!(load(&p, 192, &mut |_| {})?.streams().map(|s| s.bytes.len()).collect::<Vec<_>>(), [192]);
    let e = load(&p, 191, &mut |_| {}).err().map(|e| e.to_string()).ok_or("over the cap loaded")?;
    assert!(e.starts_with(&format!("{}: offset 0xbf: ", p.display())), "{e}");
    let mut b = bundles(&[0x46; 2]);
    b.push(0);
    std::fs::write(&p, b)?;
    let e = load(&p, 1 << 20, &mut |_| {}).err().map(|e| e.to_string()).ok_or("a partial bundle loaded")?;
    assert!(e.contains("trailing partial bundle"), "{e}");
    Ok(())
}

#[test]
fn a_container_whose_payload_lies_past_the_first_chunk_is_still_a_container() -> Result<(), Box<dyn std::error::Error>> {
    // header_size moved to 2 MiB: the payload starts after the first chunk.
    let c = neff_bytes("cayman")?;
    let hs = 2 * CHUNK;
    let mut moved = c[..neff::HEADER_BYTES].to_vec();
    moved[8..16].copy_from_slice(&(hs as u64).to_le_bytes());
    moved.resize(hs, 0);
    moved.extend_from_slice(&c[neff::HEADER_BYTES..]);
    let dir = tempfile::tempdir()?;
    let p = dir.path().join("moved.bin");
    std::fs::write(&p, &moved)?;
    let (path, _r, w) = piped(moved)?;
    for p in [p, path] {
        let Input::Neff(s) = open(&p, neff::MAX_FILE, &mut |_| {})? else { return Err(format!("{}: read as raw", p.display()).into()) };
        assert_eq!(s.streams().count(), 2);
    }
    w.join().map_err(|_| "writer")?;
    // Raw streams and containers named or sniffed as such.
    let p = dir.path().join("prog.bin");
    std::fs::write(&p, &c)?;
    assert!(matches!(open(&p, neff::MAX_FILE, &mut |_| {})?, Input::Neff(_)));
    std::fs::write(&p, bundles(&[1, 2]))?;
    assert!(matches!(open(&p, neff::MAX_FILE, &mut |_| {})?, Input::Raw(_)));
    Ok(())
}

#[test]
fn a_header_that_is_no_neff_header_is_never_followed_to_its_payload() -> Result<(), Box<dyn std::error::Error>> {
    // Raw bundles (byte 1 is 0x10: an unknown pkg_version) whose header_size
    // field points at gzip's magic, 2 MiB in: still raw bundles, from a file
    // and from a pipe, and the pipe is not read ahead to look there.
    let hs = 2 * CHUNK;
    let mut raw = bundles(&[0x46; 3 * CHUNK / 64]);
    raw[8..16].copy_from_slice(&(hs as u64).to_le_bytes());
    raw[hs..hs + 4].copy_from_slice(&[0x1f, 0x8b, 0x08, 0x00]);
    // A known version, but a header_size inside the header: not a container either.
    let md5 = neff::integrity::PKG_VERSION_MD5;
    let mut short = bundles(&[0x46; 64]);
    short[..8].copy_from_slice(&md5.to_le_bytes());
    short[8..16].copy_from_slice(&0x40u64.to_le_bytes());
    short[0x40..0x44].copy_from_slice(&[0x1f, 0x8b, 0x08, 0x00]);
    let dir = tempfile::tempdir()?;
    for (name, bytes) in [("raw", raw), ("short", short)] {
        let p = dir.path().join(format!("{name}.bin"));
        std::fs::write(&p, &bytes)?;
        assert!(matches!(open(&p, neff::MAX_FILE, &mut |_| {})?, Input::Raw(_)), "{name}: not raw");
        let (path, pipe, w) = piped(bytes.clone())?;
        let Input::Raw(mut s) = open(&path, neff::MAX_FILE, &mut |_| {})? else { return Err(format!("{name}: piped, not raw").into()) };
        let first = s.next_chunk().ok_or("no chunk")??.bytes.len();
        drop((s, pipe));
        w.join().map_err(|_| "writer")?;
        assert_eq!(first, CHUNK.min(bytes.len()), "{name}: the first chunk of a pipe");
    }
    // A header whose payload lies past what a pipe is read ahead for: that
    // far is never read ahead (a file is looked at there; a pipe is raw).
    let far = LOOKAHEAD as usize;
    let mut bytes = bundles(&[0x46; (LOOKAHEAD as usize + CHUNK) / 64]);
    bytes[..8].copy_from_slice(&md5.to_le_bytes());
    bytes[8..16].copy_from_slice(&(far as u64).to_le_bytes());
    bytes[far..far + 4].copy_from_slice(&[0x1f, 0x8b, 0x08, 0x00]);
    let (path, pipe, w) = piped(bytes)?;
    let Input::Raw(mut s) = open(&path, neff::MAX_FILE, &mut |_| {})? else { return Err("piped far header: not raw".into()) };
    let first = s.next_chunk().ok_or("no chunk")??.bytes.len();
    drop((s, pipe));
    w.join().map_err(|_| "writer")?;
    assert_eq!(first, CHUNK, "the first chunk of a pipe with a far header");
    Ok(())
}

/// Whether this process may map files (the environment can forbid it).
fn may_map() -> bool {
    std::env::var_os(ENV_NO_MAP).is_none_or(|v| v == "0")
}

#[test]
fn a_large_regular_file_is_mapped_and_handed_over_as_a_read_one_is() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let p = dir.path().join("big.bin");
    let all = tpb_isa::props::seeded_bytes(5, 4 * CHUNK + 64 * 5);
    std::fs::write(&p, &all)?;
    let Input::Raw(raw) = open(&p, neff::MAX_FILE, &mut |_| {})? else { return Err("opened as a container".into()) };
    assert_eq!(raw.is_mapped(), may_map());
    // Chunk by chunk: the offsets and bytes a read would give.
    let (chunks, bytes, error) = drain(&p, neff::MAX_FILE)?;
    let want: Vec<(u64, usize)> = (0..4).map(|i| (i * CHUNK as u64, CHUNK)).chain([(4 * CHUNK as u64, 320)]).collect();
    assert_eq!(chunks, want);
    assert!(bytes == all && error.is_none(), "{error:?}");
    // Owned chunks: the same bytes.
    let Input::Raw(mut raw) = open(&p, neff::MAX_FILE, &mut |_| {})? else { return Err("opened as a container".into()) };
    let mut owned = Vec::new();
    while let Some(c) = raw.next_chunk_owned(Vec::new()) {
        let (at, chunk) = c?;
        assert_eq!(at, owned.len() as u64);
        owned.extend_from_slice(&chunk);
    }
    assert!(owned == all);
    // All at once, after one chunk: the rest, from its offset; then nothing more.
    let Input::Raw(mut raw) = open(&p, neff::MAX_FILE, &mut |_| {})? else { return Err("opened as a container".into()) };
    let first = raw.next_chunk().ok_or("no chunk")??.bytes.len();
    match raw.rest_mapped() {
        Some((at, rest)) => {
            assert_eq!((at, rest), (first as u64, &all[first..]));
            assert!(raw.next_chunk().is_none());
        }
        None => assert!(!may_map(), "a mapped file lends no rest"),
    }
    Ok(())
}

#[test]
fn a_mapped_file_that_changes_while_read_is_an_error_naming_it() -> Result<(), Box<dyn std::error::Error>> {
    if !may_map() {
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let p = dir.path().join("grows.bin");
    let all = tpb_isa::props::seeded_bytes(6, 4 * CHUNK);
    std::fs::write(&p, &all)?;
    let Input::Raw(mut raw) = open(&p, neff::MAX_FILE, &mut |_| {})? else { return Err("opened as a container".into()) };
    let (_, rest) = raw.rest_mapped().ok_or("not mapped")?;
    assert_eq!(rest.len(), all.len());
    // Another writer appends (never truncates: that would fault the map).
    std::fs::OpenOptions::new().append(true).open(&p).and_then(|mut f| std::io::Write::write_all(&mut f, &[0; 64]))?;
    let e = raw.next_chunk().ok_or("no check")?.err().ok_or("no error")?.to_string();
    assert_eq!(e, format!("{}: changed while it was read (its length or modification time moved); judge a copy, or set TPB_NO_MMAP=1", p.display()));
    assert!(raw.next_chunk().is_none());
    Ok(())
}
