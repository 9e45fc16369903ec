//! Reading the files the commands take: raw bundle streams (N × 64 bytes), or
//! NEFF containers, which give one stream per engine stream they hold. A
//! container from which no bundle is read is an error, never an empty pass.
//!
//! [`open`] streams a raw file: [`RawStream::next_chunk`] hands it over a
//! chunk of whole bundles at a time ([`CHUNK`] bytes), so memory stays bounded
//! whatever its size. A container is read whole, within its caps. [`load`]
//! reads either whole (for commands that need every byte at once).

use crate::out::escape;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use tpb_isa::bundle::BUNDLE_BYTES;
use tpb_isa::Generation;
use tpb_oracle::neff::{self, choice, Choice};

/// Bytes of a raw stream read and handed over at a time: a whole number of bundles.
pub const CHUNK: usize = 1 << 20;
const _: () = assert!(CHUNK.is_multiple_of(BUNDLE_BYTES));

/// How far a pipe is read ahead to see the payload of a would-be container whose
/// `header_size` points past the first chunk (a regular file is read there directly).
const LOOKAHEAD: u64 = 16 << 20;

/// Bytes after `header_size` that tell a gzip or tar payload (the tar magic is at 257).
const PAYLOAD_SNIFF: usize = 512;

/// How much of a raw file is looked at to tell `tpb disasm` text from bundles.
const TEXT_SNIFF: usize = 4096;

/// One stream of bundles and where it came from.
pub struct Stream {
    pub file: PathBuf,
    /// Sub-location inside a container (e.g. `sg00/PE.bin`), empty for a raw file.
    pub member: String,
    /// The engine that runs it as outputs name it (`PE`, or the definition
    /// key of an engine no table maps, `foo_instr`); empty for a raw file.
    pub engine: String,
    pub bytes: Vec<u8>,
    /// The compiler build that wrote the container (`info.json` tool_version), if any.
    pub build: Option<String>,
}

/// The streams of one program (a container, or a raw bundle file), read whole.
pub struct Program {
    pub file: PathBuf,
    pub streams: Vec<Stream>,
    /// A NEFF container (else a raw bundle file).
    pub container: bool,
    /// The container's target as `kelf-0.json` names it, if any.
    pub target: Option<String>,
}

impl Program {
    /// The generation its bundles are judged under: `arch`, else the
    /// container's target's, else (a target that maps to none) the one its
    /// bundles fit best, said on stderr; v2 for a raw file ([`neff::choice`]).
    pub fn generation(&self, arch: Option<Generation>) -> Choice {
        let choice = if self.container {
            let streams: Vec<&[u8]> = self.streams.iter().map(|s| s.bytes.as_slice()).collect();
            choice::for_container(self.target.as_deref(), arch, &streams)
        } else {
            choice::for_raw(arch)
        };
        say(&self.file, &choice);
        choice
    }
}

/// Says on stderr how a guessed generation was chosen (nothing for any
/// other choice): the one line every command prints for it.
pub fn say(file: &Path, choice: &Choice) {
    if let Some(w) = choice.warning() {
        eprintln!("tpb: warning: {}: {}", shown(file), escape(&w));
    }
}

impl Stream {
    /// `file` or `file:member`, safe for a text line (control characters escaped).
    pub fn label(&self) -> String {
        if self.member.is_empty() {
            shown(&self.file)
        } else {
            format!("{}:{}", shown(&self.file), escape(&self.member))
        }
    }
}

/// A path as text lines show it: control characters escaped, so a file name can
/// never forge a line of output.
pub fn shown(path: &Path) -> String {
    escape(&path.display().to_string())
}

/// An opened input.
pub enum Input {
    /// A NEFF container, read whole: its engine streams.
    Neff(Program),
    /// A raw bundle file, handed over a chunk at a time.
    Raw(RawStream),
}

/// Opens a file as bundle streams; errors are one line naming the file and offset.
/// A `.neff` file, or any file whose header reads as a NEFF container, is read
/// whole as a container; everything else is a raw bundle stream, read a chunk at
/// a time. A file of more than `cap` bytes is refused: before anything is read
/// when its length says so, else (pipes and devices) when the excess arrives,
/// after the bundles before the cap have been handed over. Text in the `tpb
/// disasm` format is refused with the command that assembles it.
pub fn open(path: &Path, cap: u64) -> Result<Input, String> {
    open_with(path, cap, &mut print_warning)
}

/// Prints a warning line on stderr (`tpb: warning: …`): what [`open`] and [`load`] do with a container's.
pub fn print_warning(message: String) {
    eprintln!("tpb: warning: {message}");
}

