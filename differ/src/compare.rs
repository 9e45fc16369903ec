//! One answer held against the description: the disagreements it shows.
//! Only what the worker says is compared — a partial decoder names the
//! fields it knows — and a field the description does not have is itself a
//! disagreement.

use crate::reference;
use crate::reply::Reply;
use crate::request::{self, Ask, Request};
use crate::value::{self, short, Verdict};
use serde::Serialize;
use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;
use tpb_isa::layout::Leaf;
use tpb_isa::{BodyKind, Bundle, Profile};

/// What kind of disagreement: the groups of the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A decoded field's value, or a field the description does not have.
    Decode,
    /// The bytes an encoder wrote for the description's fields.
    Encode,
    /// valid / invalid, or a check code.
    Verdict,
    /// The worker died (a process exited, a signal) on this input.
    Crash,
    /// No answer within the timeout.
    Hang,
    /// An answer that is not one line of the protocol.
    Protocol,
}

impl Kind {
    pub const ALL: [Kind; 6] = [Kind::Decode, Kind::Encode, Kind::Verdict, Kind::Crash, Kind::Hang, Kind::Protocol];

    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Decode => "decode",
            Kind::Encode => "encode",
            Kind::Verdict => "verdict",
            Kind::Crash => "crash",
            Kind::Hang => "hang",
            Kind::Protocol => "protocol",
        }
    }

    /// Crashes and hangs are the worker failing, not disagreeing.
    pub const fn is_failure(self) -> bool {
        matches!(self, Kind::Crash | Kind::Hang)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One disagreement on one request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Disagreement {
    pub kind: Kind,
    /// The field path it is about (a check code for a verdict the worker
    /// names; the request kind for a crash, hang or protocol error).
    pub field: String,
    /// What the description says.
    pub expected: String,
    /// What the worker said (at most 80 characters of it).
    pub worker: String,
}

impl Disagreement {
    fn new(kind: Kind, field: impl Into<String>, expected: impl Into<String>, worker: &str) -> Disagreement {
        Disagreement { kind, field: field.into(), expected: expected.into(), worker: short(worker) }
    }
}

/// Every disagreement `reply` shows for `req`, judged under `profile`.
pub fn compare(req: &Request, reply: &Reply, profile: Profile) -> Vec<Disagreement> {
    let text = match reply {
        Reply::Answer(t) => t.as_str(),
        Reply::Crash(why) => return vec![Disagreement::new(Kind::Crash, req.ask.as_str(), "an answer", why)],
        Reply::Hang(why) => return vec![Disagreement::new(Kind::Hang, req.ask.as_str(), "an answer", why)],
        Reply::Protocol(why) => return vec![Disagreement::new(Kind::Protocol, req.ask.as_str(), "one answer line", why)],
    };
    let text = text.split('#').next().unwrap_or("").trim();
    if text == "unsupported" {
        return Vec::new();
    }
    if let Some(err) = text.strip_prefix("error") {
        if err.is_empty() || err.starts_with(' ') {
            let kind = match req.ask {
                Ask::Decode => Kind::Decode,
                Ask::Encode => Kind::Encode,
                Ask::Validate => Kind::Verdict,
            };
            let expected = match req.ask {
                Ask::Decode => "a decoding (every 64 bytes decode)".to_string(),
                Ask::Encode => "the 64 bytes".to_string(),
                Ask::Validate => reference::verdict_line(&Bundle::decode(&req.raw), req.generation, profile),
            };
            return vec![Disagreement::new(kind, "(error)", expected, text)];
        }
    }
    match req.ask {
        Ask::Decode => decode(req, text),
        Ask::Encode => encode(req, text),
        Ask::Validate => validate(req, text, profile),
    }
}

/// Each body kind's leaves by path, built once: a decode answer names ~30.
fn by_path(kind: BodyKind) -> &'static HashMap<&'static str, &'static Leaf> {
    static CACHE: OnceLock<Vec<HashMap<&'static str, &'static Leaf>>> = OnceLock::new();
    let all = CACHE.get_or_init(|| BodyKind::ALL.iter().map(|k| tpb_isa::text::leaves(*k).iter().map(|l| (l.path.as_str(), l)).collect()).collect());
    static EMPTY: OnceLock<HashMap<&'static str, &'static Leaf>> = OnceLock::new();
    BodyKind::ALL.iter().position(|k| *k == kind).and_then(|i| all.get(i)).unwrap_or_else(|| EMPTY.get_or_init(HashMap::new))
}

