//! `tpb._tpb`: the native half of the `tpb` Python package (the typed API
//! is `python/tpb/__init__.py`). Every function here calls the workspace's
//! crates — `tpb-isa` (codec, validator, text), `tpb-oracle` (NEFF,
//! evidence, and programs read from files as the CLI reads them) and the
//! CLI's own library (`tpb`, only for the whole command as `main`) — so
//! Python sees the same format, the same verdicts and the same error
//! messages as `tpb`. Long work runs with the
//! interpreter released (`Python::detach`, formerly `allow_threads`).
//!
//! Structured results (validation records, NEFF summaries, evidence) cross
//! as the JSON the CLI prints with `--json`, which the Python side parses:
//! one rendering, so the two cannot drift. A validation's records stay Rust
//! data (`Report`) until Python asks for them: a verdict costs what the
//! command's does.
#![deny(unsafe_code)]

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};
use serde_json::{json, Value};
use std::ffi::OsString;
use std::path::PathBuf;
use tpb_isa::bundle::{Raw, BUNDLE_BYTES};
use tpb_isa::layout::{Leaf, Prim};
use tpb_isa::validate::{self, Finding};
use tpb_isa::{opcode, text, Bundle, Generation, Profile};
use tpb_oracle::neff::{self, choice, Choice};
use tpb_oracle::programs::{self, Input, Program};

create_exception!(
    tpb,
    TpbError,
    PyValueError,
    "An error of the tpb harness; its message is the one the `tpb` command prints (file, member, offset)."
);

fn error(message: impl std::fmt::Display) -> PyErr {
    TpbError::new_err(message.to_string())
}

/// An error met with the interpreter released, raised once it is held again (its message as `tpb` prints it).
type Failed = Box<dyn std::error::Error + Send + Sync>;

fn generation(name: &str) -> PyResult<Generation> {
    name.parse().map_err(error)
}

fn arch(name: Option<&str>) -> PyResult<Option<Generation>> {
    name.map(generation).transpose()
}

fn profile(name: &str) -> PyResult<Profile> {
    match name {
        "amended" => Ok(Profile::Amended),
        "spec" => Ok(Profile::Spec),
        _ => Err(error(format!("unknown profile `{name}` (expected amended or spec)"))),
    }
}

/// Whole bundles or the CLI's error for a partial one, named by `label`.
fn whole(label: &str, bytes: &[u8]) -> Result<(), String> {
    tpb_isa::bundle::stream(bytes).map(|_| ()).map_err(|e| format!("{label}: {e}"))
}

/// One 64-byte bundle as Python sees it: read-only, every field by its path.
#[pyclass(frozen, eq, hash, module = "tpb._tpb", name = "Decoded")]
#[derive(Clone, PartialEq, Eq, Hash)]
struct Decoded {
    raw: Raw,
    generation: Generation,
}

impl Decoded {
    fn bundle(&self) -> Bundle {
        Bundle::decode(&self.raw)
    }

    fn leaves(&self) -> &'static [Leaf] {
        text::leaves(opcode::body_kind(self.raw[0]))
    }

    fn leaf(&self, path: &str) -> Option<&'static Leaf> {
        self.leaves().iter().find(|l| l.path == path)
    }

    fn bytes_of(&self, leaf: &Leaf) -> &[u8] {
        self.raw.get(leaf.offset..leaf.offset + leaf.size()).unwrap_or(&[])
    }

    /// The value at `path`: a leaf, or one element of an array leaf (`num[1]`).
    fn value<'py>(&self, py: Python<'py>, path: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        if let Some(leaf) = self.leaf(path) {
            return leaf_value(py, leaf, self.bytes_of(leaf)).map(Some);
        }
        let Some((base, index)) = path.strip_suffix(']').and_then(|p| p.split_once('[')) else { return Ok(None) };
        let (Some(leaf), Ok(i)) = (self.leaf(base), index.parse::<usize>()) else { return Ok(None) };
        match leaf.len {
            Some(n) if i < n => {
                let size = leaf.prim.size();
                scalar(py, leaf.prim, self.bytes_of(leaf).get(i * size..).unwrap_or(&[])).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// `path=text` of the disassembly line, in layout order (`opcode` first, as its mnemonic).
    fn texts(&self) -> Vec<(String, String)> {
        let line = text::disasm(&self.bundle());
        let mut tokens = line.split_whitespace();
        let mut out = vec![("opcode".to_string(), tokens.next().unwrap_or_default().to_string())];
        out.extend(tokens.filter_map(|t| t.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())));
        out
    }
}

