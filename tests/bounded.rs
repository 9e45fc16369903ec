//! `tpb validate` and `tpb disasm` read a raw bundle stream a chunk at a time:
//! their peak memory (the child's VmHWM, its resident high-water mark) stays
//! bounded whatever the size of the stream, and the size cap still holds for a
//! stream, after the bundles before it have been judged.

mod support;

use std::io::{Read, Write};
use std::process::{Child, Stdio};
use std::time::Duration;
use support::{command, run, stderr, stdout};

const VALID_COPY: &str = "0x46:TensorCopy src.addr=0x100 src.num=[1,1,1,1] src_dtype=f32 dst_dtype=f32 out.addr=0x200 out.num=[1,1,1,1]";

/// The bound: the whole stream is many times larger.
const MAX_RSS_KIB: u64 = 64 << 10;

fn bundle() -> Vec<u8> {
    tpb_isa::text::assemble(VALID_COPY).expect("assembles")
}

fn spawn(args: &[&str]) -> Child {
    command().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawns tpb")
}

/// The child's VmHWM in KiB, while it runs.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

struct Run {
    code: Option<i32>,
    stdout_tail: String,
    /// Lines of stdout, when counted.
    stdout_lines: u64,
    stderr: String,
    peak_kib: u64,
}

/// Runs tpb with `bytes` bytes of the valid bundle repeated on its stdin (a
/// writer thread), drains stdout (keeping its last line, and counting its lines
/// when `count` says so), and polls the child's VmHWM every 50 ms until it
/// exits, keeping the highest.
fn run_on_stream(args: &[&str], bytes: u64, count: bool) -> Run {
    let mut child = spawn(args);
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let block = bundle().repeat(1 << 14); // 1 MiB
        let mut left = bytes;
        while left > 0 {
            let n = left.min(block.len() as u64) as usize;
            if stdin.write_all(&block[..n]).is_err() {
                break; // tpb stopped reading (the cap): the test looks at its verdict
            }
            left -= n as u64;
        }
    });
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let (mut tail, mut lines, mut buf) = (Vec::new(), 0u64, vec![0u8; 1 << 16]);
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if count {
                        lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
                    }
                    tail.extend_from_slice(&buf[..n]);
                    let keep = tail.len().saturating_sub(4096);
                    tail.drain(..keep);
                }
            }
        }
        let text = String::from_utf8_lossy(&tail).into_owned();
        (text.lines().last().unwrap_or_default().to_string(), lines)
    });
    let mut stderr = child.stderr.take().expect("stderr");
    let errs = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = vm_hwm_kib(pid) {
            peak = peak.max(kib);
        }
        match child.try_wait().expect("waits for tpb") {
            Some(status) => break status,
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    writer.join().expect("writer");
    let (stdout_tail, stdout_lines) = reader.join().expect("reader");
    Run { code: status.code(), stdout_tail, stdout_lines, stderr: errs.join().expect("stderr"), peak_kib: peak }
}

/// The size of the stream: 4 GiB in release builds (`cargo test --release --test bounded`),
/// 1 GiB in debug builds (the same bound, a quarter of the time).
fn big() -> u64 {
    if cfg!(debug_assertions) {
        1 << 30
    } else {
        4 << 30
    }
}

#[test]
fn validate_peak_rss_stays_under_64_mib_on_a_4_gib_stream_1_gib_in_debug() {
    let bytes = big();
    let n = bytes / 64;
    // The cap is raised above the stream: the whole stream is judged (as v2, chosen: nothing on stderr).
    let start = std::time::Instant::now();
    let r = run_on_stream(&["validate", "--arch", "v2", "--max-bytes", &(bytes + 1).to_string(), "/dev/stdin"], bytes, false);
    eprintln!("validate: {} MiB streamed in {:?}, peak RSS (VmHWM) {} KiB", bytes >> 20, start.elapsed(), r.peak_kib);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout_tail, format!("{n} bundles, {n} valid, 0 invalid"));
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    assert!(r.peak_kib > 0, "VmHWM was never read");
    assert!(r.peak_kib < MAX_RSS_KIB, "peak RSS {} KiB on a {} MiB stream", r.peak_kib, bytes >> 20);
    // -q judges chunks on several threads, two windows of them held at once.
    let q = run_on_stream(&["validate", "-q", "--arch", "v2", "--max-bytes", &(bytes + 1).to_string(), "/dev/stdin"], bytes, false);
    assert_eq!((q.code, &q.stdout_tail), (Some(0), &r.stdout_tail), "{}", q.stderr);
    assert!(q.peak_kib > 0 && q.peak_kib < MAX_RSS_KIB, "-q: peak RSS {} KiB on a {} MiB stream", q.peak_kib, bytes >> 20);
}

