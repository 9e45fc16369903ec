//! A graph's definition (`sg00/def.json`, named by `kelf-0.json`): of all it
//! holds, the reader wants only the keys that name instruction streams,
//! `pe_instr`, `act_instr`, `dve_instr`, `pool_instr`, `sp_instr` and any
//! other top-level key ending in `_instr` (the runtime finds a graph's
//! streams through them, whatever the member names). Every other value is
//! skipped by serde without being built, so a definition costs its bytes
//! (capped at [`MAX_METADATA`](super::meta::MAX_METADATA)) plus the names kept.
//!
//! A value is a member name (relative to the definition's folder in every
//! real file: `"pe_instr": "PE.bin"`), or, defensively, a list of them.

use super::error::NeffError;
use super::stream::INSTR_SUFFIX;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// The stream keys of one definition, in the order they appear.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Definition {
    /// Its `*_instr` keys, in the order they appear.
    pub instr: Vec<Instr>,
}

/// One `*_instr` key and the member names it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    /// The key (`pe_instr`): it names the engine ([`super::Engine::from_key`]).
    pub key: String,
    /// The member names it holds, as written (relative to the definition's folder).
    pub members: Vec<String>,
    /// Offset of the key's first appearance as a JSON string in the member
    /// (for errors; 0 when written with escapes).
    pub at: u64,
}

/// Parses a definition member (`member` names it in errors).
pub fn parse(file: &str, member: &str, bytes: &[u8]) -> Result<Definition, NeffError> {
    let mut d: Definition = super::meta::parse(file, member, bytes)?;
    for i in &mut d.instr {
        let quoted = format!("\"{}\"", i.key);
        i.at = memchr::memmem::find(bytes, quoted.as_bytes()).unwrap_or(0) as u64;
    }
    Ok(d)
}

impl<'de> Deserialize<'de> for Definition {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(Keys)
    }
}

struct Keys;

impl<'de> Visitor<'de> for Keys {
    type Value = Definition;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Definition, A::Error> {
        let mut instr: Vec<Instr> = Vec::new();
        while let Some(key) = a.next_key::<String>()? {
            if !key.ends_with(INSTR_SUFFIX) {
                a.next_value::<IgnoredAny>()?;
                continue;
            }
            // A reader that keeps the last (or the first) would silently pick one of two streams.
            if instr.iter().any(|i| i.key == key) {
                return Err(de::Error::custom(format!("key `{key}` appears twice: which stream is meant is ambiguous")));
            }
            let members = a.next_value_seed(Names { key: &key })?;
            instr.push(Instr { key, members, at: 0 });
        }
        Ok(Definition { instr })
    }
}

/// The value of one `*_instr` key: a member name or a list of them.
struct Names<'k> {
    key: &'k str,
}

impl Names<'_> {
    fn refuse<E: de::Error>(&self, found: &str) -> E {
        E::custom(format!("key `{}` holds {found}, not a member name or a list of member names", self.key))
    }
    fn name<E: de::Error>(&self, v: &str) -> Result<String, E> {
        if v.is_empty() {
            return Err(E::custom(format!("key `{}` names an empty member name", self.key)));
        }
        Ok(v.to_string())
    }
}

