//! Reading the files the commands take: raw bundle streams (N × 64 bytes).

use std::path::{Path, PathBuf};
use tpb_isa::Generation;

/// One stream of bundles and where it came from.
pub struct Stream {
    pub file: PathBuf,
    /// Sub-location inside a container (e.g. `sg00/PE.bin`), empty for a raw file.
    pub member: String,
    pub bytes: Vec<u8>,
    /// Generation implied by the container, if any.
    pub generation: Option<Generation>,
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
pub fn load(path: &Path) -> Result<Vec<Stream>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    if bytes.is_empty() {
        return Err(format!("{}: offset 0x0: empty file, expected N x 64-byte bundles", path.display()));
    }
    let stream = Stream { file: path.to_path_buf(), member: String::new(), bytes, generation: None };
    check_length(&stream)?;
    Ok(vec![stream])
}

/// A stream must be a whole number of bundles.
pub fn check_length(s: &Stream) -> Result<(), String> {
    tpb_isa::bundle::stream(&s.bytes).map(|_| ()).map_err(|e| format!("{}: {e}", s.label()))
}
