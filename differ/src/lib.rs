//! Differential fuzzing of a user's own TPB decoder, encoder or validator
//! against the description in `tpb_isa`, the way mishegos fuzzes x86
//! decoders: one worker per implementation, one input, every answer
//! compared, and a failing input reduced until only the difference is left.
//!
//! Layers: the [`request`]s and [`reply`]s of the line protocol; the
//! description's own answers ([`reference`]); one answer held against them
//! ([`compare`], field values by meaning in [`value`]); the transports
//! ([`worker`]: a process, a shared library, the description itself); the
//! inputs ([`inputs`]); a run ([`campaign`]) with its [`group`]s and their
//! reduction ([`minimise`]); the report ([`report`]).
//!
//! `unsafe` only where a user's library is loaded and called (`worker/library.rs`).
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
