//! The struct roster: the C type names the spec reads from the vendor
//! library's dynamic symbol table (`nm -DC`), every descriptor layout's C
//! name plus the ADDR4 word and the DTYPE enum. Recovered from the binary,
//! not from real programs (those are [`crate::bundle::recovered_bodies`]).
//! The oracle checks each name still appears in a build.

use crate::layout::Prim;
use crate::provenance::{Confidence, Provenance};

/// Where the names themselves come from: the demangled dynamic symbols of
/// the known build, not invention.
pub const PROV: Provenance = Provenance::new("At a glance (struct roster)", Confidence::Confirmed);

/// The on-wire dtype enum's C name (§1.1); the enum itself is [`crate::dtype::DTYPES`].
pub const DTYPE_C_NAME: &str = "NEURON_ISA_TPB_DTYPE";

/// Every type name of the roster: the descriptor layouts in spec order, then ADDR4, then DTYPE.
pub fn type_names() -> Vec<&'static str> {
    types().into_iter().map(|(n, _)| n).collect()
}

/// Each name of the roster with the provenance of the item it names.
pub fn types() -> Vec<(&'static str, Provenance)> {
    let mut v: Vec<(&'static str, Provenance)> = crate::descriptor::layouts().iter().map(|l| (l.c_name, l.prov)).collect();
    v.push((Prim::Addr4.c_type(), crate::addr4::PROV));
    v.push((DTYPE_C_NAME, crate::dtype::DTYPE_PROV));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roster_matches_the_spec_list() {
        let n = type_names();
        assert_eq!(n.len(), 13);
        assert_eq!(n.first(), Some(&"NEURON_ISA_TPB_TENSOR1D"));
        assert!(n.contains(&"NEURON_ISA_TPB_MXINDIRECT16B"));
        assert_eq!(&n[11..], &["NEURON_ISA_TPB_ADDR4", "NEURON_ISA_TPB_DTYPE"]);
        let mut d = n.clone();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), n.len(), "names are distinct");
    }
}
