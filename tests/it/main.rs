//! The integration tests: one binary, a module per area of the code (as zizmor keeps
//! them), so `tests/it/support` and the crate are compiled and linked once. Run one area or
//! one file with a filter: `cargo test --test it guard::runtime`.

mod support;

mod action;
mod cli;
mod fuzz_replay;
mod guard;
mod hostile;
mod launch_commands;
mod project;
mod proxy;
mod report;
mod scan;
mod source;
mod sweep;
