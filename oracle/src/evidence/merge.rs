//! Evidence joined: the evidence of two sets of streams merged is the
//! evidence of both (every count summed, every histogram merged exactly:
//! [`crate::hist::Bounded::merge`]), so merging is associative and
//! commutative and any split of the inputs, merged, renders byte for byte
//! as one run over all of them. The JSON `tpb evidence --json` writes holds
//! every count (each histogram's tracked values, not only its top), so it
//! reads back into the same evidence ([`Evidence::from_json`]) and merges.

use super::harness::{Harness, HarnessError};
use super::loc::{self, Loc, LocationsError, Table};
use super::{CheckCount, Evidence, Group, Hist, Support};
use crate::neff::GenerationFrom;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use tpb_isa::errata::ERRATA;
use tpb_isa::{checks, opcode, Generation};

/// Which shards of a split run an evidence holds: `have` of `count`. Absent
/// from evidence of a whole run, and from a merge of every shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shards {
    /// Shards the run was split into.
    pub count: u32,
    /// The shards held (1-based).
    pub have: BTreeSet<u32>,
}

impl Shards {
    /// Shard `k` (1-based) of `count`.
    pub fn one(k: u32, count: u32) -> Shards {
        Shards { count, have: BTreeSet::from([k]) }
    }

    /// Every shard is there: the evidence of the whole run.
    pub fn complete(&self) -> bool {
        self.have.len() as u64 == u64::from(self.count)
    }

    /// `1, 3 of 4`.
    pub fn describe(&self) -> String {
        let have: Vec<String> = self.have.iter().map(u32::to_string).collect();
        format!("{} of {}", have.join(", "), self.count)
    }
}

/// Why two evidences cannot be merged: no single run could have written them together.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// They were written by another harness ([`Harness::mismatch`] says how).
    #[error("different harness: {why}")]
    Harness {
        /// What differs.
        why: String,
    },
    /// Shards of two different splits (`ours` and `theirs` shards in all).
    #[error("shards of different splits: of {ours} and of {theirs}")]
    Splits {
        /// The shard count of the evidence merged into.
        ours: u32,
        /// The shard count of the evidence merged in.
        theirs: u32,
    },
    /// Shard `shard` of `count` is held by both.
    #[error("shard {shard}/{count} is on both sides")]
    ShardTwice {
        /// The shard (1-based).
        shard: u32,
        /// The shards of the split.
        count: u32,
    },
    /// One side is a shard, the other the evidence of a whole run.
    #[error("a shard ({}) with the evidence of a whole run", shards.describe())]
    ShardAndWhole {
        /// The shards the shard side holds.
        shards: Shards,
    },
    /// A file is counted by both (a shard given twice).
    #[error("file {} is counted on both sides (a shard given twice?)", crate::text_safe::escape(file))]
    FileTwice {
        /// The file, as the evidence names it.
        file: String,
    },
}