/// [`open`], with each warning about a container (its notes, a payload digest
/// mismatch; one line, starting with the file's name) handed to `warn`
/// instead of printed: the Python API turns them into Python warnings.
pub fn open_with(path: &Path, cap: u64, warn: &mut dyn FnMut(String)) -> Result<Input, String> {
    let name = shown(path);
    let cannot = |e: io::Error| format!("{name}: cannot read: {e}");
    let file = File::open(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    let len = meta.len();
    if len > cap {
        return Err(format!("{name}: offset {cap:#x}: {len} bytes is over the cap of {cap} bytes"));
    }
    let regular = meta.is_file();
    let mut r = Reader::new(file, cap);
    let mut head = Vec::with_capacity(CHUNK);
    r.fill(&mut head, CHUNK).map_err(cannot)?;
    if is_neff_name(path) || r.sniff_neff(&mut head, regular.then_some(len)).map_err(cannot)? {
        r.rest(&mut head, regular.then_some(len)).map_err(cannot)?;
        if r.over {
            return Err(over_cap(&name, cap, None));
        }
        return load_neff(path, &head, warn).map(Input::Neff);
    }
    if head.is_empty() {
        return Err(empty(&name));
    }
    if looks_like_text(&head[..head.len().min(TEXT_SNIFF)]) {
        return Err(format!("{name}: offset 0x0: looks like bundle text: assemble it first with tpb asm FILE -o OUT"));
    }
    // A regular file says its length: a trailing partial bundle is refused before anything is judged.
    if regular && !len.is_multiple_of(BUNDLE_BYTES as u64) {
        // Both readings failed: say why each did, so a wrong file is told from a damaged one.
        let why = neff::not_neff(&head).unwrap_or_default();
        let bundles = partial(&name, len);
        let bundles = bundles.strip_prefix(&format!("{name}: ")).unwrap_or(&bundles);
        return Err(format!("{name}: neither raw bundles nor a NEFF: {bundles}; not a NEFF: {}", escape(&why)));
    }
    Ok(Input::Raw(RawStream { name, r, buf: head, start: 0, offset: 0, done: false }))
}

/// A run of whole bundles from a raw file and the file offset of its first byte.
pub struct Chunk<'a> {
    pub at: u64,
    pub bytes: &'a [u8],
}

/// A raw bundle file being read: whole bundles a chunk at a time, with their offsets.
pub struct RawStream {
    name: String,
    r: Reader,
    /// Bytes read and not yet handed over: `buf[start..]`, at file offset `offset`.
    buf: Vec<u8>,
    start: usize,
    offset: u64,
    done: bool,
}

impl RawStream {
    /// The file name for a text line (control characters escaped).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The next run of whole bundles (at most [`CHUNK`] bytes, more only for the
    /// first chunk of a pipe read ahead) and the file offset of its first byte;
    /// `None` after the last one or after an error. The error is one line naming
    /// the file and the offset: a read failure, a trailing partial bundle, or
    /// the cap (the bundles before it have been handed over).
    pub fn next_chunk(&mut self) -> Option<Result<Chunk<'_>, String>> {
        if self.done {
            return None;
        }
        // Before the end, what is left of the buffer is less than a bundle (the
        // rest of a chunk) or the first read: keep it, and read up to a chunk.
        if !self.r.eof {
            self.buf.drain(..self.start);
            self.start = 0;
            if let Err(e) = self.r.fill(&mut self.buf, CHUNK) {
                self.done = true;
                return Some(Err(format!("{}: offset {:#x}: cannot read: {e}", self.name, self.r.read)));
            }
        }
        let left = self.buf.len() - self.start;
        let whole = left - left % BUNDLE_BYTES;
        if whole > 0 {
            let (at, from) = (self.offset, self.start);
            self.start += whole;
            self.offset += whole as u64;
            return Some(Ok(Chunk { at, bytes: &self.buf[from..from + whole] }));
        }
        // Nothing whole is left and the file has ended.
        self.done = true;
        if self.r.over {
            let bundles = self.offset / BUNDLE_BYTES as u64;
            Some(Err(over_cap(&self.name, self.r.cap, Some(bundles))))
        } else if left > 0 {
            Some(Err(partial(&self.name, self.offset + left as u64)))
        } else {
            None
        }
    }
}

impl RawStream {
    /// [`RawStream::next_chunk`] as a buffer of its own, so another thread can
    /// judge it while the next is read. `spare` (a buffer a judged chunk left)
    /// becomes the stream's: a chunk that is the whole read buffer (a regular
    /// file's, but for its last) is handed over without a copy.
    pub fn next_chunk_owned(&mut self, mut spare: Vec<u8>) -> Option<Result<(u64, Vec<u8>), String>> {
        let (at, len) = match self.next_chunk()? {
            Ok(c) => (c.at, c.bytes.len()),
            Err(e) => return Some(Err(e)),
        };
        spare.clear();
        // The chunk is the whole buffer: hand the buffer over.
        if len == self.buf.len() {
            self.start = 0;
            return Some(Ok((at, std::mem::replace(&mut self.buf, spare))));
        }
        spare.extend_from_slice(&self.buf[self.start - len..self.start]);
        Some(Ok((at, spare)))
    }
}

