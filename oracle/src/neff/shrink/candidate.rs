//! The candidate builder: what a pass takes out of or changes in the current
//! container ([`Edit`]), the units it works on (subgraphs, engine streams),
//! and the container the edit gives, packed as `tpb neff pack` packs (the
//! tar rebuilt from the manifest, the header's `data_size` and payload
//! digest recomputed in the form the input used).

use super::super::locate;
use super::super::pack::{self, Exploded, PackError};
use super::json::{self, EditError};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Why a candidate could not be built. The tester counts such a candidate
/// as malformed; the message is for a reader of the code and the tests.
#[derive(Debug, thiserror::Error)]
pub enum CandidateError {
    /// The container has a kelf but no `kelf-0.json` member to rewrite.
    #[error("no kelf-0.json member")]
    NoKelf,
    /// A metadata member could not be edited.
    #[error(transparent)]
    Edit(#[from] EditError),
    /// The edited members do not pack into a container.
    #[error(transparent)]
    Pack(#[from] PackError),
}

/// Members dropped and members' bytes replaced (by manifest index).
#[derive(Clone, Debug, Default)]
pub struct Edit {
    pub drop: BTreeSet<usize>,
    pub replace: BTreeMap<usize, Vec<u8>>,
}

impl Edit {
    /// Member `i` holds `bytes` instead.
    pub fn replacing(i: usize, bytes: Vec<u8>) -> Edit {
        Edit { drop: BTreeSet::new(), replace: BTreeMap::from([(i, bytes)]) }
    }
}

/// The container `ex` with `edit` made.
pub fn build(ex: &Exploded, edit: &Edit) -> Result<Vec<u8>, CandidateError> {
    let mut manifest = ex.manifest.clone();
    let mut members = Vec::with_capacity(manifest.members.len());
    let mut data = Vec::with_capacity(manifest.members.len());
    for (i, (e, bytes)) in std::mem::take(&mut manifest.members).into_iter().zip(&ex.data).enumerate() {
        if edit.drop.contains(&i) {
            continue;
        }
        members.push(e);
        data.push(edit.replace.get(&i).unwrap_or(bytes).clone());
    }
    manifest.members = members;
    Ok(pack::build(&manifest, &data)?)
}

/// A subgraph: a graph of `kelf-0.json` (or, without one, a folder of
/// streams found by name) and the members that are its own.
#[derive(Clone, Debug)]
pub struct Subgraph {
    pub name: String,
    /// Its index in the kelf's `graphs` list.
    pub kelf_index: Option<usize>,
    /// Its definition, the members under its folder and its engine streams (manifest indices).
    pub members: BTreeSet<usize>,
}

/// The subgraphs of `ex`, in the kelf's order.
pub fn subgraphs(ex: &Exploded) -> Vec<Subgraph> {
    let index = member_index(ex);
    let under = |folder: &str, into: &mut BTreeSet<usize>| {
        let prefix = format!("{folder}/");
        into.extend(ex.manifest.members.iter().enumerate().filter(|(_, e)| e.name.starts_with(&prefix)).map(|(i, _)| i));
    };
    let streams_of = |subgraph: &str, into: &mut BTreeSet<usize>| {
        into.extend(ex.neff.streams.iter().filter(|s| s.subgraph == subgraph).filter_map(|s| index.get(s.member.as_str()).copied()));
    };
    let Some(kelf) = &ex.neff.kelf else {
        // No kelf: the reader found streams by name, one folder per subgraph.
        let names: BTreeSet<&str> = ex.neff.streams.iter().map(|s| s.subgraph.as_str()).collect();
        return names
            .into_iter()
            .map(|name| {
                let mut members = BTreeSet::new();
                under(name, &mut members);
                streams_of(name, &mut members);
                Subgraph { name: name.to_string(), kelf_index: None, members }
            })
            .collect();
    };
    kelf.graphs
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let mut members = BTreeSet::new();
            members.extend(index.get(g.definition.as_str()).copied());
            let dir = g.definition.rsplit_once('/').map_or("", |(d, _)| d);
            // The folder of its definition, and of its name (where streams are found by name).
            for folder in [dir, g.name.as_str()] {
                if !folder.is_empty() {
                    under(folder, &mut members);
                }
            }
            // As the reader names a graph's subgraph.
            streams_of(if g.name.is_empty() { dir } else { &g.name }, &mut members);
            let name = if g.name.is_empty() { format!("#{i} (`{}`)", g.definition) } else { g.name.clone() };
            Subgraph { name, kelf_index: Some(i), members }
        })
        .collect()
}

