//! Every file `tpb` writes is written safely: `-o` writes into a device or a
//! FIFO rather than replacing it, follows a symlink to replace its target, and
//! `tpb asm` reads its input under a cap, refuses binary input at once and
//! never echoes a huge or control-laden token.

use crate::support::{code, command, run, stderr, stdout, tpb};
use std::io::Read as _;
use std::os::unix::fs::{symlink, FileTypeExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const IO_ERROR: i32 = 2;

fn header() -> String {
    String::from_utf8(tpb(&["header"]).stdout).expect("header is text")
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(2) == Some("0")))
        .unwrap_or(false)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Runs tpb, killing it after `limit`: `None` when it had to be killed.
fn run_within(args: &[&str], limit: Duration) -> Option<Output> {
    let mut child = command().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawns tpb");
    let start = Instant::now();
    while child.try_wait().expect("polls tpb").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(child.wait_with_output().expect("collects tpb"))
}

#[test]
fn header_into_a_fifo_writes_through_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("pipe.h");
    match Command::new("mkfifo").arg(&fifo).status() {
        Ok(st) if st.success() => {}
        _ => {
            eprintln!("note: mkfifo is not available: FIFO output not tested");
            return;
        }
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let path = fifo.clone();
    std::thread::spawn(move || {
        let mut got = String::new();
        let read = std::fs::File::open(&path).and_then(|mut f| f.read_to_string(&mut got));
        let _ = tx.send(read.map(|_| got));
    });
    let o = run_within(&["header", "-o", s(&fifo)], Duration::from_secs(30)).expect("tpb header -o FIFO finishes");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&fifo).expect("stat").file_type().is_fifo(), "the FIFO was replaced by a file");
    let got = rx.recv_timeout(Duration::from_secs(10)).expect("the reader got the header").expect("reads the FIFO");
    assert_eq!(got, header());
}

#[test]
fn header_into_dev_null_leaves_the_device() {
    if !is_root() {
        eprintln!("note: not root: /dev/null could not be replaced anyway, not tested");
        return;
    }
    let o = tpb(&["header", "-o", "/dev/null"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let m = std::fs::symlink_metadata("/dev/null").expect("stat /dev/null");
    assert!(m.file_type().is_char_device(), "/dev/null is no longer a device: {:?}", m.file_type());
}

#[test]
fn asm_into_a_device_node_writes_into_it() {
    // The same as /dev/null on a private node, when this user may make one.
    let dir = tempfile::tempdir().expect("tempdir");
    let node = dir.path().join("null");
    if !matches!(Command::new("mknod").arg(&node).args(["c", "1", "3"]).stderr(Stdio::null()).status(), Ok(st) if st.success()) {
        eprintln!("note: cannot mknod here: device output tested on /dev/null only");
        return;
    }
    let text = write(dir.path(), "prog.tpb", VALID_COPY.as_bytes());
    let o = tpb(&["asm", s(&text), "-o", s(&node)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&node).expect("stat").file_type().is_char_device(), "the device node was replaced");
}

#[test]
fn header_through_a_symlink_replaces_its_target() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (link, real) = (dir.path().join("out.h"), dir.path().join("real.h"));
    std::fs::write(&real, "old").expect("write real.h");
    symlink("real.h", &link).expect("symlink");
    let o = tpb(&["header", "-o", s(&link)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&link).expect("stat").file_type().is_symlink(), "out.h is no longer a symlink");
    assert_eq!(std::fs::read_to_string(&real).expect("read real.h"), header());

    // A dangling link: its target is created.
    std::fs::remove_file(&real).expect("remove real.h");
    let o = tpb(&["header", "-o", s(&link)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&link).expect("stat").file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&real).expect("read real.h"), header());
}

#[test]
fn header_into_dev_stdout_writes_to_what_stdout_is() {
    if !Path::new("/dev/stdout").exists() {
        eprintln!("note: no /dev/stdout here: not tested");
        return;
    }
    // A pipe.
    let o = tpb(&["header", "-o", "/dev/stdout"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), header());
    // A file the shell opened for appending keeps what it held.
    let dir = tempfile::tempdir().expect("tempdir");
    let log = write(dir.path(), "log", b"before\n");
    let o =
        Command::new("sh").args(["-c", "exec \"$0\" header -o /dev/stdout >>\"$1\"", env!("CARGO_BIN_EXE_tpb"), s(&log)]).output().expect("runs sh");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&log).expect("read log"), format!("before\n{}", header()));
}

const VALID_COPY: &str = "0x46:TensorCopy src.addr=0x100 src.num=[1,1,1,1] src_dtype=f32 dst_dtype=f32 out.addr=0x200 out.num=[1,1,1,1]\n";

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write fixture");
    p
}

#[test]
fn asm_of_dev_zero_is_refused_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("x.bin");
    let o = run_within(&["asm", "/dev/zero", "-o", s(&out)], Duration::from_secs(20)).expect("tpb asm /dev/zero stops by itself");
    assert_eq!(code(&o), IO_ERROR, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("/dev/zero") && err.contains("tpb disasm"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!out.exists());
}

