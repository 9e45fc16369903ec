//! The one error type of the `tpb` command. The libraries return their own
//! typed errors; the command adds what it was doing when one happened and
//! prints it once, as the one line after `tpb: error: ` (`out::fail`).
//!
//! `Display` is that whole line: a [`Error::Context`] shows its context and
//! then its source's `Display`, which already says everything beneath it
//! (the libraries' errors name their own causes). Nothing walks the chain of
//! `source()`: it is there for code that asks what went wrong (an
//! `io::ErrorKind`), not for printing, so no cause is printed twice.

use std::fmt::Display;

/// A boxed error of any library (`io`, `serde_json`, `tpb_oracle`, …).
pub type Source = Box<dyn std::error::Error + Send + Sync + 'static>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// What was being done (a path, the step) and the error it met:
    /// `CONTEXT: SOURCE`.
    #[error("{context}: {source}")]
    Context { context: String, source: Source },
    /// A message made whole for the user, with no error beneath it (a check
    /// of the input that failed, a child process that exited badly).
    #[error("{0}")]
    Message(String),
    /// A container that cannot be read, as the library says it.
    #[error(transparent)]
    Neff(#[from] tpb_oracle::neff::NeffError),
    /// The oracle's stand-in library that could not be laid out.
    #[error(transparent)]
    Fixture(#[from] tpb_oracle::fixture::FixtureError),
    /// The system's words alone, where nothing more was ever said (a step
    /// the surrounding message names).
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A worker command that cannot be started, as `tpb_differ` says it.
    #[error(transparent)]
    Process(#[from] tpb_differ::worker::ProcessError),
    /// A worker library that does not load, as `tpb_differ` says it.
    #[error(transparent)]
    Library(#[from] tpb_differ::worker::LibraryError),
    /// A request line that does not read, as `tpb_differ` says it.
    #[error(transparent)]
    Request(#[from] tpb_differ::request::RequestError),
    /// A text line that does not assemble, as `tpb_isa` says it.
    #[error(transparent)]
    Asm(#[from] tpb_isa::text::AsmError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// `context: source`.
    pub fn context(context: impl Display, source: impl Into<Source>) -> Error {
        Error::Context { context: context.to_string(), source: source.into() }
    }

    /// This error with `context` in front: `context: self`.
    pub fn within(self, context: impl Display) -> Error {
        Error::context(context, self)
    }
}

impl From<String> for Error {
    fn from(message: String) -> Error {
        Error::Message(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Error {
        Error::Message(message.to_string())
    }
}

/// Context added to any library error, as it is returned.
pub trait Context<T> {
    /// `context: error` (the context built only on the error path).
    fn context_with<C: Display>(self, context: impl FnOnce() -> C) -> Result<T>;
}

impl<T, E: Into<Source>> Context<T> for std::result::Result<T, E> {
    fn context_with<C: Display>(self, context: impl FnOnce() -> C) -> Result<T> {
        self.map_err(|e| Error::context(context(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_is_the_context_then_the_source_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file");
        let e = Err::<(), _>(io).context_with(|| "a.bin: cannot read").err();
        let e = e.map(|e| e.within("evidence merge"));
        assert_eq!(e.as_ref().map(ToString::to_string).as_deref(), Some("evidence merge: a.bin: cannot read: No such file"));
        // The cause is still there for code that asks.
        let inner = e.as_ref().and_then(|e| std::error::Error::source(e)).and_then(|s| s.source()).and_then(|s| s.downcast_ref::<std::io::Error>());
        assert_eq!(inner.map(std::io::Error::kind), Some(std::io::ErrorKind::NotFound));
        assert_eq!(Error::from("plain").to_string(), "plain");
    }
}
