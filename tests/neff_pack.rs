//! `tpb neff unpack` / `pack` / `mutate`: a real program taken apart into
//! files and text, edited, and packed back. Members are compared through
//! the oracle's own tar reader (`neff::payload::unpack`), summaries through
//! `tpb neff --json`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tpb_oracle::neff::{self, build, pack};

type R<T = ()> = Result<T, Box<dyn std::error::Error>>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn tpb(args: &[&dyn AsRef<std::ffi::OsStr>]) -> R<Output> {
    Ok(Command::new(env!("CARGO_BIN_EXE_tpb")).args(args.iter().map(|a| a.as_ref())).output()?)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `o` is a refusal (exit 2) whose message says `says`.
fn refused(o: &Output, says: &str, what: &str) {
    assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(o));
    assert!(stderr(o).contains(says), "{what}: {}", stderr(o));
}

fn ok(o: &Output, what: &str) {
    assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(o));
}

/// Every `*.neff` under `dir`, sorted.
fn neffs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "neff") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn real() -> Vec<PathBuf> {
    let files = neffs(&root().join("corpus/neff/real"));
    assert_eq!(files.len(), 11, "committed real programs: {files:?}");
    files
}

/// The listing (name, kind, size, tar offset) and every file member's bytes, by the oracle's reader.
type Members = (Vec<(String, String, u64, u64)>, Vec<(String, Vec<u8>)>);

fn members(bytes: &[u8]) -> R<Members> {
    let h = neff::NeffHeader::read(bytes).ok_or("short")?;
    let (hs, ds) = (h.header_size.get() as usize, h.data_size.get() as usize);
    let limits = neff::Limits::default();
    let keep = |_: &str| Some(neff::payload::Keep { cap: limits.max_member, cap_for: "" });
    let un = neff::payload::unpack("t", &bytes[hs..hs + ds], hs as u64, &limits, &keep)?;
    Ok((un.members.into_iter().map(|m| (m.name, m.kind, m.size, m.tar_offset)).collect(), un.kept))
}

/// `tpb neff --json` of one file, without the fields a repack changes (its
/// name, sizes and the payload digest).
fn summary_modulo_payload(v: &Value) -> Value {
    let mut v = v.clone();
    for k in ["file", "file_len", "trailing_payload_bytes"] {
        v.as_object_mut().map(|o| o.remove(k));
    }
    for k in ["data_size", "hash"] {
        v["header"].as_object_mut().map(|o| o.remove(k));
    }
    for k in ["stored", "computed"] {
        v["integrity"].as_object_mut().map(|o| o.remove(k));
    }
    v
}

fn neff_json(path: &Path) -> R<Value> {
    let o = tpb(&[&"neff", &"--json", &path])?;
    ok(&o, "tpb neff --json");
    Ok(serde_json::from_slice(&o.stdout)?)
}

/// The original and its repack hold the same members, byte for byte, at the
/// same tar offsets, and read the same apart from the payload's size and digest.
fn assert_same_program(orig: &[u8], packed: &[u8], a: &Value, b: &Value, what: &str) -> R {
    let ((la, ka), (lb, kb)) = (members(orig)?, members(packed)?);
    assert_eq!(la, lb, "{what}: member listings (name, kind, size, tar offset) differ");
    assert_eq!(ka.len(), kb.len(), "{what}: file members");
    for ((name, a), (other, b)) in ka.iter().zip(&kb) {
        assert!(name == other && a == b, "{what}: member {name} differs ({} vs {} bytes)", a.len(), b.len());
    }
    assert_eq!(a["integrity"]["matched"], b["integrity"]["matched"], "{what}: digest form");
    assert_eq!(a["integrity"]["algorithm"], b["integrity"]["algorithm"], "{what}: digest algorithm");
    assert!(b["integrity"]["matched"].is_string(), "{what}: the repack fails its digest: {}", b["integrity"]);
    assert_eq!(summary_modulo_payload(a), summary_modulo_payload(b), "{what}: summaries differ");
    // The gzip header's mtime, XFL and OS bytes are the original's.
    if orig.get(1024..1026) == Some(&[0x1f, 0x8b]) {
        assert_eq!(orig[1024 + 4..1024 + 10], packed[1024 + 4..1024 + 10], "{what}: gzip header");
    }
    Ok(())
}

#[test]
fn every_committed_real_program_round_trips_through_files_and_text() -> R {
    let dir = tempfile::tempdir()?;
    for (i, f) in real().iter().enumerate() {
        let (unpacked, out) = (dir.path().join(format!("u{i}")), dir.path().join(format!("p{i}.neff")));
        ok(&tpb(&[&"neff", &"unpack", f, &unpacked])?, "unpack");
        assert!(unpacked.join("manifest.json").is_file() && unpacked.join("sg00/PE.tpb").is_file() && unpacked.join("sg00/PE.bin").is_file());
        let o = tpb(&[&"neff", &"pack", &unpacked, &"-o", &out])?;
        ok(&o, "pack");
        assert!(String::from_utf8_lossy(&o.stdout).contains(", 0 changed"), "{}", String::from_utf8_lossy(&o.stdout));
        let (orig, packed, summary) = (std::fs::read(f)?, std::fs::read(&out)?, neff_json(f)?);
        assert_same_program(&orig, &packed, &summary, &neff_json(&out)?, &f.display().to_string())?;
        // The manifest names the form the input used.
        let m: Value = serde_json::from_slice(&std::fs::read(unpacked.join("manifest.json"))?)?;
        let want = if summary["integrity"]["matched"] == "plain" { "md5" } else { "md5-word-reversed" };
        assert_eq!(m["digest"], want, "{}", f.display());
        assert_eq!(m["header"].as_str().map(str::len), Some(2048));
    }
    Ok(())
}

#[test]
fn shared_real_programs_round_trip() -> R {
    let shared = root().join("../shared/neff");
    if !shared.is_dir() {
        // `.ci/run` sets TPB_REQUIRE_SHARED when ../shared is there, so losing the files fails CI.
        assert!(std::env::var_os("TPB_REQUIRE_SHARED").is_none(), "{} absent (TPB_REQUIRE_SHARED is set)", shared.display());
        println!("note: {} absent; skipping", shared.display());
        return Ok(());
    }
    let files = neffs(&shared);
    assert!(files.len() >= 75, "{} files in {}", files.len(), shared.display());
    let dir = tempfile::tempdir()?;
    // The library calls the commands make, in process (what `tpb neff --json` prints is
    // `summary::json`), on every core: the debug build takes about a minute of CPU.
    let one = |i: usize, f: &Path| -> R {
        let limits = neff::Limits::default();
        let name = f.display().to_string();
        let orig = std::fs::read(f)?;
        let unpacked = dir.path().join(format!("u{i}"));
        pack::unpack_to(&orig, &name, &unpacked, &limits)?;
        let p = pack::pack_from(&unpacked, &limits)?;
        assert!(p.changed.is_empty(), "{name}: {:?}", p.changed);
        let (a, b) = (neff::summary::json(&neff::parse(&orig, &name)?), neff::summary::json(&neff::parse(&p.bytes, "packed")?));
        assert_same_program(&orig, &p.bytes, &a, &b, &name)?;
        std::fs::remove_dir_all(&unpacked)?;
        Ok(())
    };
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut failed = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(f) = files.get(i) else { break };
                        if let Err(e) = one(i, f) {
                            failed.push(format!("{}: {e}", f.display()));
                        }
                    }
                    failed
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|_| vec!["a worker panicked".into()])).collect()
    });
    assert!(failures.is_empty(), "{failures:#?}");
    Ok(())
}

/// The disassembly lines of a container, by member and index (location comments dropped).
fn disasm(path: &Path) -> R<Vec<String>> {
    let o = tpb(&[&"disasm", &path])?;
    ok(&o, "disasm");
    Ok(String::from_utf8(o.stdout)?.lines().filter(|l| !l.starts_with('#')).map(str::to_string).collect())
}