/// The leaf a path names: most decoders name fields in layout order, so the
/// leaf after the last one found is tried before the lookup.
fn find<'a>(leaves: &'a [Leaf], next: &mut usize, by: &HashMap<&str, &'a Leaf>, name: &str) -> Option<&'a Leaf> {
    if let Some(l) = leaves.get(*next).filter(|l| l.path == name) {
        *next += 1;
        return Some(l);
    }
    let l = by.get(name).copied()?;
    *next = leaves.iter().position(|x| std::ptr::eq(x, l)).map_or(0, |i| i + 1);
    Some(l)
}

/// `path=value` tokens: each named field compared by meaning.
fn decode(req: &Request, text: &str) -> Vec<Disagreement> {
    let raw = &req.raw;
    if canonical(raw, text) {
        return Vec::new();
    }
    let kind = tpb_isa::opcode::body_kind(raw[0]);
    let (ordered, leaves) = (tpb_isa::text::leaves(kind), by_path(kind));
    let mut next = 0;
    let mut out = Vec::new();
    // Tokens are separated by spaces, as the protocol writes them (a run of spaces is one gap).
    for tok in text.split(' ').filter(|t| !t.is_empty()) {
        let Some((path, val)) = tok.split_once('=') else {
            // The disassembly's own mnemonic, `0x46:TensorCopy`, names the opcode.
            if let Some((op, _)) = tok.split_once(':') {
                if value::integer(op) != Some(i128::from(raw[0])) {
                    out.push(Disagreement::new(Kind::Decode, "opcode", format!("{:#04x}", raw[0]), tok));
                }
                continue;
            }
            out.push(Disagreement::new(Kind::Protocol, "decode", "path=value tokens", tok));
            continue;
        };
        let (name, element) = match path.strip_suffix(']').and_then(|p| p.split_once('[')) {
            Some((name, i)) => match i.parse::<usize>() {
                Ok(i) => (name, Some(i)),
                Err(_) => (path, None),
            },
            None => (path, None),
        };
        let Some(leaf) = find(ordered, &mut next, leaves, name) else {
            let layout = tpb_isa::opcode::body_kind(raw[0]).layout().name;
            out.push(Disagreement::new(Kind::Decode, short(path), format!("no such field in {layout}"), tok));
            continue;
        };
        match value::compare(leaf, element, raw, val) {
            Verdict::Same => {}
            Verdict::Differs { expected } => out.push(Disagreement::new(Kind::Decode, name, expected, val)),
            Verdict::Unreadable(why) => out.push(Disagreement::new(Kind::Decode, name, why, val)),
        }
    }
    out
}

