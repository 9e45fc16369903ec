//! Engine instruction streams, each a flat array of 64-byte bundles in
//! program order (measured on real files). A graph's definition (`def.json`)
//! names them under its `*_instr` keys (see [`super::locate`]); every real
//! compiler so far stores them as `sgNN/{PE,Activation,DVE,Pool,SP}.bin`,
//! which is how they are found when a container names no definition.

use super::error::{At, NeffError};
use serde::Serialize;
use std::collections::BTreeMap;
use tpb_isa::bundle::{Raw, BUNDLE_BYTES};
use tpb_isa::{engine as isa, Confidence, Generation, Provenance};

/// Where the stream naming comes from.
pub const STREAMS_PROV: Provenance = Provenance::new("G1 (measured on real NEFFs)", Confidence::Strong);

/// The engine that owns a stream, in the order reports list them: the five
/// every compiler seen writes (engines of the opcode table), then any other
/// a definition names.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Engine {
    /// An engine the opcode table names.
    Isa(isa::Engine),
    /// A `def.json` key no table maps (`foo_instr`), held whole: the stream
    /// is read and reported under the key, never dropped for being new.
    Other(String),
}

/// The suffix of the definition keys that name instruction streams.
pub const INSTR_SUFFIX: &str = "_instr";

impl Engine {
    /// The engines real compilers write streams for.
    pub const ALL: [Engine; 5] = [
        Engine::Isa(isa::Engine::PE),
        Engine::Isa(isa::Engine::ACT),
        Engine::Isa(isa::Engine::DVE),
        Engine::Isa(isa::Engine::POOL),
        Engine::Isa(isa::Engine::SP),
    ];

    /// The name outputs give it: the member file stem real compilers use
    /// (`PE` for `sg00/PE.bin`, `Activation` for the table's `ACT`), or the
    /// definition key of an engine no table maps (`foo_instr`).
    pub fn stem(&self) -> &str {
        match self {
            Engine::Isa(isa::Engine::ACT) => "Activation",
            Engine::Isa(isa::Engine::POOL) => "Pool",
            // The others' stems are the table's names (`PE`, `DVE`, `SP`).
            Engine::Isa(e) => e.as_str(),
            Engine::Other(key) => key,
        }
    }

    /// The opcode table's engine; `None` for one it does not know.
    pub fn isa(&self) -> Option<isa::Engine> {
        match self {
            Engine::Isa(e) => Some(*e),
            Engine::Other(_) => None,
        }
    }

    /// The `def.json` key prefix of an engine real compilers write a stream
    /// for (`pe` for `pe_instr`); `None` for any other.
    pub fn key_prefix(&self) -> Option<&'static str> {
        match self.isa()? {
            isa::Engine::PE => Some("pe"),
            isa::Engine::ACT => Some("act"),
            isa::Engine::DVE => Some("dve"),
            isa::Engine::POOL => Some("pool"),
            isa::Engine::SP => Some("sp"),
            isa::Engine::DMA | isa::Engine::SCALAR | isa::Engine::CC => None,
        }
    }

    /// The engine whose [`Engine::stem`] is `stem` (`PE`); `None` for any other.
    pub(crate) fn from_stem(stem: &str) -> Option<Engine> {
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
    /// The engine that runs it.
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

    /// Whether it holds no bundle.
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
    use super::{isa, Engine, EngineStream};

    #[test]
    fn a_stream_counts_whole_bundles_and_is_empty_only_with_none() {
        let stream = |n: usize| EngineStream {
            subgraph: "sg00".into(),
            engine: Engine::Isa(isa::Engine::PE),
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
            ("pe_instr", "PE", isa::Engine::PE),
            ("act_instr", "Activation", isa::Engine::ACT),
            ("dve_instr", "DVE", isa::Engine::DVE),
            ("pool_instr", "Pool", isa::Engine::POOL),
            ("sp_instr", "SP", isa::Engine::SP),
        ];
        for (key, stem, e) in known {
            let engine = Engine::Isa(e);
            assert_eq!(Engine::from_key(key), Some(engine.clone()), "{key}");
            assert_eq!((engine.stem(), engine.isa()), (stem, Some(e)), "{key}");
            assert_eq!(Engine::from_stem(stem), Some(engine), "{key}");
        }
        assert_eq!(Engine::ALL.map(|e| e.isa()), known.map(|k| Some(k.2)), "every stream engine, in report order");
        // The table's engines that own no stream have neither a key nor a stem of their own.
        for e in [isa::Engine::DMA, isa::Engine::SCALAR, isa::Engine::CC] {
            assert_eq!(Engine::Isa(e).key_prefix(), None, "{e}");
            assert_eq!(Engine::from_stem(e.as_str()), None, "{e}");
        }
        let foo = Engine::from_key("foo_instr");
        assert_eq!(foo, Some(Engine::Other("foo_instr".into())));
        assert_eq!(foo.as_ref().map(Engine::stem), Some("foo_instr"));
        assert_eq!(foo.and_then(|e| e.isa()), None);
        // Case matters, as in the runtime's lookup; a key without the suffix names no stream.
        assert_eq!(Engine::from_key("PE_instr"), Some(Engine::Other("PE_instr".into())));
        assert_eq!(Engine::from_key("pe"), None);
        assert_eq!(Engine::from_key("pe_instr_dbg"), None);
        // Unknown engines sort after the five known ones.
        assert!(Engine::Isa(isa::Engine::SP) < Engine::Other("a_instr".into()));
    }
}
