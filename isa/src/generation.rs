//! NeuronCore generations the format is encoded for.

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// A NeuronCore generation (CoreV2 = Trn1, CoreV3 = Trn2, CoreV4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Generation {
    /// CoreV2: Trn1 and Inf2 (NEFF target `sunda`).
    V2,
    /// CoreV3: Trn2 (NEFF target `cayman`).
    V3,
    /// CoreV4, which adds the MX matmul body ([`crate::BodyKind::MatmulMx`]).
    V4,
}

impl Generation {
    /// Every generation, oldest first (the order of [`Generation::index`]).
    pub const ALL: [Generation; 3] = [Generation::V2, Generation::V3, Generation::V4];

    /// The short name, `v2`, `v3` or `v4`, as the command line and reports write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Generation::V2 => "v2",
            Generation::V3 => "v3",
            Generation::V4 => "v4",
        }
    }

    /// The position in [`Generation::ALL`] (0 for V2), for per-generation tables.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The generation of a NEFF target name (`kelf-0.json`): sunda = Trn1, cayman = Trn2.
    pub fn from_target(target: &str) -> Option<Generation> {
        match target.to_ascii_lowercase().as_str() {
            "sunda" | "trn1" | "inf2" => Some(Generation::V2),
            "cayman" | "trn2" => Some(Generation::V3),
            _ => None,
        }
    }
}

impl fmt::Display for Generation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a name is not a [`Generation`] ([`Generation::from_str`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GenerationError {
    /// The name is none of `v2`, `v3`, `v4` (or `corev2`…, any case).
    #[error("unknown generation `{name}` (expected v2, v3 or v4)")]
    Unknown {
        /// The name as given.
        name: String,
    },
}

impl FromStr for Generation {
    type Err = GenerationError;
    fn from_str(s: &str) -> Result<Self, GenerationError> {
        match s.to_ascii_lowercase().as_str() {
            "v2" | "corev2" => Ok(Generation::V2),
            "v3" | "corev3" => Ok(Generation::V3),
            "v4" | "corev4" => Ok(Generation::V4),
            _ => Err(GenerationError::Unknown { name: s.to_string() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Generation, GenerationError};

    #[test]
    fn an_unknown_generation_says_which_names_are_known() {
        let e = "v5".parse::<Generation>().err();
        assert_eq!(e, Some(GenerationError::Unknown { name: "v5".into() }));
        assert_eq!(e.map(|e| e.to_string()).as_deref(), Some("unknown generation `v5` (expected v2, v3 or v4)"));
    }
}
