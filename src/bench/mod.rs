//! `tpb bench`: how close each path is to its physical limit. Every figure
//! is a ratio against a baseline measured in the same run (memcpy of the
//! same stream in the same process; `nm -DC` + `strings` and `gzip -dc |
//! tar t` on the same file, interleaved with `tpb`), so the ratios hold on
//! a noisy machine where absolute times do not.
//!
//! `workload` is tpb-isa's (its `bench` feature), shared with the criterion bench `isa/benches/codec.rs`.

pub mod check;
pub mod codec;
pub mod differ;
pub mod end_to_end;
pub mod external;
pub mod folder;
pub mod fuzz;
pub mod machine;
pub mod neff;
pub mod report;
pub mod timing;
pub use tpb_isa::workload;
