//! NeuronCore generations the format is encoded for.

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// A NeuronCore generation (CoreV2 = Trn1, CoreV3 = Trn2, CoreV4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Generation {
    V2,
    V3,
    V4,
}

impl Generation {
    pub const ALL: [Generation; 3] = [Generation::V2, Generation::V3, Generation::V4];

    pub const fn as_str(self) -> &'static str {
        match self {
            Generation::V2 => "v2",
            Generation::V3 => "v3",
            Generation::V4 => "v4",
        }
    }

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

impl FromStr for Generation {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "v2" | "corev2" => Ok(Generation::V2),
            "v3" | "corev3" => Ok(Generation::V3),
            "v4" | "corev4" => Ok(Generation::V4),
            _ => Err(format!("unknown generation `{s}` (expected v2, v3 or v4)")),
        }
    }
}