fn scalar<'py>(py: Python<'py>, prim: Prim, at: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    Ok(if prim.is_signed() {
        prim.read(at).unwrap_or(0).into_pyobject(py)?.into_any()
    } else {
        prim.read_u64(at).unwrap_or(0).into_pyobject(py)?.into_any()
    })
}

/// A scalar leaf as an int, a byte array as `bytes`, any other array as a tuple of ints.
fn leaf_value<'py>(py: Python<'py>, leaf: &Leaf, at: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    match leaf.len {
        Some(_) if leaf.prim == Prim::U8 => Ok(PyBytes::new(py, at).into_any()),
        Some(n) => {
            let size = leaf.prim.size();
            let items = (0..n).map(|i| scalar(py, leaf.prim, at.get(i * size..).unwrap_or(&[]))).collect::<PyResult<Vec<_>>>()?;
            Ok(PyTuple::new(py, items)?.into_any())
        }
        None => scalar(py, leaf.prim, at),
    }
}

#[pymethods]
impl Decoded {
    /// The opcode byte.
    #[getter]
    fn opcode(&self) -> u8 {
        self.raw[0]
    }

    /// The opcode's name in the table (`unknown` for a byte the table lacks).
    #[getter]
    fn name(&self) -> &'static str {
        opcode::name(self.raw[0])
    }

    /// Whether the opcode table names this opcode.
    #[getter]
    fn known(&self) -> bool {
        opcode::lookup(self.raw[0]).is_some()
    }

    /// The name of the body layout the opcode selects (as `tpb layout` lists it).
    #[getter]
    fn layout(&self) -> &'static str {
        opcode::body_kind(self.raw[0]).layout().name
    }

    /// The generation it was decoded for (`v2`, `v3`, `v4`).
    #[getter]
    fn generation(&self) -> &'static str {
        self.generation.as_str()
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.raw)
    }

    /// Every field path of the layout, in offset order (`opcode` first).
    fn paths(&self) -> Vec<&'static str> {
        self.leaves().iter().map(|l| l.path.as_str()).collect()
    }

    fn __getitem__<'py>(&self, py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, path)?.ok_or_else(|| PyKeyError::new_err(format!("{path}: no such field in {}", self.layout())))
    }

    fn __contains__(&self, path: &str) -> bool {
        self.leaf(path).is_some()
    }

    /// The value at `path`, or `default` when the layout has no such field.
    #[pyo3(signature = (path, default=None))]
    fn get<'py>(&self, py: Python<'py>, path: &str, default: Option<Bound<'py, PyAny>>) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(self.value(py, path)?.or(default))
    }

    /// Every field by its path: ints, `bytes` for byte arrays, tuples of ints for other arrays.
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for leaf in self.leaves() {
            d.set_item(&leaf.path, leaf_value(py, leaf, self.bytes_of(leaf))?)?;
        }
        Ok(d)
    }

    /// The field at `path` as the disassembly writes it (dtype and enum names, hex).
    fn text(&self, path: &str) -> PyResult<String> {
        self.texts()
            .into_iter()
            .find(|(k, _)| k == path)
            .map(|(_, v)| v)
            .ok_or_else(|| PyKeyError::new_err(format!("{path}: no such field in {}", self.layout())))
    }

    /// Every field as the disassembly writes it, by path.
    fn text_fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.texts() {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// The one-line text form (`tpb disasm` without the location comment).
    fn disasm(&self) -> String {
        text::disasm(&self.bundle())
    }

    fn __repr__(&self) -> String {
        format!("Decoded({}, {})", text::mnemonic(self.raw[0]), self.generation)
    }
}