/// Why JSON does not read back as evidence ([`Evidence::from_json`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The `harness` object does not read.
    #[error(transparent)]
    Harness(#[from] HarnessError),
    /// The `locations` object does not read.
    #[error(transparent)]
    Locations(#[from] LocationsError),
    /// The value at a JSON path is not what evidence holds there.
    #[error("{at}: {problem}")]
    At {
        /// The path, as `.groups[3].fields[2].counts` (`the document` for the whole).
        at: String,
        /// What is wrong with the value there.
        problem: ReadProblem,
    },
}

/// What is wrong with a value of evidence JSON ([`ReadError::At`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadProblem {
    /// The key is absent.
    #[error("missing")]
    Missing,
    /// The value is of another kind: `expected` says what it should be (`an array`, `a count`, …).
    #[error("not {expected}")]
    Not {
        /// What the value should be, with its article.
        expected: &'static str,
    },
    /// A string that names no generation.
    #[error("not a generation: {}", crate::text_safe::escape(value))]
    Generation {
        /// The string.
        value: String,
    },
    /// A check code this build does not know.
    #[error("check {} is not one this tpb knows", crate::text_safe::escape(code))]
    Check {
        /// The code.
        code: String,
    },
    /// An erratum id this build does not know.
    #[error("erratum {} is not one this tpb knows", crate::text_safe::escape(id))]
    Erratum {
        /// The id.
        id: String,
    },
    /// A histogram key that is not a value as evidence writes one (`0x…`, whole bytes).
    #[error("{} is not a value", crate::text_safe::escape(key))]
    Value {
        /// The key.
        key: String,
    },
    /// A histogram's counts add up to more than its values and `other`.
    #[error("counts exceed the values and other")]
    CountsExceed,
    /// Counts no histogram this build keeps could hold (more values than it tracks, say).
    #[error("no histogram holds these counts")]
    NoHistogram,
    /// A shard count past `u32`.
    #[error("too large")]
    TooLarge,
    /// A `generation_from` that names no way a generation is chosen.
    #[error("unknown")]
    Unknown,
    /// A group lists another number of fields than this build counts for its opcode.
    #[error("{found} fields, this tpb counts {counts}")]
    Fields {
        /// Fields listed.
        found: usize,
        /// Fields this build counts.
        counts: usize,
    },
    /// A field listed where this build counts another.
    #[error("this tpb counts {expected} there")]
    Field {
        /// The field this build counts at that position.
        expected: String,
    },
    /// A group lists another number of claims than this build has for its opcode.
    #[error("{found} claims, this tpb has {has}")]
    Claims {
        /// Claims listed.
        found: usize,
        /// Claims this build has.
        has: usize,
    },
    /// The same (generation, build, opcode) listed twice.
    #[error("a group listed twice")]
    GroupTwice,
    /// A contradiction whose opcode has no group.
    #[error("no group of its opcode")]
    NoGroup,
    /// The JSON reads, but does not render back to itself.
    #[error("does not read back as evidence this tpb writes (edited, or another version)")]
    DoesNotRenderBack,
}

/// The value at the path `at` has `problem` ([`ReadError::At`]).
fn wrong(at: impl Into<String>, problem: ReadProblem) -> ReadError {
    ReadError::At { at: at.into(), problem }
}

/// [`ReadProblem::Not`] at `at`.
fn not(at: impl Into<String>, expected: &'static str) -> ReadError {
    wrong(at, ReadProblem::Not { expected })
}

/// Sums `b` into `a`, saturating: counts read from a file may be anything.
fn add(a: &mut u64, b: u64) {
    *a = a.saturating_add(b);
}

impl Group {
    pub(super) fn merge(&mut self, o: Group) {
        add(&mut self.bundles, o.bundles);
        self.first = loc::min(self.first.take(), o.first);
        for (e, n) in o.engines {
            add(self.engines.entry(e).or_insert(0), n);
        }
        loc::merge_in(&mut self.engines_first, o.engines_first);
        // Both groups are of one opcode, so their fields and claims list alike.
        for ((_, mine), (_, theirs)) in self.fields.iter_mut().zip(o.fields) {
            mine.merge(theirs);
        }
        for (code, c) in o.checks {
            let m = self.checks.entry(code).or_default();
            add(&mut m.agree, c.agree);
            add(&mut m.disagree, c.disagree);
            add(&mut m.refused, c.refused);
            m.first_disagree = loc::min(m.first_disagree.take(), c.first_disagree);
            m.first_refused = loc::min(m.first_refused.take(), c.first_refused);
            for (id, n) in c.accepted {
                add(m.accepted.entry(id).or_insert(0), n);
            }
        }
        for (k, h) in o.refused {
            self.refused.entry(k).or_default().merge(h);
        }
        for (mine, theirs) in self.claims.iter_mut().zip(o.claims) {
            add(&mut mine.2, theirs.2);
            mine.3 = loc::min(mine.3.take(), theirs.3);
        }
    }
}

