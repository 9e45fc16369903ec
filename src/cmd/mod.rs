//! One module per subcommand.

pub mod asm;
pub mod check;
pub mod conform;
pub mod corpus;
pub mod diff;
pub mod differ;
pub mod disasm;
pub mod evidence;
pub mod facts;
pub mod header;
pub mod infer;
pub mod layout;
pub mod neff;
pub mod paths;
pub mod validate;

pub use crate::out::{fail, EXIT_USAGE};