#[test]
fn either_file_of_a_stream_may_be_deleted_but_not_both_nor_the_manifest() -> R {
    let dir = tempfile::tempdir()?;
    let f = root().join("corpus/neff/real/xla-2.14/MODULE_10156376263833043450.neff");
    let u = dir.path().join("u");
    ok(&tpb(&[&"neff", &"unpack", &f, &u])?, "unpack");
    let pack = |name: &str| -> R<(Output, PathBuf)> {
        let out = dir.path().join(name);
        Ok((tpb(&[&"neff", &"pack", &u, &"-o", &out])?, out))
    };
    let (o, whole) = pack("whole.neff")?;
    ok(&o, "pack");
    // Without the text, the stream is packed from its raw file, and the other way round.
    std::fs::rename(u.join("sg00/PE.tpb"), u.join("PE.tpb.away"))?;
    let (o, no_text) = pack("no-text.neff")?;
    ok(&o, "pack without the text");
    assert!(std::fs::read(&no_text)? == std::fs::read(&whole)?);
    std::fs::rename(u.join("PE.tpb.away"), u.join("sg00/PE.tpb"))?;
    std::fs::rename(u.join("sg00/PE.bin"), u.join("PE.bin.away"))?;
    let (o, no_bin) = pack("no-bin.neff")?;
    ok(&o, "pack without the raw file");
    assert!(std::fs::read(&no_bin)? == std::fs::read(&whole)?);
    // Both gone: the member is missing; the manifest gone: no folder `tpb neff unpack` wrote.
    std::fs::remove_file(u.join("sg00/PE.tpb"))?;
    refused(&pack("neither.neff")?.0, "sg00/PE.bin: missing", "neither file");
    std::fs::remove_file(u.join("manifest.json"))?;
    refused(&pack("no-manifest.neff")?.0, "no manifest: not a folder `tpb neff unpack` wrote", "no manifest");
    Ok(())
}

#[test]
fn an_edited_text_line_changes_that_bundle_and_nothing_else() -> R {
    let dir = tempfile::tempdir()?;
    let f = root().join("corpus/neff/real/xla-2.14/MODULE_10156376263833043450.neff");
    let u = dir.path().join("u");
    ok(&tpb(&[&"neff", &"unpack", &f, &u])?, "unpack");
    let text_path = u.join("sg00/PE.tpb");
    let text = std::fs::read_to_string(&text_path)?;
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| l.contains(" in_dtype=bf16 ")).ok_or("no bf16 line in sg00/PE.tpb")?;
    let edited: Vec<String> =
        lines.iter().enumerate().map(|(i, l)| if i == at { l.replace(" in_dtype=bf16 ", " in_dtype=f32 ") } else { l.to_string() }).collect();
    std::fs::write(&text_path, edited.join("\n") + "\n")?;
    let out = dir.path().join("edited.neff");
    let o = tpb(&[&"neff", &"pack", &u, &"-o", &out])?;
    ok(&o, "pack");
    assert!(String::from_utf8_lossy(&o.stdout).contains("changed: sg00/PE.bin (from sg00/PE.tpb)"), "{}", String::from_utf8_lossy(&o.stdout));

    // The bundle is the text line's (the first line is a comment).
    let index = at - 1;
    let (before, after) = (disasm(&f)?, disasm(&out)?);
    assert_eq!(before.len(), after.len());
    let differ: Vec<usize> = (0..before.len()).filter(|i| before[*i] != after[*i]).collect();
    assert_eq!(differ.len(), 1, "{differ:?}");
    let line = &after[differ[0]];
    assert!(line.contains(" in_dtype=f32 ") && line.contains(&format!("# sg00/PE.bin [{index}] ")), "{line}");
    assert_eq!(before[differ[0]].replace(" in_dtype=bf16 ", " in_dtype=f32 "), *line);

    // Byte for byte: that bundle's dtype byte, nothing else in any member.
    let ((la, ka), (lb, kb)) = (members(&std::fs::read(&f)?)?, members(&std::fs::read(&out)?)?);
    assert_eq!(la, lb);
    for ((name, a), (_, b)) in ka.iter().zip(&kb) {
        let diffs: Vec<usize> = (0..a.len()).filter(|i| a[*i] != b[*i]).collect();
        if name == "sg00/PE.bin" {
            assert!(!diffs.is_empty() && diffs.iter().all(|d| d / 64 == index), "{diffs:?}");
        } else {
            assert!(diffs.is_empty(), "{name} changed");
        }
    }
    // The validator reads the new bundle where the text put it.
    let o = tpb(&[&"validate", &"--json", &out])?;
    let row = String::from_utf8(o.stdout)?
        .lines()
        .map(serde_json::from_str::<Value>)
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .find(|v| v["member"] == "sg00/PE.bin" && v["index"] == index)
        .ok_or("no row")?;
    assert_eq!(row["opcode"], format!("0x{}", before[differ[0]][2..4].to_ascii_lowercase()));
    Ok(())
}

#[test]
fn a_bad_text_line_a_raw_edit_and_two_edits_are_told_apart() -> R {
    let dir = tempfile::tempdir()?;
    let f = root().join("corpus/neff/real/xla-2.14/MODULE_11790936170214357810.neff");
    let u = dir.path().join("u");
    ok(&tpb(&[&"neff", &"unpack", &f, &u])?, "unpack");
    let (text_path, bin_path) = (u.join("sg00/PE.tpb"), u.join("sg00/PE.bin"));
    let text = std::fs::read_to_string(&text_path)?;

    // A field no body has: exit 2 naming the file and the line; nothing written.
    let bad = text.replacen("inst_word_len=0x10", "no_such_field=1", 1);
    let line = bad.lines().position(|l| l.contains("no_such_field")).ok_or("no edit")? + 1;
    std::fs::write(&text_path, &bad)?;
    let out = dir.path().join("out.neff");
    let o = tpb(&[&"neff", &"pack", &u, &"-o", &out])?;
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("sg00/PE.tpb") && err.contains(&format!("line {line}:")) && err.lines().count() == 1, "{err}");
    assert!(!out.exists());

    // Only the raw file edited: its bytes are packed.
    std::fs::write(&text_path, &text)?;
    let mut bin = std::fs::read(&bin_path)?;
    bin[4] ^= 0x01;
    std::fs::write(&bin_path, &bin)?;
    let o = tpb(&[&"neff", &"pack", &u, &"-o", &out])?;
    ok(&o, "pack raw edit");
    assert!(String::from_utf8_lossy(&o.stdout).contains("changed: sg00/PE.bin (from sg00/PE.bin)"));
    let (_, kept) = members(&std::fs::read(&out)?)?;
    assert_eq!(kept.iter().find(|(n, _)| n == "sg00/PE.bin").map(|(_, b)| b), Some(&bin));

    // Both edited, differently: refused.
    let edited = text.replacen("inst_word_len=0x10", "inst_word_len=0x11", 1);
    std::fs::write(&text_path, &edited)?;
    let o = tpb(&[&"neff", &"pack", &u, &"-o", &out])?;
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("both edited"), "{}", stderr(&o));
    Ok(())
}

#[test]
fn bare_tar_and_plain_md5_containers_round_trip_in_their_own_form() -> R {
    let dir = tempfile::tempdir()?;
    let pe =
        tpb_isa::text::assemble("0x46:TensorCopy src.addr=0x100 src.num=[1,1,1,1] src_dtype=f32 dst_dtype=f32 out.addr=0x200 out.num=[1,1,1,1]\n")?;
    let kelf: &[u8] = br#"{"target": "cayman", "graphs": [{"name": "sg00"}]}"#;
    let files: &[(&str, &[u8])] = &[("kelf-0.json", kelf), ("sg00/PE.bin", &pe), ("notes/a.txt", b"x")];
    let sha = build::container(1, files)?;
    let mut plain = build::container(2, files)?;
    let hash_at = neff::NeffHeader::LAYOUT.field_offset("hash").ok_or("hash")?;
    let d = neff::integrity::stored_digest(neff::integrity::Algorithm::Md5, &plain[1024..], neff::integrity::Form::Plain);
    plain[hash_at..hash_at + 16].copy_from_slice(&d);
    for (i, (bytes, form)) in [(sha, "sha256"), (plain, "md5")].into_iter().enumerate() {
        let f = dir.path().join(format!("in{i}.neff"));
        std::fs::write(&f, &bytes)?;
        let (u, out) = (dir.path().join(format!("u{i}")), dir.path().join(format!("out{i}.neff")));
        let unpacked = tpb(&[&"neff", &"unpack", &f, &u])?;
        ok(&unpacked, "unpack");
        assert!(!stderr(&unpacked).contains("payload integrity"), "{form}: {}", stderr(&unpacked));
        let m: Value = serde_json::from_slice(&std::fs::read(u.join("manifest.json"))?)?;
        assert_eq!(m["digest"], form);
        ok(&tpb(&[&"neff", &"pack", &u, &"-o", &out])?, "pack");
        let packed = std::fs::read(&out)?;
        assert_same_program(&bytes, &packed, &neff_json(&f)?, &neff_json(&out)?, form)?;
    }
    Ok(())
}

