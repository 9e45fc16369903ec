//! The command's side of reading programs. The library reads them
//! ([`tpb_oracle::programs`]: files, folders, the capped reader); this file
//! only says on stderr what it reports, each error and warning once, in the
//! one-line form every command prints.

pub use tpb_oracle::programs::shown;
use tpb_oracle::programs::{self, Found, Program, Warning};

use std::path::{Path, PathBuf};
use tpb_isa::Generation;
use tpb_oracle::neff::Choice;

/// The program files `paths` name, in a stable order ([`programs::find`]'s).
/// Each folder holding none, or that cannot be read, is reported (one error
/// line naming it) and the usage/I-O code returned with what was found; with
/// `verbose`, each folder's finds are listed on stderr.
pub fn expand(paths: &[PathBuf], verbose: bool) -> (Vec<Found>, u8) {
    let mut code = 0u8;
    let mut found = Vec::new();
    for p in paths {
        let (here, errors) = programs::find(p);
        for e in &errors {
            code = crate::out::fail(e);
        }
        if verbose && p.is_dir() && !here.is_empty() {
            eprintln!("tpb: {}: {} *.neff file(s) found:", shown(p), here.len());
            for f in &here {
                eprintln!("tpb:   {}", shown(&f.path));
            }
        }
        found.extend(here);
    }
    (found, code)
}

/// Calls `each(shown name, program, generation)` for every program under
/// `paths`, in a stable order; returns the usage/I-O exit code once an input
/// could not be read (each is reported, the others still read; a container
/// from which no bundle is read is one), else 0. The generation is
/// [`Program::choose`]'s, a guess said once per container.
pub fn each_program(paths: &[PathBuf], arch: Option<Generation>, max_bytes: u64, mut each: impl FnMut(&str, &Program, &Choice)) -> u8 {
    let (inputs, mut code) = expand(paths, false);
    for Found { path, shown, .. } in &inputs {
        let program = match programs::load(path, max_bytes, &mut warn) {
            Ok(p) => p,
            Err(e) => {
                code = crate::out::fail(e);
                continue;
            }
        };
        let choice = program.choose(arch);
        say(&program.file, &choice);
        each(shown, &program, &choice);
    }
    code
}

/// Says on stderr how a guessed generation was chosen (nothing for any
/// other choice): the one line every command prints for it.
pub fn say(file: &Path, choice: &Choice) {
    if let Some(w) = choice.warning() {
        eprintln!("tpb: warning: {}: {}", shown(file), tpb_oracle::text_safe::escape(&w));
    }
}

/// Prints a warning about a container on stderr (`tpb: warning: …`).
pub fn warn(w: Warning) {
    eprintln!("tpb: warning: {w}");
}
