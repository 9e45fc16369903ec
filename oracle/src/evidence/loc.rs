//! Where a bundle is: the file as the evidence names it, the member (stream)
//! inside a container (empty for a raw file) and the bundle's index there.
//!
//! For everything a diff may report (an opcode, an engine, a field's value, a
//! check's disagreement, an erratum's support, a broken claim) the evidence
//! keeps the smallest location, by (file, member, index), that showed it: a
//! function of the bundles alone, so any split of the files, merged, keeps
//! the same one ([`crate::hist`]'s argument, for a minimum).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::Arc;

/// A stream's names: its file and its member.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Names {
    file: Box<str>,
    member: Box<str>,
}

/// One bundle's place. Ordered by file, then member, then index. The names
/// are shared by every location of a stream: a histogram keeps one per
/// value, so a location is two words, not five.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc {
    names: Arc<Names>,
    /// The bundle's index in its stream (its offset over 64).
    pub index: u64,
}

impl Loc {
    /// Bundle `index` of `member` in `file` (names of their own: see [`At`] for a stream's).
    pub fn new(file: &str, member: &str, index: u64) -> Loc {
        Loc { names: Arc::new(Names { file: file.into(), member: member.into() }), index }
    }

    /// The file, as the evidence names it.
    pub fn file(&self) -> &str {
        &self.names.file
    }

    /// The member (stream) in the container; empty for a raw file.
    pub fn member(&self) -> &str {
        &self.names.member
    }

    /// The bundle's byte offset in its stream.
    pub fn offset(&self) -> u64 {
        self.index.saturating_mul(tpb_isa::BUNDLE_BYTES as u64)
    }

    /// Whether this location comes before `o`: `<`, by index alone when both
    /// share one stream's names (no comparison of the names' text).
    fn precedes(&self, o: &Loc) -> bool {
        if Arc::ptr_eq(&self.names, &o.names) {
            return self.index < o.index;
        }
        self < o
    }
}

/// The stream being counted: every location it gives shares its names
/// (so a location costs no allocation, and two of one stream compare by index).
#[derive(Clone, Debug)]
pub struct At {
    names: Arc<Names>,
}

impl At {
    /// The stream `member` of `file` (empty `member` for a raw file).
    pub fn new(file: &str, member: &str) -> At {
        At { names: Arc::new(Names { file: file.into(), member: member.into() }) }
    }

    /// Bundle `index` of this stream, sharing its names.
    pub fn loc(&self, index: u64) -> Loc {
        Loc { names: self.names.clone(), index }
    }

    /// Whether bundle `index` of this stream comes before `l`.
    fn before(&self, index: u64, l: &Loc) -> bool {
        // Of this very stream (the same names, not only equal ones): by index alone.
        if Arc::ptr_eq(&self.names, &l.names) {
            return index < l.index;
        }
        (&*self.names, index) < (&*l.names, l.index)
    }
}

/// Keeps in `slot` the smaller of what it holds and bundle `index` of `at`.
pub fn keep(slot: &mut Option<Loc>, at: &At, index: u64) {
    match slot {
        Some(l) if !at.before(index, l) => {}
        _ => *slot = Some(at.loc(index)),
    }
}

/// [`keep`] for a keyed location.
pub fn keep_in<K: Ord>(map: &mut BTreeMap<K, Loc>, key: K, at: &At, index: u64) {
    match map.entry(key) {
        std::collections::btree_map::Entry::Vacant(v) => {
            v.insert(at.loc(index));
        }
        std::collections::btree_map::Entry::Occupied(mut o) => {
            if at.before(index, o.get()) {
                o.insert(at.loc(index));
            }
        }
    }
}

/// The smaller of two locations (merging).
pub fn min(a: Option<Loc>, b: Option<Loc>) -> Option<Loc> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.precedes(&a) { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// Merges `other`'s keyed locations into `mine`, keeping each key's smaller.
pub fn merge_in<K: Ord>(mine: &mut BTreeMap<K, Loc>, other: BTreeMap<K, Loc>) {
    for (k, l) in other {
        match mine.entry(k) {
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(l);
            }
            std::collections::btree_map::Entry::Occupied(mut o) => {
                if l < *o.get() {
                    o.insert(l);
                }
            }
        }
    }
}