/// Names of everything under `dir`, recursively (links not followed).
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            out.push(p.strip_prefix(dir).map(|r| r.display().to_string()).unwrap_or_default());
            if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir()) {
                todo.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn hostile_member_paths_are_refused_and_nothing_is_written_outside() -> R {
    let base = tempfile::tempdir()?;
    let jail = base.path().join("jail");
    std::fs::create_dir(&jail)?;
    for name in ["../evil", "/abs", "a/../../b", "x/\n/../../y"] {
        let tar = build::tar_raw(&[build::RawEntry::file("ok.txt", b"fine"), build::RawEntry::file(name, b"pwned")])?;
        let f = base.path().join("hostile.neff");
        std::fs::write(&f, build::container_from_tar(2, &tar)?)?;
        let dir = jail.join("deep/out");
        let o = tpb(&[&"neff", &"unpack", &f, &dir])?;
        assert_eq!(o.status.code(), Some(2), "{name:?}");
        let err = stderr(&o);
        assert!(err.contains("unsafe member path") && err.lines().count() == 1, "{name:?}: {err}");
        assert!(err.contains(&name.escape_default().to_string()) || err.contains(name), "{name:?} not named: {err}");
        // Refused before anything is written: not even the folder.
        assert_eq!(tree(&jail), Vec::<String>::new(), "{name:?}");
        assert_eq!(tree(base.path()), vec!["hostile.neff".to_string(), "jail".into()], "{name:?}");
    }

    // A symlink entry is recorded, never created, and packed back as a symlink.
    // One with no target is named as a symlink only.
    let tar = build::tar_raw(&[
        build::RawEntry::symlink("link", "../../outside"),
        build::RawEntry::symlink("nowhere", ""),
        // A pax `linkpath` record with no value deletes the header's link name (POSIX).
        build::RawEntry { name: b"PaxHeaders/gone", kind: b'x', link: b"", data: b"13 linkpath=\n" },
        build::RawEntry::symlink("gone", "header-target"),
        build::RawEntry::file("link2/x.txt", b"data"),
    ])?;
    let f = base.path().join("link.neff");
    std::fs::write(&f, build::container_from_tar(2, &tar)?)?;
    let dir = jail.join("out");
    let o = tpb(&[&"neff", &"unpack", &f, &dir])?;
    ok(&o, "unpack with a symlink");
    assert!(stderr(&o).contains("symlink to `../../outside`"), "{}", stderr(&o));
    assert!(stderr(&o).contains("member `nowhere`: symlink: recorded in"), "{}", stderr(&o));
    assert!(stderr(&o).contains("member `gone`: symlink: recorded in"), "{}", stderr(&o));
    assert_eq!(tree(&dir), vec!["link2", "link2/x.txt", "manifest.json"]);
    let m: Value = serde_json::from_slice(&std::fs::read(dir.join("manifest.json"))?)?;
    let link = &m["members"][0];
    assert_eq!((&link["name"], &link["tar"]["type"], &link["link"]), (&Value::from("link"), &Value::from("symlink"), &Value::from("../../outside")));
    assert!(link.get("file").is_none());
    // The header's link field is recorded only where it is not the link: here, where a pax
    // record deleted it.
    let by_name = |n: &str| m["members"].as_array().into_iter().flatten().find(|x| x["name"] == n).cloned().unwrap_or_default();
    assert!(link.get("header_link").is_none(), "{link}");
    let gone = by_name("gone");
    assert_eq!((&gone["link"], &gone["header_link"]), (&Value::from(""), &Value::from("header-target")), "{gone}");
    let out = base.path().join("link-packed.neff");
    ok(&tpb(&[&"neff", &"pack", &dir, &"-o", &out])?, "pack with a symlink");
    let packed = std::fs::read(&out)?;
    let (listing, _) = members(&packed)?;
    assert_eq!(listing[0].0, "link");
    assert_eq!(listing[0].1, "symlink");
    let (a, b) = (members(&packed)?, members(&std::fs::read(&f)?)?);
    assert!(a == b, "the repacked symlink container differs");

    // A folder that is not empty, or a symlink, is refused and left alone.
    let o = tpb(&[&"neff", &"unpack", &f, &dir])?;
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not empty"), "{}", stderr(&o));
    assert_eq!(tree(&dir), vec!["link2", "link2/x.txt", "manifest.json"]);
    let empty = base.path().join("empty");
    std::fs::create_dir(&empty)?;
    std::os::unix::fs::symlink(&empty, base.path().join("via-link"))?;
    let o = tpb(&[&"neff", &"unpack", &f, &base.path().join("via-link")])?;
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("symbolic link"), "{}", stderr(&o));
    assert_eq!(tree(&empty), Vec::<String>::new());

    // A member file and a folder of the same name: refused, nothing written.
    let tar = build::tar_raw(&[build::RawEntry::file("a", b"1"), build::RawEntry::file("a/b", b"2")])?;
    std::fs::write(&f, build::container_from_tar(1, &tar)?)?;
    let o = tpb(&[&"neff", &"unpack", &f, &base.path().join("clash")])?;
    assert_eq!(o.status.code(), Some(2));
    assert!(!base.path().join("clash").exists());
    Ok(())
}

fn validate_rows(path: &Path) -> R<Vec<Value>> {
    let o = tpb(&[&"validate", &"--spec", &"--json", &path])?;
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    Ok(String::from_utf8(o.stdout)?.lines().map(serde_json::from_str::<Value>).collect::<Result<Vec<_>, _>>()?)
}

#[test]
fn mutate_is_deterministic_and_validate_reports_each_logged_check() -> R {
    let dir = tempfile::tempdir()?;
    let f = root().join("corpus/neff/real/nki-2.23/kernel-fusion_baseline_bf16_s512.neff");
    let out = dir.path().join("m.neff");
    let log_path = dir.path().join("m.neff.mutations.json");
    let run = || -> R<(Vec<u8>, Vec<u8>)> {
        ok(&tpb(&[&"neff", &"mutate", &f, &"-o", &out, &"--seed", &"0x5eed", &"--count", &"12"])?, "mutate");
        Ok((std::fs::read(&out)?, std::fs::read(&log_path)?))
    };
    let first = run()?;
    assert_eq!(first, run()?, "same seed, different output");
    let log: Value = serde_json::from_slice(&first.1)?;
    let muts = log["mutations"].as_array().ok_or("no mutations")?;
    assert_eq!(muts.len(), 12);
    assert_eq!(log["arch"], "v3");

    // Every logged check at its bundle; every other bundle judged as before.
    let (before, after) = (validate_rows(&f)?, validate_rows(&out)?);
    assert_eq!(before.len(), after.len());
    let key = |v: &Value| (v["member"].as_str().unwrap_or("").to_string(), v["index"].as_u64().unwrap_or(u64::MAX));
    let mut mutated = std::collections::BTreeSet::new();
    for m in muts {
        let at = (m["member"].as_str().ok_or("member")?.to_string(), m["index"].as_u64().ok_or("index")?);
        assert_eq!(m["offset"].as_u64(), Some(at.1 * 64));
        assert!(mutated.insert(at.clone()), "bundle mutated twice: {at:?}");
        let row = after.iter().find(|v| key(v) == at).ok_or("no row for a mutated bundle")?;
        let codes: Vec<&str> = row["findings"].as_array().ok_or("findings")?.iter().filter_map(|x| x["code"].as_str()).collect();
        let expect = m["expect"].as_str().ok_or("expect")?;
        assert!(codes.contains(&expect), "{at:?}: expected {expect}, got {codes:?} ({})", m["what"]);
        let orig = before.iter().find(|v| key(v) == at).ok_or("no original row")?;
        assert_eq!(orig["valid"], true, "{at:?} was not valid under the spec");
        assert_eq!(orig["opcode"], m["opcode"]);
    }
    for (a, b) in before.iter().zip(&after) {
        if !mutated.contains(&key(a)) {
            assert_eq!(a["findings"], b["findings"], "{:?} changed", key(a));
        }
    }
    // The log's bytes are the file's bytes.
    let (_, kept) = members(&first.0)?;
    for m in muts {
        let bytes = &kept.iter().find(|(n, _)| Some(n.as_str()) == m["member"].as_str()).ok_or("member")?.1;
        let off = m["offset"].as_u64().ok_or("offset")? as usize;
        let hex: String = bytes[off..off + 64].iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(Value::from(hex), m["mutated"]);
        assert_ne!(m["original"], m["mutated"]);
    }
    // Another seed, other mutations; an explicit log path.
    let other = dir.path().join("other.json");
    ok(&tpb(&[&"neff", &"mutate", &f, &"-o", &out, &"--seed", &"1", &"--count", &"12", &"--log", &other])?, "mutate");
    assert_ne!(std::fs::read(&other)?, first.1);
    Ok(())
}

