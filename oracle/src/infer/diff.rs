//! What differs between generations and compiler builds: body bytes whose
//! values in one (generation, build) group never occur in another (disjoint
//! value sets), and bytes always zero in some groups but not in others (a
//! field one build leaves unwritten).

use super::{OpData, BODY};
use tpb_isa::Generation;

/// One group's values at one offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupValues {
    /// The group's generation.
    pub generation: Generation,
    /// The group's compiler build.
    pub build: String,
    /// Its bundles of the opcode.
    pub bundles: u64,
    /// The byte values seen, in order.
    pub values: Vec<u8>,
}

/// How the groups differ at one byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffKind {
    /// Two groups share no value.
    Disjoint,
    /// Always zero in some group, not in another (and no two groups disjoint).
    ZeroInSome,
}

impl DiffKind {
    /// Its name in the output (`disjoint`, `zero_in_some`).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            DiffKind::Disjoint => "disjoint",
            DiffKind::ZeroInSome => "zero_in_some",
        }
    }
}

/// A byte whose values differ between groups as [`DiffKind`] says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The byte's offset in the bundle.
    pub offset: usize,
    /// How the groups differ there.
    pub kind: DiffKind,
    /// Every group's values there.
    pub groups: Vec<GroupValues>,
}

impl OpData {
    /// Every body byte whose values differ between groups ([`DiffKind`]), in offset order.
    pub fn differences(&self) -> Vec<Difference> {
        if self.groups.len() < 2 {
            return Vec::new();
        }
        let mut out = Vec::new();
        for offset in BODY {
            let groups: Vec<GroupValues> = self
                .groups
                .iter()
                .map(|((g, b), gr)| GroupValues { generation: *g, build: b.clone(), bundles: gr.bundles, values: gr.byte_values(offset) })
                .collect();
            // Each pair once: a group against those before it.
            let disjoint = groups.iter().enumerate().any(|(i, x)| groups[..i].iter().any(|y| !x.values.iter().any(|v| y.values.contains(v))));
            // A pattern, not `==`: "some but not all" reads the same of a test and its negation.
            let zero = |g: &GroupValues| matches!(g.values.as_slice(), [0]);
            if disjoint {
                out.push(Difference { offset, kind: DiffKind::Disjoint, groups });
            } else if groups.iter().any(zero) && !groups.iter().all(zero) {
                out.push(Difference { offset, kind: DiffKind::ZeroInSome, groups });
            }
        }
        out
    }
}
