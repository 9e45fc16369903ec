//! The tar archive itself: headers, GNU and pax records, links and trailers packed back as they were.

use super::*;

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
    let o = tpb_os(&[&"neff", &"unpack", &f, &dir]);
    ok(&o, "unpack with a text path taken by a folder");
    assert!(stderr(&o).contains("member `sg00/PE.bin`: no text beside it, `sg00/PE.tpb` is taken by another member"), "{}", stderr(&o));
    assert_eq!(tree(&dir), vec!["manifest.json", "sg00", "sg00/PE.bin", "sg00/PE.tpb", "sg00/PE.tpb/inner.txt"]);
    // Nor the name of another member's file, which is written as it is.
    let tar = build::tar_raw(&[build::RawEntry::file("sg00/PE.bin", &pe), build::RawEntry::file("sg00/PE.tpb", b"theirs")])?;
    std::fs::write(&f, build::container_from_tar(2, &tar)?)?;
    let dir = base.path().join("out2");
    let o = tpb_os(&[&"neff", &"unpack", &f, &dir]);
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
    ok(&tpb_os(&[&"neff", &"unpack", &f, &dir]), "unpack");
    let long = format!("{}/target", "d".repeat(150));
    let mut m: Value = serde_json::from_slice(&std::fs::read(dir.join("manifest.json"))?)?;
    m["members"][0]["link"] = Value::from(long.as_str());
    std::fs::write(dir.join("manifest.json"), serde_json::to_vec_pretty(&m)?)?;
    let out = base.path().join("packed.neff");
    ok(&tpb_os(&[&"neff", &"pack", &dir, &"-o", &out]), "pack with a long link");
    let again = base.path().join("again");
    ok(&tpb_os(&[&"neff", &"unpack", &out, &again]), "unpack the repacked container");
    let m: Value = serde_json::from_slice(&std::fs::read(again.join("manifest.json"))?)?;
    let link = &m["members"][0];
    assert_eq!(link["link"], Value::from(long.as_str()), "{link}");
    let kinds: Vec<&Value> = link["extensions"].as_array().map(|x| x.iter().map(|e| &e["tar"]["type"]).collect()).unwrap_or_default();
    assert_eq!(kinds, [&Value::from("gnu-long-link")], "{link}");
    Ok(())
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
        ok(&tpb_os(&[&"neff", &"unpack", &f, &dir]), "unpack");
        ok(&tpb_os(&[&"neff", &"pack", &dir, &"-o", &out]), "pack");
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
    ok(&tpb_os(&[&"neff", &"unpack", &f, &dir]), "unpack");
    ok(&tpb_os(&[&"neff", &"pack", &dir, &"-o", &out]), "pack");
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
        refused(&tpb_os(&[&"neff", &"pack", &dir, &"-o", &base.path().join("x.neff")]), "expected `", key);
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
    ok(&tpb_os(&[&"neff", &"pack", &dir, &"-o", &out]), "pack");
    let packed = std::fs::read(&out)?;
    let h = neff::NeffHeader::read(&packed).ok_or("short")?;
    let (hs, ds) = (h.header_size.get() as usize, h.data_size.get() as usize);
    let payload = packed.get(hs..hs + ds).ok_or("payload past the end")?;
    assert!(payload.windows(14).any(|w| w == b"14 size=00004\n"), "the record was rewritten");
    assert!(members(&packed)? == members(&build::container_from_tar(1, &tar)?)?, "the repacked tar differs");
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
    ok(&tpb_os(&[&"neff", &"pack", &dir, &"-o", &out]), "pack");
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
        ok(&tpb_os(&[&"neff", &"pack", &dir, &"-o", &out]), "pack");
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
        ok(&tpb_os(&[&"neff", &"pack", &dir, &"-o", &out]), "pack");
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
    ok(&tpb_os(&[&"neff", &"pack", &dir, &"-o", &out]), "pack unchanged");
    assert!(std::fs::read(&out)? == std::fs::read(&f)?, "the unchanged container repacks differently");
    // Renamed in the manifest: the stored `path` record would still name a.txt.
    let mut m = original.clone();
    m["members"][0]["name"] = "b.txt".into();
    m["members"][0]["file"] = "a.txt".into();
    std::fs::write(&path, serde_json::to_vec(&m)?)?;
    let o = tpb_os(&[&"neff", &"pack", &dir, &"-o", &base.path().join("renamed.neff")]);
    refused(&o, "member b.txt: the packed archive reads its name back as `a.txt`, not `b.txt`", "renamed");
    assert!(!base.path().join("renamed.neff").exists(), "a refused pack wrote its output");
    // Edited to another length: the stored `size` record would still say 5.
    std::fs::write(&path, serde_json::to_vec(&original)?)?;
    std::fs::write(dir.join("a.txt"), b"hello, world")?;
    let o = tpb_os(&[&"neff", &"pack", &dir, &"-o", &base.path().join("edited.neff")]);
    refused(&o, "member a.txt: the packed archive reads its size back as `5`, not `12`", "edited");
    // The extension's type edited to a file's: it reads back as a member of its own.
    std::fs::write(dir.join("a.txt"), b"hello")?;
    let mut m = original.clone();
    m["members"][0]["extensions"][0]["tar"]["type"] = "file".into();
    std::fs::write(&path, serde_json::to_vec(&m)?)?;
    let o = tpb_os(&[&"neff", &"pack", &dir, &"-o", &base.path().join("typed.neff")]);
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
    let o = tpb_os(&[&"neff", &"pack", &dir, &"-o", &base.path().join("relinked.neff")]);
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
    ok(&tpb_os(&[&"neff", &"unpack", &f, &u]), "unpack");
    ok(&tpb_os(&[&"neff", &"pack", &u, &"-o", &out]), "pack");
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
    let o = tpb_os(&[&"neff", &"unpack", &f, &u]);
    ok(&o, "unpack");
    assert!(stderr(&o).contains("payload integrity: ") && stderr(&o).contains("; pack writes the digest as md5"), "{}", stderr(&o));
    ok(&tpb_os(&[&"neff", &"pack", &u, &"-o", &out]), "pack");
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
    let o = tpb_os(&[&"neff", &"unpack", &f, &dir]);
    ok(&o, "unpack");
    let said = stdout(&o);
    let want = format!("{}: 4 members into {}: 2 files, 0 engine streams also as text (.tpb), manifest.json\n", f.display(), dir.display());
    assert_eq!(said, want);
    assert!(dir.join("sub").is_dir() && dir.join("sub/a.txt").is_file() && dir.join("b.txt").is_file());
    // Unpacking again into a file, not a folder, is refused as that.
    let o = tpb_os(&[&"neff", &"unpack", &f, &dir.join("b.txt")]);
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
    ok(&tpb_os(&[&"neff", &"unpack", &f, &dir]), "unpack");
    ok(&tpb_os(&[&"neff", &"pack", &dir, &"-o", &out]), "pack");
    assert!(std::fs::read(&out)? == orig, "packed bytes differ");
    Ok(())
}
