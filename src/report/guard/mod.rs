//! The guard's own renderers: the human report and the v1 JSON contract.

mod contract;
mod facts;
mod http;
pub mod human;
pub mod json;
