//! A group's first input reduced until only the difference is left, the
//! way C-Reduce and wasm-tools' `shrink` reduce: find a bundle both sides
//! agree on (the base), then take the input's fields back to the base's
//! values, in halves and then one by one (delta debugging), then its bytes,
//! while the same disagreement persists. The repro differs from the base in
//! as few fields and bytes as the worker lets it.

use crate::compare::{compare, Disagreement, Kind};
use crate::reference;
use crate::request::{Ask, Request};
use crate::signature::Signature;
use crate::worker::Worker;
use serde::Serialize;
use tpb_isa::layout::Leaf;
use tpb_isa::{Generation, Profile};

/// A reduced input and the bundle it is held against.
#[derive(Clone, Debug, Serialize)]
pub struct Repro {
    /// A bundle both sides agree on, on every request kind the worker answers.
    #[serde(serialize_with = "hex")]
    pub base: tpb_isa::Raw,
    /// The reduced input: it still shows the group's disagreement.
    #[serde(serialize_with = "hex")]
    pub bundle: tpb_isa::Raw,
    /// The fields in which the two differ.
    pub fields: Vec<String>,
    /// The bytes in which they differ.
    pub bytes: Vec<usize>,
    /// The request that shows it (one protocol line).
    pub request: String,
    /// The worker's answer to it, and the description's.
    pub worker: String,
    pub expected: String,
    /// The worker was asked this many times to reduce it.
    pub tests: usize,
}

fn hex<S: serde::Serializer>(raw: &tpb_isa::Raw, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&crate::request::hex(raw))
}

/// Why a group has no repro.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum NoRepro {
    /// Asked again alone, the input does not show the disagreement (it depended on what came before).
    NotReproducible,
    /// No bundle of this opcode's body kind could be found that both agree on.
    NoBase,
    /// The run's time for reduction was spent before this group's turn.
    OutOfTime,
}

/// What the minimiser needs of a run.
pub struct Minimiser<'a> {
    pub worker: &'a mut dyn Worker,
    pub profile: Profile,
    /// The most requests one reduction may make.
    pub budget: usize,
    pub tests: usize,
    /// No request is made past it: the reduction keeps what it has.
    pub deadline: std::time::Instant,
}

impl Minimiser<'_> {
    fn spent(&self) -> bool {
        self.tests >= self.budget || std::time::Instant::now() >= self.deadline
    }
}

impl Minimiser<'_> {
    fn ask(&mut self, ask: Ask, g: Generation, raw: tpb_isa::Raw) -> Vec<Disagreement> {
        self.tests += 1;
        let req = Request::new(ask, g, raw);
        let reply = crate::worker::ask_all(self.worker, std::slice::from_ref(&req)).pop();
        reply.map(|r| compare(&req, &r, self.profile)).unwrap_or_default()
    }

    fn shows(&mut self, sig: &Signature, ask: Ask, raw: tpb_isa::Raw) -> Option<Disagreement> {
        if raw[0] != sig.opcode || self.spent() {
            return None;
        }
        self.ask(ask, sig.generation, raw).into_iter().find(|d| d.kind == sig.kind && d.field == sig.field)
    }

    /// Reduces `input`, which showed `sig` on request `ask`.
    pub fn reduce(&mut self, sig: &Signature, ask: Ask, input: tpb_isa::Raw) -> Result<Repro, NoRepro> {
        self.tests = 0;
        if self.shows(sig, ask, input).is_none() {
            return Err(NoRepro::NotReproducible);
        }
        let base = self.base(ask, sig.generation, input).ok_or(NoRepro::NoBase)?;
        let leaves = tpb_isa::text::leaves(tpb_isa::opcode::body_kind(input[0]));
        let mut cur = input;
        // Fields first, in halves, quarters, … then one by one.
        let moved: Vec<&Leaf> = leaves.iter().filter(|l| differs(&cur, &base, l.offset, l.size())).collect();
        let mut keep = moved;
        let mut n = 2usize;
        while !keep.is_empty() && !self.spent() {
            let chunk = keep.len().div_ceil(n);
            let mut reduced = false;
            let mut start = 0;
            while start < keep.len() {
                let end = (start + chunk).min(keep.len());
                let mut cand = cur;
                for l in &keep[start..end] {
                    cand[l.offset..l.offset + l.size()].copy_from_slice(&base[l.offset..l.offset + l.size()]);
                }
                if self.shows(sig, ask, cand).is_some() {
                    cur = cand;
                    keep.drain(start..end);
                    reduced = true;
                } else {
                    start = end;
                }
            }
            if !reduced {
                if chunk == 1 {
                    break;
                }
                n = (n * 2).min(keep.len().max(1));
            }
        }
        // Then the bytes of the fields that are left.
        for i in 0..cur.len() {
            if cur[i] != base[i] {
                let mut cand = cur;
                cand[i] = base[i];
                if self.shows(sig, ask, cand).is_some() {
                    cur = cand;
                }
            }
        }
        let shown = self.shows(sig, ask, cur);
        let (worker, expected) = shown.map_or_else(Default::default, |d| (d.worker, d.expected));
        Ok(Repro {
            base,
            bundle: cur,
            fields: leaves.iter().filter(|l| differs(&cur, &base, l.offset, l.size())).map(|l| l.path.clone()).collect(),
            bytes: (0..cur.len()).filter(|i| cur[*i] != base[*i]).collect(),
            request: Request::new(ask, sig.generation, cur).line(),
            worker,
            expected,
            tests: self.tests,
        })
    }

    /// A bundle of `input`'s body kind both sides agree on when asked `ask`
    /// (the request the disagreement is about, so a decode bug elsewhere
    /// does not bend a verdict's base): generated valid bundles of the same
    /// opcode, then of the other opcodes of the same body kind, each cleaned
    /// of the fields the worker disagrees on (set to zero) a few times over.
    fn base(&mut self, ask: Ask, g: Generation, input: tpb_isa::Raw) -> Option<tpb_isa::Raw> {
        let kind = tpb_isa::opcode::body_kind(input[0]);
        let others = tpb_isa::smith::candidate_opcodes(g).filter(|o| o.body == kind && o.byte != input[0]).map(|o| o.byte).take(4);
        let mut candidates: Vec<tpb_isa::Raw> = (0..3).map(|s| reference::generated(g, input[0], s)).collect();
        candidates.push(reference::header_only(input[0]));
        for op in others {
            candidates.push(reference::generated(g, op, 0));
            candidates.push(reference::header_only(op));
        }
        let layout = kind.layout();
        for mut c in candidates {
            for _ in 0..4 {
                if self.spent() {
                    return None;
                }
                let ds = self.ask(ask, g, c);
                if ds.is_empty() {
                    return Some(c);
                }
                if ds.iter().any(|d| d.kind.is_failure() || d.kind == Kind::Protocol) {
                    break;
                }
                let before = c;
                for d in &ds {
                    if let Some((off, size)) = layout.resolve(&d.field) {
                        // The header stays: zeroing the opcode would change the body kind.
                        if off >= 4 {
                            c.get_mut(off..off + size).into_iter().flatten().for_each(|b| *b = 0);
                        }
                    }
                }
                if c == before {
                    break;
                }
            }
        }
        None
    }
}

fn differs(a: &tpb_isa::Raw, b: &tpb_isa::Raw, off: usize, size: usize) -> bool {
    a.get(off..off + size) != b.get(off..off + size)
}
