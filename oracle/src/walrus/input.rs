//! Getting the library's bytes: a bare `libwalrus.so`, or the member of a
//! neuronx_cc wheel read straight out of the zip in memory. The file is read
//! once; every later stage borrows the one buffer.

use super::digests::{read_hashed, Digests};
use super::error::{Result, WalrusError};
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Where the spec read the library inside the neuronx_cc wheel (preamble).
pub const WHEEL_MEMBER: &str = "neuronxcc/starfish/lib/libwalrus.so";

/// Default cap on the bytes read for one library (the known build is ~62 MiB).
pub const DEFAULT_MAX_BYTES: u64 = 256 << 20;

/// The first four bytes of every ELF file.
pub const ELF_MAGIC: &[u8; 4] = b"\x7fELF";
const ZIP_MAGICS: [&[u8; 4]; 2] = [b"PK\x03\x04", b"PK\x05\x06"];

/// The library's bytes and where they came from.
#[derive(Clone, Debug)]
pub struct Input {
    /// The file given: the library, or the wheel holding it.
    pub path: PathBuf,
    /// The wheel member the bytes were read from, when the path is a wheel.
    pub member: Option<String>,
    /// The library's bytes (the member's, inflated, for a wheel).
    pub bytes: Vec<u8>,
    /// The bytes' digests, when they were hashed while read.
    pub digests: Option<Digests>,
}

impl Input {
    /// Bytes already in memory (tests, the fuzz entry point).
    pub fn from_bytes(label: impl Into<PathBuf>, bytes: Vec<u8>) -> Input {
        Input { path: label.into(), member: None, bytes, digests: None }
    }

    /// `path` or `path!member`, for messages.
    pub fn label(&self) -> String {
        match &self.member {
            Some(m) => format!("{}!{m}", self.path.display()),
            None => self.path.display().to_string(),
        }
    }

    /// Reads a library or a wheel, refusing more than `max_bytes` of library.
    pub fn open(path: &Path, max_bytes: u64) -> Result<Input> {
        let shown = path.display().to_string();
        let io = |source| WalrusError::Io { path: shown.clone(), source };
        let mut file = std::fs::File::open(path).map_err(io)?;
        // The first four bytes, or as many as a shorter file has.
        let mut magic = Vec::with_capacity(4);
        (&mut file).take(4).read_to_end(&mut magic).map_err(io)?;
        let magic = &magic[..];
        if ZIP_MAGICS.iter().any(|m| magic == &m[..]) {
            let file = std::fs::File::open(path).map_err(io)?;
            let (member, bytes) = read_wheel_member(&shown, file, max_bytes)?;
            return Ok(Input { path: path.to_path_buf(), member: Some(member), bytes, digests: None });
        }
        if magic != &ELF_MAGIC[..] {
            return Err(WalrusError::NotElfOrWheel { path: shown, magic: hex_magic(magic) });
        }
        let len = file.metadata().map_err(io)?.len();
        if len > max_bytes {
            return Err(WalrusError::TooLarge { path: shown, what: "the library".into(), size: len, cap: max_bytes });
        }
        let len =
            usize::try_from(len).map_err(|_| WalrusError::TooLarge { path: shown.clone(), what: "the library".into(), size: len, cap: max_bytes })?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        let (bytes, digests) = read_hashed(file, len).map_err(io)?;
        Ok(Input { path: path.to_path_buf(), member: None, bytes, digests: Some(digests) })
    }
}

fn hex_magic(b: &[u8]) -> String {
    if b.is_empty() {
        return "(empty file)".into();
    }
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}

