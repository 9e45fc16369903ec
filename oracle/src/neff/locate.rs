//! Which members of a container are its engine streams. As the runtime does:
//! `kelf-0.json` names each graph's definition, and the definition's `*_instr`
//! keys name the streams, whatever the member names (a compiler is free to
//! change them). Only where the container names no definition for a graph
//! (no kelf at all, a graph without one, a definition that is not in the
//! archive or names no stream) are streams found by the member names every
//! compiler seen writes, `sgNN/{PE,Activation,DVE,Pool,SP}.bin`, and the
//! container's notes say so. Other members (tables such as `*_table.bin`,
//! `*_bkt.bin`, `*_ctrl.bin`) are never taken for bundles unless a
//! definition names them.

use super::definition::{self, Definition};
use super::error::{At, NeffError};
use super::meta::{Kelf, KELF};
use super::payload::Member;
use super::stream::{engine_member, Engine};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Names listed per note or per search step; the rest are counted.
pub const MAX_LISTED: usize = 16;

/// How members named like engine streams are described.
pub const BY_NAME: &str = "{PE,Activation,DVE,Pool,SP}.bin";

/// One member to read as an engine stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planned {
    /// The subgraph it belongs to: its kelf graph's name, or its folder (`sg00`).
    pub subgraph: String,
    /// The engine that runs it.
    pub engine: Engine,
    /// Its member path in the archive (`sg00/PE.bin`).
    pub member: String,
}

/// The streams of a container and how they were found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// In the order found: graph by graph, each definition's keys in order.
    pub streams: Vec<Planned>,
    /// What is worth a look (a definition that did not read, a name given twice), bounded.
    pub notes: Vec<String>,
    /// What was looked for, step by step (bounded): the words of the error
    /// when no bundle is read.
    pub looked_for: Vec<String>,
}

/// Whether the first pass over the archive keeps a member before knowing
/// what the kelf and definitions name: definitions and streams under the
/// names every compiler seen writes, so a real file is read in one pass.
pub fn likely(member: &str) -> bool {
    member == "def.json" || member.ends_with("/def.json") || engine_member(member).is_some()
}

/// The definitions the kelf names that are files in the archive, once each, in graph order.
pub fn definitions<'k>(kelf: &'k Kelf, is_file: &dyn Fn(&str) -> bool) -> Vec<&'k str> {
    let mut seen = HashSet::new();
    kelf.graphs.iter().map(|g| g.definition.as_str()).filter(|d| !d.is_empty() && is_file(d) && seen.insert(*d)).collect()
}

/// Names up to [`MAX_LISTED`], then a count of the rest.
#[derive(Debug, Default)]
struct Listed {
    items: Vec<String>,
    more: usize,
}

impl Listed {
    fn push(&mut self, item: impl FnOnce() -> String) {
        if self.items.len() < MAX_LISTED {
            self.items.push(item());
        } else {
            self.more += 1;
        }
    }

    fn len(&self) -> usize {
        self.items.len() + self.more
    }

    /// `a, b and c`, or `a, b, … and 7 more`.
    fn text(&self) -> String {
        match (self.items.as_slice(), self.more) {
            ([], _) => String::new(),
            ([one], 0) => one.clone(),
            (items, 0) => format!("{} and {}", items[..items.len() - 1].join(", "), items[items.len() - 1]),
            (items, more) => format!("{} and {more} more", items.join(", ")),
        }
    }
}

/// Why a graph's streams were found by member name.
#[derive(Default)]
struct Fallbacks {
    /// The graph names no definition.
    undefined: Listed,
    /// Its definition is not a file in the archive: `graph (`def`)`.
    absent: Listed,
    /// Its definition names no `*_instr` key.
    keyless: Listed,
}

