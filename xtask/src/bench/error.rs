//! The benchmark's one error type: a line naming the file or tool and what
//! went wrong, as the `tpb` command's errors read.

use std::fmt::Display;

/// What an error wraps.
pub type Source = Box<dyn std::error::Error + Send + Sync + 'static>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{context}: {source}")]
    Context { context: String, source: Source },
    #[error("{0}")]
    Message(String),
    #[error(transparent)]
    Neff(#[from] tpb_oracle::neff::NeffError),
    #[error(transparent)]
    Fixture(#[from] tpb_oracle::fixture::FixtureError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Process(#[from] tpb_differ::worker::ProcessError),
    #[error(transparent)]
    Library(#[from] tpb_differ::worker::LibraryError),
    #[error(transparent)]
    Request(#[from] tpb_differ::request::RequestError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

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

/// `context_with`: an error with a line of context before its own.
pub trait Context<T> {
    fn context_with<C: Display>(self, context: impl FnOnce() -> C) -> Result<T>;
}

impl<T, E: Into<Source>> Context<T> for std::result::Result<T, E> {
    fn context_with<C: Display>(self, context: impl FnOnce() -> C) -> Result<T> {
        self.map_err(|e| Error::Context { context: context().to_string(), source: e.into() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_is_the_context_then_the_source() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file");
        let e = Err::<(), _>(io).context_with(|| "a.bin: cannot read").err();
        assert_eq!(e.as_ref().map(ToString::to_string).as_deref(), Some("a.bin: cannot read: No such file"));
        assert_eq!(Error::from("plain").to_string(), "plain");
    }
}