#[test]
fn disasm_peak_rss_stays_under_64_mib_on_a_256_mib_stream() {
    // Every bundle is a line of text (about 5 times its size): 256 MiB in is over a GiB out.
    let bytes = 256u64 << 20;
    let start = std::time::Instant::now();
    let r = run_on_stream(&["disasm", "--max-bytes", &bytes.to_string(), "/dev/stdin"], bytes, false);
    eprintln!("disasm: {} MiB streamed in {:?}, peak RSS (VmHWM) {} KiB", bytes >> 20, start.elapsed(), r.peak_kib);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    // The last line is the last bundle's.
    assert!(r.stdout_tail.ends_with(&format!("# [{}] +{:#x}", bytes / 64 - 1, bytes - 64)), "{}", r.stdout_tail);
    assert!(r.peak_kib > 0 && r.peak_kib < MAX_RSS_KIB, "peak RSS {} KiB on a {} MiB stream", r.peak_kib, bytes >> 20);
}

#[test]
fn the_cap_stops_a_stream_after_judging_the_bundles_before_it() {
    // 3 MiB + 100 bytes offered, 2 MiB + 640 bytes allowed: 32778 bundles are judged, then one error line.
    let cap = (2u64 << 20) + 640;
    let r = run_on_stream(&["validate", "--arch", "v2", "--max-bytes", &cap.to_string(), "/dev/stdin"], (3 << 20) + 100, false);
    let n = cap / 64;
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert_eq!(r.stdout_tail, format!("{n} bundles, {n} valid, 0 invalid"));
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("/dev/stdin: offset 0x200280: more than the cap of 2097792 bytes"), "{}", r.stderr);
    assert!(r.stderr.contains(&format!("after {n} bundles")), "{}", r.stderr);
    // The same with -q, whose chunks are judged on several threads.
    let q = run_on_stream(&["validate", "-q", "--arch", "v2", "--max-bytes", &cap.to_string(), "/dev/stdin"], (3 << 20) + 100, false);
    assert_eq!((q.code, &q.stdout_tail, &q.stderr), (r.code, &r.stdout_tail, &r.stderr));

    let r = run_on_stream(&["disasm", "--max-bytes", &cap.to_string(), "/dev/stdin"], 4 << 20, true);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert_eq!(r.stdout_lines, 1 + n);
    assert!(r.stderr.contains("offset 0x200280: more than the cap"), "{}", r.stderr);
}

#[test]
fn a_stream_ending_in_a_partial_bundle_is_an_error_naming_its_offset() {
    // A whole number of chunks and then some: the bundles are judged, the tail is refused.
    for cmd in ["validate", "disasm"] {
        // The generation is chosen, so the error is the one line on stderr.
        let args: Vec<&str> = if cmd == "validate" { vec!["validate", "--arch", "v2", "/dev/stdin"] } else { vec![cmd, "/dev/stdin"] };
        let mut child = spawn(&args);
        let mut stdin = child.stdin.take().expect("stdin");
        let writer = std::thread::spawn(move || {
            let mut b = bundle().repeat(1 << 15);
            b.extend_from_slice(&[0x46; 10]);
            let _ = stdin.write_all(&b);
        });
        let o = child.wait_with_output().expect("waits for tpb");
        writer.join().expect("writer");
        let (out, err) = (stdout(&o), stderr(&o));
        assert_eq!(o.status.code(), Some(2), "{cmd}: {err}");
        assert_eq!(err.lines().count(), 1, "{cmd}: {err}");
        assert!(err.contains("/dev/stdin: trailing partial bundle at offset 0x200000: 2097162 bytes"), "{cmd}: {err}");
        if cmd == "validate" {
            assert!(out.ends_with("32768 bundles, 32768 valid, 0 invalid\n"), "{out}");
        } else {
            assert_eq!(out.lines().count(), 1 + 32768);
        }
    }
}

