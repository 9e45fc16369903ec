//! Differential fuzzing of a user's own TPB decoder, encoder or validator
//! against the description in `tpb_isa`, the way mishegos fuzzes x86
//! decoders: one worker per implementation, one input, every answer
//! compared, and a failing input reduced until only the difference is left.
//!
//! Layers: the [`request`]s and [`reply`]s of the line protocol; the
//! description's own answers ([`reference`](mod@reference)); one answer held against them
//! ([`compare`], field values by meaning in [`value`]); the transports
//! ([`worker`]: a process, a shared library, the description itself); the
//! inputs ([`inputs`]); a run ([`campaign`]) with its [`group`]s and their
//! reduction ([`minimise`]); the report ([`report`]).
//!
//! `unsafe` only where a user's library is loaded and called (`worker/library.rs`).
//!
//! # Hold a worker against the description
//!
//! A worker is anything that answers the protocol's requests
//! ([`worker::Worker`]): a process speaking one line per request
//! ([`worker::Process`], `tpb differ --cmd`), a shared library
//! ([`worker::Library`], `--lib`), or Rust code, as here: a decoder with one
//! bug, which reads a NoOp's word length one too high. A run ([`run`]) feeds
//! it generated, mutated and real bundles, compares every answer field by
//! field, groups the disagreements and reduces each group's input:
//!
//! ```
//! use std::time::Duration;
//! use tpb_differ::reference::decode_line;
//! use tpb_differ::reply::Reply;
//! use tpb_differ::worker::Worker;
//! use tpb_differ::{inputs::Real, run, Ask, Config, Request};
//!
//! struct MyDecoder;
//!
//! impl Worker for MyDecoder {
//!     fn name(&self) -> String {
//!         "my decoder".to_string()
//!     }
//!     fn ask(&mut self, requests: &[Request]) -> Vec<Reply> {
//!         let answer = |r: &Request| match r.ask {
//!             // The bug: opcode 0xA4 (NoOp) gets the wrong word length.
//!             Ask::Decode if r.raw[0] == 0xA4 => decode_line(&r.raw).replace("inst_word_len=0x10", "inst_word_len=0x11"),
//!             Ask::Decode => decode_line(&r.raw),
//!             _ => "unsupported".to_string(),
//!         };
//!         requests.iter().map(|r| Reply::Answer(answer(r))).collect()
//!     }
//! }
//!
//! let cfg = Config { asks: vec![Ask::Decode], time: Duration::from_secs(10), count: 2_000, ..Config::default() };
//! let outcome = run(&mut MyDecoder, &Real::default(), &cfg, &|_stats| {})?;
//! assert!(outcome.disagrees() && !outcome.failed());
//! // One group: decode, opcode 0xA4, field inst_word_len (on each generation that has the opcode).
//! for signature in outcome.groups.by_signature.keys() {
//!     assert_eq!((signature.opcode, signature.field.as_str()), (0xA4, "inst_word_len"));
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # One answer, and a worker process
//!
//! [`compare::compare`] holds one reply against the description's own
//! answer ([`reference::answer`]), each named field by meaning (any base,
//! names or tags). A worker in another language is a command:
//!
//! ```no_run
//! use std::time::Duration;
//! use tpb_differ::{inputs::Real, run, worker::Process, Config};
//!
//! let mut worker = Process::new("python3 my_decoder.py", Duration::from_secs(5)).map_err(|e| e.to_string())?;
//! let outcome = run(&mut worker, &Real::default(), &Config::default(), &|_| {})?;
//! println!("{} groups of disagreements", outcome.groups.by_signature.len());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ```
//! use tpb_differ::reply::Reply;
//! use tpb_differ::{compare::compare, reference, Request, Ask};
//! use tpb_isa::{bundle::header_only, Generation, Profile};
//!
//! let req = Request::new(Ask::Decode, Generation::V2, header_only(0xA4));
//! let right = reference::answer(&req, Profile::Amended);
//! assert!(compare(&req, &Reply::Answer(right.clone()), Profile::Amended).is_empty());
//!
//! let wrong = right.replace("inst_word_len=0x10", "inst_word_len=17");
//! let found = compare(&req, &Reply::Answer(wrong), Profile::Amended);
//! assert_eq!(found.len(), 1);
//! assert_eq!(found[0].field, "inst_word_len");
//! ```
#![deny(unsafe_code)]

pub mod abi;
pub mod campaign;
pub mod compare;
pub mod fuzz;
pub mod group;
pub mod inputs;
pub mod minimise;
pub mod reference;
pub mod reply;
pub mod report;
pub mod request;
pub mod signature;
pub mod value;
pub mod worker;

pub use campaign::{run, Config, Outcome};
pub use compare::{Disagreement, Kind};
pub use request::{Ask, Request};

/// The crate's README (its page on crates.io), whose examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
