//! The wire: JSON-RPC framing and message types, and MCP revisions. No knowledge of checks.

pub mod framing;
pub mod grammar;
pub mod jsonrpc;
pub mod lean;
mod limits;
pub mod schema;
pub mod versions;
