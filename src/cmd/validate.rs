//! `tpb validate [--arch v2|v3|v4] [--spec] [--recovered] [--json] [-v | -q] FILE…`: exit 0 all valid, 1 any invalid,
//! 2 usage/I-O (a NEFF from which no bundle is read is unreadable input: nothing of it was judged).
//! By default the spec is amended by the errata real programs establish; `--spec` judges by the spec alone.
//! `--recovered` adds, as `info`, each recovered field that breaks what every real bundle holds there.

use rayon::iter::ParallelIterator;
use rayon::slice::ParallelSlice;
use std::io::Write;
use std::path::{Path, PathBuf};
use tpb_isa::bundle::BUNDLE_BYTES;
use tpb_isa::{validate, Bundle, Generation, Profile};
use tpb_oracle::neff::choice::GenerationFrom;
use tpb_oracle::neff::{choice, Choice};
use tpb_oracle::programs::{self, Input, ProgramError, RawStream};

#[derive(clap::Args)]
#[command(
    after_help = "Exit codes: 0 every bundle valid; 1 a bundle invalid; 2 usage or I/O error (an unreadable file, a folder with no *.neff, a NEFF from which no bundle is read: each reported, the other inputs still validated)."
)]
pub struct Args {
    /// Generation to validate for (v2, v3, v4). Default: the container's target's, else the
    /// generation its bundles fit best (said on stderr); v2 for a raw file.
    #[arg(long)]
    arch: Option<Generation>,
    /// Judge by the spec alone. Default: the spec amended by the errata (what the spec refuses
    /// and real programs write is reported as a `note` naming the erratum).
    #[arg(long)]
    spec: bool,
    /// Also report, as `info` (never invalid), a field of a body recovered from real programs
    /// that holds what no real bundle of its opcode holds there (`recovered-claim`).
    #[arg(long)]
    recovered: bool,
    /// One JSON object per bundle per line.
    #[arg(long)]
    json: bool,
    /// Print every bundle (text mode prints only bundles with findings, notes and warnings included).
    #[arg(long, short, conflicts_with = "quiet")]
    verbose: bool,
    /// Print only the closing count line (the exit code is the verdict); with --json, nothing.
    #[arg(long, short, conflicts_with = "verbose")]
    quiet: bool,
    /// Refuse a file larger than this many bytes (a regular file before it is read; a pipe or
    /// device once the excess arrives, after the bundles before the cap).
    #[arg(long, default_value_t = tpb_oracle::neff::MAX_FILE)]
    max_bytes: u64,
    /// Raw bundle files (N x 64 bytes), NEFF containers (every engine stream), or folders searched for `*.neff` (symlinks not followed; -v lists what was found).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

pub fn run(a: Args) -> u8 {
    let mut v = Verdicts {
        profile: if a.spec { Profile::Spec } else { Profile::Amended },
        recovered: a.recovered,
        json: a.json,
        verbose: a.verbose,
        quiet: a.quiet,
        // Once the reader leaves, validation goes on silently, so the exit code is still the verdict.
        out: crate::out::Sink::new(),
        findings: Vec::new(),
        any_invalid: false,
        unreadable: 0,
        total: 0,
        invalid: 0,
        said_default: false,
    };
    // Files load (and NEFFs decompress) on every core, a window ahead; they are judged and printed in order.
    let cap = a.max_bytes;
    let (files, walked) = crate::programs::expand(&a.files, a.verbose);
    v.unreadable = walked;
    if let Err(c) = crate::ahead::in_order(
        &files,
        crate::ahead::threads(),
        |f| programs::open(&f.path, cap, &mut crate::programs::warn),
        |i, opened| v.file(&files[i].path, opened, a.arch),
    ) {
        return c;
    }
    let code = v.code();
    if !a.json {
        let (total, invalid) = (v.total, v.invalid);
        if let Err(c) = v.out.write(code, |out| writeln!(out, "{total} bundles, {} valid, {invalid} invalid", total - invalid)) {
            return c;
        }
    }
    v.out.finish(code)
}

/// The run so far: what is printed, and the verdict.
struct Verdicts {
    profile: Profile,
    /// Whether the recovered layer's `info` findings are added.
    recovered: bool,
    json: bool,
    verbose: bool,
    quiet: bool,
    out: crate::out::Sink,
    findings: Vec<validate::Finding>,
    any_invalid: bool,
    /// The usage/I-O code once any input could not be read; it outranks the verdict.
    unreadable: u8,
    total: u64,
    invalid: u64,
    /// Whether the note on the raw files' default generation was printed.
    said_default: bool,
}

/// Where the bundles being judged come from.
struct Origin<'a> {
    /// The path as JSON gives it.
    file: String,
    member: &'a str,
    /// `file` or `file:member` for a text line (control characters escaped).
    label: String,
    /// The generation and how it was chosen (with the container's target).
    choice: &'a Choice,
    build: Option<&'a str>,
}