/// The edit keeping only the subgraphs at `keep` (ascending indices into `all`):
/// the others' members go, but not one a kept subgraph also owns, and the
/// kelf lists only the kept graphs.
pub fn keeping_subgraphs(ex: &Exploded, all: &[Subgraph], keep: &[usize]) -> Result<Edit, CandidateError> {
    let kept: BTreeSet<usize> = keep.iter().flat_map(|k| all[*k].members.iter().copied()).collect();
    let mut edit = Edit::default();
    for (k, s) in all.iter().enumerate() {
        if keep.binary_search(&k).is_err() {
            edit.drop.extend(s.members.difference(&kept));
        }
    }
    if ex.neff.kelf.is_some() {
        let i = member_index(ex).get(super::super::meta::KELF).copied().ok_or(CandidateError::NoKelf)?;
        let graphs: Vec<usize> = keep.iter().filter_map(|k| all[*k].kelf_index).collect();
        edit.replace.insert(i, json::kelf_keeping(&ex.data[i], &graphs)?);
    }
    Ok(edit)
}

/// An engine stream of the current container.
#[derive(Clone, Debug)]
pub struct Stream {
    /// Its manifest index.
    pub member: usize,
    /// Its member name (`sg00/PE.bin`).
    pub name: String,
    /// How reports name it (`PE of sg00`).
    pub label: String,
}

/// The engine streams of `ex`, in the reader's order (subgraph, then engine).
pub fn streams(ex: &Exploded) -> Vec<Stream> {
    let index = member_index(ex);
    ex.neff
        .streams
        .iter()
        .filter_map(|s| {
            let member = *index.get(s.member.as_str())?;
            Some(Stream { member, name: s.member.clone(), label: format!("{} of {}", s.engine.stem(), s.subgraph) })
        })
        .collect()
}

/// The edit keeping only the streams at `keep` (ascending indices into `all`): the
/// others' members go, and so do the definitions' `*_instr` names of them.
pub fn keeping_streams(ex: &Exploded, all: &[Stream], keep: &[usize]) -> Result<Edit, CandidateError> {
    let mut edit = Edit::default();
    let mut gone: BTreeSet<&str> = BTreeSet::new();
    for (k, s) in all.iter().enumerate() {
        if keep.binary_search(&k).is_err() {
            edit.drop.insert(s.member);
            gone.insert(&s.name);
        }
    }
    let Some(kelf) = &ex.neff.kelf else { return Ok(edit) };
    let files: BTreeSet<&str> = ex.neff.members.iter().filter(|m| m.kind == "file").map(|m| m.name.as_str()).collect();
    let exists = |p: &str| files.contains(p);
    let index = member_index(ex);
    for def in locate::definitions(kelf, &exists) {
        let Some(&i) = index.get(def) else { continue };
        if let Some(bytes) = json::definition_without(def, &ex.data[i], &|p| gone.contains(p), &exists)? {
            edit.replace.insert(i, bytes);
        }
    }
    Ok(edit)
}

/// Manifest index by member name (names are unique: the reader refuses a name given twice).
fn member_index(ex: &Exploded) -> HashMap<&str, usize> {
    ex.manifest.members.iter().enumerate().map(|(i, e)| (e.name.as_str(), i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_error_reads_as_what_it_wraps() {
        assert_eq!(CandidateError::NoKelf.to_string(), "no kelf-0.json member");
        assert_eq!(CandidateError::from(EditError::NoGraphs).to_string(), "kelf-0.json: no `graphs` list");
    }
}
