//! Container errors: every one names the file, the member (or `header` /
//! `payload`) and an offset, and says which byte space the offset is in.

use std::fmt;

/// Where in the container an error is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// Byte offset in the .neff file.
    File(u64),
    /// Byte offset in the decompressed tar stream.
    Tar(u64),
    /// Byte offset inside a member's bytes.
    Member(u64),
    /// The file as a whole: it could not be opened or read (no part, no offset, as every command says it).
    Whole,
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::File(o) => write!(f, "file offset {o:#x}"),
            At::Tar(o) => write!(f, "tar offset {o:#x}"),
            At::Member(o) => write!(f, "offset {o:#x}"),
            At::Whole => write!(f, "the file"),
        }
    }
}

/// A malformed or unreadable container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NeffError {
    /// The container's name, as given (escaped when shown).
    pub file: String,
    /// Archive member path, or `header` / `payload` for the container itself.
    pub member: String,
    /// Where in the container, and in which byte space.
    pub at: At,
    /// What is wrong, as one line (escaped when shown: it may quote the input).
    pub message: String,
}

impl NeffError {
    /// The error `message` at `at` in `member` of `file`.
    pub fn new(file: &str, member: &str, at: At, message: String) -> Self {
        NeffError { file: file.to_string(), member: member.to_string(), at, message }
    }
}

impl fmt::Display for NeffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line whatever the input: names and messages may quote it.
        use crate::text_safe::escape;
        if self.at == At::Whole {
            return write!(f, "{}: {}", escape(&self.file), escape(&self.message));
        }
        write!(f, "{}: {}: {}: {}", escape(&self.file), escape(&self.member), self.at, escape(&self.message))
    }
}

impl std::error::Error for NeffError {}
