//! `mcpcheck sweep` and `sweep-report`: catalogues of servers (`src/sweep/`).

mod inputs;
mod install;
mod npx;
mod remote;
mod secrets;
mod servers;
