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
    /// Explain a finding code: what it means and how to fix it.
    Explain {
        /// The code, for example stdout-non-json.
        code: String,
    },
    /// List every finding code.
    Rules,
    // Security scan of MCP client configs (src/scan).
    /// Scan MCP client configs (and, with --live, their servers) for security problems.
    Scan(Box<ScanArgs>),
    /// Write a baseline of today's findings, so later scans report only new ones.
    Baseline(Box<BaselineArgs>),
    /// Write a lock file pinning each server's definition (and, with --live, its surface).
    Pin(Box<PinArgs>),
    /// List configs, servers, transports and (with --live) their tools, prompts and resources.
    Inventory(Box<InventoryArgs>),
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
    /// The server command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
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
            clear_env: false,
        })
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

// --- Security scan (src/scan) arguments. ---

/// Which configs to read.
#[derive(Debug, Args)]
pub struct TargetArgs {
    /// Config files, or directories to search for project configs (default: the current directory).
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Also read the user's client configs (Claude Desktop, Claude Code, Cursor, Windsurf, VS Code).
    #[arg(long)]
    pub global: bool,
}

/// How to list servers live.
#[derive(Debug, Args)]
pub struct LiveArgs {
    /// Start each stdio server (and dial each remote one) to list its tools, prompts and resources.
    #[arg(long)]
    pub live: bool,
    /// Hard time limit per server for --live, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 15_000)]
    pub live_timeout: u64,
    /// Let --live dial private, link-local and metadata addresses, and send credentials over http://.
    #[arg(long)]
    pub live_allow_unsafe: bool,
    /// Servers listed at the same time with --live.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub live_jobs: usize,
}

/// Which rules to run.
#[derive(Debug, Args)]
pub struct RuleArgs {
    /// Run only these codes (comma-separated or repeated).
    #[arg(long = "rules", value_name = "CODES", value_delimiter = ',')]
    pub rules: Vec<String>,
    /// Skip these codes (comma-separated or repeated).
    #[arg(long = "ignore-rule", value_name = "CODES", value_delimiter = ',')]
    pub ignore_rules: Vec<String>,
    /// Look packages up in their registry for deprecated-package (uses the network).
    #[arg(long)]
    pub registry: bool,
}

/// The lowest risk that makes `scan` exit with 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Info,
    Low,
    Medium,
    High,
    Critical,
}

#[derive(Debug, Args)]
pub struct ScanArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub live: LiveArgs,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Exit with 1 when a finding has at least this risk.
    #[arg(long, value_enum, default_value_t = FailOn::High)]
    pub fail_on: FailOn,
    /// Report and fail only on findings not in this baseline file.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Compare with this lock file (default: .mcpcheck-lock.json in the current directory, if present).
    #[arg(long, value_name = "FILE")]
    pub lock: Option<PathBuf>,
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

#[derive(Debug, Args)]
pub struct BaselineArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Where to write the baseline.
    #[arg(long, value_name = "FILE", default_value = ".mcpcheck-baseline.json")]
    pub output: PathBuf,
    /// Overwrite an existing baseline.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct PinArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub live: LiveArgs,
    /// Where to write the lock file.
    #[arg(long, value_name = "FILE", default_value = ".mcpcheck-lock.json")]
    pub output: PathBuf,
    /// Overwrite an existing lock file.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct InventoryArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub live: LiveArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Shorthand for --format json.
    #[arg(long)]
    pub json: bool,
    /// Write the inventory to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}