fn one_bundle(data: &[u8]) -> PyResult<Raw> {
    data.try_into().map_err(|_| error(format!("a bundle is {BUNDLE_BYTES} bytes, got {}", data.len())))
}

/// Decodes one 64-byte bundle.
#[pyfunction]
#[pyo3(signature = (data, generation="v2"))]
fn decode(data: &[u8], generation: &str) -> PyResult<Decoded> {
    Ok(Decoded { raw: one_bundle(data)?, generation: self::generation(generation)? })
}

/// Decodes every bundle of a stream of N x 64 bytes.
#[pyfunction]
#[pyo3(signature = (data, generation="v2"))]
fn decode_stream(data: &[u8], generation: &str) -> PyResult<Vec<Decoded>> {
    let g = self::generation(generation)?;
    whole("bundles", data).map_err(error)?;
    Ok(data.chunks_exact(BUNDLE_BYTES).filter_map(|c| Some(Decoded { raw: c.try_into().ok()?, generation: g })).collect())
}

/// Bundles formatted at a time with the interpreter released, into one
/// reused buffer (then made Python strings with it held).
const DISASM_CHUNK: usize = 4096 * BUNDLE_BYTES;

/// The text line of every bundle of a stream (what `tpb asm` reads back).
#[pyfunction]
fn disasm<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Vec<Bound<'py, PyString>>> {
    whole("bundles", data).map_err(error)?;
    let mut out = Vec::with_capacity(data.len() / BUNDLE_BYTES);
    let (mut text, mut ends) = (String::new(), Vec::new());
    for chunk in data.chunks(DISASM_CHUNK) {
        py.detach(|| {
            text.clear();
            ends.clear();
            for b in chunk.chunks_exact(BUNDLE_BYTES).filter_map(Bundle::decode_slice) {
                text.push_str(&text::disasm(&b));
                ends.push(text.len());
            }
        });
        let mut start = 0;
        for &end in &ends {
            out.push(PyString::new(py, text.get(start..end).unwrap_or_default()));
            start = end;
        }
    }
    Ok(out)
}

/// Assembles text lines (`tpb disasm`'s form; `#` comments, blank lines) into bundles.
#[pyfunction]
fn asm<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = py.detach(|| tpb_isa::text::assemble(text)).map_err(error)?;
    Ok(PyBytes::new(py, &bytes))
}

/// Assembles one line into one bundle.
#[pyfunction]
fn asm_line<'py>(py: Python<'py>, line: &str) -> PyResult<Bound<'py, PyBytes>> {
    match text::asm_line(line) {
        Ok(Some(raw)) => Ok(PyBytes::new(py, &raw)),
        Ok(None) => Err(error("no bundle: the line is blank or a comment")),
        Err(e) => Err(error(e)),
    }
}

/// The opcode table's name of `opcode` (`unknown` when it has none).
#[pyfunction]
fn opcode_name(opcode: u8) -> &'static str {
    opcode::name(opcode)
}

/// The fields of the layout `opcode` selects: (path, offset, size, type, elements or None).
#[pyfunction]
fn fields(opcode: u8) -> Vec<(&'static str, usize, usize, String, Option<usize>)> {
    text::leaves(opcode::body_kind(opcode))
        .iter()
        .map(|l| (l.path.as_str(), l.offset, l.size(), format!("{:?}", l.prim).to_lowercase(), l.len))
        .collect()
}

/// Where judged bundles come from, as `tpb validate --json` names them: one per stream.
struct Source {
    file: String,
    member: String,
    choice: Choice,
    build: Option<String>,
}

