//! Every validator kernel this CPU runs finds, on every real bundle, what
//! the scalar reference finds: real programs (`corpus/neff/real/`, and
//! `../shared/neff/` when present) are the streams users validate. Each
//! real stream is also judged with every byte of its bundles' bodies set to
//! a few telling values, so the comparison sees failing bundles too.

use crate::common;

use common::R;
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
    want.len()
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
        eprintln!("note: no ../shared/neff; skipped");
        return Ok(());
    }
    check(&files)
}