/// A file read up to its cap: the one capped reader the commands share (a
/// raw stream, a container read whole, `tpb asm`'s text).
pub(crate) struct Reader {
    file: File,
    cap: u64,
    /// Bytes read so far (at most `cap`: the byte past it is dropped).
    read: u64,
    eof: bool,
    /// The file holds more than `cap` bytes.
    over: bool,
}

impl Reader {
    pub(crate) fn new(file: File, cap: u64) -> Self {
        Reader { file, cap, read: 0, eof: false, over: false }
    }

    /// Whether the file holds more than the cap (seen once the byte past it is read).
    pub(crate) fn over(&self) -> bool {
        self.over
    }

    /// Reads into `buf` until it holds `want` bytes, the file ends or the cap is
    /// passed: never more than one byte past the cap, so a pipe is read no
    /// further than the cap tells. (std's `read_to_end` retries an interrupted read.)
    pub(crate) fn fill(&mut self, buf: &mut Vec<u8>, want: usize) -> io::Result<()> {
        if self.eof {
            return Ok(());
        }
        // One byte past the cap tells a file over the cap; it is dropped.
        let allowed = usize::try_from(self.cap.saturating_add(1) - self.read).unwrap_or(usize::MAX);
        let more = want.saturating_sub(buf.len()).min(allowed);
        let from = buf.len();
        buf.reserve_exact(more);
        let result = (&mut self.file).take(more as u64).read_to_end(buf);
        let got = buf.len() - from;
        self.read += got as u64;
        // `take` stops short of its limit only at the end of the file.
        self.eof = result.is_ok() && got < more;
        // At most the one byte past the cap was read: drop it.
        if self.read > self.cap {
            buf.pop();
            self.read = self.cap;
            self.over = true;
            self.eof = true;
        }
        result.map(drop)
    }

    /// Reads everything up to the cap into `buf` (a container is read whole),
    /// growing it by hand, never past the cap and the one byte after it
    /// (read_to_end could double its buffer to twice the cap). `len`: the
    /// length of a regular file, reserved at once.
    pub(crate) fn rest(&mut self, buf: &mut Vec<u8>, len: Option<u64>) -> io::Result<()> {
        let limit = usize::try_from(self.cap.saturating_add(1)).unwrap_or(usize::MAX);
        if let Some(len) = len {
            buf.reserve_exact(usize::try_from(len).unwrap_or(0).saturating_add(1).min(limit).saturating_sub(buf.len()));
        }
        while !self.eof {
            if buf.len() == buf.capacity() {
                buf.reserve_exact(growth(buf.len(), limit));
            }
            let want = buf.capacity();
            self.fill(buf, want)?;
        }
        Ok(())
    }

    /// Whether the bytes read so far (`head`) open a NEFF container. A header
    /// whose payload lies past them is looked at there: in a regular file directly,
    /// in a pipe by reading ahead into `head` (at most [`LOOKAHEAD`] bytes).
    /// `len`: the length of a regular file.
    fn sniff_neff(&mut self, head: &mut Vec<u8>, len: Option<u64>) -> io::Result<bool> {
        if neff::sniff(head) {
            return Ok(true);
        }
        let Some(h) = neff::NeffHeader::read(head) else { return Ok(false) };
        let hs = h.header_size.get();
        // Only a header that reads as one (a known version, a payload past the
        // header) is looked at further on. A payload the head already holds is
        // judged again, from the same bytes: the same verdict.
        if neff::integrity::Algorithm::for_version(h.pkg_version.get()).is_none() || hs < neff::HEADER_BYTES as u64 {
            return Ok(false);
        }
        if let Some(len) = len {
            if hs >= len {
                return Ok(false);
            }
            // Read there and come back: `read` is where the stream goes on.
            use std::io::{Seek as _, SeekFrom};
            self.file.seek(SeekFrom::Start(hs))?;
            let mut window = Vec::with_capacity(PAYLOAD_SNIFF);
            let got = (&mut self.file).take(PAYLOAD_SNIFF as u64).read_to_end(&mut window);
            self.file.seek(SeekFrom::Start(self.read))?;
            got?;
            return Ok(neff::payload::sniff(&window).is_some());
        }
        match usize::try_from(hs.saturating_add(PAYLOAD_SNIFF as u64)) {
            Ok(want) if want as u64 <= LOOKAHEAD => {
                self.fill(head, want)?;
                Ok(neff::sniff(head))
            }
            _ => Ok(false),
        }
    }
}

/// How much a full buffer of `len` bytes grows by when `limit` bytes in all
/// are allowed: as much again (at least 64 KiB), never past `limit`, and by at
/// least one byte, the one that tells the end of the file or a file over the cap.
fn growth(len: usize, limit: usize) -> usize {
    len.max(64 << 10).min(limit.saturating_sub(len)).max(1)
}

