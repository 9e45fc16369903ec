//! Engine instruction streams: `sgNN/{PE,Activation,DVE,Pool,SP}.bin`, each a
//! flat array of 64-byte bundles in program order (measured on real files).

use super::error::{At, NeffError};
use serde::Serialize;
use std::collections::BTreeMap;
use tpb_isa::bundle::{Raw, BUNDLE_BYTES};
use tpb_isa::{Confidence, Generation, Provenance};

/// Where the stream naming comes from.
pub const STREAMS_PROV: Provenance = Provenance::new("G1 (measured on real NEFFs)", Confidence::Strong);

/// The five engines that own a stream, in the order reports list them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Engine {
    Pe,
    Activation,
    Dve,
    Pool,
    Sp,
}

impl Engine {
    pub const ALL: [Engine; 5] = [Engine::Pe, Engine::Activation, Engine::Dve, Engine::Pool, Engine::Sp];

    /// The member file stem (`PE` for `sg00/PE.bin`).
    pub const fn stem(self) -> &'static str {
        match self {
            Engine::Pe => "PE",
            Engine::Activation => "Activation",
            Engine::Dve => "DVE",
            Engine::Pool => "Pool",
            Engine::Sp => "SP",
        }
    }

    /// The engine name the opcode table uses for this engine.
    pub const fn isa_name(self) -> &'static str {
        match self {
            Engine::Pe => "PE",
            Engine::Activation => "ACT",
            Engine::Dve => "DVE",
            Engine::Pool => "POOL",
            Engine::Sp => "SP",
        }
    }

    pub fn from_stem(stem: &str) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.stem() == stem)
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

/// Splits `dir/Engine.bin` into subgraph and engine; `None` for any other member.
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
            engine: Engine::ALL[0],
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
}
