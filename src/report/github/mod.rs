//! The Action's GitHub outputs: workflow commands, annotations, the SARIF file for Code
//! Scanning and the sticky pull-request comment. The Action's command is in `app::action`.

pub mod annotations;
pub mod comment;
pub mod upload;
pub mod workflow_commands;
