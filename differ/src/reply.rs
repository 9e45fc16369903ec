//! What came back for one request.

/// A worker's reply to one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// One answer line (without its newline).
    Answer(String),
    /// The worker died on this request (how: exit status, signal, the end of its stderr).
    Crash(String),
    /// No answer within the timeout.
    Hang(String),
    /// Something other than one answer line (too long, not UTF-8, more lines than requests).
    Protocol(String),
}