/// One judged bundle: its stream, place, opcode and findings.
struct Record {
    source: usize,
    offset: u64,
    opcode: u8,
    valid: bool,
    findings: Vec<Finding>,
}

/// What a validation found, kept as Rust data: the counts, and a record per
/// bundle with findings (per bundle with `every`). Python reads the counts
/// at once and the records only when asked (as the `--json` objects), so a
/// verdict costs what the command's does.
#[pyclass(frozen, module = "tpb._tpb", name = "Report")]
struct Report {
    profile: Profile,
    #[pyo3(get)]
    total: u64,
    #[pyo3(get)]
    invalid: u64,
    #[pyo3(get)]
    warnings: Vec<String>,
    sources: Vec<Source>,
    records: Vec<Record>,
}

impl Report {
    fn new(profile: Profile) -> Report {
        Report { profile, total: 0, invalid: 0, warnings: Vec::new(), sources: Vec::new(), records: Vec::new() }
    }

    /// Judges the whole bundles `bytes` at byte `base` of their stream, as
    /// `tpb validate` does (src/cmd/validate.rs): the stream validator's spec
    /// findings, judged again under the errata where it found something.
    /// `label` names the stream in errors.
    fn judge(&mut self, source: Source, label: &str, base: u64, bytes: &[u8], recovered: bool, every: bool) -> Result<(), String> {
        whole(label, bytes)?;
        let g = source.choice.generation;
        let at = self.sources.len();
        self.sources.push(source);
        let profile = self.profile;
        let Report { total, invalid, records, .. } = self;
        let mut scratch = Vec::new();
        validate::decode_stream(bytes, g, |i, b, spec| {
            let findings: &[Finding] = if recovered {
                scratch.clear();
                if spec.is_empty() || profile == Profile::Spec {
                    scratch.extend_from_slice(spec);
                } else {
                    validate::validate_into_as(b, g, profile, &mut scratch);
                }
                validate::recovered_claims(b, g, &mut scratch);
                &scratch
            } else if spec.is_empty() || profile == Profile::Spec {
                spec
            } else {
                scratch.clear();
                validate::validate_into_as(b, g, profile, &mut scratch);
                &scratch
            };
            let ok = validate::is_valid(findings);
            *total += 1;
            *invalid += u64::from(!ok);
            if every || !findings.is_empty() {
                let offset = base + (i * BUNDLE_BYTES) as u64;
                records.push(Record { source: at, offset, opcode: b.opcode(), valid: ok, findings: findings.to_vec() });
            }
        });
        Ok(())
    }

    /// The object `tpb validate --json` prints for a record.
    fn json(&self, r: &Record) -> Value {
        let Some(s) = self.sources.get(r.source) else { return Value::Null };
        json!({
            "file": s.file,
            "member": s.member,
            "offset": r.offset,
            "index": r.offset / BUNDLE_BYTES as u64,
            "arch": s.choice.generation,
            "target": s.choice.target,
            "generation_from": s.choice.from,
            "build": s.build,
            "profile": self.profile,
            "opcode": opcode::hex(r.opcode),
            "name": opcode::name(r.opcode),
            "valid": r.valid,
            "findings": r.findings,
        })
    }
}

#[pymethods]
impl Report {
    /// Bundles with a record.
    fn __len__(&self) -> usize {
        self.records.len()
    }

    /// The records as a JSON array of `tpb validate --json`'s objects (only
    /// the invalid bundles' with `invalid_only`).
    #[pyo3(signature = (invalid_only=false))]
    fn to_json(&self, py: Python<'_>, invalid_only: bool) -> String {
        py.detach(|| Value::Array(self.records.iter().filter(|r| !invalid_only || !r.valid).map(|r| self.json(r)).collect()).to_string())
    }
}

/// The generation a program is judged under, as `tpb` chooses it
/// ([`Program::choose`]), with its warning returned instead of printed.
fn choose(p: &Program, arch: Option<Generation>, warnings: &mut Vec<String>) -> Choice {
    let c = p.choose(arch);
    if let Some(w) = c.warning() {
        warnings.push(format!("{}: {w}", programs::shown(&p.file)));
    }
    c
}

