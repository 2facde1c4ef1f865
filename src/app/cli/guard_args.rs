//! `mcpcheck guard`'s flags, grouped under the headings `--help` shows.

use super::Format;
use clap::Args;
use std::path::PathBuf;

/// The end of `guard --help` (not of `-h`, which stays short).
pub const GUARD_EXAMPLES: &str = "\
Examples:
  # A Python server, launched as a client launches it
  mcpcheck guard -- python3 server.py

  # A built TypeScript server; --scan names the write behind any stray stdout line
  mcpcheck guard --scan src -- node dist/index.js

  # In CI: the ci profile, SARIF for GitHub Code Scanning, a longer timeout
  mcpcheck guard --profile ci --timeout 30s --format sarif --output mcpcheck.sarif -- uvx my-server";

#[derive(Debug, Args)]
pub struct GuardArgs {
    /// JSON config file (command, env, requests, probes...); flags override it.
    #[arg(long, value_name = "FILE", help_heading = "Configuration")]
    pub config: Option<PathBuf>,
    /// Depth of checking: custom, smoke, registry, ci or strict.
    #[arg(long, value_name = "NAME", help_heading = "Configuration")]
    pub profile: Option<String>,
    /// Working directory for the server.
    #[arg(long, value_name = "DIR", help_heading = "Server")]
    pub cwd: Option<PathBuf>,
    /// Extra environment variable for the server (repeatable); values never appear in reports.
    #[arg(long = "env", value_name = "KEY=VALUE", help_heading = "Server")]
    pub env: Vec<String>,
    /// MCP protocol version to request (2024-11-05 … 2026-07-28), or `auto` [default: 2025-11-25].
    #[arg(long, value_name = "VERSION", help_heading = "Session")]
    pub protocol: Option<String>,
    /// Run one short session per known protocol version plus a bogus one and compare.
    #[arg(long, help_heading = "Session", hide_short_help = true)]
    pub protocol_matrix: bool,
    /// Send this request after the list probes (repeatable).
    #[arg(long = "request", value_name = "METHOD", help_heading = "Session")]
    pub requests: Vec<String>,
    /// JSON params for the --request at the same position (repeatable).
    #[arg(
        long = "params",
        value_name = "JSON",
        help_heading = "Session",
        hide_short_help = true
    )]
    pub params: Vec<String>,
    /// Probe the list methods of advertised capabilities even if the profile does not.
    #[arg(
        long,
        conflicts_with = "no_list_probes",
        help_heading = "Session",
        hide_short_help = true
    )]
    pub list_probes: bool,
    /// Do not probe the list methods.
    #[arg(long, help_heading = "Session", hide_short_help = true)]
    pub no_list_probes: bool,
    /// Run the whole session N times (a fresh process each) and compare the runs.
    #[arg(long, value_name = "N", help_heading = "Session")]
    pub repeat: Option<u32>,
    /// Adversarial probes: all, none, or a comma-separated list.
    #[arg(
        long,
        value_name = "all|none|LIST",
        help_heading = "Session",
        hide_short_help = true
    )]
    pub adversarial_probes: Option<String>,
    /// The times and limits (`--timeout`, `--max-stdout-bytes`…), declared in `session::tuning`.
    #[command(flatten)]
    pub tuning: super::tuning_flags::TuningFlags,
    /// Start an npx or uvx command as given, without installing its package first: the launcher installs it during the session, inside --timeout.
    #[arg(long, help_heading = "Server", hide_short_help = true)]
    pub no_install: bool,
    /// Output format: human, json, sarif or markdown [default: human, or json under the ci and strict profiles].
    #[arg(long, value_enum, help_heading = "Report")]
    pub format: Option<Format>,
    /// Shorthand for --format json.
    #[arg(long, help_heading = "Report")]
    pub json: bool,
    /// Write the report to this file instead of stdout.
    #[arg(long, value_name = "FILE", help_heading = "Report")]
    pub output: Option<PathBuf>,
    /// SARIF: the analysis category (the run's automationDetails.id), for example mcpcheck.
    #[arg(
        long,
        value_name = "NAME",
        help_heading = "Report",
        hide_short_help = true
    )]
    pub category: Option<String>,
    /// SARIF/Markdown: the repository file runtime findings are anchored to [default: the
    /// config file, or the project manifest in the server's directory].
    #[arg(
        long,
        value_name = "FILE",
        help_heading = "Report",
        hide_short_help = true
    )]
    pub anchor: Option<PathBuf>,
    /// Also scan this source tree for stdout writes (repeatable); its findings join the report, and stray stdout lines name the write that printed them.
    #[arg(long = "scan", value_name = "PATH", help_heading = "Source scan")]
    pub scan: Vec<PathBuf>,
    /// Report source-scan findings as errors rather than warnings.
    #[arg(long, help_heading = "Source scan")]
    pub fail_on_static: bool,
    /// Check a remote server over Streamable HTTP at this URL instead of running a command.
    #[arg(long, value_name = "URL", help_heading = "Server")]
    pub url: Option<String>,
    /// Header sent on every request to --url (repeatable); values never appear in reports.
    #[arg(long = "header", value_name = "NAME=VALUE", help_heading = "Server")]
    pub headers: Vec<String>,
    /// Let --url reach private, link-local and metadata addresses, and send credentials over http://.
    #[arg(long, help_heading = "Server", hide_short_help = true)]
    pub url_allow_unsafe: bool,
    /// The server command and its arguments, after `--` (or `command` in the config file).
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}
