//! `tpb neff pack DIR -o OUT.neff`: a folder `tpb neff unpack` wrote, edited
//! or not, back into a container (written atomically). An engine stream with
//! its text beside it is assembled from the text (an error names the file
//! and line), unless only the raw `.bin` was edited.

use std::fmt::Write as _;
use std::path::PathBuf;
use tpb_oracle::neff::{self, pack};

#[derive(clap::Args)]
#[command(after_help = "Exit codes: 0 written; 2 usage, I/O, a missing folder or a file that does not assemble (one error line, nothing written).")]
pub struct Args {
    /// A folder `tpb neff unpack` wrote.
    dir: PathBuf,
    /// The container to write.
    #[arg(short, long)]
    output: PathBuf,
}

pub fn run(a: Args) -> u8 {
    if let Err(e) = crate::cmd::paths::existing_dir(&a.dir, "give the folder `tpb neff unpack FILE DIR` wrote") {
        return super::super::fail(e);
    }
    let p = match pack::pack_from(&a.dir, &neff::Limits::default()) {
        Ok(p) => p,
        Err(e) => return super::super::fail(e),
    };
    if let Err(e) = crate::out::write_atomic(&a.output, &p.bytes) {
        return super::super::fail(format!("{}: cannot write: {e}", tpb_oracle::text_safe::escape(&a.output.display().to_string())));
    }
    let esc = |s: &str| tpb_oracle::text_safe::escape(s);
    let mut text = format!(
        "{}: {} members from {}, {} changed\n",
        esc(&a.output.display().to_string()),
        p.members,
        esc(&a.dir.display().to_string()),
        p.changed.len()
    );
    for c in &p.changed {
        let _ = writeln!(text, "  changed: {} (from {})", esc(&c.member), esc(&c.from));
    }
    crate::out::print(&text, 0)
}