/// Why the `locations` object of evidence JSON does not read as a [`Table`]
/// writes it; each names the key (and the line) at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LocationsError {
    /// `files`, `members` or `at` is missing or not an array.
    #[error(".locations.{key}: not an array")]
    NotAnArray {
        /// The key.
        key: &'static str,
    },
    /// `files` or `members` holds something other than strings.
    #[error(".locations.{key}: not names")]
    NotNames {
        /// The key.
        key: &'static str,
    },
    /// Line `index` of `at` is not three numbers naming a file, a member and a bundle index.
    #[error(".locations.at[{index}]: not \"FILE MEMBER INDEX\"")]
    NotALocation {
        /// The line's position in `at`.
        index: usize,
    },
}

/// The locations an evidence JSON names, listed once and named elsewhere by
/// their position: most values share their first bundle with others. Kept
/// small, since every tracked value has one: `{"files": [...], "members":
/// [...], "at": ["FILE MEMBER INDEX", ...]}`, three numbers a line (file and
/// member by position in their lists), sorted as the locations are.
///
/// A table has a rank for each stream's names, so placing a location
/// compares two numbers, never the names' text: the evidence of a large run
/// places every tracked value's location. It borrows the locations it was
/// made of, so no stream's names can be dropped (and their address reused)
/// while it is read by address.
#[derive(Debug, Default)]
pub struct Table<'a> {
    /// The address of each stream's names → the rank of those names among all (equal names, one rank).
    ranks: HashMap<*const Names, u32>,
    /// Each rank's names.
    names: Vec<&'a Names>,
    /// Every distinct location as (rank, index), in order: a location's position is its place here.
    keys: Vec<(u32, u64)>,
}