/// The engine streams of a container: `listing` its members, `defs` the
/// parsed definitions the kelf names (those that are files in the archive).
/// A key naming a member that is not a file in the archive is an error
/// naming the definition and the key.
pub fn locate(file: &str, kelf: Option<&Kelf>, listing: &[Member], defs: &HashMap<String, Definition>) -> Result<Found, NeffError> {
    let files: HashMap<&str, &Member> = listing.iter().map(|m| (m.name.as_str(), m)).collect();
    let is_file = |p: &str| files.get(p).is_some_and(|m| m.kind == "file");
    // Members named like streams, by folder, in archive order.
    let mut by_name: BTreeMap<String, Vec<(String, Engine)>> = BTreeMap::new();
    for m in listing.iter().filter(|m| m.kind == "file") {
        if let Some((dir, engine)) = engine_member(&m.name) {
            by_name.entry(dir).or_default().push((m.name.clone(), engine));
        }
    }
    let mut found = Found::default();
    let mut taken: HashMap<String, (String, String)> = HashMap::new();
    let mut steps = Listed::default();
    let mut fallbacks = Fallbacks::default();
    let mut unnamed = Listed::default();
    let mut twice = Listed::default();
    let Some(kelf) = kelf else {
        for (dir, members) in std::mem::take(&mut by_name) {
            for (member, engine) in members {
                found.streams.push(Planned { subgraph: dir.clone(), engine, member });
            }
        }
        found.notes.push(format!("no {KELF}: engine streams found by member name (DIR/{BY_NAME})"));
        found.looked_for.push(format!("members named DIR/{BY_NAME}, as there is no {KELF}"));
        return Ok(found);
    };
    for g in &kelf.graphs {
        let def = g.definition.as_str();
        let dir = def.rsplit_once('/').map_or("", |(d, _)| d);
        let subgraph = if g.name.is_empty() { dir } else { g.name.as_str() };
        let keys = defs.get(def).filter(|d| !d.instr.is_empty());
        let Some(d) = keys else {
            // Streams by member name in the graph's own folder.
            let why = if def.is_empty() {
                fallbacks.undefined.push(|| g.name.clone());
                "names no definition".to_string()
            } else if !is_file(def) {
                fallbacks.absent.push(|| format!("{} (`{def}`)", g.name));
                format!("its definition `{def}` is not in the archive")
            } else {
                fallbacks.keyless.push(|| format!("{} (`{def}`)", g.name));
                format!("`{def}` has no `*_instr` key")
            };
            steps.push(|| format!("graph `{}`: {why}, so members named {}/{BY_NAME}", g.name, g.name));
            for (member, engine) in by_name.remove(&g.name).unwrap_or_default() {
                if !taken.contains_key(&member) {
                    taken.insert(member.clone(), (g.name.clone(), engine.stem().to_string()));
                    found.streams.push(Planned { subgraph: g.name.clone(), engine, member });
                }
            }
            continue;
        };
        steps.push(|| {
            let keys: Vec<&str> = d.instr.iter().map(|i| i.key.as_str()).collect();
            format!("graph `{}`: the keys {} of `{def}`", g.name, keys.join(", "))
        });
        for i in &d.instr {
            let engine = Engine::from_key(&i.key).unwrap_or_else(|| Engine::Other(i.key.clone()));
            for value in &i.members {
                let member = definition::resolve(def, value, is_file).map_err(|tried| {
                    let tried: Vec<String> = tried.iter().map(|t| format!("`{t}`")).collect();
                    let what = match files.get(value.as_str()).or_else(|| tried.first().and_then(|t| files.get(t.trim_matches('`')))) {
                        Some(m) => format!("a {} member, not a file", m.kind),
                        None => "which is not in the archive".to_string(),
                    };
                    NeffError::new(
                        file,
                        def,
                        At::Member(i.at),
                        format!("key `{}` names `{value}`, {what} (looked for {})", i.key, tried.join(" and ")),
                    )
                })?;
                if let Some((graph, first)) = taken.get(&member) {
                    twice.push(|| format!("key `{}` of `{def}` names `{member}`, already read as {first} of graph {graph}: read once", i.key));
                    continue;
                }
                taken.insert(member.clone(), (subgraph.to_string(), engine.stem().to_string()));
                found.streams.push(Planned { subgraph: subgraph.to_string(), engine: engine.clone(), member });
            }
        }
        // Members named like streams beside the definition that it does not name are not streams.
        for folder in [g.name.as_str(), dir] {
            for (member, _) in by_name.remove(folder).unwrap_or_default() {
                if !taken.contains_key(&member) {
                    unnamed.push(|| format!("`{member}`"));
                }
            }
        }
    }
    // Folders no kelf graph names: their streams by member name (graph_notes names the folders).
    for (dir, members) in by_name {
        for (member, engine) in members {
            if !taken.contains_key(&member) {
                taken.insert(member.clone(), (dir.clone(), engine.stem().to_string()));
                found.streams.push(Planned { subgraph: dir.clone(), engine, member });
            }
        }
    }
    found.notes.extend(fallback_notes(&fallbacks));
    if unnamed.len() > 0 {
        found.notes.push(format!(
            "{} named like an engine stream, but no definition names {}: not read as {}",
            plural(&unnamed, "member", "members"),
            if unnamed.len() == 1 { "it" } else { "them" },
            if unnamed.len() == 1 { "one" } else { "streams" }
        ));
    }
    found.notes.extend(twice.items);
    if twice.more > 0 {
        found.notes.push(format!("… and {} more like the above", twice.more));
    }
    found.looked_for = steps.items;
    if steps.more > 0 {
        found.looked_for.push(format!("{} more graphs like the above", steps.more));
    }
    if kelf.graphs.is_empty() {
        found.looked_for.push(format!("members named DIR/{BY_NAME}, as {KELF} names no graph"));
    } else {
        found.looked_for.push(format!("members named DIR/{BY_NAME} in folders no graph names"));
    }
    Ok(found)
}

