//! Thin edge: parse, run, map the outcome to an exit code (0 pass, 1 error findings, 2 usage).

use clap::Parser;
use mcpcheck::catalog;
use mcpcheck::cli::{Cli, Command, Format, GuardArgs, UsageError};
use mcpcheck::report::{self, human::Style, Verdict};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_error(e),
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "mcpcheck: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Help and version go to stdout; usage errors become one line on stderr with exit code 2.
fn clap_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let rendered = e.render().to_string();
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
    let _ = writeln!(
        std::io::stderr(),
        "mcpcheck: error: {first}; see `mcpcheck --help`"
    );
    ExitCode::from(2)
}

fn run(cli: Cli) -> Result<ExitCode, UsageError> {
    match cli.command {
        Command::Guard(args) => guard(*args),
        Command::Source(args) => mcpcheck::source::command::run(&args),
        Command::Explain { code } => {
            let Some(code) = catalog::Code::from_name(&code) else {
                return Err(UsageError(format!(
                    "unknown code {:?}; `mcpcheck rules` lists them",
                    mcpcheck::finding::excerpt(&code, 60)
                )));
            };
            let meta = code.meta();
            write_stdout(&format!(
                "{} ({}, {}, default {})\n{}\n\n{}\n",
                meta.code,
                meta.title,
                meta.class.as_str(),
                meta.severity.as_str(),
                "-".repeat(meta.code.len()),
                meta.help
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Rules => {
            let mut text = String::new();
            for code in catalog::ALL {
                let m = code.meta();
                text.push_str(&format!(
                    "{:<38} {:<8} {:<15} {}\n",
                    m.code,
                    m.severity.as_str(),
                    m.class.as_str(),
                    m.title
                ));
            }
            write_stdout(&text)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn guard(args: GuardArgs) -> Result<ExitCode, UsageError> {
    let command = args.server_command()?;
    let plan = args.session_plan()?;
    let scan_options = args.scan_options();
    if let Some(options) = &scan_options {
        mcpcheck::source::validate(options).map_err(|e| UsageError(format!("--scan {e}")))?;
    }
    if let Some(path) = &args.output {
        // Fail before the server runs, not after.
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => std::path::Path::new("."),
        };
        if !dir.is_dir() {
            return Err(UsageError(format!(
                "--output {}: the directory does not exist; create it or choose another path",
                path.display()
            )));
        }
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| UsageError(format!("cannot start the async runtime: {e}")))?;
    let mut run = runtime.block_on(mcpcheck::guard::run(command, plan));
    if let Some(options) = &scan_options {
        let scan =
            mcpcheck::source::scan(options).map_err(|e| UsageError(format!("--scan {e}")))?;
        run.add_check("static", mcpcheck::source::CODES, scan.findings);
    }
    let text = match args.format() {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&report::json::render(&run))
                .map_err(|e| UsageError(format!("cannot serialise the report: {e}")))?;
            s.push('\n');
            s
        }
        Format::Human => {
            let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
            let color = to_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
            report::human::render(&run, Style { color })
        }
    };
    match &args.output {
        Some(path) => std::fs::write(path, text).map_err(|e| {
            UsageError(format!(
                "--output {}: cannot write ({e}); check the directory exists and is writable",
                path.display()
            ))
        })?,
        None => write_stdout(&text)?,
    }
    let verdict = Verdict::of(&run.findings);
    Ok(if verdict.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn write_stdout(text: &str) -> Result<(), UsageError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is the reader's choice, not an error worth a panic.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(UsageError(format!("cannot write to stdout: {e}"))),
    }
}
