//! The process transport: a command that reads one request per line on
//! stdin and writes one answer per line on stdout. Requests go in batches
//! (a writer thread, so a worker that stops reading never blocks the
//! harness); each answer is awaited at most the timeout, counted from the
//! previous answer, so a hang cannot stretch it. A worker that dies, hangs or
//! writes something other than one line is restarted and the batch goes on
//! after the request it failed on.

use super::Worker;
use crate::reply::Reply;
use crate::request::Request;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The longest answer line taken (the longest real decode is ~700 bytes).
pub const LINE_CAP: usize = 1 << 16;
/// How much of the worker's stderr a crash report keeps (its end).
const STDERR_TAIL: usize = 2048;
/// How long a lone request waits for a second answer line when a batch
/// showed more lines than requests.
const GRACE: Duration = Duration::from_millis(50);

#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error("--cmd: {0}")]
    Command(String),
}

/// A worker command, started on first use and after every failure.
pub struct Process {
    argv: Vec<String>,
    timeout: Duration,
    running: Option<Running>,
    /// How many times it was started.
    pub starts: u64,
    /// How long, after a batch's last answer, a line no request asked for is
    /// waited for: a worker that writes two lines for one request is found
    /// when its extra line arrives within it.
    pub settle: Duration,
}

struct Running {
    child: Child,
    to_stdin: Sender<Vec<u8>>,
    lines: Receiver<Line>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

enum Line {
    Text(String),
    TooLong,
    NotUtf8,
    End,
}

impl Process {
    /// `cmd` split as a POSIX shell splits words (no expansion).
    pub fn new(cmd: &str, timeout: Duration) -> Result<Process, ProcessError> {
        let argv = shlex::split(cmd)
            .filter(|a| !a.is_empty())
            .ok_or_else(|| ProcessError::Command(format!("cannot split `{}` into words", cmd.escape_debug())))?;
        Ok(Process::from_argv(argv, timeout))
    }

    pub fn from_argv(argv: Vec<String>, timeout: Duration) -> Process {
        Process { argv, timeout, running: None, starts: 0, settle: Duration::from_millis(1) }
    }

    fn start(&mut self) -> Result<&mut Running, String> {
        if self.running.is_none() {
            let (prog, args) = self.argv.split_first().ok_or("an empty command")?;
            let mut child = Command::new(prog)
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| format!("cannot start `{}`: {e}", prog.escape_debug()))?;
            self.starts += 1;
            let (stdin, stdout, stderr) = match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => return Err("the worker's pipes were not opened".to_string()),
            };
            let (to_stdin, from_harness) = mpsc::channel::<Vec<u8>>();
            std::thread::spawn(move || write_requests(stdin, from_harness));
            let (to_harness, lines) = mpsc::channel();
            std::thread::spawn(move || read_answers(stdout, to_harness));
            let tail = Arc::new(Mutex::new(Vec::new()));
            let keep = Arc::clone(&tail);
            std::thread::spawn(move || keep_tail(stderr, keep));
            self.running = Some(Running { child, to_stdin, lines, stderr: tail });
        }
        self.running.as_mut().ok_or_else(|| "not running".to_string())
    }

    /// Ends the worker (killed: it may be hung) and says how it had ended.
    fn stop(&mut self) -> String {
        let Some(mut r) = self.running.take() else { return String::new() };
        let status = match r.child.try_wait() {
            Ok(Some(s)) => Some(s),
            _ => {
                // Give an exiting worker a moment, then kill it.
                std::thread::sleep(Duration::from_millis(20));
                match r.child.try_wait() {
                    Ok(Some(s)) => Some(s),
                    _ => {
                        let _ = r.child.kill();
                        None
                    }
                }
            }
        };
        let _ = r.child.wait();
        let how = match status {
            Some(s) => describe(s),
            None => "killed by the harness".to_string(),
        };
        // The stderr reader ends with the process; give it a moment to take the last bytes.
        std::thread::sleep(Duration::from_millis(5));
        let tail = r.stderr.lock().map(|t| String::from_utf8_lossy(&t).trim().to_string()).unwrap_or_default();
        if tail.is_empty() {
            how
        } else {
            format!("{how}; stderr ends: {}", tail.escape_debug())
        }
    }

    /// Sends `batch` and takes one reply per request; `Err(i, reply)` when
    /// request `i` got a failure (the replies before it are in `got`).
    fn round(&mut self, batch: &[Request], got: &mut Vec<Reply>) -> Result<(), Reply> {
        let timeout = self.timeout;
        let r = match self.start() {
            Ok(r) => r,
            Err(why) => return Err(Reply::Crash(why)),
        };
        let mut text = Vec::with_capacity(batch.len() * 140);
        for req in batch {
            text.extend_from_slice(req.line().as_bytes());
            text.push(b'\n');
        }
        // A closed stdin shows as the end of stdout below.
        let _ = r.to_stdin.send(text);
        for _ in batch {
            match r.lines.recv_timeout(timeout) {
                Ok(Line::Text(t)) => got.push(Reply::Answer(t)),
                Ok(Line::TooLong) => return Err(Reply::Protocol(format!("an answer line over {LINE_CAP} bytes"))),
                Ok(Line::NotUtf8) => return Err(Reply::Protocol("an answer line that is not UTF-8".to_string())),
                Ok(Line::End) | Err(RecvTimeoutError::Disconnected) => return Err(Reply::Crash(String::new())),
                Err(RecvTimeoutError::Timeout) => return Err(Reply::Hang(format!("no answer within {timeout:?}"))),
            }
        }
        Ok(())
    }

    /// Whether an answer line is waiting that no request asked for.
    fn extra_line(&mut self, wait: Duration) -> bool {
        let Some(r) = self.running.as_mut() else { return false };
        matches!(r.lines.recv_timeout(wait), Ok(Line::Text(_) | Line::TooLong | Line::NotUtf8))
    }
}

