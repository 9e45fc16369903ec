//! Per-build profiles: where one known build keeps each fact, and its identity.
//! A profile holds addresses and file identity only; the values it must find
//! there come from `tpb_isa`, so no value is written twice. Profiles are JSON
//! files in `oracle/profiles/`, named by GNU build-id and embedded at compile time.

use super::error::{Result, WalrusError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Every embedded profile: (file stem = build-id, JSON).
const EMBEDDED: &[(&str, &str)] =
    &[("92b4d331a42d7e80bb839e03218d2b9b0c23c346", include_str!("../../profiles/92b4d331a42d7e80bb839e03218d2b9b0c23c346.json"))];

/// File identity of a known build (`null` where the spec recorded nothing).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    /// MD5 of the file, 32 lowercase hex digits.
    pub md5: Option<String>,
    /// SHA-256 of the file, 64 lowercase hex digits.
    pub sha256: Option<String>,
    /// The file's length in bytes.
    pub size: Option<u64>,
}

/// Section bases of a known build.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Sections {
    /// `.text`'s virtual address (hex string).
    #[serde(rename = ".text")]
    pub text: Option<String>,
    /// `.rodata`'s virtual address (hex string).
    #[serde(rename = ".rodata")]
    pub rodata: Option<String>,
    /// Whether every section's virtual address equals its file offset.
    pub va_equals_offset: Option<bool>,
}

/// One known build.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Lower-case hex GNU build-id; the key.
    pub build_id: String,
    /// For people: the compiler release and wheel member it came from.
    pub label: String,
    /// Its file's digests and size.
    pub identity: Identity,
    /// Its section bases.
    pub sections: Sections,
    /// Fact id → virtual address (hex string).
    pub addresses: BTreeMap<String, String>,
}

/// Parses `0x…` (or bare hex) into an address.
pub fn parse_addr(s: &str) -> Option<u64> {
    let h = s.strip_prefix("0x").unwrap_or(s);
    u64::from_str_radix(h, 16).ok()
}

fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl Profile {
    /// Parses and checks one profile; `name` is for messages.
    pub fn parse(name: &str, json: &str, pinnable: &[String]) -> Result<Profile> {
        let bad = |detail: String| WalrusError::Profile { name: name.to_string(), detail };
        let p: Profile = serde_json::from_str(json).map_err(|e| bad(e.to_string()))?;
        if p.build_id.is_empty() || !p.build_id.len().is_multiple_of(2) || !is_hex(&p.build_id, p.build_id.len()) {
            return Err(bad(format!("build_id `{}` is not lower-case hex", p.build_id)));
        }
        if let Some(m) = &p.identity.md5 {
            if !is_hex(m, 32) {
                return Err(bad(format!("identity.md5 `{m}` is not 32 lower-case hex digits")));
            }
        }
        if let Some(s) = &p.identity.sha256 {
            if !is_hex(s, 64) {
                return Err(bad(format!("identity.sha256 `{s}` is not 64 lower-case hex digits")));
            }
        }
        for (k, v) in [(".text", &p.sections.text), (".rodata", &p.sections.rodata)] {
            if let Some(v) = v {
                parse_addr(v).ok_or_else(|| bad(format!("sections.{k} `{v}` is not a hex address")))?;
            }
        }
        for (id, v) in &p.addresses {
            if !pinnable.iter().any(|f| f == id) {
                return Err(bad(format!("addresses.{id}: no such pinnable fact (known: {})", pinnable.join(", "))));
            }
            parse_addr(v).ok_or_else(|| bad(format!("addresses.{id} `{v}` is not a hex address")))?;
        }
        Ok(p)
    }

    /// The address this build pins for `fact_id`, if it pins one.
    pub fn address(&self, fact_id: &str) -> Option<u64> {
        self.addresses.get(fact_id).and_then(|v| parse_addr(v))
    }

    /// The base this build records for section `name` (`.text` or `.rodata`).
    pub fn section_base(&self, name: &str) -> Option<u64> {
        match name {
            ".text" => self.sections.text.as_deref().and_then(parse_addr),
            ".rodata" => self.sections.rodata.as_deref().and_then(parse_addr),
            _ => None,
        }
    }
}