impl Verdicts {
    fn code(&self) -> u8 {
        self.unreadable.max(u8::from(self.any_invalid))
    }

    /// Validates every stream of `file` (as `programs::open` opened it): a raw file a chunk at a time,
    /// a container stream by stream. An unreadable file is reported and the run goes on;
    /// `Err(exit code)` when stdout failed.
    fn file(&mut self, file: &Path, opened: Result<Input, ProgramError>, arch: Option<Generation>) -> Result<(), u8> {
        let json_name = file.display().to_string();
        match opened {
            Err(e) => self.unreadable = super::fail(e),
            Ok(Input::Raw(mut raw)) => {
                let choice = choice::for_raw(arch);
                // A raw file names no generation: the default is said once, so a v3 stream is not judged as v2 unawares.
                // With --json, `generation_from` says it on every line.
                if arch.is_none() && !self.quiet && !self.json && !self.said_default {
                    self.said_default = true;
                    eprintln!("tpb: note: raw bundles, judged as {} (default; --arch to choose)", choice.generation);
                }
                let threads = crate::ahead::threads();
                if self.quiet && threads > 1 {
                    match raw.rest_mapped() {
                        Some((_, bytes)) => {
                            self.quiet_mapped(bytes, choice.generation, threads);
                            // What is left to hear: whether the file changed under the map.
                            while let Some(Err(e)) = raw.next_chunk() {
                                self.unreadable = super::fail(e);
                            }
                        }
                        None => self.quiet_raw(&mut raw, choice.generation, threads),
                    }
                    return Ok(());
                }
                let at = Origin { file: json_name, member: "", label: raw.name().to_string(), choice: &choice, build: None };
                while let Some(chunk) = raw.next_chunk() {
                    match chunk {
                        Ok(c) => self.bundles(&at, c.at, c.bytes)?,
                        // The bundles before the error have been judged.
                        Err(e) => self.unreadable = super::fail(e),
                    }
                }
            }
            Ok(Input::Neff(program)) => {
                // A target that names no generation: the best fit, said on stderr.
                let choice = program.choose(arch);
                crate::programs::say(file, &choice);
                for s in program.streams() {
                    let at = Origin { file: json_name.clone(), member: s.member, label: s.label(), choice: &choice, build: s.build };
                    self.bundles(&at, 0, s.bytes)?;
                }
            }
        }
        Ok(())
    }

    /// `-q` on a mapped raw file: its [`programs::CHUNK`]-sized parts judged on
    /// `threads` threads (rayon's, each stealing parts not yet taken). Nothing is
    /// copied: the parts are slices of the page cache.
    fn quiet_mapped(&mut self, bytes: &[u8], g: Generation, threads: usize) {
        let profile = self.profile;
        let judge = |part: &[u8]| {
            let mut invalid = 0u64;
            (validate::judge_stream(part, g, profile, |_, valid| invalid += u64::from(!valid)) as u64, invalid)
        };
        let sum = |a: (u64, u64), b: (u64, u64)| (a.0 + b.0, a.1 + b.1);
        self.add(crate::ahead::on_threads(threads, || bytes.par_chunks(programs::CHUNK).map(judge).reduce(|| (0, 0), sum)));
    }

