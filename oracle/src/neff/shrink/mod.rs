//! Test-case reduction of a NEFF container (after C-Reduce and wasm-tools'
//! `shrink`): when a simulator or runtime misbehaves on a program, the
//! smallest container on which it still misbehaves. The caller's predicate
//! says whether a candidate is still interesting (`tpb neff shrink` runs a
//! command and compares its exit status with the input's).
//!
//! Four passes, coarse to fine, repeated until a round accepts nothing:
//! drop whole subgraphs ([`Pass::Subgraphs`]), drop whole engine streams
//! with their definitions' `*_instr` names ([`Pass::Streams`]), drop runs of
//! bundles inside each stream by delta debugging ([`Pass::Bundles`]), reset
//! each bundle's body toward zero keeping its opcode ([`Pass::Fields`]).
//!
//! Every candidate is built from the current container's manifest and
//! members (`pack::build`: the tar rebuilt, `data_size` and the payload
//! digest recomputed in the form the input used, the gzip member at the
//! default level) and read back before the
//! predicate sees it: one that does not read as `tpb neff` reads it (no
//! bundle left, a digest that fails) is counted and never asked about. The
//! same candidate is never asked about twice. The reduction is
//! deterministic: the same input and the same answers give the same output.
//!
//! Its files: `ddmin.rs` (delta debugging), `candidate.rs` (units and the
//! containers built without them), `json.rs` (the kelf and definition
//! edits), `fields.rs` (what a bundle's body is reset by), `tester.rs`
//! (asking the predicate), `passes.rs` (the four passes).

mod candidate;
pub mod ddmin;
mod fields;
mod json;
mod passes;
mod tester;

pub use tester::Counts;

use super::error::NeffError;
use super::pack;
use super::payload::Limits;
use std::fmt;
use tester::{Current, Halt, Tester};

/// Predicate runs a reduction may make unless told otherwise.
pub const MAX_TESTS: usize = 2000;

/// How far a reduction may go.
#[derive(Clone, Debug)]
pub struct Options {
    /// Most predicate runs (candidates answered from the cache or refused
    /// unread do not count).
    pub max_tests: usize,
    /// Caps on the input and on every candidate, as `tpb neff` reads them.
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options { max_tests: MAX_TESTS, limits: Limits::default() }
    }
}

/// A reduction pass, in the order each round runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pass {
    /// Drop whole subgraphs: a graph of `kelf-0.json`, its definition and members.
    Subgraphs,
    /// Drop whole engine streams and their definitions' `*_instr` names.
    Streams,
    /// Drop runs of bundles inside a stream.
    Bundles,
    /// Reset bundle bodies toward zero, keeping each opcode.
    Fields,
}

impl Pass {
    /// Every pass, in the order a round runs them (coarse to fine).
    pub(crate) const ALL: [Pass; 4] = [Pass::Subgraphs, Pass::Streams, Pass::Bundles, Pass::Fields];

    /// Its name in a step's log line (`subgraphs`, `streams`, `bundles`, `fields`).
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Pass::Subgraphs => "subgraphs",
            Pass::Streams => "streams",
            Pass::Bundles => "bundles",
            Pass::Fields => "fields",
        }
    }
}

/// How big a container is: its bytes (a gzip payload is padded to a whole
/// 10240-byte record, as real compilers pad it, so this moves in steps),
/// its archive members and its bundles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// The container's length in bytes.
    pub bytes: usize,
    /// Its archive members.
    pub members: usize,
    /// Bundles in all its engine streams.
    pub bundles: usize,
}

impl Size {
    fn of(cur: &Current) -> Size {
        Size { bytes: cur.bytes.len(), members: cur.ex.manifest.members.len(), bundles: cur.ex.neff.bundles() }
    }
}

/// One accepted step: the container went from `before` to `after`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The pass that made it.
    pub pass: Pass,
    /// What was removed or reset (member names as they are: escape to print).
    pub what: String,
    /// The container's size before the step.
    pub before: Size,
    /// Its size after.
    pub after: Size,
}

