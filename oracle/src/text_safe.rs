//! Strings that come from an input (tar member names, JSON values, zip entry
//! names, file names, strings found in a library) reach text reports one
//! line per item. A control character in such a string must not start a new
//! line, move the cursor or recolour the terminal, so text renderers pass it
//! through [`escape`] first. JSON output needs none of this: serde escapes.

/// `s` with every control character (C0, DEL, C1) written as its Rust escape
/// (`\n`, `\t`, `\u{1b}`), and the characters that reorder or break lines
/// in a terminal or editor without being control characters (the Unicode
/// bidirectional controls and U+2028/U+2029) as `\u{…}`. Everything else,
/// backslashes included, is kept as is.
pub fn escape(s: &str) -> String {
    if !s.chars().any(needs_escape) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs_escape(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `s` with only its control characters (C0, DEL, C1) escaped as [`escape`]
/// writes them: the lines `tpb` prints about files and their warnings have
/// always been escaped so, and keep their bytes.
pub fn escape_controls(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars().flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] }).collect()
}

/// A Markdown table cell: [`escape`]d, and `|` escaped so it cannot end the cell.
pub fn markdown_cell(s: &str) -> String {
    escape(s).replace('|', "\\|")
}

fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(escape("sg00/PE.bin"), "sg00/PE.bin");
        assert_eq!(escape("a\nb\r\tc"), "a\\nb\\r\\tc");
        assert_eq!(escape("\u{1b}[31mred"), "\\u{1b}[31mred");
        assert_eq!(escape("x\u{7f}\u{85}y"), "x\\u{7f}\\u{85}y");
        assert_eq!(escape("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(escape("line\u{2028}sep"), "line\\u{2028}sep");
        assert_eq!(escape("naïve ü 中 \\n"), "naïve ü 中 \\n");
        assert!(!escape("a\u{0}\u{1}\u{1f}\u{9f}b").chars().any(char::is_control));
    }

    #[test]
    fn escape_controls_leaves_what_only_reorders_a_line() {
        assert_eq!(escape_controls("a\nb\u{1b}c\u{85}"), "a\\nb\\u{1b}c\\u{85}");
        assert_eq!(escape_controls("abc\u{202e}fed"), "abc\u{202e}fed");
    }

    #[test]
    fn markdown_cells_escape_pipes_too() {
        assert_eq!(markdown_cell("a|b\nc"), "a\\|b\\nc");
    }
}
