//! The command line, as clap sees it. The command layer turns these into engine requests;
//! no engine ever sees them.

mod durations;
mod guard_args;
pub mod tuning_flags;

pub use guard_args::{GuardArgs, GUARD_EXAMPLES};

use crate::duration::Millis;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "mcpcheck",
    version,
    about = "Checks that an MCP server is safe to hand to a client."
)]
pub struct Cli {
    /// Colour in human output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE
    /// forces it), always or never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// `auto` colours a terminal unless NO_COLOR is set (non-empty); a non-zero
    /// CLICOLOR_FORCE colours any destination; NO_COLOR still wins over it.
    pub fn enabled(
        self,
        to_terminal: bool,
        var: impl Fn(&str) -> Option<std::ffi::OsString>,
    ) -> bool {
        let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto if set("NO_COLOR") => false,
            ColorChoice::Auto => {
                to_terminal || var("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0")
            }
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Launch a stdio MCP server, drive a real session and validate every byte of stdout.
    #[command(after_long_help = GUARD_EXAMPLES)]
    Guard(Box<GuardArgs>),
    /// Sit between a real client and a stdio server, forwarding every byte and checking a copy.
    Proxy(ProxyArgs),
    /// Scan source code for writes to stdout (print, console.log, loggers on stdout...).
    Source(Box<SourceArgs>),
    /// Explain a finding code: what it means and how to fix it.
    Explain {
        /// The code, for example stdout-non-json.
        code: String,
    },
    /// Check a saved listing: run every surface rule (tool poisoning, hidden characters,
    /// secrets, look-alike names…) on the tools, prompts and resources in FILE.
    Surface(SurfaceArgs),
    /// Scan MCP client configs (and, with --live, their servers) for security problems.
    Scan(Box<ScanArgs>),
    /// Write a baseline of today's findings, so later scans report only new ones.
    Baseline(Box<BaselineArgs>),
    /// Write a lock file pinning each server's definition (and, with --live, its surface).
    Pin(Box<PinArgs>),
    /// List configs, servers, transports and (with --live) their tools, prompts and resources.
    Inventory(Box<InventoryArgs>),
    /// List every finding code (or, with --markdown DIR, write one Markdown page per code).
    Rules(RulesArgs),
    /// The GitHub Action entrypoint: reads INPUT_* variables, runs the checks, writes SARIF,
    /// the job summary, outputs, annotations and the pull-request comment.
    Action,
    /// Write .github/workflows/mcpcheck.yml for this repository.
    Init(InitArgs),
    /// Guard every server of a manifest, several at once, streaming one JSON line per server.
    Sweep(Box<SweepArgs>),
    /// Merge sweep results (shards, resumed runs) into one report.
    SweepReport(SweepReportArgs),
}

#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Write docs/rules-style Markdown pages (one per code, plus README.md) into DIR.
    #[arg(long, value_name = "DIR")]
    pub markdown: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Overwrite an existing workflow file.
    #[arg(long)]
    pub force: bool,
    /// How the server is started, as one shell-style string (default: read from the lockfile and manifest, else a placeholder to replace).
    #[arg(long, value_name = "COMMAND")]
    pub command: Option<String>,
    /// Repository root to write into [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
    /// SARIF 2.1.0, for GitHub Code Scanning.
    Sarif,
    /// GitHub-flavoured Markdown, as in the job summary.
    Markdown,
}

/// The proxy's `--report` is a JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Json,
}

/// A listing (`inventory`) is text or JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListingFormat {
    Human,
    Json,
}

/// `--format` and its `--json` shorthand, where the default is human text.
#[derive(Debug, Args)]
pub struct FormatArgs {
    /// Output format [default: human].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Shorthand for --format json.
    #[arg(long)]
    pub json: bool,
}

impl FormatArgs {
    /// The format asked for (human when none is); `--json` with another `--format` is a
    /// usage error.
    pub fn chosen(&self) -> Result<Format, crate::error::Error> {
        Ok(one_format(self.format, self.json, Format::Json)?.unwrap_or(Format::Human))
    }
}

/// The one output format `--format` and `--json` ask for, `None` when neither does; two
/// that disagree (`--json --format sarif`) are a usage error, as neither can win silently.
pub fn one_format<F: ValueEnum + Copy + PartialEq>(
    format: Option<F>,
    json: bool,
    json_format: F,
) -> Result<Option<F>, crate::error::Error> {
    match (format, json) {
        (Some(f), true) if f != json_format => {
            let name = f
                .to_possible_value()
                .map(|v| v.get_name().to_string())
                .unwrap_or_default();
            Err(crate::error::Error::Usage(format!(
                "--json and --format {name} ask for two output formats; give one of them"
            )))
        }
        (None, true) => Ok(Some(json_format)),
        (format, _) => Ok(format),
    }
}

#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// Write one JSON Lines record per message (full message, credentials redacted) here,
    /// instead of a compact line per message on stderr. Created with mode 0600; an existing
    /// file that others can read is made 0600 (with a note); a symlink is refused.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// A name for this server in the report.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Write the session's distinct findings as SARIF 2.1.0 here on exit.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Format of the --report file.
    #[arg(long, value_enum, default_value_t = ReportFormat::Json)]
    pub format: ReportFormat,
    /// Write a session summary (message counts, latency percentiles, findings) here on exit.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// A request unanswered for this long is reported: 30s, 500ms, 2m (a bare number is milliseconds).
    #[arg(long, value_name = "DURATION", default_value_t = Millis::ms(30_000))]
    pub timeout: Millis,
    /// How long the server has to exit after the client closes stdin (and again after SIGTERM).
    #[arg(long, value_name = "DURATION", default_value_t = Millis::ms(2000))]
    pub shutdown_grace: Millis,
    /// How much traffic may wait for the checks, in KiB; beyond it the client never waits:
    /// the rest is forwarded unchecked (and reported) until the checks catch up.
    #[arg(long, value_name = "KIB", default_value_t = 16_384, value_parser = clap::value_parser!(u64).range(1..=4_194_304))]
    pub check_backlog: u64,
    /// The server command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// `mcpcheck surface`: check saved listings without running a server.