thread_local! {
    /// Answers in a row that were not the disassembly's own text: past a few,
    /// a worker is taken to write its own form and the shortcut is not tried.
    static NOT_CANONICAL: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Whether `text` is the description's disassembly of `raw` as it stands
/// (the opcode token as `opcode=0xNN` or the mnemonic): then every field
/// agrees, and comparing is one string comparison. A complete decoder that
/// writes `tpb disasm`'s syntax answers this way, and is compared at the
/// speed of the disassembler; any other answer goes field by field.
fn canonical(raw: &tpb_isa::Raw, text: &str) -> bool {
    if NOT_CANONICAL.get() >= 8 {
        return false;
    }
    let line = tpb_isa::text::disasm(&Bundle::decode(raw));
    let (Some((_, theirs)), Some((first, ours))) = (text.split_once(' '), line.split_once(' ')) else { return false };
    let opcode = text.split(' ').next().unwrap_or("");
    let same = theirs == ours && (opcode == first || opcode.strip_prefix("opcode=").and_then(value::integer) == Some(i128::from(raw[0])));
    NOT_CANONICAL.set(if same { 0 } else { NOT_CANONICAL.get() + 1 });
    same
}

/// 128 hex digits: the bytes compared, each differing field named.
fn encode(req: &Request, text: &str) -> Vec<Disagreement> {
    let got = match request::parse_hex(text) {
        Ok(g) => g,
        Err(why) => return vec![Disagreement::new(Kind::Protocol, "encode", format!("128 hex digits ({why})"), text)],
    };
    if got == req.raw {
        return Vec::new();
    }
    let leaves = tpb_isa::text::leaves(tpb_isa::opcode::body_kind(req.raw[0]));
    let moved: Vec<&Leaf> = leaves.iter().filter(|l| req.raw.get(l.offset..l.offset + l.size()) != got.get(l.offset..l.offset + l.size())).collect();
    let Some(first) = moved.first() else {
        return vec![Disagreement::new(Kind::Encode, "(bytes)", request::hex(&req.raw), text)];
    };
    // The worker's bytes read back through the description: which field moved, and to what.
    let field_text = |b: &[u8; 64], l: &Leaf| tpb_isa::text::format_value(l, b.get(l.offset..l.offset + l.size()).unwrap_or(&[]));
    let also = if moved.len() > 1 { format!(" (and {} more field(s))", moved.len() - 1) } else { String::new() };
    vec![Disagreement::new(Kind::Encode, first.path.as_str(), field_text(&req.raw, first), &format!("{}{also}", field_text(&got, first)))]
}

/// `valid`, or `invalid` and optionally the check codes the worker reports.
fn validate(req: &Request, text: &str, profile: Profile) -> Vec<Disagreement> {
    let mut words = text.split_ascii_whitespace();
    let worker_valid = match words.next() {
        Some("valid") => true,
        Some("invalid") => false,
        _ => return vec![Disagreement::new(Kind::Protocol, "validate", "valid, or invalid [code …]", text)],
    };
    let codes: Vec<&str> = words.collect();
    let bundle = Bundle::decode(&req.raw);
    let errors = reference::errors(&bundle, req.generation, profile);
    let expected = reference::verdict_text(&errors);
    match (worker_valid, errors.first()) {
        (true, None) => Vec::new(),
        (true, Some(first)) => vec![Disagreement::new(Kind::Verdict, first.field.as_str(), expected, text)],
        (false, None) => vec![Disagreement::new(Kind::Verdict, codes.first().map_or("(valid)", |c| c), expected, text)],
        (false, Some(_)) => codes
            .iter()
            .filter(|c| !errors.iter().any(|e| e.code == **c))
            .take(1)
            .map(|c| Disagreement::new(Kind::Verdict, short(c), expected.clone(), text))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_isa::Generation;

    fn raw(line: &str) -> [u8; 64] {
        tpb_isa::text::asm_line(line).unwrap().unwrap()
    }

    fn ask(ask: Ask, r: [u8; 64], answer: &str) -> Vec<Disagreement> {
        compare(&Request::new(ask, Generation::V2, r), &Reply::Answer(answer.to_string()), Profile::Amended)
    }

    #[test]
    fn a_partial_decode_is_compared_on_what_it_names() {
        let r = raw("0x46:TensorCopy src.addr=0x00004000 src.num=[512,1,1,1] src_dtype=bf16 dst_dtype=f32");
        assert_eq!(ask(Ask::Decode, r, "opcode=0x46 src_dtype=bf16"), vec![]);
        assert_eq!(ask(Ask::Decode, r, "0x46:TensorCopy src.num[0]=512 # a comment"), vec![]);
        let d = ask(Ask::Decode, r, "opcode=70 src.addr=0x4001 bogus=1 src.num=[1,1]");
        let fields: Vec<(Kind, &str)> = d.iter().map(|d| (d.kind, d.field.as_str())).collect();
        assert_eq!(fields, vec![(Kind::Decode, "src.addr"), (Kind::Decode, "bogus"), (Kind::Decode, "src.num")]);
        assert!(d[1].expected.contains("no such field"), "{d:?}");
        assert_eq!(ask(Ask::Decode, r, "0x47:TensorCopyCast")[0].field, "opcode");
        assert_eq!(ask(Ask::Decode, r, "garbage")[0].kind, Kind::Protocol);
        assert_eq!(ask(Ask::Decode, r, "error cannot")[0].field, "(error)");
        assert_eq!(ask(Ask::Decode, r, "unsupported"), vec![]);
    }

    #[test]
    fn the_perfect_answers_agree() {
        let r = raw("0x46:TensorCopy src.addr=0x00004000 src.num=[512,1,1,1] src_dtype=bf16 dst_dtype=f32");
        for a in Ask::ALL {
            let req = Request::new(a, Generation::V2, r);
            let answer = reference::answer(&req, Profile::Amended);
            assert_eq!(compare(&req, &Reply::Answer(answer.clone()), Profile::Amended), vec![], "{a}: {answer}");
        }
    }

    #[test]
    fn the_disassembly_as_an_answer_agrees_and_one_changed_field_in_it_does_not() {
        let r = reference::generated(Generation::V2, 0x46, 3);
        let line = tpb_isa::text::disasm(&Bundle::decode(&r));
        for _ in 0..3 {
            assert_eq!(ask(Ask::Decode, r, &line), vec![]);
            assert_eq!(ask(Ask::Decode, r, &line.replacen("0x46:TensorCopy", "opcode=70", 1)), vec![]);
        }
        let wrong_op = line.replacen("0x46:TensorCopy", "opcode=0x47", 1);
        assert_eq!(ask(Ask::Decode, r, &wrong_op)[0].field, "opcode");
        let (path, value) = line.split(' ').nth(5).and_then(|t| t.split_once('=')).unwrap();
        let changed = line.replacen(&format!(" {path}={value}"), &format!(" {path}=[9,9,9,9]"), 1);
        assert_ne!(changed, line);
        let d = ask(Ask::Decode, r, &changed);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].field, path);
        // A worker that never writes the disassembly's form is compared field by field all along.
        for _ in 0..20 {
            assert_eq!(ask(Ask::Decode, r, "opcode=0x46"), vec![]);
        }
        assert_eq!(ask(Ask::Decode, r, &changed)[0].field, path);
    }

    #[test]
    fn encode_names_the_first_field_that_moved() {
        let r = raw("0x46:TensorCopy src.addr=0x00004000");
        let mut theirs = r;
        theirs[0x0c] ^= 1;
        let d = ask(Ask::Encode, r, &request::hex(&theirs));
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].kind, d[0].field.as_str()), (Kind::Encode, "src.addr"));
        assert_eq!(d[0].worker.as_str(), "0x00004001", "one field moved: no more said");
        theirs[0x20] ^= 1;
        let two = ask(Ask::Encode, r, &request::hex(&theirs));
        assert_eq!(two[0].worker, "0x00004001 (and 1 more field(s))");
        assert_eq!(ask(Ask::Encode, r, &request::hex(&r)), vec![]);
        assert_eq!(ask(Ask::Encode, r, "zz")[0].kind, Kind::Protocol);
    }

    #[test]
    fn verdicts_compare_and_codes_are_checked_when_given() {
        let ok = reference::generated(Generation::V2, 0x46, 1);
        assert_eq!(ask(Ask::Validate, ok, "valid"), vec![]);
        let d = ask(Ask::Validate, ok, "invalid X-BOGUS");
        assert_eq!((d[0].kind, d[0].field.as_str()), (Kind::Verdict, "X-BOGUS"));
        let mut bad = ok;
        bad[1] = 0x33;
        let errors = reference::errors(&Bundle::decode(&bad), Generation::V2, Profile::Amended);
        assert!(!errors.is_empty());
        let d = ask(Ask::Validate, bad, "valid");
        assert_eq!((d[0].kind, d[0].field.as_str()), (Kind::Verdict, errors[0].field.as_str()));
        assert_eq!(ask(Ask::Validate, bad, &format!("invalid {}", errors[0].code)), vec![]);
        assert_eq!(ask(Ask::Validate, bad, "maybe")[0].kind, Kind::Protocol);
    }

    #[test]
    fn failures_are_named_by_their_request() {
        let r = raw("0x46:TensorCopy");
        let req = Request::new(Ask::Decode, Generation::V2, r);
        let d = compare(&req, &Reply::Crash("signal 11".into()), Profile::Amended);
        assert_eq!((d[0].kind, d[0].field.as_str(), d[0].worker.as_str()), (Kind::Crash, "decode", "signal 11"));
        assert_eq!(compare(&req, &Reply::Hang("2 s".into()), Profile::Amended)[0].kind, Kind::Hang);
        let kinds: Vec<bool> = Kind::ALL.iter().map(|k| k.is_failure()).collect();
        assert_eq!(kinds, [false, false, false, true, true, false]);
        assert_eq!(Kind::ALL.map(|k| k.to_string()), ["decode", "encode", "verdict", "crash", "hang", "protocol"]);
    }
}
