//! Strings that come from an input (tar member names, JSON values, zip entry
//! names, file names, strings found in a library, a worker's answers) reach
//! text reports one line per item, and Markdown reports one table cell per
//! item. Such a string must not start a new line, move the cursor, recolour
//! the terminal, reorder the line around it or end its cell, so every text
//! renderer of the workspace passes it through [`escape`], and every
//! Markdown table through [`md_cell`]. This is the one place the rules are
//! written; `isa` never prints an input, so `oracle` is the lowest crate that
//! needs them. JSON output needs none of this: serde escapes.

/// `s` with every character [`needs_escape`] names written as its Rust escape
/// (`\n`, `\t`, `\u{1b}`, `\u{202e}`). Everything else, backslashes included,
/// is kept as is, so ordinary text (names, paths) passes byte for byte.
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

/// A Markdown table cell: [`escape`]d (so no line ends inside it), and `|`
/// written `\|` so it cannot end the cell. Backticks are kept: a code span
/// cannot cross a cell's `|` (GitHub splits the row first), and the
/// messages put in cells quote names between backticks on purpose.
pub fn md_cell(s: &str) -> String {
    escape(s).replace('|', "\\|")
}

/// A Markdown code block holding `text` as it is, each line [`escape`]d:
/// the fence is a run of backticks longer than any in the text (at least
/// three, as CommonMark counts), so no line of the text can close it.
pub fn md_code_block(info: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let body: Vec<String> = text.split('\n').map(escape).collect();
    format!("{fence}{}\n{}\n{fence}", escape(info), body.join("\n"))
}

/// Whether `c` is escaped in a line of text: every control character (C0,
/// DEL, C1), and what reorders or breaks a line in a terminal or editor
/// without being one: the Unicode bidirectional marks, embeddings,
/// overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E,
/// U+2066–U+2069) and the line and paragraph separators (U+2028, U+2029).
pub fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What an input may hide in a name: every bidi control and both separators.
    const REORDERING: &[char] = &[
        '\u{061c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}',
        '\u{2069}', '\u{2028}', '\u{2029}',
    ];

    #[test]
    fn a_code_block_outlasts_every_backtick_run_of_its_text() {
        assert_eq!(md_code_block("text", "a\nb"), "```text\na\nb\n```");
        assert_eq!(md_code_block("text", "x ``` y\n````"), "`````text\nx ``` y\n````\n`````");
        assert_eq!(md_code_block("", "\u{1b}[2J\u{202e}"), "```\n\\u{1b}[2J\\u{202e}\n```");
    }

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
    fn every_control_bidi_and_separator_character_is_escaped_by_both() {
        let controls = (0..=0x9f_u32).filter_map(char::from_u32).filter(|c| c.is_control());
        for c in controls.chain(REORDERING.iter().copied()) {
            let s = format!("a{c}b");
            let want = format!("a{}b", c.escape_default());
            assert_eq!(escape(&s), want, "{:#x}", c as u32);
            assert_eq!(md_cell(&s), want, "{:#x}", c as u32);
            assert!(needs_escape(c), "{:#x}", c as u32);
        }
    }

    #[test]
    fn ordinary_text_passes_unchanged() {
        for s in ["", "sg00/PE.bin", "corpus/neff/real/xla-2.14/MODULE_1.neff", "2.23.6484.0+3b612583", "naïve ü 中 \\n `x` [a](b) <br> ×3 — §2.1"]
        {
            assert_eq!(escape(s), s);
            assert_eq!(md_cell(s), s);
        }
        // The characters next to the escaped ranges are ordinary.
        for c in ['\u{a0}', '\u{200d}', '\u{2027}', '\u{202f}', '\u{2065}', '\u{206a}'] {
            assert!(!needs_escape(c), "{:#x}", c as u32);
        }
    }

    #[test]
    fn markdown_cells_escape_pipes_too() {
        assert_eq!(md_cell("a|b\nc"), "a\\|b\\nc");
        assert_eq!(escape("a|b"), "a|b");
    }
}