/// The library inside a wheel: the exact member path, else the one member
/// whose file name is `libwalrus.so`. Reads at most `max_bytes` whatever the
/// zip directory claims, so a lying header cannot balloon memory.
fn read_wheel_member(path: &str, file: std::fs::File, max_bytes: u64) -> Result<(String, Vec<u8>)> {
    let zip_err = |detail: String| WalrusError::Zip { path: path.to_string(), detail };
    let again = file.try_clone().map_err(|source| WalrusError::Io { path: path.to_string(), source })?;
    let mut archive = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| zip_err(e.to_string()))?;
    let file_name = WHEEL_MEMBER.rsplit('/').next().unwrap_or(WHEEL_MEMBER);
    let index = match archive.index_for_name(WHEEL_MEMBER) {
        Some(i) => i,
        None => {
            let suffix = format!("/{file_name}");
            let hits: Vec<String> = archive
                .file_names()
                .filter_map(|n| n.ok())
                .filter(|n| n.ends_with(&suffix) || n.as_ref() == file_name)
                .map(|n| n.into_owned())
                .collect();
            match hits.as_slice() {
                [one] => archive.index_for_name(one).ok_or_else(|| zip_err(format!("member {one} vanished from the directory")))?,
                [] => {
                    return Err(WalrusError::NoMember {
                        path: path.to_string(),
                        wanted: WHEEL_MEMBER.to_string(),
                        file: file_name.to_string(),
                        members: archive.len(),
                    })
                }
                many => {
                    let names: Vec<String> = many.iter().map(|n| crate::text_safe::escape(n)).collect();
                    return Err(WalrusError::AmbiguousMember { path: path.to_string(), file: file_name.to_string(), names: names.join(", ") });
                }
            }
        }
    };
    if archive.has_duplicate_names() {
        // The directory keys entries by name, so a second copy silently
        // replaced the first: list the central directory itself.
        let raw = archive.file_names_raw().nth(index).map(<[u8]>::to_vec).unwrap_or_default();
        let copies = copies_of(again, &raw).map_err(|e| zip_err(format!("central directory: {e}")))?;
        if copies.len() > 1 {
            let entries: Vec<String> = copies.iter().map(|(i, at)| format!("central directory entry #{i}, local header at offset {at:#x}")).collect();
            return Err(WalrusError::DuplicateMember {
                path: path.to_string(),
                name: crate::text_safe::escape(&String::from_utf8_lossy(&raw)),
                entries: entries.join("; "),
            });
        }
    }
    let mut member = archive.by_index(index).map_err(|e| match e {
        // A valid zip this build cannot inflate (LZMA, zstd, encryption …) is not a corrupt one.
        zip::result::ZipError::UnsupportedArchive(what) => {
            WalrusError::UnsupportedWheel { path: path.to_string(), detail: format!("member #{index}: {what}") }
        }
        e => zip_err(format!("member #{index}: {e}")),
    })?;
    let name = member.name().map(|n| n.into_owned()).map_err(|e| zip_err(format!("member #{index}: name: {e}")))?;
    let shown = crate::text_safe::escape(&name);
    let declared = member.size();
    if declared > max_bytes {
        return Err(WalrusError::TooLarge { path: path.to_string(), what: format!("member {shown}"), size: declared, cap: max_bytes });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(declared).unwrap_or(0));
    let read = (&mut member).take(max_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| {
        let detail = format!("member {shown}: {e}");
        match e.kind() {
            std::io::ErrorKind::Unsupported => WalrusError::UnsupportedWheel { path: path.to_string(), detail },
            _ => zip_err(detail),
        }
    })?;
    if read as u64 > max_bytes {
        return Err(WalrusError::TooLarge { path: path.to_string(), what: format!("member {shown} (inflated)"), size: read as u64, cap: max_bytes });
    }
    Ok((name, bytes))
}

/// Every central directory entry named `raw` (the directory order index and
/// the offset of its local header), duplicates included.
fn copies_of(file: std::fs::File, raw: &[u8]) -> zip::result::ZipResult<Vec<(usize, u64)>> {
    let mut all = zip::unstable::read::ZipIterable::try_new(BufReader::new(file), zip::read::Config::default())?;
    let mut out = Vec::new();
    for (i, entry) in all.files()?.enumerate() {
        let entry = entry?;
        if entry.name_raw() == raw {
            out.push((i, entry.header_start()));
        }
    }
    Ok(out)
}
