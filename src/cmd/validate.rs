//! `tpb validate [--arch v2|v3|v4] [--spec] [--json] FILE…`: exit 0 all valid, 1 any invalid, 2 usage/I-O.
//! By default the spec is amended by the errata real programs establish; `--spec` judges by the spec alone.

use crate::input;
use std::io::Write;
use std::path::PathBuf;
use tpb_isa::{validate, Bundle, Generation, Profile};

#[derive(clap::Args)]
pub struct Args {
    /// Generation to validate for (v2, v3, v4). Default: the container's, else v2.
    #[arg(long)]
    arch: Option<Generation>,
    /// Judge by the spec alone. Default: the spec amended by the errata (what the spec refuses
    /// and real programs write is reported as a `note` naming the erratum).
    #[arg(long)]
    spec: bool,
    /// One JSON object per bundle per line.
    #[arg(long)]
    json: bool,
    /// Print every bundle (text mode prints only bundles with findings, notes and warnings included).
    #[arg(long, short)]
    verbose: bool,
    /// Refuse a file larger than this many bytes (pipes and devices included).
    #[arg(long, default_value_t = tpb_oracle::neff::MAX_FILE)]
    max_bytes: u64,
    /// Raw bundle files (N x 64 bytes) or NEFF containers (every engine stream).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

pub fn run(a: Args) -> u8 {
    let profile = if a.spec { Profile::Spec } else { Profile::Amended };
    let mut any_invalid = false;
    // The usage/I-O code once any input could not be read; it outranks the verdict.
    let mut unreadable = 0u8;
    let (mut total, mut invalid) = (0usize, 0usize);
    // Once the reader leaves, validation goes on silently, so the exit code is still the verdict.
    let mut out = crate::out::Sink::new();
    let mut findings = Vec::new();
    for file in &a.files {
        // An unreadable file is reported and skipped; the others are still validated.
        let streams = match input::load(file, a.max_bytes) {
            Ok(s) => s,
            Err(e) => {
                unreadable = super::fail(e);
                continue;
            }
        };
        // A container whose target names no generation is validated as v2: say so (its note says why).
        if a.arch.is_none() && streams.iter().any(|s| !s.member.is_empty() && s.generation.is_none()) {
            eprintln!("tpb: warning: {}: assuming v2 for its streams (choose one with --arch v2|v3|v4)", file.display());
        }
        for s in &streams {
            let g = a.arch.or(s.generation).unwrap_or(Generation::V2);
            let Ok(bundles) = tpb_isa::bundle::stream(&s.bytes) else {
                unreadable = super::fail(format!("{}: not whole bundles", s.label()));
                continue;
            };
            for (index, (off, raw)) in bundles.enumerate() {
                let b = Bundle::decode(raw);
                findings.clear();
                validate::validate_into_as(&b, g, profile, &mut findings);
                let ok = validate::is_valid(&findings);
                total += 1;
                if !ok {
                    invalid += 1;
                    any_invalid = true;
                }
                let verdict = unreadable.max(u8::from(any_invalid));
                let written = out.write(verdict, |out| {
                    if a.json {
                        let v = serde_json::json!({
                            "file": file.display().to_string(),
                            "member": s.member,
                            "offset": off,
                            "index": index,
                            "arch": g,
                            "build": s.build,
                            "profile": profile,
                            "opcode": b.opcode(),
                            "name": tpb_isa::opcode::name(b.opcode()),
                            "valid": ok,
                            "findings": findings,
                        });
                        writeln!(out, "{v}")
                    } else if !findings.is_empty() || a.verbose {
                        // Container streams also carry the bundle index (member = subgraph/engine).
                        let at = if s.member.is_empty() { format!("+{off:#x}") } else { format!("+{off:#x} [{index}]") };
                        print_text(out, &s.label(), &at, &b, ok, &findings, s.build.as_deref())
                    } else {
                        Ok(())
                    }
                });
                if let Err(c) = written {
                    return c;
                }
            }
        }
    }
    let code = unreadable.max(u8::from(any_invalid));
    if !a.json {
        if let Err(c) = out.write(code, |out| writeln!(out, "{total} bundles, {} valid, {invalid} invalid", total - invalid)) {
            return c;
        }
    }
    out.finish(code)
}

fn print_text(
    out: &mut impl Write,
    label: &str,
    at: &str,
    b: &Bundle,
    ok: bool,
    f: &[validate::Finding],
    build: Option<&str>,
) -> std::io::Result<()> {
    let verdict = if ok { "valid" } else { "INVALID" };
    writeln!(out, "{label}{at}: {} {verdict}", tpb_isa::text::mnemonic(b.opcode()))?;
    for x in f {
        write!(out, "  {}: {} [{} @ {:#04x}, §{}] {}", x.severity.as_str(), x.code, x.field, x.offset, x.section, x.message)?;
        match (x.erratum, build) {
            (Some(e), Some(build)) => writeln!(out, " (erratum {e}; compiler {})", crate::out::escape(build))?,
            (Some(e), None) => writeln!(out, " (erratum {e})")?,
            (None, _) => writeln!(out)?,
        }
    }
    Ok(())
}
