//! The command layer: for every subcommand, its arguments become an engine request, the
//! engine runs, a renderer is chosen and the output written, and the outcome becomes the
//! exit code (0 pass, 1 findings at or above the failure level, 2 the work was not done).
//! It is the only layer that knows clap.

pub mod action;
mod catalog;
pub mod cli;
pub mod docs;
pub mod docs_rules;
pub(crate) mod guard;
#[cfg(test)]
mod guard_fronts;
mod init;
pub mod io;
mod proxy;
pub mod render;
mod scan;
mod source;
mod surface;
mod sweep;
mod sweep_progress;

use crate::error::Error;
use clap::Parser;
use cli::{Cli, Command};
use std::io::Write;
use std::process::ExitCode;

/// Parses the command line, runs the subcommand, and says how the process should exit.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_error(e),
    };
    for warning in cli.duration_warnings() {
        let _ = writeln!(std::io::stderr(), "mcpcheck: warning: {warning}");
    }
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "mcpcheck: error: {e}");
            ExitCode::from(Error::EXIT_CODE)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, Error> {
    crate::process::backend::check_setting().map_err(|e| Error::Usage(e.to_string()))?;
    let color = cli.color;
    match cli.command {
        Command::Guard(args) => guard::run(*args, color),
        Command::Proxy(args) => proxy::run(args),
        Command::Scan(args) => scan::scan(*args, color),
        Command::Baseline(args) => scan::baseline(*args),
        Command::Pin(args) => scan::pin(*args),
        Command::Inventory(args) => scan::inventory(*args, color),
        Command::Sweep(args) => sweep::sweep(*args),
        Command::SweepReport(args) => sweep::report(&args),
        Command::Source(args) => source::run(&args, color),
        Command::Surface(args) => surface::run(&args, color),
        Command::Explain { code } => catalog::explain(&code),
        Command::Rules(args) => catalog::rules(&args),
        Command::Action => Ok(action::main()),
        Command::Init(args) => init::run(&args).map(|()| ExitCode::SUCCESS),
    }
}

/// 0 when the run passed, 1 when it has findings at or above the failure level.
fn verdict_exit(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Help and version go to stdout; usage errors become one line on stderr with exit code 2.
fn clap_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    // `mcpcheck` alone asked for nothing: the help, on stderr, and a usage error's exit code.
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let _ = e.print();
        return ExitCode::from(Error::EXIT_CODE);
    }
    let rendered = e.render().to_string();
    // What clap offers instead ("[possible values: human, json]"), kept on the one line.
    let possible = rendered
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("[possible values:"))
        .map(|l| format!(" {l}"))
        .unwrap_or_default();
    // clap's first line, plus the indented lines that complete it ("...not provided:\n  <CMD>...").
    let mut lines = rendered.lines().skip_while(|l| l.trim().is_empty());
    let mut first = lines
        .next()
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ")
        .to_string();
    if first.ends_with(':') {
        let rest: Vec<&str> = lines
            .take_while(|l| l.starts_with("  "))
            .map(str::trim)
            .collect();
        first = format!("{first} {}", rest.join(", "));
    }
    // clap's "tip: a similar argument exists: '--timeout'" (or subcommand, or value).
    let similar = rendered
        .lines()
        .map(str::trim)
        .find_map(|l| {
            let rest = l
                .strip_prefix("tip: a similar ")
                .or_else(|| l.strip_prefix("tip: some similar "))?;
            rest.split_once(" exists: ")
                .or_else(|| rest.split_once(" exist: "))
        })
        .map(|(_, what)| format!("; did you mean {}?", what.replace(", ", " or ")))
        .unwrap_or_default();
    let command = usage_command(&rendered);
    let invalid = match e.get(clap::error::ContextKind::InvalidArg) {
        Some(clap::error::ContextValue::String(arg)) if e.kind() == ErrorKind::UnknownArgument => {
            Some(arg.as_str())
        }
        _ => None,
    };
    // Our own hint, where we know better than clap's nearest spelling.
    let similar = invalid
        .and_then(|arg| unknown_argument_hint(&command, arg))
        .unwrap_or(similar);
    let _ = writeln!(
        std::io::stderr(),
        "mcpcheck: error: {first}{possible}{similar}; see `{command} --help`"
    );
    ExitCode::from(Error::EXIT_CODE)
}

/// Flags people reach for under another name, which clap's nearest spelling misses
/// (`--runs` is nearer `--request` than `--repeat`): (subcommand, their word, ours).
const NAMED_OTHERWISE: &[(&str, &str, &str)] = &[
    ("mcpcheck guard", "--runs", "--repeat"),
    ("mcpcheck guard", "--times", "--repeat"),
    ("mcpcheck guard", "--count", "--repeat"),
    ("mcpcheck guard", "--iterations", "--repeat"),
    ("mcpcheck guard", "--timeout-ms", "--timeout"),
    ("mcpcheck guard", "--cmd", "--"),
    ("mcpcheck guard", "--command", "--"),
];

/// What to say about an argument the subcommand does not take: a server command given
/// without `--` (written out as it should be), or a flag named as another tool names it.
fn unknown_argument_hint(command: &str, arg: &str) -> Option<String> {
    let takes_a_server = matches!(command, "mcpcheck guard" | "mcpcheck proxy");
    if takes_a_server && !arg.starts_with('-') {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let subcommand = args.iter().position(|a| !a.starts_with('-'))?;
        let at = subcommand + 1 + args[subcommand + 1..].iter().position(|a| a == arg)?;
        let fixed = args[..at]
            .iter()
            .map(String::as_str)
            .chain(["--"])
            .chain(args[at..].iter().map(String::as_str));
        return Some(format!(
            "; the server command goes after `--`: mcpcheck {}",
            crate::shell::join(fixed)
        ));
    }
    let name = arg.split('=').next().unwrap_or(arg);
    let (_, _, ours) = NAMED_OTHERWISE
        .iter()
        .find(|(sub, theirs, _)| *sub == command && *theirs == name)?;
    Some(if *ours == "--" {
        "; the server command goes after `--`, as in `mcpcheck guard -- node dist/index.js`"
            .to_string()
    } else {
        format!("; did you mean '{ours}'?")
    })
}

/// The command whose help to point at (`mcpcheck guard`): the usage clap showed, else the
/// first subcommand named on the command line.
fn usage_command(rendered: &str) -> String {
    use clap::CommandFactory;
    let shown = rendered
        .lines()
        .find_map(|l| l.trim().strip_prefix("Usage: "))
        .map(|usage| {
            usage
                .split_whitespace()
                .take_while(|w| !w.starts_with(['[', '<', '-']))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|c| c.starts_with("mcpcheck") && c.contains(' '));
    shown.unwrap_or_else(|| {
        let cli = Cli::command();
        let names: Vec<String> = cli
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        std::env::args()
            .skip(1)
            .find(|a| names.contains(a))
            .map_or_else(|| "mcpcheck".to_string(), |name| format!("mcpcheck {name}"))
    })
}
