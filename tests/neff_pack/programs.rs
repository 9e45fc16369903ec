//! Real programs taken apart into files and text, edited, mutated and packed back.

use super::*;

#[test]
fn every_committed_real_program_round_trips_through_files_and_text() -> R {
    let dir = tempfile::tempdir()?;
    for (i, f) in real().iter().enumerate() {
        let (unpacked, out) = (dir.path().join(format!("u{i}")), dir.path().join(format!("p{i}.neff")));
        ok(&tpb_os(&[&"neff", &"unpack", f, &unpacked]), "unpack");
        assert!(unpacked.join("manifest.json").is_file() && unpacked.join("sg00/PE.tpb").is_file() && unpacked.join("sg00/PE.bin").is_file());
        let o = tpb_os(&[&"neff", &"pack", &unpacked, &"-o", &out]);
        ok(&o, "pack");
        assert!(stdout(&o).contains(", 0 changed"), "{}", stdout(&o));
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
        tpb_isa::test_skip::skipped(&format!("neff_pack: {} absent", shared.display()));
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

#[test]
fn either_file_of_a_stream_may_be_deleted_but_not_both_nor_the_manifest() -> R {
    let dir = tempfile::tempdir()?;
    let f = root().join("corpus/neff/real/xla-2.14/MODULE_10156376263833043450.neff");
    let u = dir.path().join("u");
    ok(&tpb_os(&[&"neff", &"unpack", &f, &u]), "unpack");
    let pack = |name: &str| -> R<(Output, PathBuf)> {
        let out = dir.path().join(name);
        Ok((tpb_os(&[&"neff", &"pack", &u, &"-o", &out]), out))
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
    ok(&tpb_os(&[&"neff", &"unpack", &f, &u]), "unpack");
    let text_path = u.join("sg00/PE.tpb");
    let text = std::fs::read_to_string(&text_path)?;
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| l.contains(" in_dtype=bf16 ")).ok_or("no bf16 line in sg00/PE.tpb")?;
    let edited: Vec<String> =
        lines.iter().enumerate().map(|(i, l)| if i == at { l.replace(" in_dtype=bf16 ", " in_dtype=f32 ") } else { l.to_string() }).collect();
    std::fs::write(&text_path, edited.join("\n") + "\n")?;
    let out = dir.path().join("edited.neff");
    let o = tpb_os(&[&"neff", &"pack", &u, &"-o", &out]);
    ok(&o, "pack");
    assert!(stdout(&o).contains("changed: sg00/PE.bin (from sg00/PE.tpb)"), "{}", stdout(&o));

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
    let o = tpb_os(&[&"validate", &"--json", &out]);
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
    ok(&tpb_os(&[&"neff", &"unpack", &f, &u]), "unpack");
    let (text_path, bin_path) = (u.join("sg00/PE.tpb"), u.join("sg00/PE.bin"));
    let text = std::fs::read_to_string(&text_path)?;

    // A field no body has: exit 2 naming the file and the line; nothing written.
    let bad = text.replacen("inst_word_len=0x10", "no_such_field=1", 1);
    let line = bad.lines().position(|l| l.contains("no_such_field")).ok_or("no edit")? + 1;
    std::fs::write(&text_path, &bad)?;
    let out = dir.path().join("out.neff");
    let o = tpb_os(&[&"neff", &"pack", &u, &"-o", &out]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("sg00/PE.tpb") && err.contains(&format!("line {line}:")) && err.lines().count() == 1, "{err}");
    assert!(!out.exists());

    // Only the raw file edited: its bytes are packed.
    std::fs::write(&text_path, &text)?;
    let mut bin = std::fs::read(&bin_path)?;
    bin[4] ^= 0x01;
    std::fs::write(&bin_path, &bin)?;
    let o = tpb_os(&[&"neff", &"pack", &u, &"-o", &out]);
    ok(&o, "pack raw edit");
    assert!(stdout(&o).contains("changed: sg00/PE.bin (from sg00/PE.bin)"));
    let (_, kept) = members(&std::fs::read(&out)?)?;
    assert_eq!(kept.iter().find(|(n, _)| n == "sg00/PE.bin").map(|(_, b)| b), Some(&bin));

    // Both edited, differently: refused.
    let edited = text.replacen("inst_word_len=0x10", "inst_word_len=0x11", 1);
    std::fs::write(&text_path, &edited)?;
    let o = tpb_os(&[&"neff", &"pack", &u, &"-o", &out]);
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
        let unpacked = tpb_os(&[&"neff", &"unpack", &f, &u]);
        ok(&unpacked, "unpack");
        assert!(!stderr(&unpacked).contains("payload integrity"), "{form}: {}", stderr(&unpacked));
        let m: Value = serde_json::from_slice(&std::fs::read(u.join("manifest.json"))?)?;
        assert_eq!(m["digest"], form);
        ok(&tpb_os(&[&"neff", &"pack", &u, &"-o", &out]), "pack");
        let packed = std::fs::read(&out)?;
        assert_same_program(&bytes, &packed, &neff_json(&f)?, &neff_json(&out)?, form)?;
    }
    Ok(())
}

#[test]
fn mutate_is_deterministic_and_validate_reports_each_logged_check() -> R {
    let dir = tempfile::tempdir()?;
    let f = root().join("corpus/neff/real/nki-2.23/kernel-fusion_baseline_bf16_s512.neff");
    let out = dir.path().join("m.neff");
    let log_path = dir.path().join("m.neff.mutations.json");
    let run = || -> R<(Vec<u8>, Vec<u8>)> {
        ok(&tpb_os(&[&"neff", &"mutate", &f, &"-o", &out, &"--seed", &"0x5eed", &"--count", &"12"]), "mutate");
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
    ok(&tpb_os(&[&"neff", &"mutate", &f, &"-o", &out, &"--seed", &"1", &"--count", &"12", &"--log", &other]), "mutate");
    assert_ne!(std::fs::read(&other)?, first.1);
    Ok(())
}
