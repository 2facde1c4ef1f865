//! `mcpcheck guard`: real servers and one fixture per fault, over stdio and HTTP (`src/guard/`).

mod consumer;
mod contract;
mod depth;
mod frame_mapping;
mod http;
mod http_legacy;
mod install_first;
mod launcher;
mod probes;
mod protocol;
mod reference_suite;
mod runtime;
mod sdk;
mod surface;
mod terminal;
mod timings;
mod trace;
mod transport;
