//! What a test says when it cannot run on this machine (no `../shared`, no
//! browser, no C++ compiler): a line on stderr, and the same line appended to
//! the file [`SKIP_LOG`] names. `.ci/run` sets it, prints the file after the
//! tests and fails under CI when it is not empty, so a skipped test never
//! passes unseen. Here, not in a test crate, because every crate's tests use it.

use std::io::Write as _;

/// The variable naming the file skipped tests are listed in.
pub const SKIP_LOG: &str = "TPB_SKIP_LOG";

/// Says that `what` was skipped, and why (one line).
pub fn skipped(what: &str) {
    log(std::env::var_os(SKIP_LOG).as_deref().map(std::path::Path::new), what);
}

fn log(path: Option<&std::path::Path>, what: &str) {
    let line = what.replace('\n', " ");
    eprintln!("note: skipped: {line}");
    if let Some(path) = path {
        // One short append per skip: lines of tests running at once do not mix.
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
            let _ = writeln!(f, "{line}");
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_skip_is_one_line_in_the_log() {
        let dir = std::env::temp_dir().join(format!("tpb-skip-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let log = dir.join("skipped.txt");
        let _ = std::fs::remove_file(&log);
        super::log(Some(&log), "a: no\nb");
        super::log(Some(&log), "c");
        super::log(None, "d");
        assert_eq!(std::fs::read_to_string(&log).unwrap_or_default(), "a: no b\nc\n");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