/// A tar header block (ustar, GNU flavour) for `name` of `size` bytes and type `ty`; sizes past
/// the octal field use GNU base-256, as a hostile archive may.
fn raw_header(name: &[u8], size: u64, ty: u8) -> Vec<u8> {
    let mut h = vec![0u8; 512];
    h[..name.len()].copy_from_slice(name);
    h[100..108].copy_from_slice(b"0000644\0");
    h[108..116].copy_from_slice(b"0000000\0");
    h[116..124].copy_from_slice(b"0000000\0");
    if size < 8u64.pow(11) {
        h[124..136].copy_from_slice(format!("{size:011o}\0").as_bytes());
    } else {
        h[124] = 0x80;
        h[128..136].copy_from_slice(&size.to_be_bytes());
    }
    h[136..148].copy_from_slice(b"00000000000\0");
    h[156] = ty;
    h[257..265].copy_from_slice(b"ustar  \0");
    h[148..156].fill(b' ');
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    h
}

#[test]
fn a_long_name_or_pax_record_claiming_terabytes_is_an_error_not_an_allocation() -> R {
    let base = tempfile::tempdir()?;
    for (ty, what) in [(b'L', "GNU long name"), (b'K', "GNU long link"), (b'x', "pax header")] {
        let mut tar = raw_header(b"././@LongLink", 1 << 40, ty);
        tar.extend_from_slice(&[b'x'; 512]);
        tar.extend(raw_header(b"sg00/PE.bin", 64, b'0'));
        tar.extend_from_slice(&[0; 512]);
        tar.extend_from_slice(&[0; 1024]);
        let f = base.path().join("long.neff");
        std::fs::write(&f, build::container_from_tar(2, &tar)?)?;
        for args in [vec!["neff"], vec!["validate"], vec!["disasm"]] {
            let mut a: Vec<&dyn AsRef<std::ffi::OsStr>> = args.iter().map(|s| s as &dyn AsRef<std::ffi::OsStr>).collect();
            a.push(&f);
            let o = tpb(&a)?;
            // Refused with a reason (never a crash, never an abort on a huge allocation).
            assert_eq!(o.status.code(), Some(2), "{what}, tpb {args:?}: {}", stderr(&o));
            let err = stderr(&o);
            assert!(err.contains("long.neff") && err.contains("tar offset") && err.lines().count() == 1, "{what}, tpb {args:?}: {err}");
        }
        let o = tpb(&[&"neff", &"unpack", &f, &base.path().join("out")])?;
        assert_eq!(o.status.code(), Some(2), "{what}, unpack: {}", stderr(&o));
    }
    Ok(())
}

#[test]
fn special_members_are_named_by_kind_and_repack_to_the_same_tar() -> R {
    // A link that fills its header field exactly needs no GNU long-link record.
    let full = "t".repeat(100);
    let tar = build::tar_raw(&[
        build::RawEntry { name: b"fifo", kind: b'6', link: b"", data: b"" },
        build::RawEntry { name: b"chardev", kind: b'3', link: b"", data: b"" },
        build::RawEntry { name: b"hard", kind: b'1', link: b"fifo", data: b"" },
        build::RawEntry::symlink("full-link", &full),
        build::RawEntry::file(&full, b"data"),
    ])?;
    // The raw builder writes names and links of up to 100 bytes, the header's fields.
    assert!(build::tar_raw(&[build::RawEntry::file(&format!("{full}u"), b"")]).is_err());
    let orig = build::container_from_tar(2, &tar)?;
    let (listing, _) = members(&orig)?;
    let kinds: Vec<(&str, &str)> = listing.iter().map(|m| (m.0.as_str(), m.1.as_str())).collect();
    assert_eq!(kinds, [("fifo", "type 0x36"), ("chardev", "type 0x33"), ("hard", "hardlink"), ("full-link", "symlink"), (full.as_str(), "file")]);
    assert_repacks_to_the_same_tar(&orig)
}

#[test]
fn only_a_non_file_member_with_a_body_keeps_it_in_the_manifest() -> R {
    // A file's bytes go to its own file; a fifo's body (rare, but tar allows it) is kept inline.
    let tar = build::tar_raw(&[
        build::RawEntry { name: b"fifo", kind: b'6', link: b"", data: b"body" },
        build::RawEntry { name: b"empty-fifo", kind: b'6', link: b"", data: b"" },
        build::RawEntry::file("x.txt", b"data"),
    ])?;
    let c = build::container_from_tar(2, &tar)?;
    let x = pack::explode(&c, "data.neff", &neff::Limits::default())?;
    let got: Vec<(&str, Option<&str>, Option<&str>)> =
        x.manifest.members.iter().map(|m| (m.name.as_str(), m.data.as_deref(), m.file.as_deref())).collect();
    assert_eq!(got, [("fifo", Some("626f6479"), None), ("empty-fifo", None, None), ("x.txt", None, Some("x.txt"))]);
    assert_repacks_to_the_same_tar(&c)
}

#[test]
fn a_stream_s_text_never_takes_the_name_of_another_member() -> R {
    // sg00/PE.bin's text would be sg00/PE.tpb, a folder of another member here.
    let pe = tpb_isa::text::assemble("0xb1:unknown")?;
    let tar = build::tar_raw(&[build::RawEntry::file("sg00/PE.bin", &pe), build::RawEntry::file("sg00/PE.tpb/inner.txt", b"x")])?;
    let base = tempfile::tempdir()?;
    let f = base.path().join("clash.neff");
    std::fs::write(&f, build::container_from_tar(2, &tar)?)?;
    let dir = base.path().join("out");
    let o = tpb(&[&"neff", &"unpack", &f, &dir])?;
    ok(&o, "unpack with a text path taken by a folder");
    assert!(stderr(&o).contains("member `sg00/PE.bin`: no text beside it, `sg00/PE.tpb` is taken by another member"), "{}", stderr(&o));
    assert_eq!(tree(&dir), vec!["manifest.json", "sg00", "sg00/PE.bin", "sg00/PE.tpb", "sg00/PE.tpb/inner.txt"]);
    // Nor the name of another member's file, which is written as it is.
    let tar = build::tar_raw(&[build::RawEntry::file("sg00/PE.bin", &pe), build::RawEntry::file("sg00/PE.tpb", b"theirs")])?;
    std::fs::write(&f, build::container_from_tar(2, &tar)?)?;
    let dir = base.path().join("out2");
    let o = tpb(&[&"neff", &"unpack", &f, &dir])?;
    ok(&o, "unpack with a text path taken by a file");
    assert!(stderr(&o).contains("member `sg00/PE.bin`: no text beside it, `sg00/PE.tpb` is taken by another member"), "{}", stderr(&o));
    assert_eq!(std::fs::read(dir.join("sg00/PE.tpb"))?, b"theirs");
    Ok(())
}

#[test]
fn a_link_made_longer_in_the_manifest_is_packed_with_a_gnu_long_link_record() -> R {
    // A link over the header's 100 bytes that no extension carries gets one, as GNU tar writes it.
    let tar = build::tar_raw(&[build::RawEntry::symlink("link", "short"), build::RawEntry::file("x.txt", b"data")])?;
    let base = tempfile::tempdir()?;
    let f = base.path().join("link.neff");
    std::fs::write(&f, build::container_from_tar(2, &tar)?)?;
    let dir = base.path().join("out");
    ok(&tpb(&[&"neff", &"unpack", &f, &dir])?, "unpack");
    let long = format!("{}/target", "d".repeat(150));
    let mut m: Value = serde_json::from_slice(&std::fs::read(dir.join("manifest.json"))?)?;
    m["members"][0]["link"] = Value::from(long.as_str());
    std::fs::write(dir.join("manifest.json"), serde_json::to_vec_pretty(&m)?)?;
    let out = base.path().join("packed.neff");
    ok(&tpb(&[&"neff", &"pack", &dir, &"-o", &out])?, "pack with a long link");
    let again = base.path().join("again");
    ok(&tpb(&[&"neff", &"unpack", &out, &again])?, "unpack the repacked container");
    let m: Value = serde_json::from_slice(&std::fs::read(again.join("manifest.json"))?)?;
    let link = &m["members"][0];
    assert_eq!(link["link"], Value::from(long.as_str()), "{link}");
    let kinds: Vec<&Value> = link["extensions"].as_array().map(|x| x.iter().map(|e| &e["tar"]["type"]).collect()).unwrap_or_default();
    assert_eq!(kinds, [&Value::from("gnu-long-link")], "{link}");
    Ok(())
}