/// `member a` or `members a, b and c`.
fn plural(l: &Listed, one: &str, many: &str) -> String {
    format!("{} {}", if l.len() == 1 { one } else { many }, l.text())
}

/// One note per reason a graph's streams were found by member name.
fn fallback_notes(f: &Fallbacks) -> Vec<String> {
    const BY: &str = "engine streams found by member name";
    let mut notes = Vec::new();
    if f.undefined.len() > 0 {
        notes.push(format!("{KELF} names no definition for {}: {BY}", plural(&f.undefined, "graph", "graphs")));
    }
    if f.absent.len() > 0 {
        notes.push(format!("the definition {KELF} names for {} is not in the archive: {BY}", plural(&f.absent, "graph", "graphs")));
    }
    if f.keyless.len() > 0 {
        notes.push(format!("the definition of {} names no `*_instr` key: {BY}", plural(&f.keyless, "graph", "graphs")));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neff::meta::Graph;

    fn listing(names: &[&str]) -> Vec<Member> {
        names.iter().map(|n| Member { name: n.to_string(), size: 64, kind: "file".into(), tar_offset: 0 }).collect()
    }

    fn kelf(graphs: &[(&str, &str)]) -> Kelf {
        Kelf {
            target: "cayman".into(),
            version: String::new(),
            graphs: graphs.iter().map(|(n, d)| Graph { name: n.to_string(), definition: d.to_string() }).collect(),
        }
    }

    fn def(keys: &[(&str, &[&str])]) -> Definition {
        Definition {
            instr: keys
                .iter()
                .map(|(k, v)| definition::Instr { key: k.to_string(), members: v.iter().map(|s| s.to_string()).collect(), at: 0 })
                .collect(),
        }
    }

    fn members(f: &Found) -> Vec<(&str, &str, &str)> {
        f.streams.iter().map(|p| (p.subgraph.as_str(), p.engine.stem(), p.member.as_str())).collect()
    }

    /// The member names the fallback looks for are the stream engines' stems, in report order.
    #[test]
    fn the_names_said_are_the_stems_looked_for() {
        let stems: Vec<&str> = Engine::ALL.iter().map(Engine::stem).collect();
        assert_eq!(BY_NAME, format!("{{{}}}.bin", stems.join(",")));
    }

    #[test]
    fn the_definition_names_the_streams_whatever_their_names() -> Result<(), NeffError> {
        let l = listing(&["kelf-0.json", "sg00/def.json", "sg00/pe_stream.data", "sg00/act.x", "sg00/PE.bin", "sg00/exp_bkt.bin"]);
        let defs = HashMap::from([("sg00/def.json".to_string(), def(&[("pe_instr", &["pe_stream.data"]), ("act_instr", &["sg00/act.x"])]))]);
        let f = locate("f", Some(&kelf(&[("sg00", "sg00/def.json")])), &l, &defs)?;
        assert_eq!(members(&f), [("sg00", "PE", "sg00/pe_stream.data"), ("sg00", "Activation", "sg00/act.x")]);
        // A member named like a stream that the definition does not name is said, not read.
        assert_eq!(f.notes, ["member `sg00/PE.bin` named like an engine stream, but no definition names it: not read as one"]);
        assert_eq!(f.looked_for[0], "graph `sg00`: the keys pe_instr, act_instr of `sg00/def.json`");
        Ok(())
    }

    #[test]
    fn graphs_without_a_usable_definition_fall_back_to_names_and_say_so() -> Result<(), NeffError> {
        let l = listing(&["a/PE.bin", "b/SP.bin", "c/def.json", "c/DVE.bin", "d/Pool.bin"]);
        let defs = HashMap::from([("c/def.json".to_string(), def(&[]))]);
        let k = kelf(&[("a", ""), ("b", "b/def.json"), ("c", "c/def.json")]);
        let f = locate("f", Some(&k), &l, &defs)?;
        assert_eq!(members(&f), [("a", "PE", "a/PE.bin"), ("b", "SP", "b/SP.bin"), ("c", "DVE", "c/DVE.bin"), ("d", "Pool", "d/Pool.bin")]);
        assert_eq!(
            f.notes,
            [
                "kelf-0.json names no definition for graph a: engine streams found by member name",
                "the definition kelf-0.json names for graph b (`b/def.json`) is not in the archive: engine streams found by member name",
                "the definition of graph c (`c/def.json`) names no `*_instr` key: engine streams found by member name",
            ]
        );
        // No kelf: every member named like a stream, said once.
        let f = locate("f", None, &l, &HashMap::new())?;
        assert_eq!(f.streams.len(), 4);
        assert_eq!(f.notes, ["no kelf-0.json: engine streams found by member name (DIR/{PE,Activation,DVE,Pool,SP}.bin)"]);
        Ok(())
    }

    #[test]
    fn a_key_naming_a_missing_member_is_an_error_naming_definition_and_key() {
        let l = listing(&["sg00/def.json", "sg00/PE.bin"]);
        let mut d = def(&[("pe_instr", &["PE.bin"]), ("foo_instr", &["gone.bin"])]);
        d.instr[1].at = 0x2a;
        let defs = HashMap::from([("sg00/def.json".to_string(), d)]);
        let e = locate("f.neff", Some(&kelf(&[("sg00", "sg00/def.json")])), &l, &defs).err();
        let e = e.unwrap_or_else(|| NeffError::new("", "", At::Member(0), "no error".into()));
        assert_eq!((e.file.as_str(), e.member.as_str(), e.at), ("f.neff", "sg00/def.json", At::Member(0x2a)));
        assert_eq!(e.message, "key `foo_instr` names `gone.bin`, which is not in the archive (looked for `sg00/gone.bin` and `gone.bin`)");
    }

    #[test]
    fn a_member_named_twice_is_read_once_and_notes_stay_bounded() -> Result<(), NeffError> {
        let l = listing(&["sg00/def.json", "sg00/PE.bin"]);
        let defs = HashMap::from([("sg00/def.json".to_string(), def(&[("pe_instr", &["PE.bin"]), ("foo_instr", &["PE.bin"])]))]);
        let f = locate("f", Some(&kelf(&[("sg00", "sg00/def.json")])), &l, &defs)?;
        assert_eq!(members(&f), [("sg00", "PE", "sg00/PE.bin")]);
        assert_eq!(f.notes, ["key `foo_instr` of `sg00/def.json` names `sg00/PE.bin`, already read as PE of graph sg00: read once"]);
        // 40 graphs without a definition: one note, 16 named.
        let names: Vec<String> = (0..40).map(|i| format!("g{i}")).collect();
        let graphs: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "")).collect();
        let f = locate("f", Some(&kelf(&graphs)), &l, &HashMap::new())?;
        assert_eq!(f.notes.len(), 1, "{:?}", f.notes);
        assert!(
            f.notes[0].starts_with("kelf-0.json names no definition for graphs g0, g1, ") && f.notes[0].contains("g15 and 24 more: "),
            "{}",
            f.notes[0]
        );
        assert_eq!(f.looked_for.len(), MAX_LISTED + 2);
        Ok(())
    }
}
