//! GitHub-specific output: the Action entrypoint, workflow commands, annotations, the sticky
//! pull-request comment and `mcpcheck init`.

pub mod action;
pub mod annotations;
pub mod commands;
pub mod comment;
pub mod environment;
pub mod init;
pub mod inputs;
pub mod upload;
