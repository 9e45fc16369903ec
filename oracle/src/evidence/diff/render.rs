//! A diff as Markdown (to read, or paste into a release note) and as JSON.
//! Both are deterministic: everything sorted, no timestamps, the sides named
//! as the caller gives them. Every string that came from an input (paths,
//! builds, engines, and anything read back from a JSON file) is escaped.

use super::{CheckMove, ContradictionMove, Diff, ErratumMove, NewValues, OpPresence, Side, Values};
use crate::text_safe::escape;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use tpb_isa::{opcode, Generation};

/// Values possibly seen listed per field in Markdown (all of them in JSON).
const POSSIBLY_SHOWN: usize = 3;

/// A Markdown code span holding `s` as it is: control characters escaped (a
/// newline could forge a line), and a fence of more backticks than any run in
/// `s`, so nothing in it can end the span or be read as Markdown or HTML.
pub fn code(s: &str) -> String {
    let s = escape(s);
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    // A span that starts or ends with a backtick needs a space inside the fence (stripped when read).
    let pad = if s.starts_with('`') || s.ends_with('`') || s.is_empty() { " " } else { "" };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// `v2 0x46 TensorCopy`.
fn op_title(g: Generation, op: u8) -> String {
    format!("{g} `{op:#04x}` {}", opcode::name(op))
}

/// `` `0x0a` ×3, `0x0b` ×1 ``.
fn values_md(values: &[(String, u64)]) -> String {
    values.iter().map(|(v, n)| format!("{} ×{n}", code(v))).collect::<Vec<_>>().join(", ")
}

/// A histogram's listed values (most frequent first) and its "other" count.
fn hist_md(v: &Values) -> String {
    let listed: Vec<(String, u64)> = v.listed.iter().map(|(x, n)| (x.clone(), *n)).collect();
    let mut t = values_md(&super::by_count(listed));
    if v.other > 0 {
        let sep = if t.is_empty() { "" } else { ", " };
        let _ = write!(t, "{sep}other ×{}", v.other);
    }
    t
}

fn engines_md(engines: &[(String, u64)]) -> String {
    if engines.is_empty() {
        return String::new();
    }
    let e: Vec<String> = engines.iter().map(|(e, n)| format!("{} ×{n}", code(e))).collect();
    format!(" on {}", e.join(", "))
}

fn side_md(t: &mut String, label: &str, name: &str, s: &Side) {
    let _ = writeln!(t, "- {label} {}: {} bundles from {} files", code(name), s.bundles, s.files);
    for (build, b) in &s.builds {
        let gens: Vec<&str> = b.generations.iter().map(|g| g.as_str()).collect();
        let _ = writeln!(t, "  - build {} ({}): {} bundles from {} files", code(build), gens.join(", "), b.bundles, b.files.len());
    }
}

fn check_md(c: &super::Check) -> String {
    let acc: Vec<String> = c.accepted.iter().map(|(id, n)| format!("{} ×{n}", code(id))).collect();
    let acc = if acc.is_empty() { String::new() } else { format!(" (accepted: {})", acc.join(", ")) };
    format!("agree {}, disagree {}{acc}, refused {}", c.agree, c.disagree, c.refused)
}

fn section(t: &mut String, title: &str, note: &str) {
    let _ = writeln!(t, "\n## {title}\n");
    if !note.is_empty() {
        let _ = writeln!(t, "{note}\n");
    }
}

fn presence_md(t: &mut String, ops: &[OpPresence], side: &str) {
    for p in ops {
        let _ = writeln!(t, "- {}: {} bundles in {side}{}", op_title(p.generation, p.opcode), p.bundles, engines_md(&p.engines));
    }
}

fn contradictions_md(t: &mut String, cs: &[ContradictionMove]) {
    for c in cs {
        let _ = writeln!(t, "- {} {} {}: {}", op_title(c.generation, c.opcode), code(&c.check), code(&c.field), hist_md(&c.values));
    }
}

fn errata_md(t: &mut String, es: &[ErratumMove], side: &str, other: &str) {
    for e in es {
        let unlisted = if e.listed_by_other { String::new() } else { format!(" (not in {other}'s errata table)") };
        let _ = writeln!(t, "- {}: {} bundles in {side}, none in {other}{unlisted}", code(&e.id), e.bundles);
    }
}

fn values_line(v: &NewValues, which: &[(String, u64)]) -> String {
    format!("- {} {} +{:#04x}: {}", op_title(v.generation, v.opcode), code(&v.field), v.offset, values_md(which))
}

impl Diff {
    /// The diff as Markdown; `old` and `new` name the sides (as given on the command line).
    pub fn to_markdown(&self, old: &str, new: &str) -> String {
        let mut t = String::new();
        let _ = writeln!(t, "# tpb evidence diff\n");
        side_md(&mut t, "OLD", old, &self.old);
        side_md(&mut t, "NEW", new, &self.new);
        let new_values = self.values.iter().filter(|v| !v.new.is_empty()).count();
        let possibly = self.values.iter().filter(|v| !v.possibly_seen.is_empty()).count();
        let _ = writeln!(
            t,
            "\nCompared per generation × opcode, over every build of each side. Exit {}: {}.\n",
            self.exit,
            match self.exit {
                0 => "nothing moved",
                4 => "something moved (4)",
                _ => "something moved (4), and NEW disagrees with the description where OLD did not (8)",
            }
        );
        let gens = |s: &Side| s.builds.values().flat_map(|b| b.generations.iter().copied()).collect::<std::collections::BTreeSet<_>>();
        if gens(&self.old).is_disjoint(&gens(&self.new)) {
            let _ = writeln!(t, "The sides share no generation: every opcode of each is listed as appeared or vanished.\n");
        }
        let counts = [
            ("opcodes appeared", self.appeared.len()),
            ("opcodes vanished", self.vanished.len()),
            ("engines moved", self.engines.len()),
            ("fields with new values", new_values),
            ("checks moved", self.checks.len()),
            ("contradictions new", self.contradictions_new.len()),
            ("contradictions gone", self.contradictions_gone.len()),
            ("errata no longer supported", self.errata_unsupported.len()),
            ("errata newly needed", self.errata_needed.len()),
            ("recovered claims broken", self.claims_broken.len()),
            ("recovered claims mended", self.claims_mended.len()),
            ("fields with values possibly seen", possibly),
        ];
        let _ = writeln!(t, "| what | count |\n|---|---:|");
        for (what, n) in counts {
            let _ = writeln!(t, "| {what} | {n} |");
        }
        if !self.appeared.is_empty() {
            section(&mut t, "Opcodes that appeared", "In NEW, not in OLD (on that generation).");
            presence_md(&mut t, &self.appeared, "NEW");
        }
        if !self.vanished.is_empty() {
            section(&mut t, "Opcodes that vanished", "In OLD, not in NEW (on that generation).");
            presence_md(&mut t, &self.vanished, "OLD");
        }
        if !self.engines.is_empty() {
            section(&mut t, "Engines", "Engines an opcode both sides have appeared on or vanished from.");
            for e in &self.engines {
                let (how, side) = if e.appeared { ("appeared on", "NEW") } else { ("vanished from", "OLD") };
                let _ = writeln!(t, "- {}: {how} {} ({} bundles in {side})", op_title(e.generation, e.opcode), code(&e.engine), e.bundles);
            }
        }
        if new_values > 0 {
            section(
                &mut t,
                "New field values",
                "Values NEW's histograms list that OLD never showed: OLD's histogram of the field lists every value it saw. \
                 Counts are NEW's listed counts.",
            );
            for v in self.values.iter().filter(|v| !v.new.is_empty()) {
                let unlisted = if v.new_other > 0 { format!(" (NEW's other ×{} not compared)", v.new_other) } else { String::new() };
                let _ = writeln!(t, "{}{unlisted}", values_line(v, &v.new));
            }
        }
        if !self.checks.is_empty() {
            section(&mut t, "Checks", "Checks whose verdict on an opcode both sides have moved; counts are bundles.");
            for c in &self.checks {
                let CheckMove { generation, opcode, check, change, old, new } = c;
                let _ = writeln!(
                    t,
                    "- {} {}: {}: OLD {}; NEW {}",
                    op_title(*generation, *opcode),
                    code(check),
                    change.as_str(),
                    check_md(old),
                    check_md(new)
                );
            }
        }
        if !self.contradictions_new.is_empty() {
            section(&mut t, "Contradictions new in NEW", "Spec disagreements no erratum accepts, in NEW and not in OLD: check, field, values.");
            contradictions_md(&mut t, &self.contradictions_new);
        }
        if !self.contradictions_gone.is_empty() {
            section(&mut t, "Contradictions gone", "In OLD, not in NEW.");
            contradictions_md(&mut t, &self.contradictions_gone);
        }
        if !self.errata_unsupported.is_empty() {
            section(&mut t, "Errata NEW no longer supports", "");
            errata_md(&mut t, &self.errata_unsupported, "OLD", "NEW");
        }
        if !self.errata_needed.is_empty() {
            section(&mut t, "Errata NEW newly needs", "");
            errata_md(&mut t, &self.errata_needed, "NEW", "OLD");
        }
        for (title, claims) in
            [("Recovered-layout claims NEW breaks", &self.claims_broken), ("Recovered-layout claims NEW mends", &self.claims_mended)]
        {
            if !claims.is_empty() {
                section(&mut t, title, "");
                for c in claims {
                    let _ = writeln!(
                        t,
                        "- {} {}: broken by {} bundles in OLD, {} in NEW",
                        op_title(c.generation, c.opcode),
                        code(&c.field),
                        c.old_broken,
                        c.new_broken
                    );
                }
            }
        }
        if possibly > 0 {
            section(
                &mut t,
                "Field values possibly seen",
                "Values NEW's histograms list that OLD's do not, where OLD's histogram overflowed its list: \
                 they may be among OLD's unlisted values (other), so nothing is claimed. The most frequent few per field; all in `--json`.",
            );
            for v in self.values.iter().filter(|v| !v.possibly_seen.is_empty()) {
                // The most frequent few: these are mostly addresses, the full list is in --json.
                let (shown, more) = v.possibly_seen.split_at(v.possibly_seen.len().min(POSSIBLY_SHOWN));
                let more = if more.is_empty() { String::new() } else { format!(", {} more", more.len()) };
                let _ = writeln!(t, "{}{more} (OLD's other ×{})", values_line(v, shown), v.old_other);
            }
        }
        if self.exit == 0 && possibly == 0 {
            let _ = writeln!(t, "\nNothing moved.");
        }
        t
    }

    /// The diff as one JSON object; `old` and `new` name the sides.
    pub fn to_json(&self, old: &str, new: &str) -> Value {
        let op = |g: Generation, o: u8| {
            let mut m = Map::new();
            m.insert("generation".into(), json!(g));
            m.insert("opcode".into(), json!(format!("{o:#04x}")));
            m.insert("name".into(), json!(opcode::name(o)));
            m
        };
        let with = |mut m: Map<String, Value>, more: Value| {
            if let Value::Object(more) = more {
                m.extend(more);
            }
            Value::Object(m)
        };
        let pairs = |v: &[(String, u64)]| v.iter().map(|(x, n)| json!([x, n])).collect::<Vec<_>>();
        let hist = |v: &Values| {
            let listed: Vec<(String, u64)> = v.listed.iter().map(|(x, n)| (x.clone(), *n)).collect();
            json!({"count": v.total(), "values": pairs(&super::by_count(listed)), "other": v.other})
        };
        let side = |name: &str, s: &Side| {
            let builds: Map<String, Value> = s
                .builds
                .iter()
                .map(|(b, i)| (b.clone(), json!({"generations": i.generations, "files": i.files.len(), "bundles": i.bundles})))
                .collect();
            json!({"name": name, "bundles": s.bundles, "files": s.files, "builds": builds})
        };
        let presence = |ps: &[OpPresence]| {
            ps.iter()
                .map(|p| {
                    let engines: Map<String, Value> = p.engines.iter().map(|(e, n)| (e.clone(), json!(n))).collect();
                    with(op(p.generation, p.opcode), json!({"bundles": p.bundles, "engines": engines}))
                })
                .collect::<Vec<_>>()
        };
        let contradictions = |cs: &[ContradictionMove]| {
            cs.iter()
                .map(|c| with(op(c.generation, c.opcode), json!({"check": c.check, "field": c.field, "findings": hist(&c.values)})))
                .collect::<Vec<_>>()
        };
        let errata = |es: &[ErratumMove]| {
            es.iter().map(|e| json!({"id": e.id, "bundles": e.bundles, "listed_by_other": e.listed_by_other})).collect::<Vec<_>>()
        };
        let claims = |cs: &[super::ClaimMove]| {
            cs.iter()
                .map(|c| with(op(c.generation, c.opcode), json!({"field": c.field, "old_broken": c.old_broken, "new_broken": c.new_broken})))
                .collect::<Vec<_>>()
        };
        let check = |c: &super::Check| json!({"agree": c.agree, "disagree": c.disagree, "accepted": c.accepted, "refused": c.refused});
        json!({
            "old": side(old, &self.old),
            "new": side(new, &self.new),
            "exit": self.exit,
            "opcodes": {"appeared": presence(&self.appeared), "vanished": presence(&self.vanished)},
            "engines": self.engines.iter().map(|e| with(op(e.generation, e.opcode), json!({
                "engine": e.engine,
                "change": if e.appeared { "appeared" } else { "vanished" },
                "bundles": e.bundles,
            }))).collect::<Vec<_>>(),
            "values": self.values.iter().map(|v| with(op(v.generation, v.opcode), json!({
                "field": v.field,
                "offset": v.offset,
                "new": pairs(&v.new),
                "possibly_seen": pairs(&v.possibly_seen),
                "old_other": v.old_other,
                "new_other": v.new_other,
            }))).collect::<Vec<_>>(),
            "checks": self.checks.iter().map(|c| with(op(c.generation, c.opcode), json!({
                "check": c.check,
                "change": c.change.as_str(),
                "old": check(&c.old),
                "new": check(&c.new),
            }))).collect::<Vec<_>>(),
            "contradictions": {"new": contradictions(&self.contradictions_new), "gone": contradictions(&self.contradictions_gone)},
            "errata": {"unsupported": errata(&self.errata_unsupported), "needed": errata(&self.errata_needed)},
            "claims": {"broken": claims(&self.claims_broken), "mended": claims(&self.claims_mended)},
        })
    }
}