impl<'a> Table<'a> {
    /// The table of `locs` (each once, in location order).
    pub fn of(locs: impl IntoIterator<Item = &'a Loc>) -> Table<'a> {
        let locs: Vec<&'a Loc> = locs.into_iter().collect();
        let mut streams: HashMap<*const Names, &'a Names> = HashMap::new();
        for l in &locs {
            streams.entry(Arc::as_ptr(&l.names)).or_insert(&l.names);
        }
        let mut by_value: Vec<(*const Names, &'a Names)> = streams.into_iter().collect();
        by_value.sort_by(|a, b| a.1.cmp(b.1));
        let (mut ranks, mut names) = (HashMap::with_capacity(by_value.len()), Vec::<&'a Names>::new());
        for (ptr, n) in by_value {
            if names.last() != Some(&n) {
                names.push(n);
            }
            ranks.insert(ptr, names.len().saturating_sub(1) as u32);
        }
        let mut keys: Vec<(u32, u64)> = locs.iter().map(|l| (ranks.get(&Arc::as_ptr(&l.names)).copied().unwrap_or(0), l.index)).collect();
        keys.sort_unstable();
        keys.dedup();
        Table { ranks, names, keys }
    }

    /// A location's position (0 for one the table was not made of: never, by construction).
    pub fn at(&self, l: &Loc) -> usize {
        let Some(&rank) = self.ranks.get(&Arc::as_ptr(&l.names)) else { return 0 };
        self.keys.binary_search(&(rank, l.index)).unwrap_or(0)
    }

    /// The `locations` object: `files`, `members` and one `at` line per location.
    pub fn to_json(&self) -> serde_json::Value {
        let files: std::collections::BTreeSet<&'a str> = self.names.iter().map(|n| &*n.file).collect();
        let members: std::collections::BTreeSet<&'a str> = self.names.iter().map(|n| &*n.member).collect();
        let place =
            |set: &std::collections::BTreeSet<&'a str>| -> BTreeMap<&'a str, usize> { set.iter().enumerate().map(|(i, s)| (*s, i)).collect() };
        let (fi, mi) = (place(&files), place(&members));
        let at: Vec<serde_json::Value> = self
            .keys
            .iter()
            .map(|&(rank, index)| {
                let n = self.names.get(rank as usize);
                let f = n.and_then(|n| fi.get(&*n.file)).copied().unwrap_or(0);
                let m = n.and_then(|n| mi.get(&*n.member)).copied().unwrap_or(0);
                serde_json::Value::String(format!("{f} {m} {index}"))
            })
            .collect();
        let mut v = serde_json::json!({"files": files, "members": members});
        if let Some(m) = v.as_object_mut() {
            m.insert("at".into(), serde_json::Value::Array(at));
        }
        v
    }

    /// The locations of a `locations` object, by position.
    pub fn read(v: &serde_json::Value) -> Result<Vec<Loc>, LocationsError> {
        let names = |key: &'static str| -> Result<Vec<&str>, LocationsError> {
            let list = v.get(key).and_then(|l| l.as_array()).ok_or(LocationsError::NotAnArray { key })?;
            list.iter().map(|s| s.as_str().ok_or(LocationsError::NotNames { key })).collect()
        };
        let (files, members) = (names("files")?, names("members")?);
        let at = v.get("at").and_then(|a| a.as_array()).ok_or(LocationsError::NotAnArray { key: "at" })?;
        at.iter()
            .enumerate()
            .map(|(i, l)| {
                let bad = || LocationsError::NotALocation { index: i };
                let mut n = l.as_str().ok_or_else(bad)?.split(' ').map(|x| x.parse::<u64>().ok());
                let (Some(Some(f)), Some(Some(m)), Some(Some(index)), None) = (n.next(), n.next(), n.next(), n.next()) else { return Err(bad()) };
                let (f, m) = (usize::try_from(f).ok().and_then(|k| files.get(k)), usize::try_from(m).ok().and_then(|k| members.get(k)));
                match (f, m) {
                    (Some(f), Some(m)) => Ok(Loc::new(f, m, index)),
                    _ => Err(bad()),
                }
            })
            .collect()
    }

    /// Positions of `locs` in order as one line (`-` for none): a histogram's
    /// values' first bundles, in the order of its `counts`.
    pub fn line<'l>(&self, locs: impl IntoIterator<Item = Option<&'l Loc>>) -> String {
        let mut out = String::new();
        for (i, l) in locs.into_iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            match l {
                Some(l) => {
                    let _ = write!(out, "{}", self.at(l));
                }
                None => out.push('-'),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smaller_location_is_kept_whatever_the_order() {
        let (a, b) = (At::new("a.neff", "sg00/PE.bin"), At::new("b.neff", "sg00/ACT.bin"));
        let mut one = None;
        keep(&mut one, &b, 0);
        keep(&mut one, &a, 7);
        keep(&mut one, &a, 9);
        let mut two = None;
        keep(&mut two, &a, 7);
        keep(&mut two, &b, 0);
        assert_eq!(one, two);
        assert_eq!(one, Some(Loc::new("a.neff", "sg00/PE.bin", 7)));
        // Equal names of another stream compare by value.
        let again = At::new("a.neff", "sg00/PE.bin");
        keep(&mut one, &again, 3);
        assert_eq!(one.map(|l| l.index), Some(3));
        assert_eq!(min(Some(Loc::new("b", "", 0)), Some(Loc::new("a", "", 5))), Some(Loc::new("a", "", 5)));
    }

    #[test]
    fn a_locations_table_that_does_not_read_names_the_key_or_line() {
        let read = |v: serde_json::Value| Table::read(&v).map_err(|e| e.to_string());
        assert_eq!(read(serde_json::json!({"files": ["a"], "members": [""], "at": ["0 0 3"]})).map(|l| l.len()), Ok(1));
        assert_eq!(read(serde_json::json!({"files": [1]})), Err(".locations.files: not names".to_string()));
        assert_eq!(read(serde_json::json!({"files": [], "members": []})), Err(".locations.at: not an array".to_string()));
        let bad_line = serde_json::json!({"files": ["a"], "members": [""], "at": ["0 0 3", "0 1 3"]});
        assert_eq!(read(bad_line), Err(".locations.at[1]: not \"FILE MEMBER INDEX\"".to_string()));
    }
}