#[test]
fn unpacking_refuses_a_member_over_its_cap_and_takes_one_at_it() -> R {
    // A file member against the member cap; any other kind against the inline cap.
    let limits = neff::Limits { max_member: 100, ..neff::Limits::default() };
    for (size, ok) in [(100, true), (101, false)] {
        let data = vec![b'x'; size];
        let c = build::container_from_tar(2, &build::tar_raw(&[build::RawEntry::file("x.txt", &data)])?)?;
        match pack::explode(&c, "cap.neff", &limits) {
            Ok(_) => assert!(ok, "{size} bytes were taken"),
            Err(e) => {
                assert!(!ok, "{size} bytes: {e}");
                assert!(e.to_string().contains("member claims 101 bytes, over the cap of 100 bytes"), "{e}");
            }
        }
    }
    let data = vec![0u8; pack::MAX_INLINE as usize + 1];
    let c = build::container_from_tar(2, &build::tar_raw(&[build::RawEntry { name: b"fifo", kind: b'6', link: b"", data: &data }])?)?;
    let Err(e) = pack::explode(&c, "cap.neff", &neff::Limits::default()) else { panic!("a fifo of over 1 MiB was taken") };
    assert!(e.to_string().contains(&format!("over the cap of {} bytes for fifo members", pack::MAX_INLINE)), "{e}");
    Ok(())
}

fn gzip_at(bytes: &[u8], level: flate2::Compression) -> R<Vec<u8>> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), level);
    gz.write_all(bytes)?;
    Ok(gz.finish()?)
}

#[test]
fn a_payload_is_packed_at_the_level_its_gzip_header_names() -> R {
    // gzip's XFL byte says "best" (2) or "fastest" (4); pack compresses at that level again,
    // so a container this crate's deflate wrote packs back to the same bytes.
    let mut x = 0x2545_F491u32;
    let data: Vec<u8> = (0..200_000)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if i % 7 < 4 {
                b"abcdefgh"[(x % 8) as usize]
            } else {
                (x >> 24) as u8
            }
        })
        .collect();
    // Every numeric header field written (pack writes an empty one back as octal zeros).
    let tar = tar_with(&[("blob.bin", 0o644, 1000, 1_700_000_000, &data)])?;
    for (level, xfl) in [(flate2::Compression::best(), 2), (flate2::Compression::fast(), 4), (flate2::Compression::default(), 0)] {
        let gz = gzip_at(&tar, level)?;
        assert_eq!(gz[8], xfl);
        for other in [flate2::Compression::best(), flate2::Compression::fast(), flate2::Compression::default()] {
            if other != level {
                assert_ne!(gzip_at(&tar, other)?, gz, "levels {} and {} compress these bytes alike", other.level(), level.level());
            }
        }
        let base = tempfile::tempdir()?;
        let (f, dir, out) = (base.path().join("in.neff"), base.path().join("out"), base.path().join("packed.neff"));
        let orig = build::container_from_payload(2, &gz);
        std::fs::write(&f, &orig)?;
        ok(&tpb(&[&"neff", &"unpack", &f, &dir])?, "unpack");
        ok(&tpb(&[&"neff", &"pack", &dir, &"-o", &out])?, "pack");
        let packed = std::fs::read(&out)?;
        assert!(packed == orig, "level {}: packed bytes differ", level.level());
    }
    Ok(())
}

#[test]
fn empty_numeric_header_fields_are_packed_back_empty() -> R {
    // The tar crate leaves uid and gid unset (NULs) unless told: the manifest records
    // them as blank and pack writes them back so, and the container packs to the same bytes.
    let orig = build::container(2, &[("a.txt", b"data"), ("b.txt", b"more")])?;
    let tar = pack::explode(&orig, "blank.neff", &neff::Limits::default())?;
    let blank: Vec<Vec<&str>> = tar.manifest.members.iter().map(|m| m.tar.blank.keys().map(String::as_str).collect()).collect();
    assert_eq!(blank, [["gid", "uid"], ["gid", "uid"]]);
    let base = tempfile::tempdir()?;
    let (f, dir, out) = (base.path().join("in.neff"), base.path().join("out"), base.path().join("packed.neff"));
    std::fs::write(&f, &orig)?;
    ok(&tpb(&[&"neff", &"unpack", &f, &dir])?, "unpack");
    ok(&tpb(&[&"neff", &"pack", &dir, &"-o", &out])?, "pack");
    assert!(std::fs::read(&out)? == orig, "packed bytes differ");
    Ok(())
}

#[test]
fn a_manifest_of_another_version_or_format_is_refused() -> R {
    let tar = build::tar_raw(&[build::RawEntry::file("a.txt", b"data")])?;
    let (base, _, dir) = unpacked(2, &tar)?;
    let path = dir.join("manifest.json");
    let orig: Value = serde_json::from_slice(&std::fs::read(&path)?)?;
    for (key, value) in [("version", Value::from(999)), ("format", Value::from("not-tpb"))] {
        let mut m = orig.clone();
        m[key] = value.clone();
        std::fs::write(&path, serde_json::to_vec(&m)?)?;
        refused(&tpb(&[&"neff", &"pack", &dir, &"-o", &base.path().join("x.neff")])?, "expected `", key);
    }
    Ok(())
}

#[test]
fn a_device_member_keeps_its_major_and_minor_numbers() -> R {
    let mut t = tar::Builder::new(Vec::new());
    for (name, ty, major, minor) in [("null", tar::EntryType::Char, 1, 3), ("disk", tar::EntryType::Block, 8, 16)] {
        let mut h = tar::Header::new_gnu();
        h.set_path(name)?;
        h.set_entry_type(ty);
        h.set_size(0);
        h.set_mode(0o600);
        h.set_device_major(major)?;
        h.set_device_minor(minor)?;
        h.set_cksum();
        t.append(&h, &b""[..])?;
    }
    let orig = build::container_from_tar(2, &t.into_inner()?)?;
    let x = pack::explode(&orig, "dev.neff", &neff::Limits::default())?;
    let devices: Vec<(&str, Option<[u32; 2]>)> = x.manifest.members.iter().map(|m| (m.name.as_str(), m.tar.device)).collect();
    assert_eq!(devices, [("null", Some([1, 3])), ("disk", Some([8, 16]))]);
    assert_repacks_to_the_same_tar(&orig)
}

#[test]
fn a_ustar_member_with_a_long_name_repacks_in_prefix_and_name() -> R {
    // A 150-byte name splits at a slash into ustar's prefix and name fields, and back.
    let long = format!("{}/{}", "p".repeat(90), "n".repeat(59));
    let mut t = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_ustar();
    h.set_path(&long)?;
    h.set_size(4);
    h.set_mode(0o644);
    h.set_cksum();
    t.append(&h, &b"data"[..])?;
    let orig = build::container_from_tar(2, &t.into_inner()?)?;
    assert_eq!(members(&orig)?.0[0].0, long);
    assert_repacks_to_the_same_tar(&orig)
}

/// `tpb neff unpack` then `tpb neff pack` of `container` gives the same members at the same tar offsets.
fn assert_repacks_to_the_same_tar(container: &[u8]) -> R {
    let base = tempfile::tempdir()?;
    let f = base.path().join("in.neff");
    std::fs::write(&f, container)?;
    let dir = base.path().join("out");
    ok(&tpb(&[&"neff", &"unpack", &f, &dir])?, "unpack");
    let out = base.path().join("packed.neff");
    ok(&tpb(&[&"neff", &"pack", &dir, &"-o", &out])?, "pack");
    assert!(members(&std::fs::read(&out)?)? == members(container)?, "the repacked tar differs");
    Ok(())
}

#[test]
fn a_member_file_that_cannot_be_read_is_an_error_not_a_missing_file() -> R {
    // `x/y.txt` where `x` became a file: the path cannot be read (not a directory), which is
    // not the same as the file being absent.
    let tar = build::tar_raw(&[build::RawEntry::file("x/y.txt", b"data")])?;
    let (base, _, dir) = unpacked(2, &tar)?;
    std::fs::remove_dir_all(dir.join("x"))?;
    std::fs::write(dir.join("x"), b"a file now")?;
    let o = tpb(&[&"neff", &"pack", &dir, &"-o", &base.path().join("p.neff")])?;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("y.txt: cannot read: Not a directory"), "{}", stderr(&o));
    Ok(())
}