/// Validates a file (raw bundles or a NEFF container) as `tpb validate FILE` does.
#[pyfunction]
#[pyo3(signature = (path, generation=None, profile="amended", recovered=false, every=false, max_bytes=neff::MAX_FILE))]
fn validate_path(
    py: Python<'_>,
    path: PathBuf,
    generation: Option<&str>,
    profile: &str,
    recovered: bool,
    every: bool,
    max_bytes: u64,
) -> PyResult<Report> {
    let (arch, profile) = (self::arch(generation)?, self::profile(profile)?);
    py.detach(|| -> Result<Report, Failed> {
        let mut report = Report::new(profile);
        let mut warnings = Vec::new();
        let file = path.display().to_string();
        match programs::open(&path, max_bytes, &mut |w| warnings.push(w.to_string()))? {
            Input::Raw(mut raw) => {
                let choice = choice::for_raw(arch);
                let label = raw.name().to_string();
                while let Some(chunk) = raw.next_chunk() {
                    let chunk = chunk?;
                    let source = Source { file: file.clone(), member: String::new(), choice: choice.clone(), build: None };
                    report.judge(source, &label, chunk.at, chunk.bytes, recovered, every)?;
                }
            }
            Input::Neff(program) => {
                let choice = choose(&program, arch, &mut warnings);
                for s in program.streams() {
                    let source =
                        Source { file: file.clone(), member: s.member.to_string(), choice: choice.clone(), build: s.build.map(str::to_string) };
                    report.judge(source, &s.label(), 0, s.bytes, recovered, every)?;
                }
            }
        }
        report.warnings = warnings;
        Ok(report)
    })
    .map_err(error)
}

/// Validates raw bundles in memory (N x 64 bytes), named `name` in records and errors.
#[pyfunction]
#[pyo3(signature = (data, name="<bytes>", generation=None, profile="amended", recovered=false, every=false))]
fn validate_bytes(
    py: Python<'_>,
    data: &[u8],
    name: &str,
    generation: Option<&str>,
    profile: &str,
    recovered: bool,
    every: bool,
) -> PyResult<Report> {
    let (arch, profile) = (self::arch(generation)?, self::profile(profile)?);
    let label = tpb_oracle::text_safe::escape(name);
    if data.is_empty() {
        return Err(error(format!("{label}: offset 0x0: empty, expected N x 64-byte bundles")));
    }
    if neff::sniff(data) {
        return Err(error(format!("{label}: offset 0x0: a NEFF container: pass its path (tpb.validate(path))")));
    }
    let sample = &data[..data.len().min(programs::TEXT_SNIFF)];
    if programs::looks_like_text(sample) {
        return Err(error(format!("{label}: offset 0x0: looks like bundle text: assemble it first (tpb.asm)")));
    }
    if programs::looks_like_prose(sample) {
        return Err(error(format!(
            "{label}: offset 0x0: plain text, not a program (neither raw 64-byte bundles nor bundle text as tpb.disasm writes it)"
        )));
    }
    py.detach(|| -> Result<Report, String> {
        let mut report = Report::new(profile);
        let source = Source { file: name.to_string(), member: String::new(), choice: choice::for_raw(arch), build: None };
        report.judge(source, &label, 0, data, recovered, every)?;
        Ok(report)
    })
    .map_err(error)
}

type Streams<'py> = Vec<(String, String, String, Bound<'py, PyBytes>)>;

