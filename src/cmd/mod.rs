//! One module per subcommand.

pub mod asm;
pub mod bench;
pub mod check;
pub mod conform;
pub mod corpus;
pub mod diff;
pub mod disasm;
pub mod facts;
pub mod header;
pub mod layout;
pub mod neff;
pub mod paths;
pub mod validate;

/// Usage or I/O error (bad arguments, unreadable or malformed input).
pub const EXIT_USAGE: u8 = 2;

/// Prints a one-line error and returns the usage/I-O exit code.
pub fn fail(msg: impl std::fmt::Display) -> u8 {
    eprintln!("tpb: error: {msg}");
    EXIT_USAGE
}
