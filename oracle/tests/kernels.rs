//! Every validator kernel this CPU runs finds, on every real bundle, what
//! the scalar reference finds: real programs (`corpus/neff/real/`, and
//! `../shared/neff/` when present) are the streams users validate. Each
//! real stream is also judged with every byte of its bundles' bodies set to
//! a few telling values, so the comparison sees failing bundles too. The
//! stream functions that amend (`decode_stream_as`, `judge_stream`) are
//! compared the same way with `validate_as`, under both profiles: the errata
//! decide the same on every real bundle whichever path runs.

use crate::common;

use common::R;
use tpb_isa::errata::Profile;
use tpb_isa::validate::{self, Finding, Kernel};
use tpb_isa::{Bundle, Generation, Raw};

/// Findings of every bundle of `stream`, by index, on `kernel`.
fn findings(kernel: Kernel, stream: &[u8], g: Generation) -> Vec<(usize, Finding)> {
    let mut out = Vec::new();
    validate::decode_stream_with(kernel, stream, g, |i, _, fs| out.extend(fs.iter().map(|f| (i, f.clone()))));
    out
}

/// The scalar reference: each bundle decoded and validated alone.
fn reference(stream: &[u8], g: Generation) -> Vec<(usize, Finding)> {
    let bundles = stream.chunks_exact(64).filter_map(Bundle::decode_slice);
    bundles.enumerate().flat_map(|(i, b)| validate::validate(&b, g).into_iter().map(move |f| (i, f))).collect()
}

fn compare(what: &str, raws: &[Raw], g: Generation) -> usize {
    let stream: Vec<u8> = raws.iter().flatten().copied().collect();
    let want = reference(&stream, g);
    for kernel in Kernel::available_kernels() {
        let got = findings(kernel, &stream, g);
        assert!(got == want, "{what}, {g}: the {} kernel found {} findings, the reference {}", kernel.label(), got.len(), want.len());
    }
    for profile in [Profile::Spec, Profile::Amended] {
        compare_as(what, &stream, g, profile);
    }
    want.len()
}

/// The amending stream functions against `validate_as` on each bundle alone.
fn compare_as(what: &str, stream: &[u8], g: Generation, profile: Profile) {
    let alone: Vec<Vec<Finding>> = stream.chunks_exact(64).filter_map(Bundle::decode_slice).map(|b| validate::validate_as(&b, g, profile)).collect();
    let mut got: Vec<Vec<Finding>> = Vec::new();
    validate::decode_stream_as(stream, g, profile, |i, _, fs| {
        assert_eq!(i, got.len(), "{what}: in stream order");
        got.push(fs.to_vec());
    });
    assert!(got == alone, "{what}, {g}, {}: decode_stream_as differs from validate_as", profile.as_str());
    let want: Vec<bool> = alone.iter().map(|f| validate::is_valid(f)).collect();
    // Each kernel judges by the profile's tables (the amended ones decide what the errata accept by one byte).
    for kernel in Kernel::available_kernels() {
        let mut judged: Vec<bool> = Vec::new();
        validate::judge_stream_with(kernel, stream, g, profile, |i, valid| {
            assert_eq!(i, judged.len(), "{what}: in stream order");
            judged.push(valid);
        });
        assert!(judged == want, "{what}, {g}, {}: judge_stream on the {} kernel differs from validate_as", profile.as_str(), kernel.label());
    }
    if profile == Profile::Amended {
        // Real programs carry findings the errata amend: the comparison covers the errata's decisions.
        assert!(alone.iter().flatten().any(|f| f.erratum.is_some()) || what.starts_with("corrupted"), "{what}, {g}: no amended finding");
    }
}

fn check(files: &[std::path::PathBuf]) -> R<()> {
    let bundles = common::bundles(files)?;
    assert!(!bundles.is_empty(), "no real bundles");
    for g in Generation::ALL {
        let raws: Vec<Raw> = bundles.iter().filter(|(bg, _)| *bg == g).map(|(_, r)| *r).collect();
        if raws.is_empty() {
            continue;
        }
        // As compiled (judged on their own generation: the programs run there).
        compare("real bundles", &raws, g);
        // One body byte of each bundle set to a telling value, a byte and value per bundle.
        let values = [0x00, 0x01, 0x20, 0x22, 0x24, 0x40, 0x7F, 0x80, 0xFF];
        let corrupted: Vec<Raw> = raws
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut r = *r;
                r[4 + i % 60] = values[i / 60 % values.len()];
                r
            })
            .collect();
        let found = compare("corrupted real bundles", &corrupted, g);
        assert!(
            found > corrupted.len() / 50,
            "{g}: only {found} findings in {} corrupted bundles: the corruption must reach the checks",
            corrupted.len()
        );
    }
    Ok(())
}

#[test]
fn every_kernel_matches_the_reference_on_the_committed_real_programs() -> R<()> {
    assert!(Kernel::available_kernels().contains(&Kernel::Portable));
    check(&common::corpus())
}

#[test]
fn every_kernel_matches_the_reference_on_the_shared_real_programs() -> R<()> {
    let files = common::shared();
    if files.is_empty() {
        tpb_isa::test_skip::skipped("kernels: no ../shared/neff");
        return Ok(());
    }
    check(&files)
}
