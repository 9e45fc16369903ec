//! The four reduction passes, coarse to fine. Each makes what progress it
//! can on the current container and reports every accepted step; the
//! fixpoint loop ([`super::shrink_with`]) runs them in order until a round
//! accepts nothing.

use super::candidate::{self, Edit};
use super::ddmin::{ddmin, dropped};
use super::fields;
use super::tester::{Current, Halt, Tester};
use super::{Pass, Size, Step};
use tpb_isa::bundle::{Raw, BUNDLE_BYTES};

/// Where a pass logs an accepted step.
pub type Log<'l> = dyn FnMut(Step) + 'l;

/// Drops whole subgraphs (a kelf graph, its definition and its members), by ddmin.
pub fn subgraphs<E>(cur: &mut Current, t: &mut Tester<E>, log: &mut Log) -> Result<bool, Halt<E>> {
    let base = cur.ex.clone();
    let all = candidate::subgraphs(&base);
    let mut kept: Vec<usize> = (0..all.len()).collect();
    let (_, halted) = ddmin(all.len(), |keep| {
        let built = candidate::keeping_subgraphs(&base, &all, keep).and_then(|e| candidate::build(&base, &e));
        let Some(next) = t.judge(built)? else { return Ok(false) };
        let gone = dropped(&kept, keep).into_iter().map(|k| format!("`{}` ({} members)", all[k].name, all[k].members.len()));
        accept(cur, next, Pass::Subgraphs, format!("dropped subgraph {}", listed(gone)), log);
        kept = keep.to_vec();
        Ok(true)
    });
    halted.map(|()| kept.len() < all.len())
}

/// Drops whole engine streams (each member and its definition's `*_instr` name), by ddmin.
pub fn streams<E>(cur: &mut Current, t: &mut Tester<E>, log: &mut Log) -> Result<bool, Halt<E>> {
    let base = cur.ex.clone();
    let all = candidate::streams(&base);
    let mut kept: Vec<usize> = (0..all.len()).collect();
    let (_, halted) = ddmin(all.len(), |keep| {
        let built = candidate::keeping_streams(&base, &all, keep).and_then(|e| candidate::build(&base, &e));
        let Some(next) = t.judge(built)? else { return Ok(false) };
        let gone = dropped(&kept, keep).into_iter().map(|k| format!("{} ({})", all[k].name, all[k].label));
        accept(cur, next, Pass::Streams, format!("dropped engine stream {}", listed(gone)), log);
        kept = keep.to_vec();
        Ok(true)
    });
    halted.map(|()| kept.len() < all.len())
}

/// Drops runs of bundles inside each stream (ddmin: halves, quarters, … single bundles).
pub fn bundles<E>(cur: &mut Current, t: &mut Tester<E>, log: &mut Log) -> Result<bool, Halt<E>> {
    let mut progress = false;
    for name in candidate::streams(&cur.ex).into_iter().map(|s| s.name) {
        // Bundles are named by their index in the stream as the pass found it.
        let Some(s) = candidate::streams(&cur.ex).into_iter().find(|s| s.name == name) else { continue };
        let original = cur.ex.data[s.member].clone();
        let count = original.len() / BUNDLE_BYTES;
        let bundle = |i: usize| &original[i * BUNDLE_BYTES..(i + 1) * BUNDLE_BYTES];
        let mut kept: Vec<usize> = (0..count).collect();
        let (_, halted) = ddmin(count, |keep| {
            // Only this stream changes while it is reduced: members keep their indices.
            let bytes: Vec<u8> = keep.iter().flat_map(|k| bundle(*k).iter().copied()).collect();
            let Some(next) = t.judge(candidate::build(&cur.ex, &Edit::replacing(s.member, bytes)))? else { return Ok(false) };
            let gone = dropped(&kept, keep);
            let what = format!("dropped {} of {count} bundles of {name} ({})", gone.len(), runs(&gone));
            accept(cur, next, Pass::Bundles, what, log);
            kept = keep.to_vec();
            Ok(true)
        });
        progress |= kept.len() < count;
        halted?;
    }
    Ok(progress)
}