#[test]
fn a_raw_file_is_judged_bundle_by_bundle_as_validate_as_does_across_chunks() {
    use tpb_isa::{validate, Bundle, Generation, Profile};
    // Seeded bytes (mostly invalid bundles), valid bundles and 0xB1 (an erratum's note),
    // over more than one chunk.
    let n = 20_000;
    let mut bytes = tpb_isa::props::seeded_bytes(11, 64 * n);
    let b1 = tpb_isa::text::assemble("0xb1:unknown").expect("assembles");
    for i in 0..n {
        if i % 7 == 0 {
            bytes[i * 64..][..64].copy_from_slice(&bundle());
        } else if i % 11 == 0 {
            bytes[i * 64..][..64].copy_from_slice(&b1);
        }
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mixed.bin");
    std::fs::write(&path, &bytes).expect("write");
    let p = path.to_str().unwrap_or_default();
    for (arch, g, spec) in [("v2", Generation::V2, false), ("v3", Generation::V3, false), ("v3", Generation::V3, true), ("v4", Generation::V4, false)]
    {
        let mut args = vec!["validate", "--json", "--arch", arch, p];
        if spec {
            args.insert(1, "--spec");
        }
        let o = run(command().args(&args));
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let text = stdout(&o);
        let profile = if spec { Profile::Spec } else { Profile::Amended };
        let mut lines = 0;
        for (i, line) in text.lines().enumerate() {
            let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let raw: &[u8; 64] = bytes[i * 64..][..64].try_into().expect("64 bytes");
            let expected = validate::validate_as(&Bundle::decode(raw), g, profile);
            assert_eq!((v["offset"].as_u64(), v["index"].as_u64()), (Some(i as u64 * 64), Some(i as u64)), "{args:?}");
            assert_eq!(v["findings"], serde_json::to_value(&expected).expect("findings"), "{args:?}: bundle {i}");
            assert_eq!(v["valid"], validate::is_valid(&expected), "{args:?}: bundle {i}");
            lines += 1;
        }
        assert_eq!(lines, n, "{args:?}");
    }
}

/// `-q` on a raw file judges its chunks on several threads: the count line,
/// the error lines and the exit code are those of one thread, on a stream of
/// several chunks with invalid bundles scattered through it, on one without,
/// and on one with a trailing partial bundle (refused); mapped (the files are
/// large enough) or read (`TPB_NO_MMAP=1`) alike.
#[test]
fn quiet_validation_on_several_threads_says_what_one_thread_says() {
    let good = bundle();
    let mut bad = good.clone();
    bad[0] = 0xEE; // an opcode no table has
    let dir = std::env::temp_dir().join(format!("tpb-quiet-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // 4.5 MiB: five chunks, the last a half one; large enough to be mapped.
    let n = (9 << 20) / 2 / good.len();
    let mixed: Vec<u8> = (0..n).flat_map(|i| if i % 1009 == 0 || i == n - 1 { bad.clone() } else { good.clone() }).collect();
    let clean: Vec<u8> = good.repeat(n);
    let partial = {
        let mut p = mixed.clone();
        p.extend_from_slice(&good[..17]);
        p
    };
    for (name, bytes, code) in [("mixed.bin", &mixed, 1), ("clean.bin", &clean, 0), ("partial.bin", &partial, 2)] {
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("writes");
        let run_with = |threads: &str, no_map: &str| {
            let o = run(command().args(["validate", "-q"]).arg(&path).env("TPB_THREADS", threads).env("TPB_NO_MMAP", no_map));
            (o.status.code(), stdout(&o), stderr(&o))
        };
        let run = |threads: &str| run_with(threads, "0");
        let one = run("1");
        assert_eq!(run_with("1", "1"), one, "{name} read, not mapped");
        assert_eq!(run_with("2", "1"), one, "{name} read on 2 threads");
        assert_eq!(one.0, Some(code), "{name}: {one:?}");
        if code != 2 {
            let want_invalid = if code == 0 { 0 } else { (0..n).filter(|i| i % 1009 == 0 || *i == n - 1).count() };
            assert_eq!(one.1, format!("{n} bundles, {} valid, {want_invalid} invalid\n", n - want_invalid), "{name}");
        }
        for threads in ["2", "3", "8"] {
            assert_eq!(run(threads), one, "{name} on {threads} threads");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
