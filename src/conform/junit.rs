//! JUnit XML for CI dashboards: one `<testsuite>` per section, one
//! `<testcase>` per check; failures carry the message, skips their reason,
//! and spec disagreements go to `<system-out>` (they never fail a run).
//! Written by hand, not with quick-junit: that crate gives `<testsuites>` no
//! `skipped` total and indents in its own way, so the file dashboards already
//! read would change for no gain in length.

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
    use super::{escape, render};
    use crate::conform::report::{Case, Report, Section};
    use std::time::Duration;

    #[test]
    fn every_case_becomes_a_testcase_with_what_its_status_and_disagreements_say() {
        let disagreeing = |mut c: Case, n| {
            c.disagreements = n;
            c.disagreement_samples = vec!["`x` <here>".into()];
            c
        };
        let mut s = Section::new("neff", "NEFF");
        s.cases = vec![
            Case::pass("bare", ""),
            Case::pass("said", "3 files"),
            disagreeing(Case::pass("spec", "ok"), 2),
            Case::fail("broke", "first & line\nsecond"),
            disagreeing(Case::fail("both", "why"), 1),
            disagreeing(Case::pass("none", ""), 0),
            Case::skip("later", "no <cc>"),
        ];
        s.wall = Some(Duration::from_millis(1500));
        let r = Report::of(vec![s], "2026-12-06T00:00:00Z", Duration::from_millis(2250));
        let want = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="tpb conform" tests="7" failures="2" skipped="1" errors="0" time="2.250" timestamp="2026-12-06T00:00:00Z">
  <testsuite name="neff" tests="7" failures="2" skipped="1" errors="0" time="1.500" timestamp="2026-12-06T00:00:00Z">
    <testcase classname="tpb.conform.neff" name="bare" time="0.000"/>
    <testcase classname="tpb.conform.neff" name="said" time="0.000">
      <system-out>3 files
</system-out>
    </testcase>
    <testcase classname="tpb.conform.neff" name="spec" time="0.000">
      <system-out>ok
2 spec disagreement(s):
  `x` &lt;here&gt;
</system-out>
    </testcase>
    <testcase classname="tpb.conform.neff" name="broke" time="0.000">
      <failure message="first &amp; line" type="harness">first &amp; line
second</failure>
    </testcase>
    <testcase classname="tpb.conform.neff" name="both" time="0.000">
      <failure message="why" type="harness">why</failure>
      <system-out>1 spec disagreement(s):
  `x` &lt;here&gt;
</system-out>
    </testcase>
    <testcase classname="tpb.conform.neff" name="none" time="0.000"/>
    <testcase classname="tpb.conform.neff" name="later" time="0.000">
      <skipped message="no &lt;cc&gt;"/>
    </testcase>
  </testsuite>
</testsuites>
"#;
        assert_eq!(render(&r), want);
    }

    #[test]
    fn escapes_markup_quotes_and_control_characters() {
        assert_eq!(escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
        assert_eq!(escape("tab\tline\n\u{1}\u{FFFF}"), "tab\tline\n\u{FFFD}\u{FFFD}");
    }
}