/// Resets each bundle's body toward zero, keeping its opcode: the whole
/// body, the body but its sync band, then field by field ([`fields`]).
pub fn fields<E>(cur: &mut Current, t: &mut Tester<E>, log: &mut Log) -> Result<bool, Halt<E>> {
    let mut progress = false;
    for name in candidate::streams(&cur.ex).into_iter().map(|s| s.name) {
        let Some(member) = candidate::streams(&cur.ex).into_iter().find(|s| s.name == name).map(|s| s.member) else { continue };
        let count = cur.ex.data[member].len() / BUNDLE_BYTES;
        for k in 0..count {
            let at = k * BUNDLE_BYTES..(k + 1) * BUNDLE_BYTES;
            let Ok(first) = Raw::try_from(&cur.ex.data[member][at.clone()]) else { continue };
            for reset in fields::resets(&first) {
                // Members keep their indices: the fields pass drops none.
                let Ok(now) = Raw::try_from(&cur.ex.data[member][at.clone()]) else { break };
                let simpler = reset.apply(&now);
                if simpler == now {
                    continue;
                }
                let mut bytes = cur.ex.data[member].clone();
                bytes[at.clone()].copy_from_slice(&simpler);
                let Some(next) = t.judge(candidate::build(&cur.ex, &Edit::replacing(member, bytes)))? else { continue };
                let what = format!("{name} [{k}] {:#04x} {}: {}", now[0], tpb_isa::opcode::name(now[0]), reset.what);
                accept(cur, next, Pass::Fields, what, log);
                progress = true;
            }
        }
    }
    Ok(progress)
}

/// Makes `next` current and logs the step.
fn accept(cur: &mut Current, next: Current, pass: Pass, what: String, log: &mut Log) {
    log(Step { pass, what, before: Size::of(cur), after: Size::of(&next) });
    *cur = next;
}

/// At most [`NAMED`] names, then a count of the rest (a hostile kelf may list thousands of graphs).
fn listed(names: impl Iterator<Item = String>) -> String {
    let names: Vec<String> = names.collect();
    let mut text = names[..names.len().min(NAMED)].join(", ");
    if names.len() > NAMED {
        text.push_str(&format!(" and {} more", names.len() - NAMED));
    }
    text
}

/// Names or runs a log line lists.
const NAMED: usize = 8;

/// Indices as runs, `0..=15, 40`; at most [`NAMED`] runs, then a count of the rest.
fn runs(indices: &[usize]) -> String {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for &i in indices {
        match spans.last_mut() {
            Some((_, end)) if *end + 1 == i => *end = i,
            _ => spans.push((i, i)),
        }
    }
    let mut text: Vec<String> = spans.iter().take(NAMED).map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}..={b}") }).collect();
    if spans.len() > NAMED {
        text.push(format!("and {} more runs", spans.len() - NAMED));
    }
    let noun = if indices.len() == 1 { "index" } else { "indices" };
    format!("{noun} {}", text.join(", "))
}

#[cfg(test)]
mod tests {
    #[test]
    fn dropped_indices_read_as_runs() {
        assert_eq!(super::runs(&[0, 1, 2, 5, 7, 8]), "indices 0..=2, 5, 7..=8");
        assert_eq!(super::runs(&[4]), "index 4");
        let many: Vec<usize> = (0..40).step_by(2).collect();
        assert_eq!(super::runs(&many), "indices 0, 2, 4, 6, 8, 10, 12, 14, and 12 more runs");
        let names = |n: usize| super::listed((0..n).map(|i| format!("g{i}")));
        assert_eq!(names(2), "g0, g1");
        assert_eq!(names(10), "g0, g1, g2, g3, g4, g5, g6, g7 and 2 more");
    }
}
