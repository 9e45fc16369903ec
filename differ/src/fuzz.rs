//! The `differential` fuzz target's body: libFuzzer's bytes, read as 64-byte
//! bundles judged under the generation the input's length picks (as the
//! bundle targets do), asked of the worker the environment names and compared with the
//! description. `TPB_DIFFER_LIB=./libmine.so` loads a library in-process (a
//! crash in it is libFuzzer's crash, saved with its input);
//! `TPB_DIFFER_CMD="python3 mine.py"` runs a command. With neither, the
//! description answers itself: the property is then that its own answers,
//! written in the protocol and read back by the comparison, agree — the
//! protocol's writer and reader are each other's inverse on any bundle.

use crate::compare::compare;
use crate::request::{Ask, Request};
use crate::worker::{ask_all, Library, Process, Reference, Worker};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;
use tpb_isa::Profile;

/// The environment variable naming a worker library.
pub const ENV_LIB: &str = "TPB_DIFFER_LIB";
/// The environment variable naming a worker command.
pub const ENV_CMD: &str = "TPB_DIFFER_CMD";

struct Named {
    worker: Box<dyn Worker>,
    asks: Vec<Ask>,
}

/// The worker, opened once per process.
fn worker() -> &'static Mutex<Result<Named, String>> {
    static W: OnceLock<Mutex<Result<Named, String>>> = OnceLock::new();
    W.get_or_init(|| Mutex::new(open()))
}

fn open() -> Result<Named, String> {
    let mut worker: Box<dyn Worker> = if let Some(lib) = std::env::var_os(ENV_LIB) {
        Box::new(Library::load(std::path::Path::new(&lib)).map_err(|e| e.to_string())?)
    } else if let Ok(cmd) = std::env::var(ENV_CMD) {
        Box::new(Process::new(&cmd, Duration::from_secs(10)).map_err(|e| e.to_string())?)
    } else {
        Box::new(Reference { profile: Profile::Amended, asks: Ask::ALL.to_vec() })
    };
    let asks = crate::campaign::probe(worker.as_mut(), &Ask::ALL).map_err(|e| e.to_string())?;
    Ok(Named { worker, asks })
}

/// The property: on every bundle of `data`, the worker agrees with the description.
pub fn differential(data: &[u8]) -> Result<(), String> {
    let g = tpb_isa::props::generation_of(data);
    let mut guard = worker().lock().map_err(|_| "a previous input panicked while asking the worker".to_string())?;
    let named = guard.as_mut().map_err(|e| format!("no worker: {e}"))?;
    let n = data.len().div_ceil(64).max(1);
    let reqs: Vec<Request> = (0..n)
        .flat_map(|i| {
            let mut raw = [0u8; 64];
            let src = data.get(i * 64..).unwrap_or(&[]);
            let k = src.len().min(64);
            raw[..k].copy_from_slice(&src[..k]);
            named.asks.iter().map(move |a| Request::new(*a, g, raw))
        })
        .collect();
    let replies = ask_all(named.worker.as_mut(), &reqs);
    for (req, reply) in reqs.iter().zip(&replies) {
        if let Some(d) = compare(req, reply, Profile::Amended).first() {
            return Err(format!("{} `{}`: {} {}: worker {} / description {}", req.ask, req.line(), d.kind, d.field, d.worker, d.expected));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_description_agrees_with_itself_on_any_bytes() {
        for seed in 0..200u64 {
            let data = tpb_isa::props::seeded_bytes(seed, 192);
            super::differential(&data).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
        super::differential(&[]).unwrap();
    }
}