impl Evidence {
    /// Adds the evidence of other streams, as if they had been added here.
    /// Exact for any split and order (see the module). The harness is not
    /// compared: [`Evidence::merge_checked`] refuses what should not be merged.
    pub fn merge(&mut self, o: Evidence) {
        for (k, n) in o.inputs {
            add(self.inputs.entry(k).or_insert(0), n);
        }
        for (file, s) in o.sources {
            self.note_source(file, s);
        }
        for (k, ops) in o.groups {
            let mine = self.groups.entry(k).or_default();
            for (op, g) in ops {
                match mine.get_mut(&op) {
                    Some(m) => m.merge(g),
                    None => {
                        mine.insert(op, g);
                    }
                }
            }
        }
        for (id, builds) in o.support {
            let mine = self.support.entry(id).or_default();
            for (build, s) in builds {
                let m = mine.entry(build).or_default();
                m.files.extend(s.files);
                add(&mut m.bundles, s.bundles);
                m.first = loc::min(m.first.take(), s.first);
            }
        }
        add(&mut self.bundles, o.bundles);
        add(&mut self.invalid_spec, o.invalid_spec);
        add(&mut self.invalid_amended, o.invalid_amended);
        self.shards = match (self.shards.take(), o.shards) {
            (Some(mut a), Some(b)) => {
                a.have.extend(b.have);
                Some(a).filter(|s| !s.complete())
            }
            (a, b) => a.or(b),
        };
    }

    /// [`Evidence::merge`], refusing evidence that no single run could write
    /// together: another harness (version, tables, `--arch`), shards of
    /// different splits or one shard twice, a shard with a whole run, or a
    /// file counted on both sides (a shard given twice).
    pub fn merge_checked(&mut self, o: Evidence) -> Result<(), MergeError> {
        if let Some(why) = self.harness.mismatch(&o.harness) {
            return Err(MergeError::Harness { why });
        }
        match (&self.shards, &o.shards) {
            (Some(a), Some(b)) if a.count != b.count => return Err(MergeError::Splits { ours: a.count, theirs: b.count }),
            (Some(a), Some(b)) => {
                if let Some(k) = a.have.intersection(&b.have).next() {
                    return Err(MergeError::ShardTwice { shard: *k, count: a.count });
                }
            }
            (Some(s), None) | (None, Some(s)) => return Err(MergeError::ShardAndWhole { shards: s.clone() }),
            (None, None) => {}
        }
        let files: BTreeSet<&str> = self.inputs.keys().map(|(f, _, _)| f.as_str()).collect();
        if let Some((f, _, _)) = o.inputs.keys().find(|(f, _, _)| files.contains(f.as_str())) {
            return Err(MergeError::FileTwice { file: f.clone() });
        }
        self.merge(o);
        Ok(())
    }

    /// Which shards this evidence holds (none: a whole run, or every shard merged).
    pub fn shards(&self) -> Option<&Shards> {
        self.shards.as_ref()
    }

    /// Marks this evidence as shard `k` of `count` (nothing when `count` is 1: that is the whole run).
    pub fn set_shard(&mut self, k: u32, count: u32) {
        self.shards = Some(Shards::one(k, count)).filter(|s| !s.complete());
    }

    /// The evidence a `tpb evidence --json` wrote, read back. Whatever does
    /// not render back to exactly `v` is refused (a file edited by hand, cut,
    /// or written by another version): the reading names the first place
    /// that differs.
    pub fn from_json(v: &Value) -> Result<Evidence, ReadError> {
        let ev = read(v)?;
        let again = ev.to_json();
        match first_difference(v, &again, "") {
            None => Ok(ev),
            Some(path) => Err(wrong(path, ReadProblem::DoesNotRenderBack)),
        }
    }
}

/// The first JSON path at which `a` and `b` differ.
fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(p), Some(q)) => first_difference(p, q, &format!("{at}.{k}")),
                _ => Some(format!("{at}.{k}")),
            })
        }
        (Value::Array(x), Value::Array(y)) => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, &format!("{at}[{i}]")))
            .or_else(|| (x.len() != y.len()).then(|| format!("{at}[{}]", x.len().min(y.len())))),
        _ => (a != b).then(|| if at.is_empty() { "the document".to_string() } else { at.to_string() }),
    }
}

type R<T> = Result<T, ReadError>;

fn get<'a>(v: &'a Value, k: &str, at: &str) -> R<&'a Value> {
    v.get(k).ok_or_else(|| wrong(format!("{at}.{k}"), ReadProblem::Missing))
}

