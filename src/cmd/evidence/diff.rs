//! `tpb evidence diff OLD NEW [--json] [-o FILE] [--arch G] [--max-bytes N]`:
//! what moved between two sets of real programs, per generation × opcode
//! (appeared/vanished opcodes and engines, new field values, checks,
//! contradictions, errata, recovered claims). OLD and NEW are each an evidence
//! JSON file (`*.json`, as `tpb evidence --json` writes it) or programs (a
//! folder walked for `*.neff`, or one NEFF or raw bundle file). Sides that
//! share no generation are compared per opcode across generations. Every
//! difference names its first bundle, resolved to a path and its `tpb
//! disasm` line where the programs can be read.
//!
//! Exit bits as `tpb diff` (abidiff), OR-ed: 1 error (an input unreadable or
//! not evidence, the output unwritable: nothing is compared), 2 usage,
//! 4 something moved, 8 NEW disagrees with the description where OLD did not
//! (a new contradiction, a check NEW refuses where OLD refused nothing, a
//! recovered claim NEW breaks).

use crate::error::{Context as _, Error, Result};
use crate::programs;
use std::path::{Path, PathBuf};
use tpb_isa::Generation;
use tpb_oracle::evidence::diff::{diff_by, Compare, Options, SideRoot, Summary, BIT_ERROR};
use tpb_oracle::evidence::Evidence;

#[derive(clap::Args)]
#[command(
    after_help = "Exit codes, bits OR-ed: 1 error (an input unreadable or not evidence: nothing compared); 2 usage; 4 something moved; 8 NEW disagrees with the description where OLD did not."
)]
pub struct Args {
    /// The older programs: evidence JSON (`*.json`), a folder of NEFFs, or one program file.
    old: PathBuf,
    /// The newer programs, as OLD.
    new: PathBuf,
    /// One JSON object instead of Markdown.
    #[arg(long)]
    json: bool,
    /// Write the report to FILE (atomically) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also write the diff as one self-contained HTML page to OUT (atomically; a folder is refused).
    #[arg(long, value_name = "OUT")]
    html: Option<PathBuf>,
    /// Generation of every stream of the programs read (v2, v3, v4). Default: the container's, else v2.
    #[arg(long)]
    arch: Option<Generation>,
    /// Generation of OLD's programs only (as --arch).
    #[arg(long, value_name = "G", conflicts_with = "arch")]
    old_arch: Option<Generation>,
    /// Generation of NEW's programs only (as --arch): a new target's programs judged as one you know.
    #[arg(long, value_name = "G", conflicts_with = "arch")]
    new_arch: Option<Generation>,
    /// Compare per opcode whatever each side's generations (the default when they share none).
    #[arg(long, conflicts_with = "per_generation")]
    across: bool,
    /// Compare per generation × opcode even when the sides share no generation (everything appears or vanishes).
    #[arg(long)]
    per_generation: bool,
    /// List the values possibly seen field by field (one summary line by default; always in --json).
    #[arg(long)]
    possibly_seen: bool,
    /// Refuse a file (program or evidence JSON) larger than this many bytes.
    #[arg(long, default_value_t = tpb_oracle::neff::MAX_FILE)]
    max_bytes: u64,
}

fn error(msg: impl std::fmt::Display) -> u8 {
    eprintln!("tpb: error: evidence diff: {msg}");
    BIT_ERROR
}

/// Evidence JSON is told apart by name (a raw bundle file could start with any
/// byte, and a pipe cannot be read twice); a folder is programs, whatever its name.
fn is_json(path: &Path) -> bool {
    !path.is_dir() && path.extension().is_some_and(|x| x.eq_ignore_ascii_case("json"))
}

/// One side's summary, or the error that stops the comparison (one line;
/// the programs' own errors are printed as they are met).
fn load(side: &str, path: &Path, arch: Option<Generation>, max_bytes: u64) -> Result<Summary> {
    let shown = programs::shown(path);
    if is_json(path) {
        let bytes = tpb_oracle::programs::read_file(path, max_bytes).context_with(|| format!("{side} {shown}: cannot read"))?;
        let s = Summary::from_json(&bytes).context_with(|| format!("{side} {shown}: not evidence written by `tpb evidence --json`"))?;
        if s.bundles == 0 {
            return Err(Error::Message(format!("{side} {shown}: evidence of no bundles")));
        }
        return Ok(s);
    }
    let mut ev = Evidence::new();
    let code = programs::each_program(&[path.to_path_buf()], arch, max_bytes, |file, p, c| {
        ev.set_source(file, c.target.as_deref(), c.from);
        for s in p.streams() {
            ev.add_member(file, s.member, s.build, c.generation, s.engine_name(), s.bytes);
        }
    });
    // A program left out would make its opcodes look vanished: compare all or nothing.
    if code != 0 {
        return Err(Error::Message(format!("{side} {shown}: not every program could be read (above); nothing compared")));
    }
    if ev.bundles() == 0 {
        return Err(Error::Message(format!("{side} {shown}: no bundles")));
    }
    Ok(Summary::of(&ev))
}

pub fn run(a: Args) -> u8 {
    let old = match load("OLD", &a.old, a.old_arch.or(a.arch), a.max_bytes) {
        Ok(s) => s,
        Err(e) => return error(e),
    };
    let new = match load("NEW", &a.new, a.new_arch.or(a.arch), a.max_bytes) {
        Ok(s) => s,
        Err(e) => return error(e),
    };
    let how = match (a.across, a.per_generation) {
        (true, _) => Compare::Across,
        (_, true) => Compare::PerGeneration,
        _ => Compare::Auto,
    };
    let mut d = diff_by(&old, &new, how);
    d.resolve(&SideRoot { arg: &a.old, json: is_json(&a.old) }, &SideRoot { arg: &a.new, json: is_json(&a.new) }, a.max_bytes);
    let (old_name, new_name) = (a.old.display().to_string(), a.new.display().to_string());
    if let Some(out) = &a.html {
        let page = crate::html::diff_page(&d.to_json(&old_name, &new_name), &crate::html::Extra::beside_cwd());
        if let Err(e) = crate::out::write_atomic(out, page.as_bytes()) {
            return error(format!("{}: cannot write the HTML page: {e}", programs::shown(out)));
        }
    }
    let text = if a.json {
        match serde_json::to_string_pretty(&d.to_json(&old_name, &new_name)) {
            Ok(j) => j + "\n",
            Err(e) => return error(format!("cannot render JSON: {e}")),
        }
    } else {
        d.to_markdown_with(&old_name, &new_name, Options { possibly_seen: a.possibly_seen })
    };
    match &a.output {
        Some(path) => match crate::out::write_atomic(path, text.as_bytes()) {
            Ok(()) => d.exit,
            Err(e) => error(format!("{}: cannot write: {e}", programs::shown(path))),
        },
        None => {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => d.exit,
                // A reader that left keeps the verdict; any other failure is this command's error bit.
                Err(e) => crate::out::lost_or(&e, d.exit, BIT_ERROR),
            }
        }
    }
}