/// Whether `sample` (the start of a file) is text in the `tpb disasm` format:
/// printable text (UTF-8 without control characters but tab and line ends) with
/// a line that is a comment (`#`) or starts with a bundle (`0x46:`). A bundle
/// never is: its second byte (inst_word_len, 0x10) is a control character.
pub fn looks_like_text(sample: &[u8]) -> bool {
    let text = match std::str::from_utf8(sample) {
        Ok(t) => t,
        // The sample may end inside a character.
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&sample[..e.valid_up_to()]).unwrap_or_default(),
        Err(_) => return false,
    };
    let printable = text.chars().all(|c| matches!(c, '\t' | '\n' | '\r') || !c.is_control());
    printable
        && text.lines().map(str::trim_start).any(|l| {
            let hex = l.strip_prefix("0x").or_else(|| l.strip_prefix("0X")).map(|h| h.trim_start_matches(|c: char| c.is_ascii_hexdigit()));
            l.starts_with('#') || hex.is_some_and(|rest| rest.len() + 2 < l.len() && rest.starts_with(':'))
        })
}

fn empty(name: &str) -> String {
    format!("{name}: offset 0x0: empty file, expected N x 64-byte bundles")
}

fn partial(name: &str, len: u64) -> String {
    let offset = len - len % BUNDLE_BYTES as u64;
    format!("{name}: trailing partial bundle at offset {offset:#x}: {len} bytes is not a multiple of 64")
}

/// Past the cap; `bundles`: how many whole bundles before it were handed over.
fn over_cap(name: &str, cap: u64, bundles: Option<u64>) -> String {
    match bundles {
        Some(n) => format!("{name}: offset {cap:#x}: more than the cap of {cap} bytes (after {n} bundles; see --max-bytes)"),
        None => format!("{name}: offset {cap:#x}: more than the cap of {cap} bytes"),
    }
}

/// Loads a file as bundle streams, each read whole; errors are one line naming
/// the file and offset. Containers as [`open`]; a raw file is one stream.
pub fn load(path: &Path, cap: u64) -> Result<Program, String> {
    load_with(path, cap, &mut print_warning)
}

/// [`load`], with each warning about a container handed to `warn` (as [`open_with`]).
pub fn load_with(path: &Path, cap: u64, warn: &mut dyn FnMut(String)) -> Result<Program, String> {
    let bytes = neff::read_file_capped(path, cap).map_err(|e| match e.kind() {
        io::ErrorKind::FileTooLarge => format!("{}: offset {cap:#x}: {e}", shown(path)),
        _ => format!("{}: cannot read: {e}", shown(path)),
    })?;
    if is_neff_name(path) || neff::sniff(&bytes) {
        return load_neff(path, &bytes, warn);
    }
    if bytes.is_empty() {
        return Err(empty(&shown(path)));
    }
    let stream = Stream { file: path.to_path_buf(), member: String::new(), engine: String::new(), bytes, build: None };
    check_length(&stream)?;
    Ok(Program { file: path.to_path_buf(), streams: vec![stream], container: false, target: None })
}

fn is_neff_name(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("neff"))
}

/// A container's streams; its notes go to `warn`. One from which no bundle
/// is read is an error naming what was looked for and found.
fn load_neff(path: &Path, bytes: &[u8], warn: &mut dyn FnMut(String)) -> Result<Program, String> {
    let name = shown(path);
    let n = neff::parse(bytes, &name).map_err(|e| escape(&e.to_string()))?;
    // A mismatch is said here; an unknown digest is already one of the notes.
    if n.integrity.algorithm.is_some() && !n.integrity.ok() {
        warn(format!("{name}: payload integrity: {}", n.integrity.describe()));
    }
    for note in &n.notes {
        warn(format!("{name}: {}", escape(note)));
    }
    if let Some(e) = n.unread() {
        return Err(escape(&e.to_string()));
    }
    let target = n.target().map(str::to_string);
    let build = n.tool_version.clone();
    let streams = n
        .streams
        .into_iter()
        .map(|s| Stream { file: path.to_path_buf(), member: s.member, engine: s.engine.stem().to_string(), bytes: s.bytes, build: build.clone() })
        .collect();
    Ok(Program { file: path.to_path_buf(), streams, container: true, target })
}

/// A stream must be a whole number of bundles.
pub fn check_length(s: &Stream) -> Result<(), String> {
    tpb_isa::bundle::stream(&s.bytes).map(|_| ()).map_err(|e| format!("{}: {e}", s.label()))
}

#[cfg(test)]
mod tests {
    use super::*;

    use tpb_isa::bundle::header_only_stream as bundles;

    fn neff_bytes(target: &str) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
        let kelf = format!(r#"{{"target": "{target}", "graphs": [{{"name": "sg00"}}]}}"#);
        let pe = bundles(&[0xB1, 0x02]);
        let sp = bundles(&[0xA4]);
        Ok(neff::build::container(2, &[("kelf-0.json", kelf.as_bytes()), ("sg00/PE.bin", &pe), ("sg00/SP.bin", &sp)])?)
    }

