//! GitHub-specific output: the Action entrypoint, workflow commands, annotations, the sticky
//! pull-request comment (`mcpcheck init` is in the command layer).

pub mod action;
pub mod annotations;
pub mod comment;
pub mod environment;
pub mod inputs;
mod setup;
pub mod upload;
pub mod workflow_commands;