impl Worker for Process {
    fn name(&self) -> String {
        shlex::try_join(self.argv.iter().map(String::as_str)).unwrap_or_else(|_| self.argv.join(" "))
    }

    fn ask(&mut self, requests: &[Request]) -> Vec<Reply> {
        let mut out = Vec::with_capacity(requests.len());
        match self.round(requests, &mut out) {
            Ok(()) if self.extra_line(self.settle) => {
                // More lines than requests: answers may be shifted. Ask again one
                // at a time, to name the request that got two lines.
                self.stop();
                out.clear();
                self.one_by_one(requests, &mut out, true);
            }
            Ok(()) => {}
            Err(first) => {
                // A worker that buffers its answers loses the ones it had not
                // written when it dies: the request it failed on is found by
                // asking again one at a time from the first one unanswered.
                self.stop();
                let from = out.len();
                if !self.one_by_one(&requests[from..], &mut out, false) {
                    // Alone, each was answered: the failure depended on what came before.
                    out.truncate(from);
                    out.push(match first {
                        Reply::Crash(_) => Reply::Crash("died in a batch; asked alone, this request (the first unanswered) was answered".to_string()),
                        other => other,
                    });
                }
            }
        }
        out
    }
}

impl Process {
    /// Each request alone until one fails (its failure is its last reply;
    /// the rest are left to the caller); `true` when one failed. With
    /// `strict`, each answer is followed by a short wait for a second line,
    /// and a request that gets one fails as a protocol error.
    fn one_by_one(&mut self, requests: &[Request], out: &mut Vec<Reply>, strict: bool) -> bool {
        for req in requests {
            match self.round(std::slice::from_ref(req), out) {
                Ok(()) if strict && self.extra_line(GRACE) => {
                    self.stop();
                    out.pop();
                    out.push(Reply::Protocol("more than one answer line for this request".to_string()));
                    return true;
                }
                Ok(()) => {}
                Err(failure) => {
                    let how = self.stop();
                    out.push(match failure {
                        Reply::Crash(why) if why.is_empty() => Reply::Crash(how),
                        other => other,
                    });
                    return true;
                }
            }
        }
        false
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Some(mut r) = self.running.take() {
            let _ = r.child.kill();
            let _ = r.child.wait();
        }
    }
}

fn write_requests(mut stdin: ChildStdin, batches: Receiver<Vec<u8>>) {
    for b in batches {
        if stdin.write_all(&b).and_then(|()| stdin.flush()).is_err() {
            return;
        }
    }
}

fn read_answers(stdout: impl Read, to: Sender<Line>) {
    let mut r = BufReader::with_capacity(1 << 16, stdout);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match (&mut r).take(LINE_CAP as u64 + 1).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => {
                let _ = to.send(Line::End);
                return;
            }
            Ok(_) => {}
        }
        if buf.last() != Some(&b'\n') {
            let _ = to.send(if buf.len() > LINE_CAP { Line::TooLong } else { Line::End });
            return;
        }
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        let line = match String::from_utf8(std::mem::take(&mut buf)) {
            Ok(s) => Line::Text(s),
            Err(_) => Line::NotUtf8,
        };
        if to.send(line).is_err() {
            return;
        }
    }
}