#[test]
fn a_pax_size_record_that_already_says_the_size_is_kept_as_written() -> R {
    // `size=00004` is the member's 4 bytes: repacking keeps the record as written (one
    // that says another size is made the member's). pkg_version 1: the payload is the tar.
    let tar = build::tar_raw(&[
        build::RawEntry { name: b"PaxHeaders/x.txt", kind: b'x', link: b"", data: b"14 size=00004\n" },
        build::RawEntry::file("x.txt", b"data"),
    ])?;
    let (base, _, dir) = unpacked(1, &tar)?;
    let out = base.path().join("packed.neff");
    ok(&tpb(&[&"neff", &"pack", &dir, &"-o", &out])?, "pack");
    let packed = std::fs::read(&out)?;
    let h = neff::NeffHeader::read(&packed).ok_or("short")?;
    let (hs, ds) = (h.header_size.get() as usize, h.data_size.get() as usize);
    let payload = packed.get(hs..hs + ds).ok_or("payload past the end")?;
    assert!(payload.windows(14).any(|w| w == b"14 size=00004\n"), "the record was rewritten");
    assert!(members(&packed)? == members(&build::container_from_tar(1, &tar)?)?, "the repacked tar differs");
    Ok(())
}

#[test]
fn an_unpack_folder_that_cannot_be_inspected_is_not_taken_for_absent() -> R {
    // `file/out`, where `file` is a file: the folder cannot be looked at (not a directory),
    // which is an error of its own, not a folder to create.
    let base = tempfile::tempdir()?;
    let f = base.path().join("n.neff");
    std::fs::write(&f, build::container_from_tar(2, &build::tar_raw(&[build::RawEntry::file("a.txt", b"data")])?)?)?;
    let dir = f.join("out");
    let o = tpb(&[&"neff", &"unpack", &f, &dir])?;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(&dir.display().to_string()) && err.contains("cannot read: ") && err.lines().count() == 1, "{err}");
    Ok(())
}

#[test]
fn the_header_name_is_recorded_only_where_an_extension_renamed_the_member() -> R {
    // A pax `path` record names the member; the header's own name field stays as stored.
    let tar = build::tar_raw(&[
        build::RawEntry { name: b"PaxHeaders/short.txt", kind: b'x', link: b"", data: b"22 path=long/name.txt\n" },
        build::RawEntry::file("short.txt", b"data"),
        build::RawEntry::file("plain.txt", b"more"),
    ])?;
    let (_base, f, dir) = unpacked(2, &tar)?;
    let m: Value = serde_json::from_slice(&std::fs::read(dir.join("manifest.json"))?)?;
    let by_name = |n: &str| m["members"].as_array().into_iter().flatten().find(|x| x["name"] == n).cloned().unwrap_or_default();
    assert_eq!(by_name("long/name.txt")["header_name"], "short.txt", "{m}");
    let plain = by_name("plain.txt");
    assert!(plain.is_object() && plain.get("header_name").is_none(), "{plain}");
    assert_repacks_to_the_same_tar(&std::fs::read(&f)?)
}

/// `tar` built with the tar crate: each member a file with the given metadata.
fn tar_with(members: &[(&str, u32, u64, u64, &[u8])]) -> R<Vec<u8>> {
    let mut t = tar::Builder::new(Vec::new());
    for &(path, mode, uid, mtime, data) in members {
        let mut h = tar::Header::new_gnu();
        h.set_mode(mode);
        h.set_uid(uid);
        h.set_gid(uid + 1);
        h.set_mtime(mtime);
        h.set_size(data.len() as u64);
        t.append_data(&mut h, path, data)?;
    }
    Ok(t.into_inner()?)
}

#[test]
fn the_manifest_keeps_each_member_s_mode_owner_and_time() -> R {
    let tar = tar_with(&[("a.txt", 0o755, 1000, 1_700_000_000, b"data"), ("b.txt", 0o600, 0, 0, b"more")])?;
    let (_base, _, dir) = unpacked(2, &tar)?;
    let m: Value = serde_json::from_slice(&std::fs::read(dir.join("manifest.json"))?)?;
    let meta = |i: usize| {
        let t = &m["members"][i]["tar"];
        (t["mode"].as_u64(), t["uid"].as_u64(), t["gid"].as_u64(), t["mtime"].as_u64())
    };
    assert_eq!(meta(0), (Some(0o755), Some(1000), Some(1001), Some(1_700_000_000)), "{m}");
    assert_eq!(meta(1), (Some(0o600), Some(0), Some(1), Some(0)), "{m}");
    Ok(())
}

#[test]
fn a_member_folder_that_cannot_be_created_says_so() -> R {
    // A path component of 300 bytes: no file system takes it, and it does not exist.
    let long = format!("{}/x.txt", "a".repeat(300));
    let tar = tar_with(&[(long.as_str(), 0o644, 0, 0, b"data")])?;
    let base = tempfile::tempdir()?;
    let f = base.path().join("in.neff");
    std::fs::write(&f, build::container_from_tar(2, &tar)?)?;
    let o = tpb(&[&"neff", &"unpack", &f, &base.path().join("out")])?;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot create folder"), "{}", stderr(&o));
    Ok(())
}

#[test]
fn a_pax_link_edited_in_the_manifest_is_the_packed_link_and_a_dotted_path_record_stays() -> R {
    let tar = build::tar_raw(&[
        build::RawEntry { name: b"PaxHeaders/l", kind: b'x', link: b"", data: b"23 linkpath=old-target\n" },
        build::RawEntry::symlink("l", "old-target"),
        build::RawEntry { name: b"PaxHeaders/d", kind: b'x', link: b"", data: b"23 path=./dot/name.txt\n" },
        build::RawEntry::file("d", b"data"),
        build::RawEntry { name: b"PaxHeaders/r", kind: b'x', link: b"", data: b"21 path=long/old.txt\n" },
        build::RawEntry::file("r", b"more"),
    ])?;
    let (base, _, dir) = unpacked(1, &tar)?;
    let path = dir.join("manifest.json");
    let mut m: Value = serde_json::from_slice(&std::fs::read(&path)?)?;
    let Some(link) = m["members"].as_array_mut().into_iter().flatten().find(|x| x["name"] == "l") else { panic!("no member l: {m}") };
    link["link"] = "new-target".into();
    // A member renamed in the manifest: its path record says the new name.
    let Some(renamed) = m["members"].as_array_mut().into_iter().flatten().find(|x| x["name"] == "long/old.txt") else {
        panic!("no member long/old.txt: {m}")
    };
    renamed["name"] = "long/new.txt".into();
    std::fs::write(&path, serde_json::to_vec(&m)?)?;
    let out = base.path().join("packed.neff");
    ok(&tpb(&[&"neff", &"pack", &dir, &"-o", &out])?, "pack");
    let packed = std::fs::read(&out)?;
    let x = pack::explode(&packed, "packed.neff", &neff::Limits::default())?;
    let by_name = |n: &str| x.manifest.members.iter().find(|e| e.name == n).cloned();
    assert_eq!(by_name("l").and_then(|e| e.link).as_deref(), Some("new-target"));
    // `./dot/name.txt` names `dot/name.txt`: the record is kept as written.
    assert!(by_name("dot/name.txt").is_some(), "{:?}", x.manifest.members.iter().map(|e| &e.name).collect::<Vec<_>>());
    assert!(packed.windows(23).any(|w| w == b"23 path=./dot/name.txt\n"), "the path record was rewritten");
    assert!(by_name("long/new.txt").is_some() && by_name("long/old.txt").is_none());
    assert!(packed.windows(21).any(|w| w == b"21 path=long/new.txt\n"), "the renamed member's path record");
    Ok(())
}

/// `tar` in a container of `pkg_version`, written to `in.neff` in a new folder and unpacked
/// to `out` there: the folder (kept alive by the caller), the container's path and `out`.
fn unpacked(pkg_version: u64, tar: &[u8]) -> R<(tempfile::TempDir, PathBuf, PathBuf)> {
    let base = tempfile::tempdir()?;
    let f = base.path().join("in.neff");
    std::fs::write(&f, build::container_from_tar(pkg_version, tar)?)?;
    let dir = base.path().join("out");
    ok(&tpb(&[&"neff", &"unpack", &f, &dir])?, "unpack");
    Ok((base, f, dir))
}

