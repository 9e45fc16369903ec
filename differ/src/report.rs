//! A run's report: text for the terminal, JSON for tools, and one repro
//! file per group. Whatever a worker wrote is escaped in text (JSON keeps it
//! exact: serde escapes).

use crate::campaign::{per_kind, sources, Outcome};
use crate::group::Group;
use serde_json::json;
use std::fmt::Write as _;
use tpb_oracle::text_safe::escape;

/// How to reproduce a request by hand with this worker (one shell line).
pub type Reproduce<'a> = &'a dyn Fn(&str) -> String;

/// The summary and one paragraph per group.
pub fn text(o: &Outcome, reproduce: Reproduce) -> String {
    let mut s = String::new();
    let asks: Vec<&str> = o.asks.iter().map(|a| a.as_str()).collect();
    let _ =
        writeln!(s, "tpb differ: worker `{}` answers {}", escape(&o.worker), if asks.is_empty() { "nothing".to_string() } else { asks.join(", ") });
    let src: Vec<String> = sources(&o.stats).iter().map(|(src, n)| format!("{n} {}", src.as_str())).collect();
    let reqs: Vec<String> = o.stats.requests.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let _ = writeln!(
        s,
        "inputs: {} ({} bundles of real programs, {} distinct); requests: {}; {:.1} s{}",
        src.join(", "),
        o.stats.real_offered,
        o.stats.real_distinct,
        if reqs.is_empty() { "none".to_string() } else { reqs.join(", ") },
        o.stats.seconds,
        if o.stats.timed_out { " (the time budget ended it)" } else { "" }
    );
    if !o.stats.quarantined.is_empty() {
        let q = &o.stats.quarantined;
        let more = if q.len() > 8 { format!(" and {} more (report.json)", q.len() - 8) } else { String::new() };
        let _ = writeln!(
            s,
            "quarantined after repeated crashes or hangs ({} requests not sent): {}{more}",
            o.stats.skipped,
            q.iter().take(8).cloned().collect::<Vec<_>>().join(", ")
        );
    }
    let kinds: Vec<String> = per_kind(&o.groups).into_iter().filter(|(_, n, _)| *n > 0).map(|(k, n, g)| format!("{k} {n} in {g} group(s)")).collect();
    if kinds.is_empty() && o.groups.overflow == 0 {
        let _ = writeln!(s, "no disagreement");
        return s;
    }
    let _ = writeln!(
        s,
        "disagreements: {}{}",
        kinds.join(", "),
        if o.groups.overflow > 0 { format!(", {} more past the group cap", o.groups.overflow) } else { String::new() }
    );
    for (i, g) in o.groups.by_signature.values().enumerate() {
        s.push('\n');
        group_text(&mut s, i + 1, g, reproduce);
    }
    for (sig, why) in &o.unreduced {
        let _ = writeln!(s, "not reduced: {}: {why:?}", sig.describe());
    }
    s
}

fn group_text(s: &mut String, n: usize, g: &Group, reproduce: Reproduce) {
    let sig = &g.signature;
    let _ = writeln!(s, "[{n}] {}: {} input(s); first: {} ({})", sig.describe(), g.count, g.first.source.as_str(), escape(&g.first.origin));
    let _ = writeln!(s, "    worker:    {}", escape(&g.disagreement.worker));
    let _ = writeln!(s, "    expected:  {}", escape(&g.disagreement.expected));
    match &g.repro {
        Some(r) => {
            let fields = if r.fields.is_empty() { "no field".to_string() } else { r.fields.iter().map(|f| escape(f)).collect::<Vec<_>>().join(", ") };
            let bytes: Vec<String> = r.bytes.iter().map(|b| format!("+{b:#04x}")).collect();
            let _ = writeln!(
                s,
                "    reduced:   differs from a bundle both answer alike ({}) in {fields} (bytes {}); {} request(s)",
                g.ask,
                bytes.join(" "),
                r.tests
            );
            let _ = writeln!(s, "    reproduce: {}", reproduce(&r.request));
        }
        None => {
            let _ = writeln!(s, "    reproduce: {}", reproduce(&crate::request::Request::new(g.ask, sig.generation, g.first.raw).line()));
        }
    }
}

/// The whole run as one JSON document.
pub fn json(o: &Outcome) -> serde_json::Value {
    let groups: Vec<&Group> = o.groups.by_signature.values().collect();
    json!({
        "worker": o.worker,
        "asks": o.asks,
        "stats": o.stats,
        "kinds": per_kind(&o.groups).into_iter().map(|(k, n, g)| json!({"kind": k, "disagreements": n, "groups": g})).collect::<Vec<_>>(),
        "overflow": o.groups.overflow,
        "groups": groups,
        "unreduced": o.unreduced.iter().map(|(s, why)| json!({"signature": s, "why": format!("{why:?}")})).collect::<Vec<_>>(),
    })
}

