//! What makes two disagreements one group: the same kind on the same
//! generation, opcode and field path. The minimiser keeps a group's
//! signature while it reduces; the report names groups by it.

use crate::compare::Kind;
use serde::Serialize;
use tpb_isa::Generation;

/// What a group is: the same disagreement on the same place.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Signature {
    pub kind: Kind,
    pub generation: Generation,
    #[serde(serialize_with = "opcode_hex")]
    pub opcode: u8,
    pub field: String,
}

impl Signature {
    /// `decode v2 0x46 TensorCopy src.stride`: how reports name a group (the field escaped).
    pub fn describe(&self) -> String {
        format!(
            "{} {} {:#04x} {} {}",
            self.kind,
            self.generation,
            self.opcode,
            tpb_isa::opcode::name(self.opcode),
            tpb_oracle::text_safe::escape(&self.field)
        )
    }
}

fn opcode_hex<S: serde::Serializer>(op: &u8, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{op:#04x}"))
}
