//! Hostile or unreadable inputs: refused with a message, nothing written outside, no allocation on a claim.

use super::*;

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
        let o = tpb_os(&[&"neff", &"unpack", &f, &dir]);
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
    let o = tpb_os(&[&"neff", &"unpack", &f, &dir]);
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
    ok(&tpb_os(&[&"neff", &"pack", &dir, &"-o", &out]), "pack with a symlink");
    let packed = std::fs::read(&out)?;
    let (listing, _) = members(&packed)?;
    assert_eq!(listing[0].0, "link");
    assert_eq!(listing[0].1, "symlink");
    let (a, b) = (members(&packed)?, members(&std::fs::read(&f)?)?);
    assert!(a == b, "the repacked symlink container differs");

    // A folder that is not empty, or a symlink, is refused and left alone.
    let o = tpb_os(&[&"neff", &"unpack", &f, &dir]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not empty"), "{}", stderr(&o));
    assert_eq!(tree(&dir), vec!["link2", "link2/x.txt", "manifest.json"]);
    let empty = base.path().join("empty");
    std::fs::create_dir(&empty)?;
    std::os::unix::fs::symlink(&empty, base.path().join("via-link"))?;
    let o = tpb_os(&[&"neff", &"unpack", &f, &base.path().join("via-link")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("symbolic link"), "{}", stderr(&o));
    assert_eq!(tree(&empty), Vec::<String>::new());

    // A member file and a folder of the same name: refused, nothing written.
    let tar = build::tar_raw(&[build::RawEntry::file("a", b"1"), build::RawEntry::file("a/b", b"2")])?;
    std::fs::write(&f, build::container_from_tar(1, &tar)?)?;
    let o = tpb_os(&[&"neff", &"unpack", &f, &base.path().join("clash")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!base.path().join("clash").exists());
    Ok(())
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
            let o = tpb_os(&a);
            // Refused with a reason (never a crash, never an abort on a huge allocation).
            assert_eq!(o.status.code(), Some(2), "{what}, tpb {args:?}: {}", stderr(&o));
            let err = stderr(&o);
            assert!(err.contains("long.neff") && err.contains("tar offset") && err.lines().count() == 1, "{what}, tpb {args:?}: {err}");
        }
        let o = tpb_os(&[&"neff", &"unpack", &f, &base.path().join("out")]);
        assert_eq!(o.status.code(), Some(2), "{what}, unpack: {}", stderr(&o));
    }
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

#[test]
fn a_member_file_that_cannot_be_read_is_an_error_not_a_missing_file() -> R {
    // `x/y.txt` where `x` became a file: the path cannot be read (not a directory), which is
    // not the same as the file being absent.
    let tar = build::tar_raw(&[build::RawEntry::file("x/y.txt", b"data")])?;
    let (base, _, dir) = unpacked(2, &tar)?;
    std::fs::remove_dir_all(dir.join("x"))?;
    std::fs::write(dir.join("x"), b"a file now")?;
    let o = tpb_os(&[&"neff", &"pack", &dir, &"-o", &base.path().join("p.neff")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("y.txt: cannot read: Not a directory"), "{}", stderr(&o));
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
    let o = tpb_os(&[&"neff", &"unpack", &f, &dir]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(&dir.display().to_string()) && err.contains("cannot read: ") && err.lines().count() == 1, "{err}");
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
    let o = tpb_os(&[&"neff", &"unpack", &f, &base.path().join("out")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot create folder"), "{}", stderr(&o));
    Ok(())
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

#[cfg(unix)]
#[test]
fn pack_follows_no_link_to_a_member_file() -> R {
    // A member file replaced by a link to another file: pack refuses, naming the link.
    let tar = build::tar_raw(&[build::RawEntry::file("a.txt", b"data"), build::RawEntry::file("b.txt", b"more")])?;
    let (base, _, dir) = unpacked(2, &tar)?;
    std::fs::remove_file(dir.join("a.txt"))?;
    std::os::unix::fs::symlink(dir.join("b.txt"), dir.join("a.txt"))?;
    let o = tpb_os(&[&"neff", &"pack", &dir, &"-o", &base.path().join("p.neff")]);
    refused(&o, "a.txt: is a symbolic link: pack follows no link", "a linked member file");
    assert!(!base.path().join("p.neff").exists());
    Ok(())
}
