//! mcpcheck: tells whether an MCP server is safe to hand to a client.
//!
//! Data flows one way: inputs → engines → findings → renderers.

pub mod catalog;
pub mod cli;
pub mod finding;
pub mod frame_findings;
pub mod github;
pub mod guard;
pub mod process;
pub mod protocol;
pub mod proxy;
pub mod report;
pub mod scan;
pub mod secrets;
pub mod session;
pub mod source;
pub mod surface;
pub mod sweep;
