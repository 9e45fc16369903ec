//! Telling what a file holds from its first bytes: a NEFF container (named
//! so, or whose header and payload read as one), text in the `tpb disasm`
//! format, or else raw bundles.

use super::Reader;
use crate::neff;
use std::fs::File;
use std::io::{self, Read as _, Seek as _, SeekFrom};
use std::path::Path;

/// How far a pipe is read ahead to see the payload of a would-be container whose
/// `header_size` points past the first chunk (a regular file is read there directly).
pub(super) const LOOKAHEAD: u64 = 16 << 20;

/// Bytes after `header_size` that tell a gzip or tar payload (the tar magic is at 257).
const PAYLOAD_SNIFF: usize = 512;

/// How much of a raw file is looked at to tell `tpb disasm` text from bundles.
pub const TEXT_SNIFF: usize = 4096;

/// A `.neff` file is read as a container whatever it holds.
pub(super) fn is_neff_name(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("neff"))
}

/// Whether the bytes read so far (`head`) open a NEFF container. A header
/// whose payload lies past them is looked at there: in a regular file directly,
/// in a pipe by reading ahead into `head` (at most [`LOOKAHEAD`] bytes).
/// `len`: the length of a regular file.
pub(super) fn neff_ahead(r: &mut Reader<File>, head: &mut Vec<u8>, len: Option<u64>) -> io::Result<bool> {
    if neff::sniff(head) {
        return Ok(true);
    }
    let Some(h) = neff::NeffHeader::read(head) else { return Ok(false) };
    let hs = h.header_size.get();
    // Only a header that reads as one (a known version, a payload past the
    // header) is looked at further on. A payload the head already holds is
    // judged again, from the same bytes: the same verdict.
    if neff::integrity::Algorithm::for_version(h.pkg_version.get()).is_none() || hs < neff::HEADER_BYTES as u64 {
        return Ok(false);
    }
    if let Some(len) = len {
        if hs >= len {
            return Ok(false);
        }
        // Read there and come back: `taken` is where the stream goes on.
        let back = r.taken();
        let file = r.get_mut();
        file.seek(SeekFrom::Start(hs))?;
        let mut window = Vec::with_capacity(PAYLOAD_SNIFF);
        let got = (&mut *file).take(PAYLOAD_SNIFF as u64).read_to_end(&mut window);
        file.seek(SeekFrom::Start(back))?;
        got?;
        return Ok(neff::payload::sniff(&window).is_some());
    }
    match usize::try_from(hs.saturating_add(PAYLOAD_SNIFF as u64)) {
        Ok(want) if want as u64 <= LOOKAHEAD => {
            r.fill(head, want)?;
            Ok(neff::sniff(head))
        }
        _ => Ok(false),
    }
}

/// `sample` (the start of a file) as text: UTF-8 without control characters
/// but tab and line ends (a bundle never is: its second byte, inst_word_len
/// 0x10, is a control character); `None` when it is not.
fn printable(sample: &[u8]) -> Option<&str> {
    let text = match std::str::from_utf8(sample) {
        Ok(t) => t,
        // The sample may end inside a character.
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&sample[..e.valid_up_to()]).unwrap_or_default(),
        Err(_) => return None,
    };
    text.chars().all(|c| matches!(c, '\t' | '\n' | '\r') || !c.is_control()).then_some(text)
}

/// Whether a line starts with a bundle as `tpb disasm` writes one (`0x46:`).
fn bundle_line(l: &str) -> bool {
    let l = l.trim_start();
    let hex = l.strip_prefix("0x").or_else(|| l.strip_prefix("0X")).map(|h| h.trim_start_matches(|c: char| c.is_ascii_hexdigit()));
    hex.is_some_and(|rest| rest.len() + 2 < l.len() && rest.starts_with(':'))
}

/// Whether `sample` is text in the `tpb disasm` format: printable text with a
/// line that starts with a bundle (`0x46:`), every other line blank or a
/// comment (`#`). A README quoting a bundle line is prose around it, not
/// bundle text. The last line may be cut where the sample ends: it is not held to that.
pub fn looks_like_text(sample: &[u8]) -> bool {
    printable(sample).is_some_and(|t| {
        let lines: Vec<&str> = t.lines().collect();
        let whole = if t.ends_with('\n') { lines.len() } else { lines.len().saturating_sub(1) };
        let fits = |l: &&str| bundle_line(l) || l.trim().is_empty() || l.trim_start().starts_with('#');
        lines.iter().any(|l| bundle_line(l)) && lines.iter().take(whole).all(fits)
    })
}

/// Whether `sample` is printable text in lines (a README, a log) and not
/// bundle text: not a program. A run of printable bytes with no line end
/// may still be bundles of some unknown body, so it is not called text.
pub fn looks_like_prose(sample: &[u8]) -> bool {
    printable(sample).is_some_and(|t| t.contains('\n') && !t.trim().is_empty()) && !looks_like_text(sample)
}