#[test]
fn what_follows_the_archive_s_end_is_packed_back_byte_for_byte() -> R {
    // Zero padding to a whole 10240-byte record is recorded as such; anything else after the
    // end-of-archive blocks (bytes that are not zeros, zeros short of a record boundary, or a
    // whole record of zeros or more) is kept exactly.
    let tar = tar_with(&[("a.txt", 0o644, 0, 0, b"hello")])?;
    let to_record = |n: usize| n.div_ceil(10240) * 10240 - n;
    let mut cases: Vec<(&str, Vec<u8>)> = vec![("padded to a record", vec![0; to_record(tar.len())]), ("zeros short of a record", vec![0; 100])];
    let mut junk = vec![0; to_record(tar.len())];
    junk[7] = 0x5a;
    cases.push(("not zeros, ending on a record", junk));
    cases.push(("a whole record of zeros more", vec![0; to_record(tar.len()) + 10240]));
    let mut cases: Vec<(&str, Vec<u8>)> = cases.into_iter().map(|(what, tail)| (what, [&tar[..], &tail].concat())).collect();
    // A tar that ends on a record boundary (one header, 17 blocks of data, the two end
    // blocks), then exactly one record of zeros.
    let whole = tar_with(&[("b.bin", 0o644, 0, 0, &[7; 17 * 512])])?;
    assert_eq!(whole.len(), 10240);
    cases.push(("exactly one record of zeros after a tar ending on a record", [&whole[..], &[0; 10240]].concat()));
    for (what, payload) in cases {
        let (base, f, dir) = unpacked(1, &payload)?;
        let out = base.path().join("packed.neff");
        ok(&tpb(&[&"neff", &"pack", &dir, &"-o", &out])?, "pack");
        assert!(std::fs::read(&out)? == std::fs::read(&f)?, "{what}: the repacked container differs");
    }
    Ok(())
}

#[test]
fn a_long_name_carried_by_a_gnu_or_pax_record_gets_no_second_one_and_one_carried_by_none_gets_one() -> R {
    // A name over ustar's 100 bytes, carried once by a GNU long-name entry and once by a pax
    // `path` record: each repacks as it came, with no GNU long-name record added.
    let long = format!("{}/{}", "d".repeat(80), "f".repeat(60));
    let mut t = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_size(4);
    h.set_mode(0o644);
    t.append_data(&mut h, &long, &b"data"[..])?;
    let gnu = t.into_inner()?;
    assert!(gnu.windows(13).any(|w| w == b"././@LongLink"), "the tar crate wrote no GNU long name");
    let record = format!("path={long}\n");
    let record = format!("{} {record}", record.len() + 4);
    let pax = build::tar_raw(&[
        build::RawEntry { name: b"PaxHeaders/f", kind: b'x', link: b"", data: record.as_bytes() },
        build::RawEntry::file("f", b"data"),
    ])?;
    for (what, tar) in [("gnu", gnu), ("pax", pax)] {
        let orig = build::container_from_tar(2, &tar)?;
        assert_eq!(members(&orig)?.0.iter().map(|m| m.0.clone()).collect::<Vec<_>>(), std::slice::from_ref(&long), "{what}");
        assert_repacks_to_the_same_tar(&orig)?;
    }
    // A member with a pax extension, renamed in the manifest to a name no header field holds.
    // When the extension has a `path` record (saying the header's own name), that record
    // carries the new name, alone; when it has none (only an mtime), a GNU long-name record
    // is added beside it.
    for (record, gnu) in [(&b"14 path=a.txt\n"[..], false), (&b"11 mtime=1\n"[..], true)] {
        let tar = build::tar_raw(&[
            build::RawEntry { name: b"PaxHeaders/a", kind: b'x', link: b"", data: record },
            build::RawEntry::file("a.txt", b"data"),
        ])?;
        let (base, _, dir) = unpacked(1, &tar)?;
        let path = dir.join("manifest.json");
        let mut m: Value = serde_json::from_slice(&std::fs::read(&path)?)?;
        let Some(member) = m["members"].as_array_mut().into_iter().flatten().find(|x| x["name"] == "a.txt") else { panic!("no member a.txt: {m}") };
        assert!(member.get("header_name").is_none_or(Value::is_null), "the header's name was recorded: {member}");
        assert_eq!(member["extensions"].as_array().map(Vec::len), Some(1), "{member}");
        let unsplittable = "n".repeat(150);
        member["name"] = unsplittable.clone().into();
        member["file"] = "a.txt".into();
        std::fs::write(&path, serde_json::to_vec(&m)?)?;
        let out = base.path().join("packed.neff");
        ok(&tpb(&[&"neff", &"pack", &dir, &"-o", &out])?, "pack");
        let packed = std::fs::read(&out)?;
        assert_eq!(members(&packed)?.0.iter().map(|m| m.0.clone()).collect::<Vec<_>>(), [unsplittable]);
        assert_eq!(packed.windows(13).any(|w| w == b"././@LongLink"), gnu, "a GNU long name beside a pax record of {record:?}");
    }
    Ok(())
}

#[test]
fn a_pax_extension_kept_as_stored_bytes_must_still_describe_its_member() -> R {
    // `015 path=a.txt` is a record a tar reader takes (its length is right) but one that does
    // not re-encode to the same bytes, so the manifest keeps the extension as stored `data`.
    let tar = build::tar_raw(&[
        build::RawEntry { name: b"PaxHeaders/a", kind: b'x', link: b"", data: b"015 path=a.txt\n011 size=5\n" },
        build::RawEntry::file("a.txt", b"hello"),
    ])?;
    let (base, f, dir) = unpacked(1, &tar)?;
    let path = dir.join("manifest.json");
    let original: Value = serde_json::from_slice(&std::fs::read(&path)?)?;
    let x = &original["members"][0]["extensions"][0];
    assert!(x["data"].is_string() && x.get("records").is_none_or(Value::is_null), "not kept as stored bytes: {x}");
    let out = base.path().join("packed.neff");
    ok(&tpb(&[&"neff", &"pack", &dir, &"-o", &out])?, "pack unchanged");
    assert!(std::fs::read(&out)? == std::fs::read(&f)?, "the unchanged container repacks differently");
    // Renamed in the manifest: the stored `path` record would still name a.txt.
    let mut m = original.clone();
    m["members"][0]["name"] = "b.txt".into();
    m["members"][0]["file"] = "a.txt".into();
    std::fs::write(&path, serde_json::to_vec(&m)?)?;
    let o = tpb(&[&"neff", &"pack", &dir, &"-o", &base.path().join("renamed.neff")])?;
    refused(&o, "member b.txt: the packed archive reads its name back as `a.txt`, not `b.txt`", "renamed");
    assert!(!base.path().join("renamed.neff").exists(), "a refused pack wrote its output");
    // Edited to another length: the stored `size` record would still say 5.
    std::fs::write(&path, serde_json::to_vec(&original)?)?;
    std::fs::write(dir.join("a.txt"), b"hello, world")?;
    let o = tpb(&[&"neff", &"pack", &dir, &"-o", &base.path().join("edited.neff")])?;
    refused(&o, "member a.txt: the packed archive reads its size back as `5`, not `12`", "edited");
    // The extension's type edited to a file's: it reads back as a member of its own.
    std::fs::write(dir.join("a.txt"), b"hello")?;
    let mut m = original.clone();
    m["members"][0]["extensions"][0]["tar"]["type"] = "file".into();
    std::fs::write(&path, serde_json::to_vec(&m)?)?;
    let o = tpb(&[&"neff", &"pack", &dir, &"-o", &base.path().join("typed.neff")])?;
    refused(&o, "the packed archive reads back as 2 members, the manifest lists 1", "retyped");
    // A symlink whose stored `linkpath` record names its target: a new target in the manifest is refused.
    let tar = build::tar_raw(&[
        build::RawEntry { name: b"PaxHeaders/l", kind: b'x', link: b"", data: b"019 linkpath=a.txt\n" },
        build::RawEntry { name: b"l", kind: b'2', link: b"a.txt", data: b"" },
    ])?;
    let (base, _, dir) = unpacked(1, &tar)?;
    let path = dir.join("manifest.json");
    let mut m: Value = serde_json::from_slice(&std::fs::read(&path)?)?;
    assert_eq!(m["members"][0]["link"], "a.txt", "{m}");
    m["members"][0]["link"] = "b.txt".into();
    std::fs::write(&path, serde_json::to_vec(&m)?)?;
    let o = tpb(&[&"neff", &"pack", &dir, &"-o", &base.path().join("relinked.neff")])?;
    refused(&o, "member l: the packed archive reads its link back as `a.txt`, not `b.txt`", "relinked");
    Ok(())
}

