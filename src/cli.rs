//! Command-line interface: parse, validate, turn into engine inputs. No engine logic here.

use crate::process::{ServerCommand, StdioLimits};
use crate::protocol::versions;
use crate::session::{PlannedRequest, SessionPlan};
use clap::{Args, Parser, Subcommand, ValueEnum};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Parser)]
#[command(
    name = "mcpcheck",
    version,
    about = "Checks that an MCP server is safe to hand to a client."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Launch a stdio MCP server, drive a real session and validate every byte of stdout.
    Guard(Box<GuardArgs>),
    /// Scan source code for writes to stdout (print, console.log, loggers on stdout...).
    Source(Box<SourceArgs>),
    /// Explain a finding code: what it means and how to fix it.
    Explain {
        /// The code, for example stdout-non-json.
        code: String,
    },
    /// List every finding code.
    Rules,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Debug, Args)]
pub struct GuardArgs {
    /// Working directory for the server.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Extra environment variable for the server (repeatable); values never appear in reports.
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// MCP protocol version to request.
    #[arg(long, value_name = "VERSION", default_value = versions::DEFAULT_VERSION)]
    pub protocol: String,
    /// Send this request after the list probes (repeatable).
    #[arg(long = "request", value_name = "METHOD")]
    pub requests: Vec<String>,
    /// JSON params for the --request at the same position (repeatable).
    #[arg(long = "params", value_name = "JSON")]
    pub params: Vec<String>,
    /// How long to wait for initialize and for each request, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub timeout: u64,
    /// How long to keep listening for late stdout after the last answer, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 300)]
    pub settle: u64,
    /// How long the server has to exit after stdin closes (and again after SIGTERM), in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    pub shutdown_grace: u64,
    /// Largest stdout line accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 262_144)]
    pub max_stdout_line_bytes: usize,
    /// Most stdout accepted over the whole run, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1_048_576)]
    pub max_stdout_bytes: u64,
    /// Stderr beyond this many bytes is reported (stderr is always drained).
    #[arg(long, value_name = "BYTES", default_value_t = 1_048_576)]
    pub max_stderr_bytes: u64,
    /// Most pages followed per list method.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_list_pages: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Shorthand for --format json.
    #[arg(long)]
    pub json: bool,
    /// Write the report to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also scan this source tree for stdout writes (repeatable); its findings join the report.
    #[arg(long = "scan", value_name = "PATH")]
    pub scan: Vec<PathBuf>,
    /// Report source-scan findings as errors rather than warnings.
    #[arg(long, requires = "scan")]
    pub fail_on_static: bool,
    /// The server command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct SourceArgs {
    /// Files or directories to scan.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Scan only files matching this glob (repeatable). A glob without `/` matches file names.
    #[arg(long = "include", value_name = "GLOB")]
    pub include: Vec<String>,
    /// Skip files and directories matching this glob (repeatable).
    #[arg(long = "exclude", value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Scan test files and directories too (skipped by default).
    #[arg(long)]
    pub include_tests: bool,
    /// Also scan dependency, virtual-environment and build directories (node_modules, vendor, target...).
    #[arg(long)]
    pub no_default_excludes: bool,
    /// Skip files larger than this, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = crate::source::DEFAULT_MAX_FILE_BYTES)]
    pub max_file_bytes: u64,
    /// Report findings as errors (exit code 1) rather than warnings.
    #[arg(long)]
    pub fail_on_static: bool,
    /// Worker threads (0: one per CPU).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Shorthand for --format json.
    #[arg(long)]
    pub json: bool,
    /// Write the report to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

impl SourceArgs {
    pub fn format(&self) -> Format {
        if self.json {
            Format::Json
        } else {
            self.format
        }
    }

    pub fn scan_options(&self) -> crate::source::ScanOptions {
        crate::source::ScanOptions {
            roots: self.paths.clone(),
            include: self.include.clone(),
            exclude: self.exclude.clone(),
            include_tests: self.include_tests,
            default_excludes: !self.no_default_excludes,
            max_file_bytes: self.max_file_bytes,
            fail_on_static: self.fail_on_static,
            threads: self.threads,
        }
    }
}

/// A usage or input error: exit code 2, one line.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl GuardArgs {
    pub fn format(&self) -> Format {
        if self.json {
            Format::Json
        } else {
            self.format
        }
    }

