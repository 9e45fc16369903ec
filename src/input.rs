//! Reading the files the commands take: raw bundle streams (N × 64 bytes), or
//! NEFF containers, which give one stream per engine stream they hold.

use std::path::{Path, PathBuf};
use tpb_isa::Generation;
use tpb_oracle::neff;

/// One stream of bundles and where it came from.
pub struct Stream {
    pub file: PathBuf,
    /// Sub-location inside a container (e.g. `sg00/PE.bin`), empty for a raw file.
    pub member: String,
    pub bytes: Vec<u8>,
    /// Generation implied by the container, if any.
    pub generation: Option<Generation>,
    /// The compiler build that wrote the container (`info.json` tool_version), if any.
    pub build: Option<String>,
}

impl Stream {
    /// `file` or `file:member`.
    pub fn label(&self) -> String {
        if self.member.is_empty() {
            self.file.display().to_string()
        } else {
            format!("{}:{}", self.file.display(), self.member)
        }
    }
}

/// Loads a file as bundle streams; errors are one line naming the file and offset.
/// A `.neff` file, or any file whose header reads as a NEFF container, is
/// opened as a container; everything else is a raw bundle stream. A file of
/// more than `cap` bytes is refused (pipes and devices included).
pub fn load(path: &Path, cap: u64) -> Result<Vec<Stream>, String> {
    let bytes = neff::read_capped(path, cap).map_err(|e| match e.kind() {
        std::io::ErrorKind::FileTooLarge => format!("{}: offset {cap:#x}: {e}", path.display()),
        _ => format!("{}: cannot read: {e}", path.display()),
    })?;
    if is_neff_name(path) || neff::sniff(&bytes) {
        return load_neff(path, &bytes);
    }
    if bytes.is_empty() {
        return Err(format!("{}: offset 0x0: empty file, expected N x 64-byte bundles", path.display()));
    }
    let stream = Stream { file: path.to_path_buf(), member: String::new(), bytes, generation: None, build: None };
    check_length(&stream)?;
    Ok(vec![stream])
}

fn is_neff_name(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("neff"))
}

fn load_neff(path: &Path, bytes: &[u8]) -> Result<Vec<Stream>, String> {
    let n = neff::parse(bytes, &path.display().to_string()).map_err(|e| e.to_string())?;
    // A mismatch is said here; an unknown digest is already one of the notes.
    if n.integrity.algorithm.is_some() && !n.integrity.ok() {
        eprintln!("tpb: warning: {}: payload integrity: {}", path.display(), n.integrity.describe());
    }
    for note in &n.notes {
        eprintln!("tpb: warning: {}: {note}", path.display());
    }
    if n.streams.is_empty() {
        eprintln!("tpb: warning: {}: container holds no engine streams", path.display());
    }
    let build = n.tool_version.clone();
    Ok(n.streams
        .into_iter()
        .map(|s| Stream { file: path.to_path_buf(), member: s.member, bytes: s.bytes, generation: s.generation, build: build.clone() })
        .collect())
}

/// A stream must be a whole number of bundles.
pub fn check_length(s: &Stream) -> Result<(), String> {
    tpb_isa::bundle::stream(&s.bytes).map(|_| ()).map_err(|e| format!("{}: {e}", s.label()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundles(ops: &[u8]) -> Vec<u8> {
        ops.iter()
            .flat_map(|op| {
                let mut b = [0u8; 64];
                b[0] = *op;
                b[1] = tpb_isa::bundle::INST_WORD_LEN;
                b
            })
            .collect()
    }

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
        let s = load(&p, neff::MAX_FILE)?;
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].member.as_str(), s[0].bytes.len(), s[0].generation), ("", 192, None));
        Ok(())
    }

    #[test]
    fn neff_loads_one_stream_per_engine_stream_by_name_or_by_header() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        for name in ["prog.neff", "prog.bin"] {
            let p = dir.path().join(name);
            std::fs::write(&p, neff_bytes("sunda")?)?;
            let s = load(&p, neff::MAX_FILE)?;
            let members: Vec<&str> = s.iter().map(|s| s.member.as_str()).collect();
            assert_eq!(members, ["sg00/PE.bin", "sg00/SP.bin"], "{name}");
            assert!(s.iter().all(|s| s.generation == Some(Generation::V2)));
            assert_eq!(s[0].label(), format!("{}:sg00/PE.bin", p.display()));
            assert_eq!(s[0].bytes.len(), 128);
        }
        let p = dir.path().join("c.neff");
        std::fs::write(&p, neff_bytes("cayman")?)?;
        assert_eq!(load(&p, neff::MAX_FILE)?[0].generation, Some(Generation::V3));
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
        assert!(e.contains("bad.neff: header: file offset 0x8: header_size"), "{e}");
        Ok(())
    }
}
