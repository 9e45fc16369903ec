//! Programs as files: the one way in for the CLI and the Python module.
//! A program is a raw bundle stream (N × 64 bytes) or a NEFF container,
//! which gives one stream per engine stream it holds; a container from which
//! no bundle is read is an error, never an empty pass.
//!
//! [`open`] streams a raw file ([`RawStream::next_chunk`]: [`CHUNK`] bytes of
//! whole bundles at a time, so memory stays bounded whatever its size) and
//! reads a container whole; [`load`] reads either whole. [`list`] names the
//! programs under folders, in the stable order shards rely on. Every byte
//! goes through the one capped [`Reader`]. Errors are [`ProgramError`]s
//! naming the file and offset; warnings are handed to the caller, which
//! prints or raises them.

mod error;
mod load;
mod map;
mod program;
mod raw;
mod reader;
mod sniff;
mod walk;

pub use error::{ProgramError, Warning};
pub use load::{load, open, read_whole, Input};
pub use map::ENV_NO_MAP;
pub use program::{Content, Program, Stream};
pub use raw::{Chunk, RawStream, CHUNK};
pub use reader::{read_file, CapError, Reader};
pub use sniff::{looks_like_prose, looks_like_text, TEXT_SNIFF};
pub use walk::{find, list, name, Found};

use std::path::Path;

/// A path as text lines show it: control characters escaped, so a file name
/// can never forge a line of output.
pub fn shown(path: &Path) -> String {
    crate::text_safe::escape(&path.display().to_string())
}

#[cfg(test)]
mod tests;