#[test]
fn a_record_of_zeros_after_a_gzip_member_ending_on_a_record_is_packed_back() -> R {
    // A gzip member exactly one record long (its comment sized to make it so), then one
    // record of zeros: more than padding to a record, so kept byte for byte.
    use std::io::Write;
    let tar = tar_with(&[("a.txt", 0o644, 0, 0, b"hello")])?;
    let gz = |comment: &str| -> R<Vec<u8>> {
        let mut e = flate2::GzBuilder::new().comment(comment).write(Vec::new(), flate2::Compression::default());
        e.write_all(&tar)?;
        Ok(e.finish()?)
    };
    let member = gz(&"c".repeat(10240 - gz("")?.len()))?;
    assert_eq!(member.len(), 10240);
    let dir = tempfile::tempdir()?;
    let f = dir.path().join("in.neff");
    std::fs::write(&f, build::container_from_payload(2, &[&member[..], &[0; 10240]].concat()))?;
    let (u, out) = (dir.path().join("u"), dir.path().join("out.neff"));
    ok(&tpb(&[&"neff", &"unpack", &f, &u])?, "unpack");
    ok(&tpb(&[&"neff", &"pack", &u, &"-o", &out])?, "pack");
    assert!(std::fs::read(&out)? == std::fs::read(&f)?, "the repacked container differs");
    Ok(())
}

#[test]
fn a_digest_that_does_not_match_is_noted_on_unpack_and_written_right_on_pack() -> R {
    let tar = tar_with(&[("a.txt", 0o644, 0, 0, b"hello")])?;
    let mut bytes = build::container_from_tar(2, &tar)?;
    let hash_at = neff::NeffHeader::LAYOUT.field_offset("hash").ok_or("hash")?;
    bytes[hash_at] ^= 0xFF;
    let dir = tempfile::tempdir()?;
    let f = dir.path().join("in.neff");
    std::fs::write(&f, &bytes)?;
    let (u, out) = (dir.path().join("u"), dir.path().join("out.neff"));
    let o = tpb(&[&"neff", &"unpack", &f, &u])?;
    ok(&o, "unpack");
    assert!(stderr(&o).contains("payload integrity: ") && stderr(&o).contains("; pack writes the digest as md5"), "{}", stderr(&o));
    ok(&tpb(&[&"neff", &"pack", &u, &"-o", &out])?, "pack");
    let packed = std::fs::read(&out)?;
    assert!(packed[hash_at] != bytes[hash_at] && packed[..hash_at] == bytes[..hash_at], "the digest was not rewritten");
    Ok(())
}

#[test]
fn pax_headers_keep_their_records_and_other_extensions_their_bytes() -> R {
    // A global pax header (`g`, a member of its own), a local one (`x`) before a member,
    // a GNU long name (`L`) before another: the local pax body is kept as records, the
    // long name as hex, never both; the container repacks to the same tar.
    let tar = build::tar_raw(&[
        build::RawEntry { name: b"pax_global_header", kind: b'g', link: b"", data: b"15 comment=abc\n" },
        build::RawEntry { name: b"PaxHeaders/x.txt", kind: b'x', link: b"", data: b"22 path=long/name.txt\n" },
        build::RawEntry::file("x.txt", b"data"),
        build::RawEntry { name: b"././@LongLink", kind: b'L', link: b"", data: b"a/very/long/name.txt\0" },
        build::RawEntry::file("a/very/long/n", b"more"),
    ])?;
    let container = build::container_from_tar(1, &tar)?;
    let x = pack::explode(&container, "ext.neff", &neff::Limits::default())?;
    let ext: Vec<Vec<(String, bool, bool)>> =
        x.manifest.members.iter().map(|m| m.extensions.iter().map(|e| (e.name.clone(), e.records.is_some(), e.data.is_some())).collect()).collect();
    let want = |n: &str, records: bool| (n.to_string(), records, !records);
    assert_eq!(ext, [vec![], vec![want("PaxHeaders/x.txt", true)], vec![want("././@LongLink", false)]]);
    let records = x.manifest.members[1].extensions[0].records.clone().unwrap_or_default();
    assert_eq!(records, [["path".to_string(), "long/name.txt".to_string()]]);
    assert_repacks_to_the_same_tar(&container)
}

#[test]
fn a_pax_header_with_no_member_after_it_is_refused_by_unpack() -> R {
    // The archive ends right after a local pax header: nothing follows it to describe.
    // Unpack refuses, naming the file, the member before it and the tar offset.
    let tar = build::tar_raw(&[
        build::RawEntry::file("a.txt", b"data"),
        build::RawEntry { name: b"PaxHeaders/b.txt", kind: b'x', link: b"", data: b"22 path=long/name.txt\n" },
    ])?;
    let container = build::container_from_tar(1, &tar)?;
    let e = match pack::explode(&container, "dangling.neff", &neff::Limits::default()) {
        Ok(_) => return Err("a dangling pax header was unpacked".into()),
        Err(e) => e.to_string(),
    };
    assert!(e.starts_with("dangling.neff: after a.txt: tar offset 0xa00: ") && e.contains("no future member"), "{e}");
    Ok(())
}

#[test]
fn unpack_says_what_it_wrote_and_a_folder_member_is_made_no_file() -> R {
    // A folder (`sub/`, its name ending in a slash), two files, a link: four members, two
    // member files written, and the container repacks to the same tar.
    let tar = build::tar_raw(&[
        build::RawEntry { name: b"sub/", kind: b'5', link: b"", data: b"" },
        build::RawEntry::file("sub/a.txt", b"data"),
        build::RawEntry::file("b.txt", b"more"),
        build::RawEntry::symlink("c", "b.txt"),
    ])?;
    let base = tempfile::tempdir()?;
    let (f, dir) = (base.path().join("in.neff"), base.path().join("out"));
    let container = build::container_from_tar(2, &tar)?;
    let kinds: Vec<String> = members(&container)?.0.into_iter().map(|m| m.1).collect();
    assert_eq!(kinds, ["dir", "file", "file", "symlink"]);
    std::fs::write(&f, &container)?;
    let o = tpb(&[&"neff", &"unpack", &f, &dir])?;
    ok(&o, "unpack");
    let said = String::from_utf8_lossy(&o.stdout).to_string();
    let want = format!("{}: 4 members into {}: 2 files, 0 engine streams also as text (.tpb), manifest.json\n", f.display(), dir.display());
    assert_eq!(said, want);
    assert!(dir.join("sub").is_dir() && dir.join("sub/a.txt").is_file() && dir.join("b.txt").is_file());
    // Unpacking again into a file, not a folder, is refused as that.
    let o = tpb(&[&"neff", &"unpack", &f, &dir.join("b.txt")])?;
    refused(&o, "exists and is not a folder", "unpack into a file");
    assert_repacks_to_the_same_tar(&container)
}

#[test]
fn a_ustar_name_of_exactly_100_bytes_stays_in_the_name_field() -> R {
    // 100 bytes fill ustar's name field with no NUL: no split into prefix and name,
    // though the name has a slash where it could split. Packed back byte for byte.
    let name = format!("{}/{}", "p".repeat(49), "n".repeat(50));
    assert_eq!(name.len(), 100);
    let mut t = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_ustar();
    h.set_path(&name)?;
    h.set_size(4);
    h.set_mode(0o644);
    h.set_cksum();
    t.append(&h, &b"data"[..])?;
    let tar = t.into_inner()?;
    assert!(tar[..100] == *name.as_bytes() && tar[345..500].iter().all(|&b| b == 0), "not in the name field alone");
    let orig = build::container_from_tar(1, &tar)?;
    let base = tempfile::tempdir()?;
    let (f, dir, out) = (base.path().join("in.neff"), base.path().join("out"), base.path().join("packed.neff"));
    std::fs::write(&f, &orig)?;
    ok(&tpb(&[&"neff", &"unpack", &f, &dir])?, "unpack");
    ok(&tpb(&[&"neff", &"pack", &dir, &"-o", &out])?, "pack");
    assert!(std::fs::read(&out)? == orig, "packed bytes differ");
    Ok(())
}

#[cfg(unix)]
#[test]
fn pack_follows_no_link_to_a_member_file() -> R {
    // A member file replaced by a link to another file: pack refuses, naming the link.
    let tar = build::tar_raw(&[build::RawEntry::file("a.txt", b"data"), build::RawEntry::file("b.txt", b"more")])?;
    let (base, _, dir) = unpacked(2, &tar)?;
    std::fs::remove_file(dir.join("a.txt"))?;
    std::os::unix::fs::symlink(dir.join("b.txt"), dir.join("a.txt"))?;
    let o = tpb(&[&"neff", &"pack", &dir, &"-o", &base.path().join("p.neff")])?;
    refused(&o, "a.txt: is a symbolic link: pack follows no link", "a linked member file");
    assert!(!base.path().join("p.neff").exists());
    Ok(())
}
