//! `tpb header [--worker] [-o FILE]`: the generated C header `neuron_isa_tpb.h`
//! (or with `--worker` the worker library's `tpb_worker.h`, for `tpb differ
//! --lib`), to stdout or atomically to FILE. The nightly run calls
//! `tpb_isa::c_header::write_report`.

use std::path::PathBuf;
use tpb_isa::c_header;

#[derive(clap::Args)]
#[command(after_help = "Exit codes: 0 written; 2 usage or I/O error.")]
pub struct Args {
    /// Write the header to FILE (atomically) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Write `tpb_worker.h` instead: the functions a worker library exports for `tpb differ --lib`.
    #[arg(long)]
    worker: bool,
}

pub fn run(a: Args) -> u8 {
    let text = if a.worker { tpb_differ::abi::header() } else { c_header::generate() };
    match a.output {
        Some(path) => match crate::out::write_atomic(&path, text.as_bytes()) {
            Ok(()) => 0,
            Err(e) => super::fail(format_args!("{}: cannot write header: {e}", path.display())),
        },
        // A reader that stops early (`| head`) is not our failure: see `crate::out`.
        None => crate::out::print(&text, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_the_generated_header_to_the_output_file() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("out.h");
        assert_eq!(run(Args { output: Some(path.clone()), worker: false }), 0);
        assert_eq!(std::fs::read_to_string(&path)?, c_header::generate());
        Ok(())
    }

    #[test]
    fn worker_writes_the_worker_library_header() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("tpb_worker.h");
        assert_eq!(run(Args { output: Some(path.clone()), worker: true }), 0);
        let text = std::fs::read_to_string(&path)?;
        assert_eq!(text, tpb_differ::abi::header());
        assert!(text.contains("int tpb_worker_decode(int generation, const unsigned char bundle[64], char *answer, size_t capacity);"));
        Ok(())
    }

    #[test]
    fn an_unwritable_output_is_a_usage_error() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("no-such-dir").join("out.h");
        assert_eq!(run(Args { output: Some(path.clone()), worker: false }), crate::cmd::EXIT_USAGE);
        assert!(!path.exists());
        Ok(())
    }
}
