//! The benchmark's errors are the `tpb` command's ([`tpb::error`]): one line
//! naming the file or tool and what went wrong.

pub use tpb::error::{Context, Error, Result};
