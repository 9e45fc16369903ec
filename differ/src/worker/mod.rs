//! Workers: the user's implementation behind one interface, whatever the
//! transport. A worker answers requests in order, one reply each; a crash,
//! a hang or a malformed answer is a reply too, never the harness's end.

mod library;
mod process;
mod serve;

pub use library::{Library, LibraryError, SYMBOLS};
pub use process::{Process, ProcessError};
pub use serve::serve;

use crate::reference;
use crate::reply::Reply;
use crate::request::{Ask, Request};
use tpb_isa::Profile;

/// One implementation being fuzzed.
pub trait Worker: Send {
    /// How the report names it (the command, or the library's path).
    fn name(&self) -> String;
    /// Replies to a prefix of `requests`, in order: to all of them, or to
    /// those up to and including the first that failed (a crash, a hang, a
    /// protocol error), so that the caller decides what to send next (a
    /// campaign stops sending an opcode the worker keeps failing on).
    fn ask(&mut self, requests: &[Request]) -> Vec<Reply>;
}

/// A boxed worker is a worker (so a pool of boxes lends itself as `&mut dyn Worker`s).
impl<W: Worker + ?Sized> Worker for Box<W> {
    fn name(&self) -> String {
        (**self).name()
    }

    fn ask(&mut self, requests: &[Request]) -> Vec<Reply> {
        (**self).ask(requests)
    }
}

/// One reply to every request, failures included: [`Worker::ask`] again
/// after each failure, on the requests left.
pub fn ask_all(worker: &mut dyn Worker, requests: &[Request]) -> Vec<Reply> {
    let mut out = Vec::with_capacity(requests.len());
    while out.len() < requests.len() {
        let got = worker.ask(&requests[out.len()..]);
        if got.is_empty() {
            // A transport that answers nothing would loop forever: its silence is the reply.
            out.extend(requests[out.len()..].iter().map(|_| Reply::Protocol("the worker gave no reply".to_string())));
            break;
        }
        out.extend(got);
    }
    out.truncate(requests.len());
    out
}

/// The description answering as a worker: a worker that agrees with
/// everything, for the tests and the `differential` fuzz target's default.
pub struct Reference {
    pub profile: Profile,
    /// The request kinds it answers; the others get `unsupported`.
    pub asks: Vec<Ask>,
}

impl Worker for Reference {
    fn name(&self) -> String {
        "the description (tpb_isa)".to_string()
    }

    fn ask(&mut self, requests: &[Request]) -> Vec<Reply> {
        requests
            .iter()
            .map(|r| Reply::Answer(if self.asks.contains(&r.ask) { reference::answer(r, self.profile) } else { "unsupported".to_string() }))
            .collect()
    }
}