    /// `-q` on a raw file: its chunks judged on `threads` worker threads while
    /// this one reads the next. Only counts come out, so the order chunks
    /// finish in does not matter. Memory is bounded by construction: two
    /// buffers per worker (each up to [`programs::CHUNK`] bytes) go round, read
    /// into here, judged there, handed back. A read error is reported after
    /// the bundles before it are judged, as in the one-thread loop.
    /// By hand, not rayon's `par_bridge` (which reads on a judging thread): up to a quarter slower on a pipe.
    fn quiet_raw(&mut self, raw: &mut RawStream, g: Generation, threads: usize) {
        use std::sync::{mpsc, Mutex};
        let profile = self.profile;
        let (to_workers, chunks) = mpsc::sync_channel::<Vec<u8>>(threads);
        let chunks = Mutex::new(chunks);
        let (to_reader, free) = mpsc::channel::<Vec<u8>>();
        for _ in 0..2 * threads {
            // Cannot fail: `free` is alive.
            let _ = to_reader.send(Vec::new());
        }
        let mut error = None;
        let counts: Vec<(u64, u64)> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    let (chunks, to_reader) = (&chunks, to_reader.clone());
                    s.spawn(move || {
                        let (mut total, mut invalid) = (0u64, 0u64);
                        // The lock is held only to take a chunk; a poisoned one means a worker panicked (the scope re-raises it).
                        while let Ok(Ok(chunk)) = chunks.lock().map(|rx| rx.recv()) {
                            total += validate::judge_stream(&chunk, g, profile, |_, valid| invalid += u64::from(!valid)) as u64;
                            // The reader may have stopped at an error: the buffer is then dropped.
                            let _ = to_reader.send(chunk);
                        }
                        (total, invalid)
                    })
                })
                .collect();
            drop(to_reader);
            // Every chunk is read into a buffer no worker holds.
            while let Ok(spare) = free.recv() {
                match raw.next_chunk_owned(spare) {
                    None => break,
                    Some(Err(e)) => {
                        error = Some(e);
                        break;
                    }
                    Some(Ok((_, chunk))) => {
                        if to_workers.send(chunk).is_err() {
                            break;
                        }
                    }
                }
            }
            // The workers judge what is queued, then see the channel closed.
            drop(to_workers);
            workers.into_iter().map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
        });
        for c in counts {
            self.add(c);
        }
        if let Some(e) = error {
            self.unreadable = super::fail(e);
        }
    }

    /// Adds the `(total, invalid)` counts of bundles judged elsewhere.
    fn add(&mut self, (total, invalid): (u64, u64)) {
        self.total += total;
        self.invalid += invalid;
        self.any_invalid |= invalid > 0;
    }

    /// Judges whole bundles `bytes`, at byte `base` of their stream, and prints what the mode asks for.
    fn bundles(&mut self, at: &Origin, base: u64, bytes: &[u8]) -> Result<(), u8> {
        // Chunks of a raw file are whole bundles; a container's stream may not be.
        if let Err(e) = tpb_isa::bundle::stream(bytes) {
            self.unreadable = super::fail(format!("{}: {e}", at.label));
            return Ok(());
        }
        let (g, profile, recovered, json, verbose, quiet) = (at.choice.generation, self.profile, self.recovered, self.json, self.verbose, self.quiet);
        let Verdicts { out, findings: with_claims, any_invalid, unreadable, total, invalid, .. } = self;
        if quiet {
            // Only the verdicts: no finding is given a message (the recovered layer adds `info` only,
            // which never changes one).
            validate::judge_stream(bytes, g, profile, |_, valid| count(total, invalid, any_invalid, valid));
            return Ok(());
        }
        let mut lost = None;
        // Each bundle is judged once, its findings amended in place unless `--spec`.
        validate::decode_stream_as(bytes, g, profile, |i, b, found| {
            if lost.is_some() {
                return;
            }
            let findings = if recovered {
                // The recovered layer is never part of the stream validator's findings: it is added here.
                with_claims.clear();
                with_claims.extend_from_slice(found);
                validate::recovered_claims(b, g, with_claims);
                with_claims.as_slice()
            } else {
                found
            };
            let ok = validate::is_valid(findings);
            count(total, invalid, any_invalid, ok);
            if !json && !verbose && findings.is_empty() {
                return;
            }
            let off = base + (i * BUNDLE_BYTES) as u64;
            let index = off / BUNDLE_BYTES as u64;
            let written = out.write((*unreadable).max(u8::from(*any_invalid)), |out| {
                if json {
                    let line = Line {
                        file: &at.file,
                        member: at.member,
                        offset: off,
                        index,
                        arch: g,
                        target: at.choice.target.as_deref(),
                        generation_from: &at.choice.from,
                        build: at.build,
                        profile,
                        opcode: tpb_isa::opcode::hex(b.opcode()),
                        name: tpb_isa::opcode::name(b.opcode()),
                        valid: ok,
                        findings,
                    };
                    serde_json::to_writer(&mut *out, &line)?;
                    out.write_all(b"\n")
                } else {
                    // Container streams also carry the bundle index (member = subgraph/engine).
                    let place = if at.member.is_empty() { format!("+{off:#x}") } else { format!("+{off:#x} [{index}]") };
                    print_text(out, &at.label, &place, b, ok, findings, at.build)
                }
            });
            lost = written.err();
        });
        lost.map_or(Ok(()), Err)
    }
}

/// Counts one bundle's verdict.
fn count(total: &mut u64, invalid: &mut u64, any_invalid: &mut bool, ok: bool) {
    *total += 1;
    if !ok {
        *invalid += 1;
        *any_invalid = true;
    }
}

/// One `--json` line, written straight to the output.
#[derive(serde::Serialize)]
struct Line<'a> {
    file: &'a str,
    member: &'a str,
    offset: u64,
    index: u64,
    arch: Generation,
    target: Option<&'a str>,
    generation_from: &'a GenerationFrom,
    build: Option<&'a str>,
    profile: Profile,
    opcode: String,
    name: &'static str,
    valid: bool,
    findings: &'a [validate::Finding],
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
            (Some(e), Some(build)) => writeln!(out, " (erratum {e}; compiler {})", tpb_oracle::text_safe::escape(build))?,
            (Some(e), None) => writeln!(out, " (erratum {e})")?,
            (None, _) => writeln!(out)?,
        }
    }
    Ok(())
}