fn arr<'a>(v: &'a Value, k: &str, at: &str) -> R<&'a Vec<Value>> {
    get(v, k, at)?.as_array().ok_or_else(|| not(format!("{at}.{k}"), "an array"))
}

fn obj<'a>(v: &'a Value, k: &str, at: &str) -> R<&'a Map<String, Value>> {
    get(v, k, at)?.as_object().ok_or_else(|| not(format!("{at}.{k}"), "an object"))
}

fn text<'a>(v: &'a Value, k: &str, at: &str) -> R<&'a str> {
    get(v, k, at)?.as_str().ok_or_else(|| not(format!("{at}.{k}"), "a string"))
}

fn count(v: &Value, k: &str, at: &str) -> R<u64> {
    get(v, k, at)?.as_u64().ok_or_else(|| not(format!("{at}.{k}"), "a count"))
}

fn generation(v: &Value, at: &str) -> R<Generation> {
    let s = text(v, "generation", at)?;
    s.parse().map_err(|_| wrong(format!("{at}.generation"), ReadProblem::Generation { value: s.to_string() }))
}

fn opcode_byte(v: &Value, at: &str) -> R<u8> {
    let s = text(v, "opcode", at)?;
    s.strip_prefix("0x").and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or_else(|| not(format!("{at}.opcode"), "an opcode byte"))
}

fn check_code(code: &str, at: &str) -> R<&'static str> {
    checks::by_code(code).map(|c| c.code).ok_or_else(|| wrong(at, ReadProblem::Check { code: code.to_string() }))
}

fn erratum_id(id: &str, at: &str) -> R<&'static str> {
    ERRATA.iter().find(|e| e.id == id).map(|e| e.id).ok_or_else(|| wrong(at, ReadProblem::Erratum { id: id.to_string() }))
}

/// `0x0a0b` → little-endian bytes `[0x0b, 0x0a]`.
fn unhex(s: &str) -> Option<Vec<u8>> {
    let h = s.strip_prefix("0x")?;
    if h.is_empty() || !h.len().is_multiple_of(2) {
        return None;
    }
    let mut v: Vec<u8> = (0..h.len()).step_by(2).map(|i| h.get(i..i + 2).and_then(|b| u8::from_str_radix(b, 16).ok())).collect::<Option<_>>()?;
    v.reverse();
    Some(v)
}

/// The location `v[k]` names by its position in `locs`, if `v` has the key.
fn loc_ref(v: &Value, k: &str, at: &str, locs: &[Loc]) -> R<Option<Loc>> {
    match v.get(k) {
        None => Ok(None),
        Some(n) => n
            .as_u64()
            .and_then(|n| locs.get(usize::try_from(n).ok()?))
            .cloned()
            .map(Some)
            .ok_or_else(|| not(format!("{at}.{k}"), "a position in .locations")),
    }
}

/// A line of `n` positions in `locs` (`-` for none), as [`Table::line`] writes it.
fn firsts(line: &str, n: usize, locs: &[Loc]) -> Option<Vec<Option<Loc>>> {
    let v: Vec<Option<Loc>> = line
        .split(' ')
        .filter(|x| !x.is_empty())
        .map(|x| if x == "-" { Some(None) } else { x.parse::<usize>().ok().and_then(|i| locs.get(i)).map(|l| Some(l.clone())) })
        .collect::<Option<_>>()?;
    (v.len() == n).then_some(v)
}

