//! `tpb neff FILE|DIR… [--json]`: what a NEFF container holds (a folder: every `*.neff` under it): header fields,
//! payload integrity, members, and per engine the bundle count and opcode
//! histogram. Exit 0 all read and intact, 1 a payload digest mismatch,
//! 2 usage, I/O, a malformed container, or one from which no bundle is read
//! (its summary is still shown; the other files are still shown).
//!
//! Its subcommands take a container apart and put it back together:
//! `tpb neff unpack FILE DIR`, `tpb neff pack DIR -o OUT`,
//! `tpb neff mutate FILE -o OUT --seed S`, and reduce one while a command
//! misbehaves on it: `tpb neff shrink FILE --predicate CMD -o OUT` (exit 0,
//! or 2 with one error line).

mod mutate;
mod pack;
mod shrink;
mod unpack;

use std::io::Write;
use std::path::PathBuf;
use tpb_oracle::neff;

#[derive(clap::Args)]
#[command(
    after_help = "Exit codes: 0 every container read and intact; 1 a payload digest mismatch; 2 usage or I/O error, a malformed container, one from which no bundle is read, or a folder with no *.neff (each reported, the others still summarised). Subcommands: 0, or 2 with one error line."
)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true, disable_help_subcommand = true, arg_required_else_help = true)]
pub struct Args {
    #[command(subcommand)]
    action: Option<Action>,
    /// One JSON object per file per line.
    #[arg(long)]
    json: bool,
    /// Refuse a file larger than this many bytes (pipes and devices included).
    #[arg(long, default_value_t = tpb_oracle::neff::MAX_FILE)]
    max_bytes: u64,
    /// NEFF containers to summarise, or folders searched for `*.neff` (a file named like a subcommand is given as ./unpack, ./pack, ./mutate, ./shrink).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Write every member as a file under DIR, each engine stream also as text (sgNN/PE.tpb), and manifest.json.
    Unpack(unpack::Args),
    /// Pack a folder `tpb neff unpack` wrote (edited or not) back into a container.
    Pack(pack::Args),
    /// Apply N seeded single-fault mutations to real bundles: a new container and a JSON log.
    Mutate(mutate::Args),
    /// Reduce a container to the smallest on which `CMD FILE` exits as it does on IN (subgraphs, streams, bundles, fields).
    Shrink(shrink::Args),
}

pub fn run(a: Args) -> u8 {
    match a.action {
        Some(Action::Unpack(u)) => return unpack::run(u),
        Some(Action::Pack(p)) => return pack::run(p),
        Some(Action::Mutate(m)) => return mutate::run(m),
        Some(Action::Shrink(s)) => return shrink::run(s),
        None => {}
    }
    let limits = neff::Limits { max_file: a.max_bytes, ..neff::Limits::default() };
    let mut out = crate::out::Sink::new();
    let (files, mut code) = crate::programs::expand(&a.files, false);
    for file in files.iter().map(|f| &f.path) {
        let n = match neff::read_file_with(file, &limits) {
            Ok(n) => n,
            Err(e) => {
                // What was printed so far goes out before the error line.
                if let Err(c) = out.write(code, |w| w.flush()) {
                    return c;
                }
                code = code.max(super::fail(e));
                continue;
            }
        };
        if !n.integrity.ok() {
            code = code.max(1);
        }
        let unread = n.unread();
        let choice = n.choose(None);
        // A guess over no bundle says nothing: the error below does.
        if unread.is_none() {
            crate::programs::say(file, &choice);
        }
        let written = out.write(code, |w| {
            if a.json {
                writeln!(w, "{}", neff::summary::json_with(&n, &choice))
            } else {
                write!(w, "{}", neff::summary::text_with(&n, &choice))
            }
        });
        if let Err(c) = written {
            return c;
        }
        if let Some(e) = unread {
            // The summary shows what the archive holds; the error line follows it.
            if let Err(c) = out.write(code, |w| w.flush()) {
                return c;
            }
            code = code.max(super::fail(e));
        }
    }
    out.finish(code)
}

/// Prints the notes of `file` as warnings, escaped.
fn warn(file: &std::path::Path, notes: &[String]) {
    for n in notes {
        eprintln!("tpb: warning: {}: {}", tpb_oracle::text_safe::escape(&file.display().to_string()), tpb_oracle::text_safe::escape(n));
    }
}
