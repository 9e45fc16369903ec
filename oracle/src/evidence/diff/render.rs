//! A diff as Markdown (to read, or paste into a release note) and as JSON.
//! Both are deterministic: everything sorted, no timestamps, the sides named
//! as the caller gives them. Every string that came from an input (paths,
//! builds, engines, and anything read back from a JSON file) is escaped.

use super::{CheckMove, ContradictionMove, Diff, ErratumMove, Example, NewValues, OpPresence, Side, Values};
use crate::text_safe::escape;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use tpb_isa::{opcode, text};

/// Values possibly seen listed per field in Markdown (all of them in JSON).
const POSSIBLY_SHOWN: usize = 3;

/// How a diff is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// List the values possibly seen field by field (else one line says how many fields have some).
    pub possibly_seen: bool,
}

/// `1 bundle`, `2 bundles`.
pub fn count(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// A field's value as `tpb disasm` names it (`bf16`, `add`), when the field
/// holds a dtype or an enumeration; `None` for numbers and unknown fields.
pub fn value_name(op: u8, field: &str, offset: Option<u64>, value: &str) -> Option<String> {
    let leaves = text::leaves(opcode::body_kind(op));
    let leaf = leaves.iter().find(|l| l.path == field).or_else(|| {
        let o = usize::try_from(offset?).ok()?;
        leaves.iter().find(|l| l.offset == o && l.len.is_none())
    })?;
    if !matches!(leaf.fmt, tpb_isa::layout::LeafFmt::Dtype | tpb_isa::layout::LeafFmt::DtypeNibbles | tpb_isa::layout::LeafFmt::Enum(_)) {
        return None;
    }
    let digits = value.strip_prefix("0x")?;
    let n = u64::from_str_radix(digits, 16).ok()?;
    let le = n.to_le_bytes();
    let name = text::format_value(leaf, le.get(..leaf.size())?);
    (name != value).then_some(name)
}

/// `` `0x06` (bf16) `` or `` `0x06` ``.
fn named(op: u8, field: &str, offset: Option<u64>, value: &str) -> String {
    match value_name(op, field, offset, value) {
        Some(n) => format!("{} ({})", code(value), escape(&n)),
        None => code(value),
    }
}

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

/// `v2 0x46 TensorCopy` (`v2→v3 0x46 TensorCopy` compared across generations).
fn op_title(d: &Diff, g: tpb_isa::Generation, op: u8) -> String {
    format!("{} `{op:#04x}` {}", d.generation_label(g), opcode::name(op))
}

/// `` `0x0a` ×3, `0x06` (bf16) ×1 `` for values of field `field` of opcode `op`.
fn values_md(values: &[(String, u64)], op: u8, field: &str, offset: Option<u64>) -> String {
    values.iter().map(|(v, n)| format!("{} ×{n}", named(op, field, offset, v))).collect::<Vec<_>>().join(", ")
}

/// A histogram's listed values (most frequent first) and its "other" count.
fn hist_md(v: &Values, op: u8, field: &str) -> String {
    let listed: Vec<(String, u64)> = v.listed.iter().map(|(x, n)| (x.clone(), *n)).collect();
    let mut t = values_md(&super::by_count(listed), op, field, None);
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
    let _ = writeln!(t, "- {label} {}: {} from {}", code(name), count(s.bundles, "bundle"), count(s.files as u64, "file"));
    for (build, b) in &s.builds {
        let gens: Vec<&str> = b.generations.iter().map(|g| g.as_str()).collect();
        let _ = writeln!(
            t,
            "  - build {} ({}): {} from {}",
            code(build),
            gens.join(", "),
            count(b.bundles, "bundle"),
            count(b.files.len() as u64, "file")
        );
    }
}

/// Where an example is, as `tpb disasm PATH` labels its line: `` `path` `sg00/PE.bin` [12] +0x300 ``.
fn place_md(d: &Diff, e: &Example) -> String {
    let path = d.found.get(e).map_or_else(|| e.loc.file().to_string(), |f| f.path.clone());
    let member = if e.loc.member().is_empty() { String::new() } else { format!(" {}", code(e.loc.member())) };
    format!("{}{member} [{}] +{:#x}", code(&path), e.loc.index, e.loc.offset())
}

/// The indented line under a difference: its first bundle, and that bundle's disassembly.
fn example_md(t: &mut String, d: &Diff, what: &str, e: &Option<Example>) {
    let Some(e) = e else {
        let _ = writeln!(t, "  - {what}no location (evidence written before locations were kept)");
        return;
    };
    let _ = write!(t, "  - {what}first in {}: {}", e.side.as_str(), place_md(d, e));
    match (d.found.get(e), d.unfound.get(e)) {
        (Some(f), _) => {
            let _ = writeln!(t, ": {}", code(&f.line));
        }
        (None, Some(why)) => {
            let _ = writeln!(t, " (not disassembled: {})", escape(why));
        }
        (None, None) => {
            let _ = writeln!(t);
        }
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

fn presence_md(t: &mut String, d: &Diff, ops: &[OpPresence], side: &str) {
    for p in ops {
        let _ = writeln!(t, "- {}: {} in {side}{}", op_title(d, p.generation, p.opcode), count(p.bundles, "bundle"), engines_md(&p.engines));
        example_md(t, d, "", &p.at);
    }
}

fn contradictions_md(t: &mut String, d: &Diff, cs: &[ContradictionMove]) {
    for c in cs {
        let _ = writeln!(
            t,
            "- {} {} {}: {}",
            op_title(d, c.generation, c.opcode),
            code(&c.check),
            code(&c.field),
            hist_md(&c.values, c.opcode, &c.field)
        );
        for (v, _) in super::by_count(c.values.listed.iter().map(|(x, n)| (x.clone(), *n)).collect()) {
            let e = c.values.first.get(&v).map(|l| Example { side: c.side, loc: l.clone() });
            example_md(t, d, &format!("{}: ", code(&v)), &e);
        }
    }
}

fn errata_md(t: &mut String, d: &Diff, es: &[ErratumMove], side: &str, other: &str) {
    for e in es {
        let unlisted = if e.listed_by_other { String::new() } else { format!(" (not in {other}'s errata table)") };
        let _ = writeln!(t, "- {}: {} in {side}, none in {other}{unlisted}", code(&e.id), count(e.bundles, "bundle"));
        example_md(t, d, "", &e.at);
    }
}

/// A field's values on one line, then each value's first bundle.
fn values_md_block(t: &mut String, d: &Diff, v: &NewValues, which: &[(String, u64)], tail: &str) {
    let _ = writeln!(
        t,
        "- {} {} +{:#04x}: {}{tail}",
        op_title(d, v.generation, v.opcode),
        code(&v.field),
        v.offset,
        values_md(which, v.opcode, &v.field, Some(v.offset))
    );
    for (x, _) in which {
        let what = if which.len() > 1 { format!("{}: ", code(x)) } else { String::new() };
        example_md(t, d, &what, &v.at.get(x).cloned());
    }
}

impl Diff {
    /// The diff as Markdown; `old` and `new` name the sides (as given on the command line).
    pub fn to_markdown(&self, old: &str, new: &str) -> String {
        self.to_markdown_with(old, new, Options::default())
    }

    /// [`Diff::to_markdown`] written as `o` says.
    pub fn to_markdown_with(&self, old: &str, new: &str, o: Options) -> String {
        let mut t = String::new();
        let _ = writeln!(t, "# tpb evidence diff\n");
        side_md(&mut t, "OLD", old, &self.old);
        side_md(&mut t, "NEW", new, &self.new);
        let new_values = self.values.iter().filter(|v| !v.new.is_empty()).count();
        let possibly = self.values.iter().filter(|v| !v.possibly_seen.is_empty()).count();
        let how = match &self.across {
            None => "Compared per generation × opcode".to_string(),
            Some(_) => format!(
                "The sides share no generation ({}): compared per opcode across generations (`--per-generation` keeps them apart)",
                self.generation_label(tpb_isa::Generation::V2)
            ),
        };
        let _ = writeln!(
            t,
            "\n{how}, over every build of each side. Exit {}: {}.\n",
            self.exit,
            match self.exit {
                0 => "nothing moved",
                4 => "something moved (4)",
                _ => "something moved (4), and NEW disagrees with the description where OLD did not (8)",
            }
        );
        let gens = |s: &Side| s.builds.values().flat_map(|b| b.generations.iter().copied()).collect::<std::collections::BTreeSet<_>>();
        if self.across.is_none() && gens(&self.old).is_disjoint(&gens(&self.new)) {
            let _ = writeln!(
                t,
                "The sides share no generation: every opcode of each is listed as appeared or vanished (`--across` compares them per opcode).\n"
            );
        }
        let _ = writeln!(
            t,
            "Under each difference: the first bundle that shows it (file, member, index, byte offset, as `tpb disasm FILE` labels its lines) and its disassembly.\n"
        );
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
            section(
                &mut t,
                "Opcodes that appeared",
                if self.across.is_some() { "In NEW, not in OLD (on any generation)." } else { "In NEW, not in OLD (on that generation)." },
            );
            presence_md(&mut t, self, &self.appeared, "NEW");
        }
        if !self.vanished.is_empty() {
            section(
                &mut t,
                "Opcodes that vanished",
                if self.across.is_some() { "In OLD, not in NEW (on any generation)." } else { "In OLD, not in NEW (on that generation)." },
            );
            presence_md(&mut t, self, &self.vanished, "OLD");
        }
        if !self.engines.is_empty() {
            section(&mut t, "Engines", "Engines an opcode both sides have appeared on or vanished from.");
            for e in &self.engines {
                let (how, side) = if e.appeared { ("appeared on", "NEW") } else { ("vanished from", "OLD") };
                let _ =
                    writeln!(t, "- {}: {how} {} ({} in {side})", op_title(self, e.generation, e.opcode), code(&e.engine), count(e.bundles, "bundle"));
                example_md(&mut t, self, "", &e.at);
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
                values_md_block(&mut t, self, v, &v.new, &unlisted);
            }
        }
        if !self.checks.is_empty() {
            section(&mut t, "Checks", "Checks whose verdict on an opcode both sides have moved; counts are bundles.");
            for c in &self.checks {
                let CheckMove { generation, opcode, check, change, old, new, at } = c;
                let _ = writeln!(
                    t,
                    "- {} {}: {}: OLD {}; NEW {}",
                    op_title(self, *generation, *opcode),
                    code(check),
                    change.as_str(),
                    check_md(old),
                    check_md(new)
                );
                example_md(&mut t, self, "", at);
            }
        }
        if !self.contradictions_new.is_empty() {
            section(&mut t, "Contradictions new in NEW", "Spec disagreements no erratum accepts, in NEW and not in OLD: check, field, values.");
            contradictions_md(&mut t, self, &self.contradictions_new);
        }
        if !self.contradictions_gone.is_empty() {
            section(&mut t, "Contradictions gone", "In OLD, not in NEW.");
            contradictions_md(&mut t, self, &self.contradictions_gone);
        }
        if !self.errata_unsupported.is_empty() {
            section(&mut t, "Errata NEW no longer supports", "");
            errata_md(&mut t, self, &self.errata_unsupported, "OLD", "NEW");
        }
        if !self.errata_needed.is_empty() {
            section(&mut t, "Errata NEW newly needs", "");
            errata_md(&mut t, self, &self.errata_needed, "NEW", "OLD");
        }
        for (title, claims) in
            [("Recovered-layout claims NEW breaks", &self.claims_broken), ("Recovered-layout claims NEW mends", &self.claims_mended)]
        {
            if !claims.is_empty() {
                section(&mut t, title, "");
                for c in claims {
                    let _ = writeln!(
                        t,
                        "- {} {}: broken by {} in OLD, {} in NEW",
                        op_title(self, c.generation, c.opcode),
                        code(&c.field),
                        count(c.old_broken, "bundle"),
                        c.new_broken
                    );
                    example_md(&mut t, self, "", &c.at);
                }
            }
        }
        if possibly > 0 && !o.possibly_seen {
            let values: usize = self.values.iter().map(|v| v.possibly_seen.len()).sum();
            let _ = writeln!(
                t,
                "\n{} NEW lists in {} may be among OLD's unlisted values (its histograms overflowed: mostly addresses and padding): nothing is claimed. `--possibly-seen` lists them; `--json` always does.",
                count(values as u64, "value"),
                count(possibly as u64, "field")
            );
        }
        if possibly > 0 && o.possibly_seen {
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
                values_md_block(&mut t, self, v, shown, &format!("{more} (OLD's other ×{})", v.old_other));
            }
        }
        if self.exit == 0 && possibly == 0 {
            let _ = writeln!(t, "\nNothing moved.");
        }
        t
    }

    /// The diff as one JSON object; `old` and `new` name the sides.
    pub fn to_json(&self, old: &str, new: &str) -> Value {
        let op = |g: tpb_isa::Generation, o: u8| {
            let mut m = Map::new();
            m.insert("generation".into(), json!(self.generation_label(g)));
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
        let ex = |e: &Option<Example>| e.as_ref().map_or(Value::Null, |e| self.example_json(e));
        let names = |op: u8, field: &str, offset: Option<u64>, v: &[(String, u64)]| -> Map<String, Value> {
            v.iter().filter_map(|(x, _)| Some((x.clone(), json!(value_name(op, field, offset, x)?)))).collect()
        };
        let hist = |v: &Values, side, op: u8, field: &str| {
            let listed: Vec<(String, u64)> = v.listed.iter().map(|(x, n)| (x.clone(), *n)).collect();
            let first: Map<String, Value> = v.first.iter().map(|(x, l)| (x.clone(), self.example_json(&Example { side, loc: l.clone() }))).collect();
            json!({"count": v.total(), "values": pairs(&super::by_count(listed.clone())), "other": v.other, "names": names(op, field, None, &listed), "first": first})
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
                    with(op(p.generation, p.opcode), json!({"bundles": p.bundles, "engines": engines, "first": ex(&p.at)}))
                })
                .collect::<Vec<_>>()
        };
        let contradictions = |cs: &[ContradictionMove]| {
            cs.iter()
                .map(|c| {
                    with(
                        op(c.generation, c.opcode),
                        json!({"check": c.check, "field": c.field, "findings": hist(&c.values, c.side, c.opcode, &c.field)}),
                    )
                })
                .collect::<Vec<_>>()
        };
        let errata = |es: &[ErratumMove]| {
            es.iter().map(|e| json!({"id": e.id, "bundles": e.bundles, "listed_by_other": e.listed_by_other, "first": ex(&e.at)})).collect::<Vec<_>>()
        };
        let claims = |cs: &[super::ClaimMove]| {
            cs.iter()
                .map(|c| {
                    with(
                        op(c.generation, c.opcode),
                        json!({"field": c.field, "old_broken": c.old_broken, "new_broken": c.new_broken, "first": ex(&c.at)}),
                    )
                })
                .collect::<Vec<_>>()
        };
        let check = |c: &super::Check| json!({"agree": c.agree, "disagree": c.disagree, "accepted": c.accepted, "refused": c.refused});
        let across = self.across.as_ref().map_or(Value::Null, |(o, n)| json!({"old": o, "new": n}));
        json!({
            "old": side(old, &self.old),
            "new": side(new, &self.new),
            "exit": self.exit,
            "across_generations": across,
            "opcodes": {"appeared": presence(&self.appeared), "vanished": presence(&self.vanished)},
            "engines": self.engines.iter().map(|e| with(op(e.generation, e.opcode), json!({
                "engine": e.engine,
                "change": if e.appeared { "appeared" } else { "vanished" },
                "bundles": e.bundles,
                "first": ex(&e.at),
            }))).collect::<Vec<_>>(),
            "values": self.values.iter().map(|v| with(op(v.generation, v.opcode), json!({
                "field": v.field,
                "offset": v.offset,
                "new": pairs(&v.new),
                "possibly_seen": pairs(&v.possibly_seen),
                "old_other": v.old_other,
                "new_other": v.new_other,
                "names": names(v.opcode, &v.field, Some(v.offset), &[v.new.clone(), v.possibly_seen.clone()].concat()),
                "first": v.at.iter().map(|(x, e)| (x.clone(), self.example_json(e))).collect::<Map<String, Value>>(),
            }))).collect::<Vec<_>>(),
            "checks": self.checks.iter().map(|c| with(op(c.generation, c.opcode), json!({
                "check": c.check,
                "change": c.change.as_str(),
                "old": check(&c.old),
                "new": check(&c.new),
                "first": ex(&c.at),
            }))).collect::<Vec<_>>(),
            "contradictions": {"new": contradictions(&self.contradictions_new), "gone": contradictions(&self.contradictions_gone)},
            "errata": {"unsupported": errata(&self.errata_unsupported), "needed": errata(&self.errata_needed)},
            "claims": {"broken": claims(&self.claims_broken), "mended": claims(&self.claims_mended)},
        })
    }
}

impl Diff {
    /// `{"side", "file", "member", "index", "offset", "path", "disasm"}`: `file` as the evidence names it,
    /// `path` what to give `tpb disasm` and `disasm` the bundle's line (both null where the program was not read).
    pub fn example_json(&self, e: &Example) -> Value {
        let found = self.found.get(e);
        json!({
            "side": e.side.as_str().to_lowercase(),
            "file": e.loc.file(),
            "member": e.loc.member(),
            "index": e.loc.index,
            "offset": e.loc.offset(),
            "path": found.map(|f| f.path.clone()),
            "disasm": found.map(|f| f.line.clone()),
            "unread": self.unfound.get(e),
        })
    }
}
