//! The shared-library transport: a worker built as a `.so` exporting C
//! functions of the same meaning as the protocol's lines, declared in the
//! header `tpb header --worker` writes ([`crate::abi`]). Loading a user's
//! library and calling it is what this crate's one `unsafe` is for.
#![allow(unsafe_code)]

use super::Worker;
use crate::reply::Reply;
use crate::request::{encode_fields, Ask, Request};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, CString};
use std::path::{Path, PathBuf};
use tpb_isa::Generation;

/// `int f(int generation, const unsigned char bundle[64], char *answer, size_t capacity)`.
type BundleFn = unsafe extern "C" fn(c_int, *const u8, *mut c_char, usize) -> c_int;
/// `int f(int generation, const char *fields, char *answer, size_t capacity)`.
type FieldsFn = unsafe extern "C" fn(c_int, *const c_char, *mut c_char, usize) -> c_int;

/// The exported names, one per request kind; each is optional.
pub const SYMBOLS: [(Ask, &str); 3] =
    [(Ask::Decode, "tpb_worker_decode"), (Ask::Encode, "tpb_worker_encode"), (Ask::Validate, "tpb_worker_validate")];

/// The longest answer taken from a library (the longest real one is ~700 bytes).
const ANSWER_CAP: usize = 1 << 16;

#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    #[error("{path}: cannot load the worker library: {source}")]
    Load { path: String, source: libloading::Error },
    #[error("{path}: exports none of tpb_worker_decode, tpb_worker_encode, tpb_worker_validate")]
    NoFunction { path: String },
}

/// A loaded worker library.
pub struct Library {
    path: PathBuf,
    decode: Option<BundleFn>,
    encode: Option<FieldsFn>,
    validate: Option<BundleFn>,
    // Last: the functions above point into it, so it is dropped after them.
    _lib: libloading::Library,
}

impl Library {
    /// Loads the library at `path` (a path with no `/` is searched as the
    /// system loader does; `./libmine.so` loads that file).
    pub fn load(path: &Path) -> Result<Library, LibraryError> {
        let shown = path.display().to_string().escape_debug().to_string();
        // SAFETY: loading runs the library's initialisers: that is the point of
        // a worker library, which the user names and vouches for.
        let lib = unsafe { libloading::Library::new(path) }.map_err(|source| LibraryError::Load { path: shown.clone(), source })?;
        // SAFETY: each symbol, when present, is declared with exactly this
        // signature by the worker header (`tpb header --worker`); the function
        // pointers are kept no longer than `lib` (same struct, dropped after).
        let (decode, encode, validate) = unsafe {
            (
                lib.get::<BundleFn>(b"tpb_worker_decode\0").ok().map(|s| *s),
                lib.get::<FieldsFn>(b"tpb_worker_encode\0").ok().map(|s| *s),
                lib.get::<BundleFn>(b"tpb_worker_validate\0").ok().map(|s| *s),
            )
        };
        if decode.is_none() && encode.is_none() && validate.is_none() {
            return Err(LibraryError::NoFunction { path: shown });
        }
        Ok(Library { path: path.to_path_buf(), decode, encode, validate, _lib: lib })
    }

    /// The request kinds it exports a function for.
    pub fn asks(&self) -> Vec<Ask> {
        [(Ask::Decode, self.decode.is_some()), (Ask::Encode, self.encode.is_some()), (Ask::Validate, self.validate.is_some())]
            .into_iter()
            .filter_map(|(a, has)| has.then_some(a))
            .collect()
    }

    /// One answer: `raw` for decode and validate, `fields` (the encode
    /// request's `path=value` text) for encode; `unsupported` when the
    /// library does not export the function.
    pub fn call(&self, ask: Ask, g: Generation, raw: &[u8; 64], fields: &str) -> String {
        let generation = c_int::from(g.index() as u8 + 2);
        BUF.with_borrow_mut(|buf| {
            let mut cap = 4096usize;
            loop {
                buf.resize(cap, 0);
                let out = buf.as_mut_ptr().cast::<c_char>();
                // SAFETY: `raw` is 64 readable bytes, `fields` a NUL-terminated
                // string alive for the call, `out` `cap` writable bytes; the
                // header's contract (snprintf's) is to write at most `cap`
                // bytes including the NUL and return the length it needed.
                let n = unsafe {
                    match ask {
                        Ask::Decode => self.decode.map(|f| f(generation, raw.as_ptr(), out, cap)),
                        Ask::Validate => self.validate.map(|f| f(generation, raw.as_ptr(), out, cap)),
                        Ask::Encode => match CString::new(fields) {
                            Ok(c) => self.encode.map(|f| f(generation, c.as_ptr(), out, cap)),
                            Err(_) => return "error the fields hold a NUL".to_string(),
                        },
                    }
                };
                let Some(n) = n else { return "unsupported".to_string() };
                let Ok(n) = usize::try_from(n) else { return format!("error {} returned {n}", symbol(ask)) };
                if n < cap {
                    let bytes = buf.get(..n).unwrap_or(&[]);
                    let text = std::str::from_utf8(bytes).map_or_else(|_| String::from_utf8_lossy(bytes).into_owned(), str::to_owned);
                    let breaks = bytes.contains(&b'\n') || bytes.contains(&b'\r');
                    // One answer is one line, as on the process transport.
                    return if breaks { text.replace(['\n', '\r'], " ") } else { text };
                }
                if n >= ANSWER_CAP {
                    return format!("error {} needs {n} bytes for its answer, over the {ANSWER_CAP}-byte cap", symbol(ask));
                }
                cap = n + 1;
            }
        })
    }
}

fn symbol(ask: Ask) -> &'static str {
    SYMBOLS.iter().find(|(a, _)| *a == ask).map_or("?", |(_, s)| s)
}

thread_local! {
    /// The answer buffer, kept across calls.
    static BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

impl Worker for Library {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn ask(&mut self, requests: &[Request]) -> Vec<Reply> {
        requests
            .iter()
            .map(|r| {
                let fields = if r.ask == Ask::Encode { encode_fields(&r.raw) } else { String::new() };
                Reply::Answer(self.call(r.ask, r.generation, &r.raw, &fields))
            })
            .collect()
    }
}