impl<'de> DeserializeSeed<'de> for Names<'_> {
    type Value = Vec<String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<String>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Names<'_> {
    type Value = Vec<String>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name or a list of member names")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<String>, E> {
        Ok(vec![self.name(v)?])
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Vec<String>, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = a.next_element_seed(One { names: &self })? {
            out.push(v);
        }
        Ok(out)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Vec<String>, E> {
        Err(self.refuse("a boolean"))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Vec<String>, E> {
        Err(self.refuse("a number"))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Vec<String>, E> {
        Err(self.refuse("a number"))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Vec<String>, E> {
        Err(self.refuse("a number"))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Vec<String>, E> {
        Err(self.refuse("null"))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Vec<String>, A::Error> {
        Err(self.refuse("an object"))
    }
}

/// One element of a list of member names: a string, nothing else.
struct One<'a, 'k> {
    names: &'a Names<'k>,
}

impl<'de> DeserializeSeed<'de> for One<'_, '_> {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for One<'_, '_> {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        self.names.name(v)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<String, E> {
        Err(self.names.refuse("a list holding a boolean"))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<String, E> {
        Err(self.names.refuse("a list holding a number"))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<String, E> {
        Err(self.names.refuse("a list holding a number"))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<String, E> {
        Err(self.names.refuse("a list holding a number"))
    }
    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Err(self.names.refuse("a list holding null"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(self.names.refuse("a list holding a list"))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(self.names.refuse("a list holding an object"))
    }
}

/// The archive path a definition value names: relative to the definition's
/// folder (`PE.bin` in `sg00/def.json` is `sg00/PE.bin`), or, when no member
/// has that path, the value as a full archive path. `exists` says whether a
/// path is a member. Returns every path tried when none is.
pub fn resolve(definition: &str, value: &str, exists: impl Fn(&str) -> bool) -> Result<String, Vec<String>> {
    let value = value.trim_start_matches("./");
    let mut tried = Vec::with_capacity(2);
    if let Some((dir, _)) = definition.rsplit_once('/') {
        let relative = format!("{dir}/{value}");
        if exists(&relative) {
            return Ok(relative);
        }
        tried.push(relative);
    }
    if exists(value) {
        return Ok(value.to_string());
    }
    tried.push(value.to_string());
    Err(tried)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neff::At;

    #[test]
    fn only_instr_keys_are_kept_in_order_and_the_rest_is_skipped() -> Result<(), NeffError> {
        let d = parse(
            "f",
            "sg00/def.json",
            br#"{"act": "Activation.json", "act_instr": "Activation.bin", "var": {"pe_instr": "nested.bin", "x": [1, {"y": null}]},
                "pe_instr": "PE.bin", "pe_dbg": ["a.dbg"], "foo_instr": ["a.bin", "b.bin"], "sp_instr": []}"#,
        )?;
        let keys: Vec<(&str, Vec<&str>)> = d.instr.iter().map(|i| (i.key.as_str(), i.members.iter().map(String::as_str).collect())).collect();
        assert_eq!(
            keys,
            [("act_instr", vec!["Activation.bin"]), ("pe_instr", vec!["PE.bin"]), ("foo_instr", vec!["a.bin", "b.bin"]), ("sp_instr", vec![])]
        );
        assert_eq!(parse("f", "d", b"{}")?, Definition::default());
        Ok(())
    }

    #[test]
    fn a_value_that_names_no_member_is_an_error_naming_the_key() {
        let cases: [(&[u8], &str); 7] = [
            (br#"{"pe_instr": 7}"#, "key `pe_instr` holds a number, not a member name"),
            (br#"{"pe_instr": null}"#, "key `pe_instr` holds null"),
            (br#"{"pe_instr": {"a": "b"}}"#, "key `pe_instr` holds an object"),
            (br#"{"pe_instr": ["a.bin", 3]}"#, "key `pe_instr` holds a list holding a number"),
            (br#"{"pe_instr": ""}"#, "key `pe_instr` names an empty member name"),
            (br#"{"pe_instr": "a.bin", "pe_instr": "b.bin"}"#, "key `pe_instr` appears twice"),
            (br#"["pe_instr"]"#, "the member must be a JSON object"),
        ];
        for (bytes, want) in cases {
            match parse("f.neff", "sg00/def.json", bytes) {
                Ok(d) => panic!("{}: parsed as {d:?}", String::from_utf8_lossy(bytes)),
                Err(e) => {
                    assert!(e.message.contains(want), "{e}");
                    assert_eq!((e.file.as_str(), e.member.as_str()), ("f.neff", "sg00/def.json"));
                    assert!(matches!(e.at, At::Member(_)), "{e}");
                }
            }
        }
    }

    #[test]
    fn a_value_resolves_beside_the_definition_then_as_a_full_path() {
        let members = ["sg00/PE.bin", "streams/sp.bin", "top.bin"];
        let exists = |p: &str| members.contains(&p);
        assert_eq!(resolve("sg00/def.json", "PE.bin", exists), Ok("sg00/PE.bin".to_string()));
        assert_eq!(resolve("sg00/def.json", "./PE.bin", exists), Ok("sg00/PE.bin".to_string()));
        assert_eq!(resolve("sg00/def.json", "streams/sp.bin", exists), Ok("streams/sp.bin".to_string()));
        assert_eq!(resolve("def.json", "top.bin", exists), Ok("top.bin".to_string()));
        assert_eq!(resolve("sg00/def.json", "gone.bin", exists), Err(vec!["sg00/gone.bin".to_string(), "gone.bin".to_string()]));
    }
}