impl fmt::Display for Step {
    /// `bundles: dropped …: 41984 -> 31744 bytes, 117 -> 59 bundles` (members and bundles when they changed).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (b, a) = (self.before, self.after);
        write!(f, "{}: {}: {} -> {} bytes", self.pass.as_str(), self.what, b.bytes, a.bytes)?;
        if b.members != a.members {
            write!(f, ", {} -> {} members", b.members, a.members)?;
        }
        if b.bundles != a.bundles {
            write!(f, ", {} -> {} bundles", b.bundles, a.bundles)?;
        }
        Ok(())
    }
}

/// What a reduction gives.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The smallest container found: the input's bytes when no step was accepted.
    pub bytes: Vec<u8>,
    /// Every accepted step, in order.
    pub steps: Vec<Step>,
    /// What the predicate was asked, answered from the cache, or spared.
    pub counts: Counts,
    /// Rounds of the four passes run (the last accepted nothing unless the budget ran out).
    pub rounds: usize,
    /// The predicate was asked `max_tests` times before the fixpoint: the
    /// output is smaller but may not be minimal.
    pub exhausted: bool,
}

/// Why a reduction could not run.
#[derive(Debug)]
pub enum ShrinkError<E> {
    /// The input does not read (or holds no bundle).
    Input(NeffError),
    /// The predicate could not be asked.
    Predicate(E),
}

impl<E: fmt::Display> fmt::Display for ShrinkError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShrinkError::Input(e) => e.fmt(f),
            ShrinkError::Predicate(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for ShrinkError<E> {}

/// Reduces the container `input` (named `name` in errors) while
/// `interesting` holds, which it is taken to do on the input itself (the
/// caller has asked). `log` sees each accepted step as it is made.
pub fn shrink(
    input: &[u8],
    name: &str,
    opts: &Options,
    mut interesting: impl FnMut(&[u8]) -> bool,
    log: impl FnMut(&Step),
) -> Result<Shrunk, NeffError> {
    shrink_with(input, name, opts, |c| Ok::<bool, std::convert::Infallible>(interesting(c)), log).map_err(|e| match e {
        ShrinkError::Input(e) => e,
        ShrinkError::Predicate(never) => match never {},
    })
}

/// [`shrink`] with a predicate that may fail (a command that cannot be
/// run): its first error stops the reduction and is returned.
pub fn shrink_with<E>(
    input: &[u8],
    name: &str,
    opts: &Options,
    mut interesting: impl FnMut(&[u8]) -> Result<bool, E>,
    mut log: impl FnMut(&Step),
) -> Result<Shrunk, ShrinkError<E>> {
    let ex = pack::explode(input, name, &opts.limits).map_err(ShrinkError::Input)?;
    if let Some(e) = ex.neff.unread() {
        return Err(ShrinkError::Input(e));
    }
    let mut cur = Current { bytes: input.to_vec(), ex };
    // Candidates are compressed at the default level (XFL 0), not at the
    // compilers' fastest: flate2's fastest packs a real payload some 15%
    // larger than they do, which would hide what a step saves.
    if let Some(g) = cur.ex.manifest.gzip.as_mut() {
        g.xfl = 0;
    }
    let mut tester = Tester::new(&mut interesting, opts.limits, opts.max_tests);
    let mut steps = Vec::new();
    let mut record = |s: Step| {
        log(&s);
        steps.push(s);
    };
    let mut rounds = 0;
    let halted = 'fixpoint: loop {
        rounds += 1;
        let mut progress = false;
        for pass in Pass::ALL {
            let made = match pass {
                Pass::Subgraphs => passes::subgraphs(&mut cur, &mut tester, &mut record),
                Pass::Streams => passes::streams(&mut cur, &mut tester, &mut record),
                Pass::Bundles => passes::bundles(&mut cur, &mut tester, &mut record),
                Pass::Fields => passes::fields(&mut cur, &mut tester, &mut record),
            };
            match made {
                Ok(p) => progress |= p,
                Err(h) => break 'fixpoint Some(h),
            }
        }
        if !progress {
            break None;
        }
    };
    let exhausted = match halted {
        Some(Halt::Failed(e)) => return Err(ShrinkError::Predicate(e)),
        Some(Halt::Budget) => true,
        None => false,
    };
    let counts = tester.counts;
    Ok(Shrunk { bytes: cur.bytes, steps, counts, rounds, exhausted })
}

#[cfg(test)]
mod tests;