fn keep_tail(mut stderr: impl Read, tail: Arc<Mutex<Vec<u8>>>) {
    let mut chunk = [0u8; 4096];
    while let Ok(n @ 1..) = stderr.read(&mut chunk) {
        if let Ok(mut t) = tail.lock() {
            t.extend_from_slice(chunk.get(..n).unwrap_or(&[]));
            let over = t.len().saturating_sub(STDERR_TAIL);
            t.drain(..over);
        }
    }
}

/// An exit status in words: the code, or the signal that ended it.
fn describe(s: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(sig)) => format!("killed by signal {sig}{}", signal_name(sig)),
        _ => format!("ended ({s})"),
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        4 => " (SIGILL)",
        6 => " (SIGABRT)",
        7 => " (SIGBUS)",
        8 => " (SIGFPE)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Ask;
    use crate::worker::ask_all;
    use tpb_isa::Generation;

    fn reqs(n: usize) -> Vec<Request> {
        (0..n).map(|i| Request::new(Ask::Decode, Generation::V2, crate::reference::header_only(i as u8))).collect()
    }

    fn sh(script: &str) -> Process {
        Process::from_argv(vec!["sh".into(), "-c".into(), script.into()], Duration::from_millis(500))
    }

    #[test]
    fn answers_come_back_in_order() {
        let mut p = sh("while read k g h; do echo \"opcode=0x${h%${h#??}}\"; done");
        let replies = p.ask(&reqs(300));
        assert_eq!(replies.len(), 300);
        assert_eq!(replies[0x46], Reply::Answer("opcode=0x46".into()));
        assert_eq!(p.starts, 1);
    }

    #[test]
    fn a_crash_is_a_reply_and_the_rest_are_answered_by_a_new_worker() {
        // Dies on the request for opcode 0x05, every time.
        let mut p = sh("while read k g h; do case $h in 05*) echo boom >&2; kill -SEGV $$;; esac; echo ok; done");
        let all = reqs(10);
        let replies = p.ask(&all);
        assert_eq!(replies.len(), 6, "the replies end at the failure: {replies:?}");
        assert!(matches!(&replies[5], Reply::Crash(w) if w.contains("signal 11") && w.contains("boom")), "{:?}", replies[5]);
        assert!(replies[..5].iter().all(|r| *r == Reply::Answer("ok".into())));
        let rest = ask_all(&mut p, &all[6..]);
        assert!(rest.len() == 4 && rest.iter().all(|r| *r == Reply::Answer("ok".into())), "{rest:?}");
        assert_eq!(p.starts, 3);
    }

    #[test]
    fn a_hang_is_bounded_by_the_timeout() {
        let mut p = sh("while read k g h; do case $h in 03*) sleep 30;; esac; echo ok; done");
        let t = std::time::Instant::now();
        let replies = ask_all(&mut p, &reqs(6));
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        assert!(matches!(&replies[3], Reply::Hang(_)), "{:?}", replies[3]);
        assert_eq!(replies[5], Reply::Answer("ok".into()));
    }

    #[test]
    fn two_lines_for_one_request_are_found() {
        let mut p = sh("while read k g h; do echo ok; case $h in 02*) echo extra;; esac; done");
        p.settle = Duration::from_millis(200);
        let replies = ask_all(&mut p, &reqs(5));
        assert_eq!(replies.len(), 5);
        assert!(matches!(&replies[2], Reply::Protocol(w) if w.contains("more than one")), "{replies:?}");
        assert_eq!(replies[4], Reply::Answer("ok".into()));
    }

    #[test]
    fn a_command_that_cannot_start_is_a_crash_per_request_not_a_panic() {
        let mut p = Process::from_argv(vec!["/nonexistent/worker".into()], Duration::from_millis(100));
        let replies = ask_all(&mut p, &reqs(2));
        assert!(replies.len() == 2 && replies.iter().all(|r| matches!(r, Reply::Crash(w) if w.contains("cannot start"))), "{replies:?}");
        assert!(Process::new("'unclosed", Duration::from_secs(1)).is_err());
    }
}
