//! `mcpcheck source`: stdout writes and loggers in a stdio server's code, per language (`src/source/`).

mod cli;
mod fix;
mod go_rust;
mod javascript;
mod jvm_config;
mod jvm_dotnet;
mod large;
mod python;
mod stdio_path;
mod walk;
