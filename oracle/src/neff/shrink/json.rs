//! Edits of the two metadata members that name what a container holds:
//! `kelf-0.json` (its graphs) and a graph's definition (its `*_instr` keys).
//! A member is rewritten only when something is taken out of it, as the
//! compilers write it: 4-space indent, a final newline when it had one. The
//! JSON is read into `serde_json::Value`, which sorts object keys (as every
//! real definition already is) and keeps arrays in order.

use super::super::definition;
use super::super::stream::INSTR_SUFFIX;
use serde::Serialize as _;
use serde_json::Value;

/// Why a metadata member could not be edited. A candidate that fails so is
/// counted as malformed, never shown to the predicate.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// The member (`kelf-0.json`, or a definition by its member name) is not JSON.
    #[error("{member}: {source}")]
    Json {
        /// The member's name in the archive.
        member: String,
        /// Where the JSON reader stopped.
        source: serde_json::Error,
    },
    /// `kelf-0.json` has no `graphs` list to keep graphs of.
    #[error("kelf-0.json: no `graphs` list")]
    NoGraphs,
    /// A definition that is JSON but not an object: it has no keys to edit.
    #[error("{member}: not a JSON object")]
    NotAnObject {
        /// The definition's member name.
        member: String,
    },
    /// The edited JSON could not be written out.
    #[error("{0}")]
    Write(#[source] serde_json::Error),
}

/// `kelf-0.json` keeping only the graphs at the indices `keep` of its `graphs` list.
pub fn kelf_keeping(bytes: &[u8], keep: &[usize]) -> Result<Vec<u8>, EditError> {
    let mut v: Value = serde_json::from_slice(bytes).map_err(|source| EditError::Json { member: "kelf-0.json".to_string(), source })?;
    let graphs = v.get_mut("graphs").and_then(Value::as_array_mut).ok_or(EditError::NoGraphs)?;
    let keep: std::collections::BTreeSet<&usize> = keep.iter().collect();
    let kept: Vec<Value> = graphs.iter().enumerate().filter(|(i, _)| keep.contains(i)).map(|(_, g)| g.clone()).collect();
    *graphs = kept;
    written(&v, bytes)
}

/// The definition `def` (its bytes) without the member names that resolve
/// to a member `gone` says is dropped: a key naming only such members goes
/// whole, so the container stays well-formed (a key naming an absent member
/// is an error). `exists` says which members the archive holds (as the
/// reader resolved them). `None` when nothing named is gone.
pub fn definition_without(def: &str, bytes: &[u8], gone: &dyn Fn(&str) -> bool, exists: &dyn Fn(&str) -> bool) -> Result<Option<Vec<u8>>, EditError> {
    let mut v: Value = serde_json::from_slice(bytes).map_err(|source| EditError::Json { member: def.to_string(), source })?;
    let obj = v.as_object_mut().ok_or_else(|| EditError::NotAnObject { member: def.to_string() })?;
    let names_gone = |name: &str| definition::resolve(def, name, exists).is_ok_and(|path| gone(&path));
    let keys: Vec<String> = obj.keys().filter(|k| k.ends_with(INSTR_SUFFIX)).cloned().collect();
    let mut changed = false;
    for key in keys {
        let emptied = match obj.get_mut(&key) {
            Some(Value::String(name)) => names_gone(name),
            Some(Value::Array(names)) => {
                let before = names.len();
                names.retain(|n| !n.as_str().is_some_and(names_gone));
                changed |= names.len() != before;
                names.is_empty() && names.len() != before
            }
            _ => false,
        };
        if emptied {
            obj.remove(&key);
            changed = true;
        }
    }
    if !changed {
        return Ok(None);
    }
    written(&v, bytes).map(Some)
}

/// `v` as the compilers write JSON: 4-space indent, ending in a newline when `like` did.
fn written(v: &Value, like: &[u8]) -> Result<Vec<u8>, EditError> {
    let mut out = Vec::with_capacity(like.len());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, serde_json::ser::PrettyFormatter::with_indent(b"    "));
    v.serialize(&mut ser).map_err(EditError::Write)?;
    if like.ends_with(b"\n") {
        out.push(b'\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kelf_keeps_the_graphs_asked_for_in_order_and_the_compilers_layout() -> Result<(), EditError> {
        let kelf = b"{\n    \"graphs\": [\n        {\n            \"definition\": \"sg00/def.json\",\n            \"name\": \"sg00\"\n        },\n        {\n            \"definition\": \"sg01/def.json\",\n            \"name\": \"sg01\"\n        }\n    ],\n    \"target\": \"sunda\"\n}\n";
        let out = kelf_keeping(kelf, &[1])?;
        let want = "{\n    \"graphs\": [\n        {\n            \"definition\": \"sg01/def.json\",\n            \"name\": \"sg01\"\n        }\n    ],\n    \"target\": \"sunda\"\n}\n";
        assert_eq!(String::from_utf8_lossy(&out), want);
        // All kept: the same bytes (the layout is the compilers').
        assert_eq!(kelf_keeping(kelf, &[0, 1])?, kelf.to_vec());
        assert!(kelf_keeping(b"{\"target\": \"x\"}", &[]).is_err_and(|e| e.to_string() == "kelf-0.json: no `graphs` list"));
        Ok(())
    }

    #[test]
    fn a_definition_loses_the_keys_and_names_of_dropped_streams_only() -> Result<(), Box<dyn std::error::Error>> {
        let def = br#"{"act_instr": "Activation.bin", "pe_instr": "PE.bin", "foo_instr": ["a.bin", "b.bin"], "pe": "PE.json", "sp_instr": []}"#;
        let members = ["sg00/Activation.bin", "sg00/PE.bin", "sg00/a.bin", "sg00/b.bin", "sg00/PE.json"];
        let exists = |p: &str| members.contains(&p);
        let edit = |gone: &[&str]| definition_without("sg00/def.json", def, &|p| gone.contains(&p), &exists);
        assert_eq!(edit(&["sg00/Pool.bin"])?, None, "nothing named is gone");
        let v: Value = serde_json::from_slice(&edit(&["sg00/PE.bin", "sg00/a.bin"])?.unwrap_or_default())?;
        assert_eq!(v, serde_json::json!({"act_instr": "Activation.bin", "foo_instr": ["b.bin"], "pe": "PE.json", "sp_instr": []}));
        let v: Value = serde_json::from_slice(&edit(&["sg00/a.bin", "sg00/b.bin"])?.unwrap_or_default())?;
        assert_eq!(v, serde_json::json!({"act_instr": "Activation.bin", "pe_instr": "PE.bin", "pe": "PE.json", "sp_instr": []}));
        Ok(())
    }

    #[test]
    fn a_member_that_is_not_json_or_not_an_object_is_named() {
        let e = definition_without("sg00/def.json", b"[1]", &|_| true, &|_| true).err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("sg00/def.json: not a JSON object"));
        let e = kelf_keeping(b"{", &[]).err().map(|e| e.to_string());
        assert!(e.as_deref().is_some_and(|e| e.starts_with("kelf-0.json: EOF")), "{e:?}");
    }
}
