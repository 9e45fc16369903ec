//! Finding assert messages in `.rodata` by content. The spec gives no
//! addresses for them, so known and unknown builds are searched alike.

use super::spec::{SIZE_ASSERT_DIMS, SIZE_ASSERT_HEAD, SIZE_ASSERT_TAIL};

/// Where a size assert was found and the K it states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeAssert {
    /// Virtual address of the text's first byte (the head).
    pub address: u64,
    /// The byte count, when the text after "must have " parses as `"<K> bytes to encode"`.
    pub k: Option<u64>,
    /// The text from the head to the first NUL (at most 96 bytes), for reports.
    pub text: String,
    /// How many places state an N-dim size.
    pub occurrences: usize,
}

/// The N-dim size assert: "ISA mem pattern ND must have " then K then " bytes to encode".
/// Among several occurrences, one that parses wins.
pub fn size_assert(data: &[u8], base: u64, dims: usize) -> Option<SizeAssert> {
    let head = format!("{SIZE_ASSERT_HEAD}{dims}{SIZE_ASSERT_DIMS}");
    let hits: Vec<usize> = memchr::memmem::find_iter(data, head.as_bytes()).collect();
    let parse = |at: usize| -> SizeAssert {
        let rest = data.get(at + head.len()..).unwrap_or(&[]);
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let k = std::str::from_utf8(rest.get(..digits).unwrap_or(&[]))
            .ok()
            // Six digits at most: a K no descriptor comes near, and no overflow to think about.
            .filter(|_| digits <= 6)
            .and_then(|s| s.parse::<u64>().ok())
            .filter(|_| rest.get(digits..).is_some_and(|t| t.starts_with(SIZE_ASSERT_TAIL.as_bytes())));
        SizeAssert { address: base.saturating_add(at as u64), k, text: c_text(data, at, 96), occurrences: hits.len() }
    };
    let all: Vec<SizeAssert> = hits.iter().map(|&at| parse(at)).collect();
    all.iter().find(|s| s.k.is_some()).or(all.first()).cloned()
}

/// Every address where `text` occurs (at most 16).
pub fn text_hits(data: &[u8], base: u64, text: &str) -> Vec<u64> {
    memchr::memmem::find_iter(data, text.as_bytes()).take(16).map(|i| base.saturating_add(i as u64)).collect()
}

/// Printable text from `at` to the first NUL, at most `max` bytes.
pub fn c_text(data: &[u8], at: usize, max: usize) -> String {
    let s = data.get(at..).unwrap_or(&[]);
    s.iter().take(max).take_while(|&&b| b != 0).map(|&b| if (0x20..0x7f).contains(&b) { b as char } else { '.' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_k_and_flags_a_changed_tail() {
        let d = b"xx\0ISA mem pattern 2D must have 12 bytes to encode\0ISA mem pattern 3D must have 16 bytes\0";
        let two = size_assert(d, 0x100, 2);
        assert_eq!(two.as_ref().map(|s| (s.address, s.k)), Some((0x103, Some(12))));
        assert_eq!(two.map(|s| s.text), Some("ISA mem pattern 2D must have 12 bytes to encode".to_string()));
        let three = size_assert(d, 0x100, 3);
        assert_eq!(three.map(|s| s.k), Some(None), "the tail changed, so K is not read");
        assert!(size_assert(d, 0, 4).is_none());
    }

    #[test]
    fn k_has_one_to_six_digits() {
        let k_of = |k: &str| size_assert(format!("ISA mem pattern 2D must have {k} bytes to encode").as_bytes(), 0, 2).and_then(|s| s.k);
        assert_eq!((k_of("1"), k_of("999999")), (Some(1), Some(999_999)));
        assert_eq!((k_of(""), k_of("1000000"), k_of("-1")), (None, None, None));
    }
}
