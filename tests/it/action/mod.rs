//! The GitHub Action (`mcpcheck action`, action.yml) and `mcpcheck init` (`src/app/action/`).

mod init;
mod init_workflow;
mod metadata;
mod runner;
