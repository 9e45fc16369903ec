//! `tpb`: the command-line front door of the TPB conformance harness (the
//! command itself is the library's [`tpb::main_with_args`], in `src/lib.rs`).
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(tpb::main_with_args(std::env::args_os()))
}