#[test]
fn asm_input_over_the_cap_is_refused_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = write(dir.path(), "big.tpb", VALID_COPY.repeat(4).as_bytes());
    let out = dir.path().join("big.bin");
    let o = tpb(&["asm", "--max-bytes", "100", s(&text), "-o", s(&out)]);
    assert_eq!(code(&o), IO_ERROR, "{}", stderr(&o));
    assert!(stderr(&o).contains("over the cap of 100 bytes"), "{}", stderr(&o));
    assert!(!out.exists());
    // The same through a pipe, whose length says nothing.
    let o = Command::new("sh")
        .args(["-c", "cat \"$1\" | \"$0\" asm --max-bytes 100 /dev/stdin -o \"$2\""])
        .args([env!("CARGO_BIN_EXE_tpb"), s(&text), s(&out)])
        .output()
        .expect("runs sh");
    assert_eq!(code(&o), IO_ERROR, "{}", stderr(&o));
    assert!(stderr(&o).contains("more than the cap of 100 bytes"), "{}", stderr(&o));
    // Under the cap it assembles; so does text of exactly the cap, from the file and through a pipe.
    let o = tpb(&["asm", "--max-bytes", "1000", s(&text), "-o", s(&out)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::metadata(&out).expect("stat").len(), 4 * 64);
    let exact = std::fs::metadata(&text).expect("stat").len().to_string();
    let o = tpb(&["asm", "--max-bytes", &exact, s(&text), "-o", s(&out)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = Command::new("sh")
        .args(["-c", "cat \"$1\" | \"$0\" asm --max-bytes \"$3\" /dev/stdin -o \"$2\""])
        .args([env!("CARGO_BIN_EXE_tpb"), s(&text), s(&out), &exact])
        .output()
        .expect("runs sh");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn asm_refuses_an_endless_stream_that_is_not_utf8_at_its_head() {
    // 0xFF lines without end: refused once the head is seen, not read to the (huge) cap.
    use std::io::Write as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.bin");
    let mut child = command()
        .args(["asm", "--max-bytes", "1099511627776", "/dev/stdin", "-o", s(&out)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns tpb");
    let mut stdin = child.stdin.take().expect("stdin");
    // Writes until tpb has gone (the pipe breaks).
    let writer = std::thread::spawn(move || while stdin.write_all(&[0xFF, b'\n'].repeat(4096)).is_ok() {});
    let start = Instant::now();
    while child.try_wait().expect("polls tpb").is_none() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let o = child.wait_with_output().expect("collects tpb");
    writer.join().expect("writer");
    assert!(start.elapsed() < Duration::from_secs(20), "tpb asm read on past the head");
    assert_eq!(code(&o), IO_ERROR, "{}", stderr(&o));
    assert!(stderr(&o).contains("offset 0x0: not UTF-8"), "{}", stderr(&o));
}

#[test]
fn asm_of_binary_bundles_says_to_disassemble_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = write(dir.path(), "prog.bin", &tpb_isa::text::assemble(VALID_COPY).expect("assembles"));
    let out = dir.path().join("out.bin");
    let o = tpb(&["asm", s(&bin), "-o", s(&out)]);
    assert_eq!(code(&o), IO_ERROR, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("prog.bin") && err.contains("binary bundles") && err.contains("tpb disasm"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!out.exists());
    // No NUL but not UTF-8 either (0xFF never is).
    let bin = write(dir.path(), "ff.bin", &[0xFF; 64]);
    let o = tpb(&["asm", s(&bin), "-o", s(&out)]);
    assert_eq!(code(&o), IO_ERROR, "{}", stderr(&o));
    assert!(stderr(&o).contains("not UTF-8") && stderr(&o).contains("tpb disasm"), "{}", stderr(&o));
    // A short file that ends inside a character.
    let cut = write(dir.path(), "cut.tpb", b"# comment \xC3");
    let o = tpb(&["asm", s(&cut), "-o", s(&out)]);
    assert_eq!(code(&o), IO_ERROR, "{}", stderr(&o));
    assert!(stderr(&o).contains("offset 0xa: not UTF-8"), "{}", stderr(&o));
}

#[test]
fn asm_text_longer_than_the_head_still_assembles() {
    // A character cut by the 64 KiB head is judged with the rest.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = "#".repeat((64 << 10) - 1);
    text.push_str("é\n");
    text.push_str(&VALID_COPY.repeat(2000));
    let path = write(dir.path(), "long.tpb", text.as_bytes());
    let out = dir.path().join("long.bin");
    let o = tpb(&["asm", s(&path), "-o", s(&out)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::metadata(&out).expect("stat").len(), 2000 * 64);
}

#[test]
fn asm_errors_quote_a_huge_token_cut_and_escaped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let token = format!("\x1b[31m{}", "A".repeat(1 << 20));
    let path = write(dir.path(), "evil.tpb", format!("{token}\nforged line\n").as_bytes());
    let out = dir.path().join("evil.bin");
    let o = tpb(&["asm", s(&path), "-o", s(&out)]);
    assert_eq!(code(&o), IO_ERROR, "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err:.400}");
    assert!(err.len() < 600, "{} bytes of error: {err:.400}", err.len());
    assert!(!err.contains('\x1b'), "{err:?}");
    assert!(err.contains("\\u{1b}[31mAAA") && err.contains('…'), "{err}");
    assert!(!out.exists());
}

#[test]
fn the_temporary_file_is_made_beside_the_output_not_in_the_working_folder() {
    // Nothing can be created in /proc, not even by root: a temporary file made
    // in the working folder instead of the output's would fail the write.
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.h");
    let o = run(command().current_dir("/proc").args(["header", "-o", s(&out)]));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).expect("read out.h"), header());
}