#[derive(Debug, Args)]
pub struct SurfaceArgs {
    /// Listing files, each {"server", "tools", "prompts", "resources", "resourceTemplates",
    /// "capabilities", "instructions", "serverInfo"} (every key optional) or an array of
    /// them; `-` reads stdin. All files are checked together, so cross-server rules compare
    /// them.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Run only the rules the guard runs (high precision: poisoning, hidden text, secrets).
    #[arg(long)]
    pub guard_rules: bool,
    #[command(flatten)]
    pub format: FormatArgs,
    /// Write the report to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The manifest: JSON or JSON Lines; command entries or MCP registry server.json entries.
    #[arg(value_name = "MANIFEST")]
    pub manifest: PathBuf,
    /// Results file (JSON Lines, one line per server); must not exist unless --resume.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Servers checked at once [default: the number of cores].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Only this share of the manifest, by a stable hash of each id: I of N, 1-based.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Keep the lines already in --out and run only the entries without one.
    #[arg(long)]
    pub resume: bool,
    /// The guard's times and limits for every server (`--timeout`, `--max-stdout-bytes`…).
    #[command(flatten)]
    pub tuning: tuning_flags::TuningFlags,
    /// The guard's --profile for every server.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// A guard config file applied to every server; the entry's command and cwd replace its own, the entry's env adds to its env.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Longest an entry's `setup` command may run.
    #[arg(long, value_name = "DURATION", default_value_t = Millis::ms(crate::sweep::DEFAULT_SETUP_TIMEOUT.as_millis() as u64))]
    pub setup_timeout: Millis,
    /// Pass this variable from mcpcheck's environment to every server (repeatable).
    #[arg(long = "pass-env", value_name = "NAME")]
    pub pass_env: Vec<String>,
    /// Give each server empty npm/uv/pip caches instead of the invoking user's.
    #[arg(long)]
    pub isolated_caches: bool,
    /// Guard remote entries (a manifest's `url` entries, server.json `remotes`) over HTTP, as `guard --url` does.
    #[arg(long)]
    pub remote: bool,
    /// With --remote: dial private, link-local and metadata addresses too (loopback is always allowed).
    #[arg(long, requires = "remote")]
    pub remote_allow_unsafe: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SweepReportFormat {
    Human,
    Json,
    Markdown,
    Sarif,
    /// One self-contained page (inline CSS, JS and SVG; no network request).
    Html,
}

#[derive(Debug, Args)]
pub struct SweepReportArgs {
    /// Results files written by `mcpcheck sweep` (shards, resumed runs).
    #[arg(value_name = "RESULTS", required = true)]
    pub results: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SweepReportFormat::Human)]
    pub format: SweepReportFormat,
    /// Write the report to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Results files of an earlier sweep: report what changed since (newly broken, fixed,
    /// new codes, servers added and gone). Repeat for shards; not with --format sarif.
    #[arg(long, value_name = "OLD")]
    pub baseline: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SourceArgs {
    /// Files or directories to scan.
    #[arg(value_name = "PATH", default_value = ".")]
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
    /// Report writes that never reach a stdio client (in a module that only serves HTTP, or printed just before a failing exit) as warnings, not notes.
    #[arg(long)]
    pub all_transports: bool,
    /// Rewrite the stdout writes that have a mechanical fix to stderr, in place, and print a summary of what was fixed and what was not.
    #[arg(long, conflicts_with = "diff")]
    pub fix: bool,
    /// Print the rewrites --fix would make as a unified diff, and change nothing.
    #[arg(long)]
    pub diff: bool,
    #[command(flatten)]
    pub format: FormatArgs,
    /// Write the report to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Which configs to read.
#[derive(Debug, Args)]
pub struct TargetArgs {
    /// Config files, or directories to search for project configs (default: the current directory).
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Also read the user's client configs (Claude Desktop, Claude Code, Cursor, Windsurf, VS Code): scan and inventory read them by default when no paths are given; baseline and pin only with this flag.
    #[arg(long, conflicts_with = "project_only")]
    pub global: bool,
    /// Read only the project's configs, never the user's (scan and inventory without paths).
    #[arg(long)]
    pub project_only: bool,
}

/// How to list servers live.
#[derive(Debug, Args)]
pub struct LiveArgs {
    /// Start each stdio server (and dial each remote one) to list its tools, prompts and resources.
    #[arg(long)]
    pub live: bool,
    /// Hard time limit per server for --live: 15s, 500ms, 2m (a bare number is milliseconds).
    #[arg(long, value_name = "DURATION", default_value_t = Millis::ms(15_000))]
    pub live_timeout: Millis,
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
    /// Check launched packages against published advisories for vulnerable-package (sends package names and versions to OSV; uses the network).
    #[arg(long)]
    pub advisories: bool,
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
    #[command(flatten)]
    pub format: FormatArgs,
    /// Write the report to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BaselineArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub live: LiveArgs,
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
    /// Output format: a listing has no findings, so no SARIF or Markdown [default: human].
    #[arg(long, value_enum)]
    pub format: Option<ListingFormat>,
    /// Shorthand for --format json.
    #[arg(long)]
    pub json: bool,
    /// Write the inventory to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}