/// A repro file's name: its number, kind, generation, opcode and field, in
/// characters every file system takes.
pub fn repro_name(n: usize, g: &Group) -> String {
    let field: String = g.signature.field.chars().take(48).map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
    format!("{n:03}-{}-{}-{:02x}-{field}.txt", g.signature.kind, g.signature.generation, g.signature.opcode)
}

/// A repro file: comment lines saying what it is, then the request lines
/// (`tpb differ --replay FILE` reads them back: every line not starting with `#`).
pub fn repro_file(g: &Group, reproduce: Reproduce) -> String {
    let mut s = String::new();
    let sig = &g.signature;
    let _ = writeln!(s, "# tpb differ repro: {}", sig.describe());
    let _ = writeln!(s, "# seen on {} input(s); the first: {} ({})", g.count, g.first.source.as_str(), escape(&g.first.origin));
    let line = match &g.repro {
        Some(r) => {
            let _ = writeln!(s, "# base (both agree): {}", crate::request::Request::new(g.ask, sig.generation, r.base).line());
            let _ = writeln!(s, "# differs from the base in: {}", r.fields.iter().map(|f| escape(f)).collect::<Vec<_>>().join(", "));
            let _ = writeln!(s, "# worker:   {}", escape(&r.worker));
            let _ = writeln!(s, "# expected: {}", escape(&r.expected));
            r.request.clone()
        }
        None => {
            let _ = writeln!(s, "# worker:   {}", escape(&g.disagreement.worker));
            let _ = writeln!(s, "# expected: {}", escape(&g.disagreement.expected));
            crate::request::Request::new(g.ask, sig.generation, g.first.raw).line()
        }
    };
    let _ = writeln!(s, "# reproduce: {}", reproduce(&line));
    let _ = writeln!(s, "{line}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::{Outcome, Stats};
    use crate::compare::{Disagreement, Kind};
    use crate::group::Groups;
    use crate::inputs::{Input, Source};
    use crate::request::Ask;
    use tpb_isa::Generation;

    fn outcome(worker_says: &str) -> Outcome {
        let mut groups = Groups::new(10);
        let input = Input {
            source: Source::Real,
            generation: Generation::V3,
            raw: crate::reference::header_only(0x46),
            origin: "p.neff:sg00/DVE.bin [4]\n".into(),
        };
        let d = Disagreement { kind: Kind::Decode, field: "src.addr".into(), expected: "0x00000000".into(), worker: worker_says.into() };
        groups.add(&input, Ask::Decode, d);
        Outcome { worker: "w\u{1b}[31m".into(), asks: vec![Ask::Decode], stats: Stats::default(), groups, unreduced: Vec::new() }
    }

    #[test]
    fn text_names_each_group_and_escapes_what_the_worker_wrote() {
        let t = text(&outcome("0x1\u{202e}"), &|l| format!("replay {l}"));
        assert!(t.contains("worker `w\\u{1b}[31m` answers decode"), "{t}");
        assert!(t.contains("[1] decode v3 0x46 TensorCopy src.addr: 1 input(s); first: real (p.neff:sg00/DVE.bin [4]\\n)"), "{t}");
        assert!(t.contains("worker:    0x1\\u{202e}"), "{t}");
        assert!(t.contains("reproduce: replay decode v3 4610"), "{t}");
        assert!(!t.contains('\u{1b}') && !t.contains('\u{202e}'));
        let none = Outcome { groups: Groups::new(1), ..outcome("x") };
        assert!(text(&none, &|l| l.to_string()).ends_with("no disagreement\n"));
    }

    #[test]
    fn json_keeps_strings_exact_and_repro_files_read_back() {
        let o = outcome("0x1\u{202e}");
        let j = json(&o);
        assert_eq!(j["groups"][0]["disagreement"]["worker"], "0x1\u{202e}");
        assert_eq!(j["groups"][0]["signature"]["opcode"], "0x46");
        assert_eq!(j["groups"][0]["first"]["bundle"].as_str().map(str::len), Some(128));
        let g = o.groups.by_signature.values().next().unwrap();
        assert_eq!(repro_name(7, g), "007-decode-v3-46-src.addr.txt");
        let file = repro_file(g, &|l| l.to_string());
        let lines: Vec<&str> = file.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(lines, vec![crate::request::Request::new(Ask::Decode, Generation::V3, g.first.raw).line()]);
        assert!(file.lines().all(|l| !l.contains('\u{202e}')));
    }
}