/// A histogram from its JSON: `counts` (every tracked value), `first` (their
/// locations) and `other` (the values past the top, tracked or not): what is
/// past the cap is `other` less the tracked values past the top.
fn hist(v: &Value, at: &str, locs: &[Loc]) -> R<Hist> {
    let mut tracked = Vec::new();
    let counts = obj(v, "counts", at)?;
    let firsts = firsts(text(v, "first", at)?, counts.len(), locs).ok_or_else(|| not(format!("{at}.first"), "a location per value counted"))?;
    for ((k, n), first) in counts.iter().zip(firsts) {
        let bytes = unhex(k).ok_or_else(|| wrong(format!("{at}.counts"), ReadProblem::Value { key: k.clone() }))?;
        tracked.push((bytes, n.as_u64().ok_or_else(|| not(format!("{at}.counts.{k}"), "a count"))?, first));
    }
    let listed: u64 = arr(v, "values", at)?.iter().filter_map(|p| p.get(1).and_then(Value::as_u64)).sum();
    let sum: u64 = tracked.iter().map(|t| t.1).sum();
    let untracked = (count(v, "other", at)? + listed).checked_sub(sum).ok_or_else(|| wrong(at, ReadProblem::CountsExceed))?;
    Hist::from_parts(tracked, untracked).ok_or_else(|| wrong(format!("{at}.counts"), ReadProblem::NoHistogram))
}

