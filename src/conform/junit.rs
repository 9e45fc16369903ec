//! JUnit XML for CI dashboards: one `<testsuite>` per section, one
//! `<testcase>` per check; failures carry the message, skips their reason,
//! and spec disagreements go to `<system-out>` (they never fail a run).

use super::report::{Report, Status};
use std::fmt::Write as _;

/// Escapes text for XML content and attribute values; characters XML 1.0
/// cannot carry at all become U+FFFD.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || matches!(c, '\u{FFFE}' | '\u{FFFF}') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// The whole report as a JUnit `<testsuites>` document.
pub fn render(r: &Report) -> String {
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<testsuites name=\"tpb conform\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" errors=\"0\" time=\"{:.3}\" timestamp=\"{}\">",
        r.cases(),
        r.total(Status::Fail),
        r.total(Status::Skip),
        r.elapsed.as_secs_f64(),
        escape(&r.started)
    );
    for s in &r.sections {
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" errors=\"0\" time=\"{:.3}\" timestamp=\"{}\">",
            escape(s.id),
            s.cases.len(),
            s.count(Status::Fail),
            s.count(Status::Skip),
            s.time().as_secs_f64(),
            escape(&r.started)
        );
        for c in &s.cases {
            let _ = write!(
                x,
                "    <testcase classname=\"tpb.conform.{}\" name=\"{}\" time=\"{:.3}\"",
                escape(s.id),
                escape(&c.name),
                c.time.as_secs_f64()
            );
            let mut body = String::new();
            match c.status {
                Status::Fail => {
                    let _ = writeln!(
                        body,
                        "      <failure message=\"{}\" type=\"harness\">{}</failure>",
                        escape(first_line(&c.detail)),
                        escape(&c.detail)
                    );
                }
                Status::Skip => {
                    let _ = writeln!(body, "      <skipped message=\"{}\"/>", escape(&c.detail));
                }
                Status::Pass => {}
            }
            if c.disagreements > 0 || (c.status == Status::Pass && !c.detail.is_empty()) {
                let mut out = String::new();
                if c.status == Status::Pass {
                    let _ = writeln!(out, "{}", c.detail);
                }
                if c.disagreements > 0 {
                    let _ = writeln!(out, "{} spec disagreement(s):", c.disagreements);
                    for d in &c.disagreement_samples {
                        let _ = writeln!(out, "  {d}");
                    }
                }
                let _ = writeln!(body, "      <system-out>{}</system-out>", escape(&out));
            }
            if body.is_empty() {
                x.push_str("/>\n");
            } else {
                x.push_str(">\n");
                x.push_str(&body);
                x.push_str("    </testcase>\n");
            }
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_quotes_and_control_characters() {
        assert_eq!(escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
        assert_eq!(escape("tab\tline\n\u{1}\u{FFFF}"), "tab\tline\n\u{FFFD}\u{FFFD}");
    }
}
