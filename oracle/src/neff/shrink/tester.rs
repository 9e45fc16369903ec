//! Asks the predicate about a candidate, at most once per distinct
//! candidate and never about one that does not read back: every candidate
//! the predicate sees is a container `tpb neff` reads, its digest matching
//! and a bundle in it.

use super::super::pack::{self, Exploded};
use super::super::payload::Limits;
use super::candidate::CandidateError;
use sha2::{Digest as _, Sha256};
use std::collections::HashMap;

/// Why the reduction stopped before its fixpoint.
pub enum Halt<E> {
    /// The predicate was asked as many times as allowed.
    Budget,
    /// The predicate could not be asked (its error).
    Failed(E),
}

/// The container reduced so far: its bytes, and read into a manifest and members.
#[derive(Clone)]
pub struct Current {
    pub bytes: Vec<u8>,
    pub ex: Exploded,
}

/// Counts of what the tester was handed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Predicate runs.
    pub tests: usize,
    /// Candidates answered from an earlier run on the same bytes.
    pub cached: usize,
    /// Candidates that did not build or read back (never shown to the predicate).
    pub malformed: usize,
}

pub struct Tester<'p, E> {
    predicate: &'p mut dyn FnMut(&[u8]) -> Result<bool, E>,
    limits: Limits,
    max_tests: usize,
    /// Every candidate asked about (by SHA-256), with its answer.
    seen: HashMap<[u8; 32], bool>,
    pub counts: Counts,
}

impl<'p, E> Tester<'p, E> {
    pub fn new(predicate: &'p mut dyn FnMut(&[u8]) -> Result<bool, E>, limits: Limits, max_tests: usize) -> Self {
        Tester { predicate, limits, max_tests, seen: HashMap::new(), counts: Counts::default() }
    }

    /// The candidate read, when it reads back and the predicate holds on it;
    /// `None` when it does not build (`built` is the builder's error), does
    /// not read back, or the predicate fails on it.
    pub fn judge(&mut self, built: Result<Vec<u8>, CandidateError>) -> Result<Option<Current>, Halt<E>> {
        let Ok(bytes) = built else {
            self.counts.malformed += 1;
            return Ok(None);
        };
        let key: [u8; 32] = Sha256::digest(&bytes).into();
        if let Some(&holds) = self.seen.get(&key) {
            self.counts.cached += 1;
            return Ok(if holds { self.current(bytes) } else { None });
        }
        if !self.reads(&bytes) {
            self.counts.malformed += 1;
            self.seen.insert(key, false);
            return Ok(None);
        }
        if self.counts.tests >= self.max_tests {
            return Err(Halt::Budget);
        }
        self.counts.tests += 1;
        let holds = (self.predicate)(&bytes).map_err(Halt::Failed)?;
        self.seen.insert(key, holds);
        Ok(if holds { self.current(bytes) } else { None })
    }

    /// Whether `bytes` read as `tpb neff` reads them: they parse, the digest
    /// matches (or the packing names none) and a bundle is read.
    fn reads(&self, bytes: &[u8]) -> bool {
        super::super::parse_with(bytes, "candidate", &self.limits)
            .is_ok_and(|n| (n.integrity.ok() || n.integrity.algorithm.is_none()) && n.unread().is_none())
    }

    /// A candidate that reads, taken apart for the next passes (the
    /// rejected ones, most of them, are only parsed).
    fn current(&self, bytes: Vec<u8>) -> Option<Current> {
        let ex = pack::explode(&bytes, "candidate", &self.limits).ok()?;
        Some(Current { bytes, ex })
    }
}
