//! Examples resolved to what a person runs next: the path to give `tpb
//! disasm`, and the example bundle's line as `tpb disasm` prints it. The
//! evidence names a file as it was found under the folder walked; so a
//! side's files are looked for under that folder (programs given), or
//! beside the evidence JSON and then under the working folder (JSON given).

use super::{Diff, Example, Found, Which};
use crate::programs;
use crate::text_safe::escape;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tpb_isa::{Bundle, BUNDLE_BYTES};

/// Where one side's programs are: the OLD or NEW argument as given.
pub struct SideRoot<'a> {
    /// The argument: evidence JSON, a folder of programs, or one program.
    pub arg: &'a Path,
    /// The argument is evidence JSON (else programs: a folder or one file).
    pub json: bool,
}

impl SideRoot<'_> {
    /// The paths a file the evidence names may be at, most likely first.
    fn candidates(&self, file: &str) -> Vec<PathBuf> {
        if self.json {
            let beside = self.arg.parent().map(|d| d.join(file));
            beside.into_iter().chain([PathBuf::from(file)]).collect()
        } else if self.arg.is_dir() {
            vec![self.arg.join(file)]
        } else {
            vec![self.arg.to_path_buf()]
        }
    }
}

/// The line `tpb disasm` prints for bundle `index` of `member` (empty for a raw file).
pub fn disasm_line(raw: &[u8], member: &str, index: u64) -> Option<String> {
    let b = Bundle::decode_slice(raw)?;
    let line = tpb_isa::text::disasm(&b);
    let off = index.checked_mul(BUNDLE_BYTES as u64)?;
    Some(if member.is_empty() { format!("{line} # [{index}] +{off:#x}") } else { format!("{line} # {} [{index}] +{off:#x}", escape(member)) })
}

/// Why an example's bundle is not in the program found for it (the file
/// changed since the evidence was gathered, or another file has its name).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum Unresolved {
    /// The program has no stream of that member name.
    #[error("no member {}", escape(member))]
    NoMember {
        /// The member the evidence names.
        member: String,
    },
    /// The bundle's offset does not fit this machine's address space.
    #[error("index out of range")]
    OutOfRange,
    /// The stream is shorter than the bundle's index.
    #[error("no bundle {index} in {}", escape(member))]
    NoBundle {
        /// The bundle's index in its stream.
        index: u64,
        /// The member the evidence names.
        member: String,
    },
    /// The bytes there do not decode as a bundle.
    #[error("not a bundle")]
    NotABundle,
}

/// The bundle `e` names in the program `p`.
fn read(p: &programs::Program, e: &Example) -> Result<String, Unresolved> {
    let member = || e.loc.member().to_string();
    let s = p.streams().find(|s| s.member == e.loc.member()).ok_or_else(|| Unresolved::NoMember { member: member() })?;
    let at = usize::try_from(e.loc.offset()).map_err(|_| Unresolved::OutOfRange)?;
    let raw = at
        .checked_add(BUNDLE_BYTES)
        .and_then(|end| s.bytes.get(at..end))
        .ok_or_else(|| Unresolved::NoBundle { index: e.loc.index, member: member() })?;
    disasm_line(raw, e.loc.member(), e.loc.index).ok_or(Unresolved::NotABundle)
}

impl Diff {
    /// Resolves every example: each file is looked for as [`SideRoot`]
    /// says and read once (examples come sorted by side and file, so only
    /// the last program read is kept). What cannot be read is kept with its reason.
    pub fn resolve(&mut self, old: &SideRoot, new: &SideRoot, max_bytes: u64) {
        let mut found = BTreeMap::new();
        let mut unfound = BTreeMap::new();
        let mut last: Option<(PathBuf, Result<programs::Program, programs::ProgramError>)> = None;
        for e in self.examples() {
            let root = match e.side {
                Which::Old => old,
                Which::New => new,
            };
            let mut why = format!("{} not found", escape(e.loc.file()));
            for path in root.candidates(e.loc.file()) {
                if !path.is_file() {
                    continue;
                }
                if last.as_ref().is_none_or(|(p, _)| *p != path) {
                    last = Some((path.clone(), programs::load(&path, max_bytes, &mut |_| {})));
                }
                let program = match &last {
                    Some((_, Ok(p))) => p,
                    Some((_, Err(w))) => {
                        why = w.to_string();
                        continue;
                    }
                    None => continue,
                };
                match read(program, &e) {
                    Ok(line) => {
                        found.insert(e.clone(), Found { path: escape(&path.display().to_string()), line });
                        break;
                    }
                    Err(w) => why = w.to_string(),
                }
            }
            if !found.contains_key(&e) {
                unfound.insert(e, why);
            }
        }
        self.found = found;
        self.unfound = unfound;
    }
}

#[cfg(test)]
mod tests {
    use super::Unresolved;

    #[test]
    fn an_unresolved_example_names_the_member_escaped() {
        let e = Unresolved::NoBundle { index: 7, member: "sg00/PE\n.bin".into() };
        assert_eq!(e.to_string(), "no bundle 7 in sg00/PE\\n.bin");
    }
}
