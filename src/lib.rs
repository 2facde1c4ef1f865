//! mcpcheck: tells whether an MCP server is safe to hand to a client.
//!
//! Data flows one way: command line → command layer (`app`) → engines → findings →
//! renderers (`report`, `github`) → output. Engines know neither clap nor the renderers.
//!
//! Any Unix: on Linux the process layer is the reaper of a server's escaped descendants
//! (PR_SET_CHILD_SUBREAPER, /proc); elsewhere (macOS) it runs its portable backend and says
//! what it cannot check. Off Unix (Windows) the crate is empty and the binary says so.
#![cfg(unix)]

pub mod app;
pub mod catalog;
pub mod duration;
pub mod error;
pub mod finding;
pub mod frame_findings;
#[doc(hidden)]
pub mod fuzzing;
pub mod gate;
pub mod guard;
pub mod install;
pub mod install_faults;
pub mod launch;
pub mod lazy_patterns;
pub mod net;
pub mod prints;
pub mod process;
pub mod protocol;
pub mod proxy;
pub mod report;
pub mod scan;
pub mod secrets;
pub mod server_traffic;
pub mod session;
pub mod shell;
pub mod source;
pub mod surface;
pub mod sweep;
pub mod text;
pub mod upstream;
pub mod verdict;