/// Reads a NEFF container as `tpb neff --json` does: (its summary as JSON,
/// its streams as (member, subgraph, engine, bytes), warnings).
#[pyfunction]
#[pyo3(signature = (path, generation=None, max_bytes=neff::MAX_FILE))]
fn read_neff<'py>(py: Python<'py>, path: PathBuf, generation: Option<&str>, max_bytes: u64) -> PyResult<(String, Streams<'py>, Vec<String>)> {
    let arch = self::arch(generation)?;
    let limits = neff::Limits { max_file: max_bytes, ..neff::Limits::default() };
    let (n, choice) = py
        .detach(|| -> Result<_, String> {
            let n = neff::read_file_with(&path, &limits).map_err(|e| e.to_string())?;
            if let Some(e) = n.unread() {
                return Err(e.to_string());
            }
            let choice = n.choose(arch);
            Ok((n, choice))
        })
        .map_err(error)?;
    let shown = programs::shown(&path);
    let mut warnings = Vec::new();
    if n.integrity.algorithm.is_some() && !n.integrity.ok() {
        warnings.push(format!("{shown}: payload integrity: {}", n.integrity.describe()));
    }
    warnings.extend(n.notes.iter().map(|note| format!("{shown}: {}", tpb_oracle::text_safe::escape(note))));
    warnings.extend(choice.warning().map(|w| format!("{shown}: {w}")));
    let summary = neff::summary::json_with(&n, &choice).to_string();
    let streams = n.streams.iter().map(|s| (s.member.clone(), s.subgraph.clone(), s.engine.stem().to_string(), PyBytes::new(py, &s.bytes))).collect();
    Ok((summary, streams, warnings))
}

/// The evidence of `paths` (files, or folders searched for `*.neff`) as
/// `tpb evidence --json` gives it, and warnings.
#[pyfunction]
#[pyo3(signature = (paths, generation=None, max_bytes=neff::MAX_FILE))]
fn evidence(py: Python<'_>, paths: Vec<PathBuf>, generation: Option<&str>, max_bytes: u64) -> PyResult<(String, Vec<String>)> {
    let arch = self::arch(generation)?;
    py.detach(|| -> Result<_, Failed> {
        let mut ev = tpb_oracle::evidence::Evidence::with_arch(arch);
        let mut warnings = Vec::new();
        let (found, errors) = programs::list(&paths);
        if let Some(e) = errors.into_iter().next() {
            return Err(e.into());
        }
        for programs::Found { path, shown, .. } in found {
            let program = programs::load(&path, max_bytes, &mut |w| warnings.push(w.to_string()))?;
            let c = choose(&program, arch, &mut warnings);
            ev.set_source(&shown, c.target.as_deref(), c.from);
            for s in program.streams() {
                ev.add_member(&shown, s.member, s.build, c.generation, s.engine_name(), s.bytes);
            }
        }
        if ev.bundles() == 0 {
            return Err("evidence: no bundles in the inputs".into());
        }
        Ok((ev.to_json().to_string(), warnings))
    })
    .map_err(error)
}

/// Runs the `tpb` command with `args` (the first is the program name) in
/// this process and returns its exit code: the same code as the binary.
#[pyfunction]
fn main(py: Python<'_>, args: Vec<OsString>) -> u8 {
    py.detach(|| tpb::main_with_args(args))
}

#[pymodule]
fn _tpb(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("TpbError", m.py().get_type::<TpbError>())?;
    m.add("BUNDLE_BYTES", BUNDLE_BYTES)?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_BYTES", neff::MAX_FILE)?;
    m.add_class::<Decoded>()?;
    m.add_class::<Report>()?;
    for f in [
        wrap_pyfunction!(decode, m)?,
        wrap_pyfunction!(decode_stream, m)?,
        wrap_pyfunction!(disasm, m)?,
        wrap_pyfunction!(asm, m)?,
        wrap_pyfunction!(asm_line, m)?,
        wrap_pyfunction!(opcode_name, m)?,
        wrap_pyfunction!(fields, m)?,
        wrap_pyfunction!(validate_path, m)?,
        wrap_pyfunction!(validate_bytes, m)?,
        wrap_pyfunction!(read_neff, m)?,
        wrap_pyfunction!(evidence, m)?,
        wrap_pyfunction!(main, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