/// The set of known builds.
#[derive(Clone, Debug, Default)]
pub struct Profiles {
    /// The profiles, the build the spec was read from first.
    pub list: Vec<Profile>,
}

impl Profiles {
    /// The profiles shipped in `oracle/profiles/`.
    pub fn embedded() -> Result<Profiles> {
        let pinnable = super::spec::pinnable_ids();
        let mut list = Vec::new();
        for (stem, json) in EMBEDDED {
            let name = format!("oracle/profiles/{stem}.json");
            let p = Profile::parse(&name, json, &pinnable)?;
            if p.build_id != *stem {
                return Err(WalrusError::Profile { name, detail: format!("build_id {} differs from the file name", p.build_id) });
            }
            list.push(p);
        }
        Ok(Profiles { list })
    }

    /// The profile of the build whose GNU build-id is `build_id_hex` (lowercase hex).
    pub fn find(&self, build_id_hex: &str) -> Option<&Profile> {
        self.list.iter().find(|p| p.build_id == build_id_hex)
    }

    /// The build the spec was read from (the first embedded profile).
    pub fn spec_build(&self) -> Option<&Profile> {
        self.list.first()
    }
}

#[cfg(test)]
mod tests {
    use super::{Profile, EMBEDDED};

    #[test]
    fn a_build_id_must_be_whole_bytes_of_lower_case_hex() -> Result<(), Box<dyn std::error::Error>> {
        let (stem, json) = EMBEDDED[0];
        let pinnable = super::super::spec::pinnable_ids();
        assert_eq!(Profile::parse("p", json, &pinnable)?.build_id, stem);
        for bad in ["", "abc", "92B4", "zz", "92b4 "] {
            let mut v: serde_json::Value = serde_json::from_str(json)?;
            v["build_id"] = bad.into();
            let e = Profile::parse("p", &v.to_string(), &pinnable).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains(&format!("build_id `{bad}` is not lower-case hex")), "`{bad}`: {e}");
        }
        Ok(())
    }

    /// A profile's identity digests are lower-case hex of their full length:
    /// one that is not is refused, naming the field.
    #[test]
    fn identity_digests_must_be_lower_case_hex_of_their_length() -> Result<(), Box<dyn std::error::Error>> {
        let (_, json) = EMBEDDED[0];
        let pinnable = super::super::spec::pinnable_ids();
        for (field, digits) in [("md5", 32), ("sha256", 64)] {
            let with = |value: &str| -> Result<String, serde_json::Error> {
                let mut v: serde_json::Value = serde_json::from_str(json)?;
                v["identity"][field] = value.into();
                Ok(v.to_string())
            };
            let good = "0123456789abcdef".repeat(4)[..digits].to_string();
            let p = Profile::parse("p", &with(&good)?, &pinnable)?;
            assert_eq!(if field == "md5" { p.identity.md5 } else { p.identity.sha256 }, Some(good.clone()), "{field}");
            for bad in [&good[1..], &good.to_uppercase(), &format!("{}g", &good[1..])] {
                let e = Profile::parse("p", &with(bad)?, &pinnable).err().map(|e| e.to_string()).unwrap_or_default();
                assert!(e.contains(&format!("identity.{field} `{bad}` is not {digits} lower-case hex digits")), "{field} `{bad}`: {e}");
            }
        }
        Ok(())
    }

    #[test]
    fn an_address_must_pin_a_pinnable_fact() -> Result<(), Box<dyn std::error::Error>> {
        let (_, json) = EMBEDDED[0];
        let pinnable = super::super::spec::pinnable_ids();
        assert!(pinnable.len() >= 2, "{pinnable:?}");
        let with = |id: &str| -> Result<String, serde_json::Error> {
            let mut v: serde_json::Value = serde_json::from_str(json)?;
            v["addresses"][id] = "0x1000".into();
            Ok(v.to_string())
        };
        for id in &pinnable {
            assert_eq!(Profile::parse("p", &with(id)?, &pinnable)?.address(id), Some(0x1000), "{id}");
        }
        let e = Profile::parse("p", &with("no.such.fact")?, &pinnable).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("addresses.no.such.fact: no such pinnable fact"), "{e}");
        Ok(())
    }
}
