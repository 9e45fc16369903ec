//! Engine instruction streams, each a flat array of 64-byte bundles in
//! program order (measured on real files). A graph's definition (`def.json`)
//! names them under its `*_instr` keys (see [`super::locate`]); every real
//! compiler so far stores them as `sgNN/{PE,Activation,DVE,Pool,SP}.bin`,
//! which is how they are found when a container names no definition.

use super::error::{At, NeffError};
use serde::Serialize;
use std::collections::BTreeMap;
use tpb_isa::bundle::{Raw, BUNDLE_BYTES};
use tpb_isa::{Confidence, Generation, Provenance};

/// Where the stream naming comes from.
pub const STREAMS_PROV: Provenance = Provenance::new("G1 (measured on real NEFFs)", Confidence::Strong);

/// The engine that owns a stream, in the order reports list them: the five
/// every compiler seen writes, then any other a definition names.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Engine {
    Pe,
    Activation,
    Dve,
    Pool,
    Sp,
    /// A `def.json` key no table maps (`foo_instr`), held whole: the stream
    /// is read and reported under the key, never dropped for being new.
    Other(String),
}

/// The suffix of the definition keys that name instruction streams.
pub const INSTR_SUFFIX: &str = "_instr";

impl Engine {
    pub const ALL: [Engine; 5] = [Engine::Pe, Engine::Activation, Engine::Dve, Engine::Pool, Engine::Sp];

    /// The name outputs give it: the member file stem real compilers use
    /// (`PE` for `sg00/PE.bin`), or the definition key of an engine no table
    /// maps (`foo_instr`).
    pub fn stem(&self) -> &str {
        match self {
            Engine::Pe => "PE",
            Engine::Activation => "Activation",
            Engine::Dve => "DVE",
            Engine::Pool => "Pool",
            Engine::Sp => "SP",
            Engine::Other(key) => key,
        }
    }

    /// The engine name the opcode table uses for this engine; `None` for one
    /// it does not know.
    pub fn isa_name(&self) -> Option<&'static str> {
        match self {
            Engine::Pe => Some("PE"),
            Engine::Activation => Some("ACT"),
            Engine::Dve => Some("DVE"),
            Engine::Pool => Some("POOL"),
            Engine::Sp => Some("SP"),
            Engine::Other(_) => None,
        }
    }

    /// The `def.json` key prefix of a known engine (`pe` for `pe_instr`).
    pub fn key_prefix(&self) -> Option<&'static str> {
        match self {
            Engine::Pe => Some("pe"),
            Engine::Activation => Some("act"),
            Engine::Dve => Some("dve"),
            Engine::Pool => Some("pool"),
            Engine::Sp => Some("sp"),
            Engine::Other(_) => None,
        }
    }

    pub fn from_stem(stem: &str) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.stem() == stem)
    }

    /// The engine a definition key names: `pe_instr` is PE, `act_instr`
    /// Activation, and so on; any other key is an engine of its own, named by
    /// the key. `None` for a key that names no stream (no `_instr` suffix).
    pub fn from_key(key: &str) -> Option<Engine> {
        let prefix = key.strip_suffix(INSTR_SUFFIX)?;
        Some(Engine::ALL.into_iter().find(|e| e.key_prefix() == Some(prefix)).unwrap_or_else(|| Engine::Other(key.to_string())))
    }
}

/// One engine's bundles in one subgraph.
#[derive(Clone, Debug)]
pub struct EngineStream {
    /// Subgraph directory (`sg00`).
    pub subgraph: String,
    pub engine: Engine,
    /// Member path (`sg00/PE.bin`).
    pub member: String,
    /// A whole number of bundles (checked when read).
    pub bytes: Vec<u8>,
    /// Generation implied by the container's target, if known.
    pub generation: Option<Generation>,
}

impl EngineStream {
    /// Number of bundles.
    pub fn len(&self) -> usize {
        self.bytes.len() / BUNDLE_BYTES
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Bundles with their index and byte offset in the member.
    pub fn bundles(&self) -> impl Iterator<Item = (usize, usize, &Raw)> + '_ {
        self.bytes.chunks_exact(BUNDLE_BYTES).enumerate().filter_map(|(i, c)| Some((i, i * BUNDLE_BYTES, <&Raw>::try_from(c).ok()?)))
    }

    /// Count of each opcode byte.
    pub fn opcode_histogram(&self) -> BTreeMap<u8, usize> {
        let mut h = BTreeMap::new();
        for (_, _, raw) in self.bundles() {
            *h.entry(raw[0]).or_insert(0) += 1;
        }
        h
    }
}

/// Splits `dir/Engine.bin` into subgraph and engine; `None` for any other
/// member (tables such as `*_table.bin` included). The names every compiler
/// seen writes: used only where a container names no definition.
pub fn engine_member(member: &str) -> Option<(String, Engine)> {
    let (dir, file) = member.rsplit_once('/')?;
    let engine = Engine::from_stem(file.strip_suffix(".bin")?)?;
    (!dir.is_empty()).then(|| (dir.to_string(), engine))
}

/// A stream must be a whole number of bundles.
pub fn check_length(file: &str, member: &str, bytes: &[u8]) -> Result<(), NeffError> {
    let rem = bytes.len() % BUNDLE_BYTES;
    if rem != 0 {
        return Err(NeffError::new(
            file,
            member,
            At::Member((bytes.len() - rem) as u64),
            format!("stream is {} bytes, not a multiple of {BUNDLE_BYTES}: trailing partial bundle of {rem} bytes", bytes.len()),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Engine, EngineStream};

    #[test]
    fn a_stream_counts_whole_bundles_and_is_empty_only_with_none() {
        let stream = |n: usize| EngineStream {
            subgraph: "sg00".into(),
            engine: Engine::Pe,
            member: "sg00/PE.bin".into(),
            bytes: vec![0; 64 * n],
            generation: None,
        };
        for n in [0, 1, 3] {
            let s = stream(n);
            assert_eq!((s.len(), s.is_empty(), s.bundles().count()), (n, n == 0, n));
            // Each bundle with its index and its byte offset in the member.
            assert!(s.bundles().all(|(i, at, _)| at == 64 * i), "{n} bundles");
        }
    }

    #[test]
    fn definition_keys_map_to_engines_and_an_unknown_one_keeps_its_key() {
        let known = [
            ("pe_instr", Engine::Pe),
            ("act_instr", Engine::Activation),
            ("dve_instr", Engine::Dve),
            ("pool_instr", Engine::Pool),
            ("sp_instr", Engine::Sp),
        ];
        for (key, engine) in known {
            assert_eq!(Engine::from_key(key), Some(engine.clone()), "{key}");
            assert!(engine.isa_name().is_some(), "{key}");
        }
        let foo = Engine::from_key("foo_instr");
        assert_eq!(foo, Some(Engine::Other("foo_instr".into())));
        assert_eq!(foo.as_ref().map(Engine::stem), Some("foo_instr"));
        assert_eq!(foo.and_then(|e| e.isa_name()), None);
        // Case matters, as in the runtime's lookup; a key without the suffix names no stream.
        assert_eq!(Engine::from_key("PE_instr"), Some(Engine::Other("PE_instr".into())));
        assert_eq!(Engine::from_key("pe"), None);
        assert_eq!(Engine::from_key("pe_instr_dbg"), None);
        // Unknown engines sort after the five known ones.
        assert!(Engine::Sp < Engine::Other("a_instr".into()));
    }
}
