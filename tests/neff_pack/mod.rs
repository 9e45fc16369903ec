//! `tpb neff unpack` / `pack` / `mutate`: a real program taken apart into
//! files and text, edited, and packed back. Members are compared through
//! the oracle's own tar reader (`neff::payload::unpack`), summaries through
//! `tpb neff --json`.

mod archive;
mod programs;
mod safety;

pub(super) use crate::support::{root, stderr, stdout, tpb_os};
pub(super) use serde_json::Value;
pub(super) use std::path::{Path, PathBuf};
pub(super) use std::process::Output;
pub(super) use tpb_oracle::neff::{self, build, pack};

pub(super) type R<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// `o` is a refusal (exit 2) whose message says `says`.
pub(super) fn refused(o: &Output, says: &str, what: &str) {
    assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(o));
    assert!(stderr(o).contains(says), "{what}: {}", stderr(o));
}

pub(super) fn ok(o: &Output, what: &str) {
    assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(o));
}

/// Every `*.neff` under `dir`, sorted.
pub(super) fn neffs(dir: &Path) -> Vec<PathBuf> {
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

pub(super) fn real() -> Vec<PathBuf> {
    let files = neffs(&root().join("corpus/neff/real"));
    assert_eq!(files.len(), 11, "committed real programs: {files:?}");
    files
}

/// The listing (name, kind, size, tar offset) and every file member's bytes, by the oracle's reader.
pub(super) type Members = (Vec<(String, String, u64, u64)>, Vec<(String, Vec<u8>)>);

pub(super) fn members(bytes: &[u8]) -> R<Members> {
    let h = neff::NeffHeader::read(bytes).ok_or("short")?;
    let (hs, ds) = (h.header_size.get() as usize, h.data_size.get() as usize);
    let limits = neff::Limits::default();
    let keep = |_: &str| Some(neff::payload::Keep { cap: limits.max_member, cap_for: "" });
    let un = neff::payload::unpack("t", &bytes[hs..hs + ds], hs as u64, &limits, &keep)?;
    Ok((un.members.into_iter().map(|m| (m.name, m.kind, m.size, m.tar_offset)).collect(), un.kept))
}

/// `tpb neff --json` of one file, without the fields a repack changes (its
/// name, sizes and the payload digest).
pub(super) fn summary_modulo_payload(v: &Value) -> Value {
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

pub(super) fn neff_json(path: &Path) -> R<Value> {
    let o = tpb_os(&[&"neff", &"--json", &path]);
    ok(&o, "tpb neff --json");
    Ok(serde_json::from_slice(&o.stdout)?)
}

/// The original and its repack hold the same members, byte for byte, at the
/// same tar offsets, and read the same apart from the payload's size and digest.
pub(super) fn assert_same_program(orig: &[u8], packed: &[u8], a: &Value, b: &Value, what: &str) -> R {
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

/// The disassembly lines of a container, by member and index (location comments dropped).
pub(super) fn disasm(path: &Path) -> R<Vec<String>> {
    let o = tpb_os(&[&"disasm", &path]);
    ok(&o, "disasm");
    Ok(String::from_utf8(o.stdout)?.lines().filter(|l| !l.starts_with('#')).map(str::to_string).collect())
}

/// Names of everything under `dir`, recursively (links not followed).
pub(super) fn tree(dir: &Path) -> Vec<String> {
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

pub(super) fn validate_rows(path: &Path) -> R<Vec<Value>> {
    let o = tpb_os(&[&"validate", &"--spec", &"--json", &path]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    Ok(String::from_utf8(o.stdout)?.lines().map(serde_json::from_str::<Value>).collect::<Result<Vec<_>, _>>()?)
}

/// A tar header block (ustar, GNU flavour) for `name` of `size` bytes and type `ty`; sizes past
/// the octal field use GNU base-256, as a hostile archive may.
pub(super) fn raw_header(name: &[u8], size: u64, ty: u8) -> Vec<u8> {
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

pub(super) fn gzip_at(bytes: &[u8], level: flate2::Compression) -> R<Vec<u8>> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), level);
    gz.write_all(bytes)?;
    Ok(gz.finish()?)
}

/// `tpb neff unpack` then `tpb neff pack` of `container` gives the same members at the same tar offsets.
pub(super) fn assert_repacks_to_the_same_tar(container: &[u8]) -> R {
    let base = tempfile::tempdir()?;
    let f = base.path().join("in.neff");
    std::fs::write(&f, container)?;
    let dir = base.path().join("out");
    ok(&tpb_os(&[&"neff", &"unpack", &f, &dir]), "unpack");
    let out = base.path().join("packed.neff");
    ok(&tpb_os(&[&"neff", &"pack", &dir, &"-o", &out]), "pack");
    assert!(members(&std::fs::read(&out)?)? == members(container)?, "the repacked tar differs");
    Ok(())
}

/// `tar` built with the tar crate: each member a file with the given metadata.
pub(super) fn tar_with(members: &[(&str, u32, u64, u64, &[u8])]) -> R<Vec<u8>> {
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

/// `tar` in a container of `pkg_version`, written to `in.neff` in a new folder and unpacked
/// to `out` there: the folder (kept alive by the caller), the container's path and `out`.
pub(super) fn unpacked(pkg_version: u64, tar: &[u8]) -> R<(tempfile::TempDir, PathBuf, PathBuf)> {
    let base = tempfile::tempdir()?;
    let f = base.path().join("in.neff");
    std::fs::write(&f, build::container_from_tar(pkg_version, tar)?)?;
    let dir = base.path().join("out");
    ok(&tpb_os(&[&"neff", &"unpack", &f, &dir]), "unpack");
    Ok((base, f, dir))
}