    pub fn server_command(&self) -> Result<ServerCommand, UsageError> {
        let (program, args) = self
            .command
            .split_first()
            .ok_or_else(|| UsageError("no server command: give it after `--`, for example `mcpcheck guard -- python3 server.py`".into()))?;
        if program.is_empty() {
            return Err(UsageError(
                "the server command is empty: give it after `--`".into(),
            ));
        }
        if let Some(dir) = &self.cwd {
            if !dir.is_dir() {
                return Err(UsageError(format!(
                    "--cwd {}: not a directory; give an existing directory",
                    dir.display()
                )));
            }
        }
        let env = self
            .env
            .iter()
            .map(|kv| match kv.split_once('=') {
                Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
                _ => Err(UsageError(format!(
                    "--env {:?}: expected KEY=VALUE",
                    crate::finding::excerpt(kv.split('=').next().unwrap_or(""), 40)
                ))),
            })
            .collect::<Result<_, _>>()?;
        Ok(ServerCommand {
            program: program.clone(),
            args: args.to_vec(),
            cwd: self.cwd.clone(),
            env,
        })
    }

    /// The source scan to run alongside the session (`--scan`), if any.
    pub fn scan_options(&self) -> Option<crate::source::ScanOptions> {
        if self.scan.is_empty() {
            return None;
        }
        let mut options = crate::source::ScanOptions::new(self.scan.clone());
        options.fail_on_static = self.fail_on_static;
        Some(options)
    }

    pub fn session_plan(&self) -> Result<SessionPlan, UsageError> {
        if !versions::INITIALIZE_VERSIONS.contains(&self.protocol.as_str()) {
            return Err(UsageError(format!(
                "--protocol {:?} is not supported; use one of {}",
                crate::finding::excerpt(&self.protocol, 40),
                versions::INITIALIZE_VERSIONS.join(", ")
            )));
        }
        if self.params.len() > self.requests.len() {
            return Err(UsageError(format!(
                "{} --params given for {} --request; each --params belongs to the --request at the same position",
                self.params.len(),
                self.requests.len()
            )));
        }
        let mut requests = Vec::new();
        for (i, method) in self.requests.iter().enumerate() {
            if method.trim().is_empty() {
                return Err(UsageError(
                    "--request needs a method name, such as tools/list".into(),
                ));
            }
            let params = match self.params.get(i) {
                None => None,
                Some(raw) => match serde_json::from_str::<Value>(raw) {
                    Ok(v @ (Value::Object(_) | Value::Array(_))) => Some(v),
                    Ok(_) => {
                        return Err(UsageError(format!(
                            "--params for {method}: must be a JSON object or array"
                        )))
                    }
                    Err(e) => {
                        return Err(UsageError(format!(
                            "--params for {method}: invalid JSON ({e}); quote it, for example --params '{{\"name\":\"echo\"}}'"
                        )))
                    }
                },
            };
            requests.push(PlannedRequest {
                method: method.clone(),
                params,
            });
        }
        if self.timeout == 0 {
            return Err(UsageError("--timeout must be at least 1 ms".into()));
        }
        if self.max_stdout_line_bytes == 0 || self.max_stdout_bytes == 0 {
            return Err(UsageError("stdout limits must be at least 1 byte".into()));
        }
        if self.max_list_pages == 0 {
            return Err(UsageError("--max-list-pages must be at least 1".into()));
        }
        Ok(SessionPlan {
            protocol: self.protocol.clone(),
            client_name: "mcpcheck".into(),
            client_version: env!("CARGO_PKG_VERSION").into(),
            probe_lists: true,
            requests,
            timeout: Duration::from_millis(self.timeout),
            settle: Duration::from_millis(self.settle),
            shutdown_grace: Duration::from_millis(self.shutdown_grace),
            max_list_pages: self.max_list_pages,
            limits: StdioLimits {
                max_stdout_line_bytes: self.max_stdout_line_bytes,
                max_stdout_bytes: self.max_stdout_bytes,
                max_stderr_bytes: self.max_stderr_bytes,
            },
        })
    }
}