fn read(v: &Value) -> R<Evidence> {
    let mut ev = Evidence::new();
    ev.harness = Harness::from_json(get(v, "harness", "")?)?;
    let locs = Table::read(get(v, "locations", "")?)?;
    let locs = locs.as_slice();
    if let Some(s) = v.get("shards") {
        let have: BTreeSet<u32> = arr(s, "have", ".shards")?
            .iter()
            .map(|k| k.as_u64().and_then(|k| u32::try_from(k).ok()))
            .collect::<Option<_>>()
            .ok_or_else(|| not(".shards.have", "shard numbers"))?;
        let count = u32::try_from(count(s, "count", ".shards")?).map_err(|_| wrong(".shards.count", ReadProblem::TooLarge))?;
        ev.shards = Some(Shards { count, have });
    }
    for (i, input) in arr(v, "inputs", "")?.iter().enumerate() {
        let at = format!(".inputs[{i}]");
        let file = text(input, "file", &at)?.to_string();
        let key = (file.clone(), text(input, "build", &at)?.to_string(), generation(input, &at)?);
        ev.inputs.insert(key, count(input, "bundles", &at)?);
        let target = get(input, "target", &at)?.as_str().map(str::to_string);
        let from = get(input, "generation_from", &at)?;
        if let Some(from) = from.as_str() {
            let from = GenerationFrom::from_name(from).ok_or_else(|| wrong(format!("{at}.generation_from"), ReadProblem::Unknown))?;
            ev.note_source(file, (target, from));
        }
    }
    for (i, g) in arr(v, "groups", "")?.iter().enumerate() {
        let at = format!(".groups[{i}]");
        let op = opcode_byte(g, &at)?;
        let mut group = Group::new(opcode::body_kind(op), op);
        group.bundles = count(g, "bundles", &at)?;
        group.first = loc_ref(g, "first", &at, locs)?;
        for (e, n) in obj(g, "engines", &at)? {
            group.engines.insert(e.clone(), n.as_u64().ok_or_else(|| not(format!("{at}.engines"), "a count"))?);
        }
        let engines_first = get(g, "engines_first", &at)?;
        for e in obj(g, "engines_first", &at)?.keys() {
            if let Some(l) = loc_ref(engines_first, e, &format!("{at}.engines_first"), locs)? {
                group.engines_first.insert(e.clone(), l);
            }
        }
        let fields = arr(g, "fields", &at)?;
        if fields.len() != group.fields.len() {
            return Err(wrong(format!("{at}.fields"), ReadProblem::Fields { found: fields.len(), counts: group.fields.len() }));
        }
        for (j, (f, (spec, h))) in fields.iter().zip(group.fields.iter_mut()).enumerate() {
            let at = format!("{at}.fields[{j}]");
            if text(f, "field", &at)? != spec.path {
                return Err(wrong(format!("{at}.field"), ReadProblem::Field { expected: spec.path.to_string() }));
            }
            *h = hist(f, &at, locs)?;
        }
        for (j, c) in arr(g, "checks", &at)?.iter().enumerate() {
            let at = format!("{at}.checks[{j}]");
            let code = check_code(text(c, "code", &at)?, &at)?;
            let mut accepted = BTreeMap::new();
            for (id, n) in obj(c, "accepted", &at)? {
                accepted.insert(erratum_id(id, &at)?, n.as_u64().ok_or_else(|| not(format!("{at}.accepted"), "a count"))?);
            }
            let cc = CheckCount {
                agree: count(c, "agree", &at)?,
                disagree: count(c, "disagree", &at)?,
                accepted,
                refused: count(c, "refused", &at)?,
                first_disagree: loc_ref(c, "first_disagree", &at, locs)?,
                first_refused: loc_ref(c, "first_refused", &at, locs)?,
            };
            group.checks.insert(code, cc);
        }
        let claims = arr(g, "claims", &at)?;
        if claims.len() != group.claims.len() {
            return Err(wrong(format!("{at}.claims"), ReadProblem::Claims { found: claims.len(), has: group.claims.len() }));
        }
        for (j, (c, mine)) in claims.iter().zip(group.claims.iter_mut()).enumerate() {
            mine.2 = count(c, "broken", &format!("{at}.claims[{j}]"))?;
            mine.3 = loc_ref(c, "first_broken", &format!("{at}.claims[{j}]"), locs)?;
        }
        let key = (generation(g, &at)?, text(g, "build", &at)?.to_string());
        if ev.groups.entry(key).or_default().insert(op, group).is_some() {
            return Err(wrong(at, ReadProblem::GroupTwice));
        }
    }
    for (i, c) in arr(v, "contradictions", "")?.iter().enumerate() {
        let at = format!(".contradictions[{i}]");
        let key = (generation(c, &at)?, text(c, "build", &at)?.to_string());
        let op = opcode_byte(c, &at)?;
        let group = ev.groups.get_mut(&key).and_then(|ops| ops.get_mut(&op)).ok_or_else(|| wrong(at.as_str(), ReadProblem::NoGroup))?;
        let check = check_code(text(c, "check", &at)?, &at)?;
        group.refused.insert((check, text(c, "field", &at)?.to_string()), hist(c, &at, locs)?);
    }
    for (i, e) in arr(v, "errata", "")?.iter().enumerate() {
        let at = format!(".errata[{i}]");
        let id = erratum_id(text(e, "id", &at)?, &at)?;
        for (build, s) in obj(e, "evidence", &at)? {
            let at = format!("{at}.evidence");
            let files = arr(s, "files", &at)?.iter().map(|f| f.as_str().map(str::to_string)).collect::<Option<BTreeSet<_>>>();
            let files = files.ok_or_else(|| not(format!("{at}.files"), "file names"))?;
            let support = Support { files, bundles: count(s, "bundles", &at)?, first: loc_ref(s, "first", &at, locs)? };
            ev.support.entry(id).or_default().insert(build.clone(), support);
        }
    }
    let totals = get(v, "totals", "")?;
    ev.bundles = count(totals, "bundles", ".totals")?;
    ev.invalid_spec = count(totals, "invalid_spec", ".totals")?;
    ev.invalid_amended = count(totals, "invalid_amended", ".totals")?;
    Ok(ev)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_merge_says_which_shards_or_file() {
        let (mut a, mut b) = (Evidence::new(), Evidence::new());
        a.set_shard(1, 4);
        b.set_shard(2, 3);
        assert_eq!(a.merge_checked(b).map_err(|e| e.to_string()), Err("shards of different splits: of 4 and of 3".to_string()));
        let e = MergeError::ShardAndWhole { shards: Shards { count: 4, have: BTreeSet::from([1, 3]) } };
        assert_eq!(e.to_string(), "a shard (1, 3 of 4) with the evidence of a whole run");
    }

    #[test]
    fn json_that_is_not_evidence_names_the_path() {
        let e = Evidence::from_json(&serde_json::json!({})).err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some(".harness: missing"));
        let mut v = Evidence::new().to_json();
        v["totals"]["bundles"] = serde_json::json!("many");
        let e = Evidence::from_json(&v).err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some(".totals.bundles: not a count"));
        let e = wrong(".groups[0].generation", ReadProblem::Generation { value: "v\n9".into() });
        assert_eq!(e.to_string(), ".groups[0].generation: not a generation: v\\n9");
    }
}
