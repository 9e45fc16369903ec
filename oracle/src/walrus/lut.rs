//! Finding the BIR dtype → wire tag LUT in `.rodata` without an address.
//!
//! First by its exact bytes. When a new build changed the table, by shape: a
//! LUT maps every BIR dtype to a wire tag, so its window is (almost) all valid
//! tags and covers (almost) the whole tag set. Windows with at most
//! [`SLACK`] bytes outside the tag range and at most [`SLACK`] tags uncovered
//! are candidates, ranked by how many bytes differ from `isa`'s table.

use super::report::{hex_bytes, Candidate};

/// Bytes outside the tag range, and tags left uncovered, that a candidate may have.
pub const SLACK: usize = 2;
/// Candidates reported at most.
pub const MAX_CANDIDATES: usize = 8;
/// Exact hits reported at most.
pub const MAX_HITS: usize = 16;

/// Every virtual address in `data` (based at `base`) where `want` occurs, up to [`MAX_HITS`].
pub fn exact_hits(data: &[u8], base: u64, want: &[u8]) -> Vec<u64> {
    if want.is_empty() {
        return Vec::new();
    }
    memchr::memmem::find_iter(data, want).take(MAX_HITS).map(|i| base.saturating_add(i as u64)).collect()
}

/// LUT-shaped windows of `want.len()` bytes, best first, overlapping ones merged.
/// `tags` is the set of valid wire tags.
pub fn candidates(data: &[u8], base: u64, want: &[u8], tags: &[u8]) -> Vec<Candidate> {
    let n = want.len();
    if n == 0 || data.len() < n || tags.is_empty() {
        return Vec::new();
    }
    let mut is_tag = [false; 256];
    for &t in tags {
        is_tag[usize::from(t)] = true;
    }
    let need_in_range = n.saturating_sub(SLACK);
    let need_cover = tags.len().saturating_sub(SLACK);
    let mut hist = [0u32; 256];
    let (mut in_range, mut distinct) = (0usize, 0usize);
    let add = |b: u8, hist: &mut [u32; 256], in_range: &mut usize, distinct: &mut usize| {
        if is_tag[usize::from(b)] {
            *in_range += 1;
            if hist[usize::from(b)] == 0 {
                *distinct += 1;
            }
            hist[usize::from(b)] += 1;
        }
    };
    let mut found: Vec<(usize, usize, usize)> = Vec::new(); // (distance, start, distinct)
    for (i, &b) in data.iter().enumerate() {
        add(b, &mut hist, &mut in_range, &mut distinct);
        if let Some(start) = (i + 1).checked_sub(n) {
            if in_range >= need_in_range && distinct >= need_cover {
                let window = &data[start..=i];
                let distance = window.iter().zip(want).filter(|(a, b)| a != b).count();
                found.push((distance, start, distinct));
            }
            let out = data[start];
            if is_tag[usize::from(out)] {
                in_range -= 1;
                hist[usize::from(out)] -= 1;
                if hist[usize::from(out)] == 0 {
                    distinct -= 1;
                }
            }
        }
    }
    found.sort_unstable();
    let mut chosen: Vec<(usize, usize, usize)> = Vec::new();
    for c in found {
        if chosen.iter().any(|k| k.1.abs_diff(c.1) < n) {
            continue;
        }
        chosen.push(c);
        if chosen.len() == MAX_CANDIDATES {
            break;
        }
    }
    chosen
        .into_iter()
        .map(|(distance, start, covered)| Candidate {
            address: base.saturating_add(start as u64),
            bytes: hex_bytes(&data[start..start + n]),
            distance,
            tags_covered: covered,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_isa::dtype::{BIR_TO_WIRE, DTYPES};

    fn tags() -> Vec<u8> {
        DTYPES.iter().map(|d| d.tag).collect()
    }

    #[test]
    fn nothing_to_look_for_or_nowhere_to_look_finds_nothing() {
        let data = vec![1u8; 64];
        assert!(candidates(&data, 0, &[], &tags()).is_empty(), "an empty table");
        assert!(candidates(&data[..3], 0, &[1, 2, 3, 4], &tags()).is_empty(), "data shorter than the table");
        assert!(candidates(&data, 0, &[1, 2, 3, 4], &[]).is_empty(), "no valid tags");
        // A table no longer than the slack would otherwise fit anywhere.
        assert!(candidates(&data, 0, &[1, 2], &[]).is_empty(), "no valid tags, a table of SLACK bytes");
    }

    #[test]
    fn finds_a_changed_lut_by_shape_and_ranks_it_first() {
        let mut data = vec![0u8; 300];
        // A decoy: small numbers but too few distinct tags.
        for (i, b) in data[10..40].iter_mut().enumerate() {
            *b = (i % 4) as u8 + 1;
        }
        let mut lut = BIR_TO_WIRE;
        lut[2] = 0x11; // out of the tag range
        data[128..148].copy_from_slice(&lut);
        let c = candidates(&data, 0x1000, &BIR_TO_WIRE, &tags());
        assert_eq!(c.first().map(|c| (c.address, c.distance)), Some((0x1000 + 128, 1)));
        assert!(c.iter().all(|k| k.address.abs_diff(0x1000 + 128) >= 20 || k.address == 0x1000 + 128));
        assert!(exact_hits(&data, 0x1000, &BIR_TO_WIRE).is_empty());
    }

    #[test]
    fn two_copies_side_by_side_are_two_candidates() {
        // Exactly one table apart: they touch but do not overlap.
        let mut data = vec![0u8; 200];
        data[64..84].copy_from_slice(&BIR_TO_WIRE);
        data[84..104].copy_from_slice(&BIR_TO_WIRE);
        let c = candidates(&data, 0, &BIR_TO_WIRE, &tags());
        let exact: Vec<u64> = c.iter().filter(|c| c.distance == 0).map(|c| c.address).collect();
        assert_eq!(exact, [64, 84]);
    }

    /// A section no longer than the table, holding just the table, still yields it.
    #[test]
    fn a_section_that_is_exactly_the_lut_is_a_candidate() {
        let c = candidates(&BIR_TO_WIRE, 0x2000, &BIR_TO_WIRE, &tags());
        assert_eq!(c.iter().map(|c| (c.address, c.distance)).collect::<Vec<_>>(), vec![(0x2000, 0)]);
        assert!(candidates(&BIR_TO_WIRE[1..], 0x2000, &BIR_TO_WIRE, &tags()).is_empty(), "shorter than the table");
    }

    #[test]
    fn a_window_with_every_tag_but_too_many_bytes_outside_the_range_is_not_a_candidate() {
        // 14 distinct tags (all but SLACK) and 6 bytes outside the tag range:
        // the window covers enough but is not table-shaped. Tag bytes earlier
        // in the section have left every window by then and count for nothing.
        let tags = tags();
        let (n, outside) = (BIR_TO_WIRE.len(), 0xEEu8);
        assert!(!tags.contains(&outside));
        let mut data = vec![outside; 200];
        data[..n].fill(tags[0]);
        let covered = tags.len() - SLACK;
        for (k, &t) in tags[..covered].iter().enumerate() {
            data[100 + k] = t;
        }
        assert!(n - covered > SLACK, "more bytes outside the range than the slack");
        assert!(candidates(&data, 0, &BIR_TO_WIRE, &tags).is_empty());
        // Four of the six outside bytes made tags: within the slack, one
        // candidate (windows from 98 to 100 all hold those 18 tag bytes; they overlap, so merge).
        data[100 + covered..100 + covered + 4].fill(tags[0]);
        let c = candidates(&data, 0, &BIR_TO_WIRE, &tags);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!((98..=100).contains(&c[0].address) && c[0].tags_covered == covered, "{c:?}");
    }

    #[test]
    fn a_window_of_one_tag_repeated_is_not_a_candidate_whatever_tags_came_before() {
        // Every tag once, spread out (no window holds enough of them), then twenty copies of one
        // tag: in range, but covering one tag, not the table's many.
        let tags = tags();
        let outside = 0xEEu8;
        let mut data = vec![outside; 4 * tags.len() + 60];
        for (k, &t) in tags.iter().enumerate() {
            data[4 * k] = t;
        }
        let at = 4 * tags.len() + 20;
        data[at..at + BIR_TO_WIRE.len()].fill(tags[0]);
        assert!(candidates(&data, 0, &BIR_TO_WIRE, &tags).is_empty());
    }

    #[test]
    fn random_bytes_give_no_candidates() {
        let mut x: u32 = 0x1234_5678;
        let data: Vec<u8> = (0..100_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        assert!(candidates(&data, 0, &BIR_TO_WIRE, &tags()).is_empty());
    }
}