    #[test]
    fn raw_bundle_file_loads_as_one_raw_stream() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("x.bin");
        std::fs::write(&p, bundles(&[0x01, 0x02, 0xA4]))?;
        let p = load(&p, neff::MAX_FILE)?;
        let s = &p.streams;
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].member.as_str(), s[0].engine.as_str(), s[0].bytes.len(), p.container, p.target.as_deref()), ("", "", 192, false, None));
        let c = p.generation(None);
        assert_eq!((c.generation, c.from), (Generation::V2, choice::GenerationFrom::Default));
        Ok(())
    }

    #[test]
    fn neff_loads_one_stream_per_engine_stream_by_name_or_by_header() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        for name in ["prog.neff", "prog.bin"] {
            let p = dir.path().join(name);
            std::fs::write(&p, neff_bytes("sunda")?)?;
            let prog = load(&p, neff::MAX_FILE)?;
            let s = &prog.streams;
            let members: Vec<(&str, &str)> = s.iter().map(|s| (s.member.as_str(), s.engine.as_str())).collect();
            assert_eq!(members, [("sg00/PE.bin", "PE"), ("sg00/SP.bin", "SP")], "{name}");
            assert_eq!(prog.generation(None).generation, Generation::V2);
            assert_eq!(s[0].label(), format!("{}:sg00/PE.bin", p.display()));
            assert_eq!(s[0].bytes.len(), 128);
        }
        let p = dir.path().join("c.neff");
        std::fs::write(&p, neff_bytes("cayman")?)?;
        let c = load(&p, neff::MAX_FILE)?.generation(None);
        assert_eq!((c.generation, c.from), (Generation::V3, choice::GenerationFrom::Target));
        Ok(())
    }

    #[test]
    fn malformed_neff_is_an_error_naming_file_member_and_offset() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("bad.neff");
        let mut b = neff_bytes("cayman")?;
        b.truncate(b.len() - 10);
        std::fs::write(&p, &b)?;
        let e = load(&p, neff::MAX_FILE).err().ok_or("a truncated container loaded")?;
        assert!(e.starts_with(&format!("{}: header: file offset 0x10: data_size", p.display())), "{e}");
        // A raw stream named .neff is still read as a container, and refused.
        std::fs::write(&p, bundles(&[0x01; 20]))?;
        let e = load(&p, neff::MAX_FILE).err().ok_or("a raw stream named .neff loaded")?;
        assert!(e.starts_with(&format!("{}: header: file offset 0x", p.display())) && e.contains("not a NEFF container"), "{e}");
        Ok(())
    }

    /// (offset, length) of each chunk, the bytes, the error.
    type Drained = (Vec<(u64, usize)>, Vec<u8>, Option<String>);

    /// Everything a raw input hands over, chunk by chunk.
    fn drain(path: &Path, cap: u64) -> Result<Drained, String> {
        let Input::Raw(mut raw) = open(path, cap)? else { return Err("opened as a container".into()) };
        let (mut chunks, mut bytes, mut error) = (Vec::new(), Vec::new(), None);
        while let Some(c) = raw.next_chunk() {
            match c {
                Ok(c) => {
                    chunks.push((c.at, c.bytes.len()));
                    bytes.extend_from_slice(c.bytes);
                }
                Err(e) => error = Some(e),
            }
        }
        Ok((chunks, bytes, error))
    }

    /// A path that reads `bytes` through a pipe (written by a thread).
    fn piped(bytes: Vec<u8>) -> Result<(PathBuf, std::io::PipeReader, std::thread::JoinHandle<()>), Box<dyn std::error::Error>> {
        use std::io::Write as _;
        use std::os::fd::AsRawFd as _;
        let (r, mut w) = std::io::pipe()?;
        let path = PathBuf::from(format!("/proc/self/fd/{}", r.as_raw_fd()));
        Ok((path, r, std::thread::spawn(move || drop(w.write_all(&bytes)))))
    }

    #[test]
    fn a_full_buffer_grows_by_as_much_again_and_never_past_the_limit() {
        let k = 64 << 10;
        // (len, limit) -> growth: at least 64 KiB, as much again, cut at the limit, never 0.
        for (len, limit, want) in
            [(0, 1 << 30, k), (10, 1 << 30, k), (k + 1, 1 << 30, k + 1), (3 * k, 4 * k, k), (5, 8, 3), (7, 8, 1), (8, 8, 1), (9, 8, 1)]
        {
            assert_eq!(growth(len, limit), want, "growth({len}, {limit})");
        }
    }

    #[test]
    fn the_rest_of_a_pipe_is_read_whole_in_a_buffer_never_past_the_cap() -> Result<(), Box<dyn std::error::Error>> {
        // Sizes about the growth steps (64 KiB, then doubling) and the cap.
        let cap = 300_000u64;
        for size in [0usize, 1, 65_535, 65_536, 65_537, 131_073, 299_999, 300_000, 300_001, 700_000] {
            let all = tpb_isa::props::seeded_bytes(size as u64, size);
            let (path, pipe, w) = piped(all.clone())?;
            let mut r = Reader::new(File::open(&path)?, cap);
            let mut buf = Vec::new();
            r.fill(&mut buf, 100)?;
            r.rest(&mut buf, None)?;
            let over = r.over();
            // Both ends of the read side close, so a writer left with bytes past the cap stops.
            drop((r, pipe));
            w.join().map_err(|_| "writer")?;
            let kept = size.min(cap as usize);
            assert!(buf == all[..kept], "{size} bytes: {} read", buf.len());
            assert_eq!(over, size as u64 > cap, "{size} bytes");
            assert!(buf.capacity() as u64 <= cap + 1, "{size} bytes: capacity {}", buf.capacity());
        }
        // A regular file's length is reserved at once: one allocation, of the length and the byte that tells its end.
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("f");
        std::fs::write(&p, vec![7u8; 200_000])?;
        let mut r = Reader::new(File::open(&p)?, cap);
        let mut buf = Vec::new();
        r.rest(&mut buf, Some(200_000))?;
        assert_eq!((buf.len(), buf.capacity(), r.over()), (200_000, 200_001, false));
        Ok(())
    }

    #[test]
    fn a_raw_file_is_handed_over_in_chunks_of_whole_bundles() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("x.bin");
        let all = tpb_isa::props::seeded_bytes(3, CHUNK * 2 + 64 * 5);
        std::fs::write(&p, &all)?;
        let (chunks, bytes, error) = drain(&p, neff::MAX_FILE)?;
        assert_eq!(chunks, [(0, CHUNK), (CHUNK as u64, CHUNK), (2 * CHUNK as u64, 320)]);
        assert!(bytes == all && error.is_none(), "{error:?}");
        // Through a pipe: the same, then a partial bundle is named at its offset.
        let mut odd = all.clone();
        odd.extend_from_slice(&[7; 10]);
        let (path, _r, w) = piped(odd)?;
        let (chunks, bytes, error) = drain(&path, neff::MAX_FILE)?;
        w.join().map_err(|_| "writer")?;
        assert_eq!(chunks.iter().map(|c| c.1).sum::<usize>(), all.len());
        assert!(bytes == all);
        let e = error.ok_or("no error")?;
        assert!(e.ends_with(&format!("trailing partial bundle at offset {:#x}: {} bytes is not a multiple of 64", all.len(), all.len() + 10)), "{e}");
        // Over the cap: the bundles before it, then the error naming the cap.
        let (path, r, w) = piped(all.clone())?;
        let (_, bytes, error) = drain(&path, CHUNK as u64 + 100)?;
        // The writer is left blocked on a full pipe: closing the read end lets it go.
        drop(r);
        w.join().map_err(|_| "writer")?;
        assert!(bytes[..] == all[..CHUNK + 64]);
        let e = error.ok_or("no error")?;
        assert!(
            e.contains(&format!("offset {:#x}: more than the cap of {} bytes (after {} bundles", CHUNK + 100, CHUNK + 100, CHUNK / 64 + 1)),
            "{e}"
        );
        Ok(())
    }

    #[test]
    fn open_refuses_empty_partial_oversized_and_text_input_before_reading_bundles() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let cases: [(&str, Vec<u8>, &str); 4] = [
            ("empty.bin", vec![], "offset 0x0: empty file"),
            ("odd.bin", vec![0x46; 100], "neither raw bundles nor a NEFF: trailing partial bundle at offset 0x40: 100 bytes is not a multiple of 64; not a NEFF: file is 100 bytes"),
            ("big.bin", bundles(&[0x46; 3]), "offset 0x80: 192 bytes is over the cap of 128 bytes"),
            (
                "prog.tpb",
                b"# prog.bin\n0x46:TensorCopy src.addr=0x100 # [0] +0x0\n".to_vec(),
                "offset 0x0: looks like bundle text: assemble it first with tpb asm FILE -o OUT",
            ),
        ];
        for (name, bytes, needle) in cases {
            let p = dir.path().join(name);
            std::fs::write(&p, bytes)?;
            let e = open(&p, 128).err().ok_or(name)?;
            assert!(e.starts_with(&format!("{}: {needle}", p.display())), "{name}: {e}");
        }
        // A name is escaped: the error stays one line.
        let p = dir.path().join("a\nb.bin");
        std::fs::write(&p, [])?;
        let e = open(&p, 128).err().ok_or("empty")?;
        assert!(e.contains("a\\nb.bin") && !e.contains('\n'), "{e}");
        Ok(())
    }

    #[test]
    fn owned_chunks_hand_over_the_same_bundles_and_errors() -> Result<(), Box<dyn std::error::Error>> {
        let all = tpb_isa::props::seeded_bytes(4, CHUNK + 64 * 5);
        let mut odd = all.clone();
        odd.extend_from_slice(&[7; 10]);
        // Through a pipe, so the trailing partial bundle is found at the end, not at open.
        let (path, _r, w) = piped(odd)?;
        let Input::Raw(mut raw) = open(&path, neff::MAX_FILE)? else { return Err("opened as a container".into()) };
        let (mut bytes, mut spare, mut error) = (Vec::new(), Vec::new(), None);
        while let Some(c) = raw.next_chunk_owned(std::mem::take(&mut spare)) {
            match c {
                Ok((at, chunk)) => {
                    assert_eq!(at, bytes.len() as u64);
                    bytes.extend_from_slice(&chunk);
                    spare = chunk;
                }
                Err(e) => error = Some(e),
            }
        }
        w.join().map_err(|_| "writer")?;
        assert!(bytes == all, "{} bytes handed over of {}", bytes.len(), all.len());
        let e = error.ok_or("no error")?;
        assert!(e.contains(&format!("trailing partial bundle at offset {:#x}", all.len())), "{e}");
        Ok(())
    }

    #[test]
    fn a_pipe_is_read_no_further_than_one_byte_past_the_cap() -> Result<(), Box<dyn std::error::Error>> {
        use std::io::Write as _;
        use std::os::fd::AsRawFd as _;
        let cap = CHUNK as u64 + 100;
        let (r, mut w) = std::io::pipe()?;
        let path = PathBuf::from(format!("/proc/self/fd/{}", r.as_raw_fd()));
        // The writer counts what the reader took (and the pipe holds) until the reader leaves.
        let writer = std::thread::spawn(move || {
            let block = vec![0x46u8; 4096];
            let mut written = 0u64;
            while let Ok(n) = w.write(&block) {
                written += n as u64;
            }
            written
        });
        let (chunks, _, error) = drain(&path, cap)?;
        drop(r);
        let written = writer.join().map_err(|_| "writer")?;
        assert!(error.is_some_and(|e| e.contains("more than the cap")));
        assert_eq!(chunks.iter().map(|c| c.1 as u64).sum::<u64>(), cap - cap % 64);
        // A pipe holds 64 KiB (Linux's default; only its reader or writer could grow it): far less than a second chunk.
        assert!(written <= cap + 1 + (256 << 10), "{written} bytes written for a cap of {cap}");
        Ok(())
    }

    #[test]
    fn a_file_of_exactly_the_cap_opens() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("full.bin");
        std::fs::write(&p, bundles(&[0x46; 2]))?;
        // The cap is a size allowed: only a byte more is refused.
        open(&p, 128)?;
        // A container past the first chunk, read whole (from a file and from a pipe): the same.
        let kelf = br#"{"target": "trn1", "graphs": [{"name": "sg00"}]}"#;
        let noise = tpb_isa::props::seeded_bytes(9, CHUNK * 3 / 2);
        let neff = neff::build::container(2, &[("kelf-0.json", kelf), ("sg00/PE.bin", &bundles(&[0x46; 3])), ("noise.bin", &noise)])?;
        assert!(neff.len() > CHUNK, "{} bytes", neff.len());
        let p = dir.path().join("big.neff");
        std::fs::write(&p, &neff)?;
        let cap = neff.len() as u64;
        assert!(matches!(open(&p, cap)?, Input::Neff(_)));
        let (path, _r, w) = piped(neff.clone())?;
        let opened = open(&path, cap);
        w.join().map_err(|_| "writer")?;
        assert!(matches!(opened?, Input::Neff(_)));
        let (path, _r, w) = piped(neff)?;
        let refused = open(&path, cap - 1).err().ok_or("a byte over the cap opened")?;
        w.join().map_err(|_| "writer")?;
        assert!(refused.contains("more than the cap"), "{refused}");
        Ok(())
    }

    #[test]
    fn bundle_text_is_told_from_bundles() {
        for text in ["# sg00/PE.bin\n0x46:TensorCopy", "\n\n  0x02:MatMul a=1\r\n", "0xb1:unknown", "# just a comment", "# caf\u{e9}\n0x46:T"] {
            assert!(looks_like_text(text.as_bytes()), "{text:?}");
        }
        for text in ["hello\n", "0x46 TensorCopy", "0x:nothing", "0xzz:x", "x0x46:TensorCopy"] {
            assert!(!looks_like_text(text.as_bytes()), "{text:?}");
        }
        // Control bytes (a bundle's inst_word_len, 0x10) are never text.
        assert!(!looks_like_text(b"#\x10\n0x46:T"));
        assert!(!looks_like_text(&bundles(&[b'#'; 4])));
        // A sample cut inside a character is still text; one with a byte that is never UTF-8 is not.
        assert!(looks_like_text(&"# caf\u{e9}".as_bytes()[..6]));
        assert!(!looks_like_text(b"# comment\n\xff\xfe"));
    }

    #[test]
    fn load_refuses_a_file_over_the_cap_at_its_offset_and_a_partial_bundle() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("x.bin");
        std::fs::write(&p, bundles(&[0x46; 3]))?;
        assert_eq!(load(&p, 192)?.streams[0].bytes.len(), 192);
        let e = load(&p, 191).err().ok_or("over the cap loaded")?;
        assert!(e.starts_with(&format!("{}: offset 0xbf: ", p.display())), "{e}");
        let mut b = bundles(&[0x46; 2]);
        b.push(0);
        std::fs::write(&p, b)?;
        let e = load(&p, 1 << 20).err().ok_or("a partial bundle loaded")?;
        assert!(e.contains("trailing partial bundle"), "{e}");
        Ok(())
    }

    #[test]
    fn a_container_whose_payload_lies_past_the_first_chunk_is_still_a_container() -> Result<(), Box<dyn std::error::Error>> {
        // header_size moved to 2 MiB: the payload starts after the first chunk.
        let c = neff_bytes("cayman")?;
        let hs = 2 * CHUNK;
        let mut moved = c[..neff::HEADER_BYTES].to_vec();
        moved[8..16].copy_from_slice(&(hs as u64).to_le_bytes());
        moved.resize(hs, 0);
        moved.extend_from_slice(&c[neff::HEADER_BYTES..]);
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("moved.bin");
        std::fs::write(&p, &moved)?;
        let (path, _r, w) = piped(moved)?;
        for p in [p, path] {
            let Input::Neff(s) = open(&p, neff::MAX_FILE)? else { return Err(format!("{}: read as raw", p.display()).into()) };
            assert_eq!(s.streams.len(), 2);
        }
        w.join().map_err(|_| "writer")?;
        // Raw streams and containers named or sniffed as such.
        let p = dir.path().join("prog.bin");
        std::fs::write(&p, &c)?;
        assert!(matches!(open(&p, neff::MAX_FILE)?, Input::Neff(_)));
        std::fs::write(&p, bundles(&[1, 2]))?;
        assert!(matches!(open(&p, neff::MAX_FILE)?, Input::Raw(_)));
        Ok(())
    }

    #[test]
    fn a_header_that_is_no_neff_header_is_never_followed_to_its_payload() -> Result<(), Box<dyn std::error::Error>> {
        // Raw bundles (byte 1 is 0x10: an unknown pkg_version) whose header_size
        // field points at gzip's magic, 2 MiB in: still raw bundles, from a file
        // and from a pipe, and the pipe is not read ahead to look there.
        let hs = 2 * CHUNK;
        let mut raw = bundles(&[0x46; 3 * CHUNK / 64]);
        raw[8..16].copy_from_slice(&(hs as u64).to_le_bytes());
        raw[hs..hs + 4].copy_from_slice(&[0x1f, 0x8b, 0x08, 0x00]);
        // A known version, but a header_size inside the header: not a container either.
        let md5 = neff::integrity::PKG_VERSION_MD5;
        let mut short = bundles(&[0x46; 64]);
        short[..8].copy_from_slice(&md5.to_le_bytes());
        short[8..16].copy_from_slice(&0x40u64.to_le_bytes());
        short[0x40..0x44].copy_from_slice(&[0x1f, 0x8b, 0x08, 0x00]);
        let dir = tempfile::tempdir()?;
        for (name, bytes) in [("raw", raw), ("short", short)] {
            let p = dir.path().join(format!("{name}.bin"));
            std::fs::write(&p, &bytes)?;
            assert!(matches!(open(&p, neff::MAX_FILE)?, Input::Raw(_)), "{name}: not raw");
            let (path, pipe, w) = piped(bytes.clone())?;
            let Input::Raw(mut s) = open(&path, neff::MAX_FILE)? else { return Err(format!("{name}: piped, not raw").into()) };
            let first = s.next_chunk().ok_or("no chunk")??.bytes.len();
            drop((s, pipe));
            w.join().map_err(|_| "writer")?;
            assert_eq!(first, CHUNK.min(bytes.len()), "{name}: the first chunk of a pipe");
        }
        // A header whose payload lies past what a pipe is read ahead for: that
        // far is never read ahead (a file is looked at there; a pipe is raw).
        let far = LOOKAHEAD as usize;
        let mut bytes = bundles(&[0x46; (LOOKAHEAD as usize + CHUNK) / 64]);
        bytes[..8].copy_from_slice(&md5.to_le_bytes());
        bytes[8..16].copy_from_slice(&(far as u64).to_le_bytes());
        bytes[far..far + 4].copy_from_slice(&[0x1f, 0x8b, 0x08, 0x00]);
        let (path, pipe, w) = piped(bytes)?;
        let Input::Raw(mut s) = open(&path, neff::MAX_FILE)? else { return Err("piped far header: not raw".into()) };
        let first = s.next_chunk().ok_or("no chunk")??.bytes.len();
        drop((s, pipe));
        w.join().map_err(|_| "writer")?;
        assert_eq!(first, CHUNK, "the first chunk of a pipe with a far header");
        Ok(())
    }
}
