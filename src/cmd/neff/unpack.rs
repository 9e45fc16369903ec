//! `tpb neff unpack [--max-bytes N] FILE.neff DIR`: every member as a file
//! under DIR (a new or empty folder), each engine stream also as text beside
//! it, and `manifest.json`; unsafe member paths are refused before anything
//! is written, links and devices are recorded only.

use std::path::PathBuf;
use tpb_oracle::neff::{self, pack};

#[derive(clap::Args)]
#[command(after_help = "Exit codes: 0 written; 2 usage, I/O or a malformed container (one error line).")]
pub struct Args {
    /// Refuse a container larger than this many bytes (pipes and devices included).
    #[arg(long, default_value_t = neff::MAX_FILE)]
    max_bytes: u64,
    /// The container.
    file: PathBuf,
    /// A new or empty folder to write into (a symlink is refused).
    dir: PathBuf,
}

pub fn run(a: Args) -> u8 {
    let limits = neff::Limits { max_file: a.max_bytes, ..neff::Limits::default() };
    let bytes = match neff::read_container(&a.file, limits.max_file) {
        Ok(b) => b,
        Err(e) => return super::super::fail(e),
    };
    let u = match pack::unpack_to(&bytes, &a.file.display().to_string(), &a.dir, &limits) {
        Ok(u) => u,
        Err(e) => return super::super::fail(e),
    };
    super::warn(&a.file, &u.notes);
    let line = format!(
        "{}: {} members into {}: {} files, {} engine streams also as text (.tpb), {}\n",
        tpb_oracle::text_safe::escape(&a.file.display().to_string()),
        u.manifest.members.len(),
        tpb_oracle::text_safe::escape(&a.dir.display().to_string()),
        u.files,
        u.texts,
        pack::MANIFEST
    );
    crate::out::print(&line, 0)
}
