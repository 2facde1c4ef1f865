//! Thin edge: parse, run, map the outcome to an exit code (0 pass, 1 error findings, 2 usage).

use clap::Parser;
use mcpcheck::catalog;
use mcpcheck::cli::{Cli, Command, Format, GuardArgs, ProxyArgs, RulesArgs, UsageError};
use mcpcheck::report::{self, Verdict};
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
        Command::Proxy(args) => proxy(args),
        Command::Scan(args) => mcpcheck::scan::command::scan(*args),
        Command::Baseline(args) => mcpcheck::scan::command::baseline(*args),
        Command::Pin(args) => mcpcheck::scan::command::pin(*args),
        Command::Inventory(args) => mcpcheck::scan::command::inventory(*args),
        Command::Sweep(args) => mcpcheck::sweep::command(*args),
        Command::SweepReport(args) => mcpcheck::sweep::report::command(&args),
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
        Command::Surface(args) => {
            let (text, ok) = mcpcheck::surface::command::run(&args)?;
            write_stdout(&text)?;
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Rules(RulesArgs {
            markdown: Some(dir),
        }) => {
            let written = report::rule_docs::write_all(&dir)?;
            write_stdout(&format!(
                "wrote {} pages to {}\n",
                written.len(),
                dir.display()
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Action => Ok(mcpcheck::github::action::main()),
        Command::Init(init) => mcpcheck::github::init::run(&init).map(|()| ExitCode::SUCCESS),
        Command::Rules(_) => {
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
    let settings = mcpcheck::guard::options::resolve(&args)?;
    // The source scan (--scan, or `scan` in the config) runs beside the session.
    let scan_options = (!settings.scan.is_empty()).then(|| {
        let mut options = mcpcheck::source::ScanOptions::new(settings.scan.clone());
        options.fail_on_static = settings.fail_on_static;
        options
    });
    if let Some(options) = &scan_options {
        mcpcheck::source::validate(options).map_err(|e| UsageError(format!("--scan {e}")))?;
    }
    if let Some(path) = &settings.output {
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
    let to_terminal = settings.output.is_none() && std::io::stdout().is_terminal();
    let color = to_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let plan = report::output::OutputPlan::new(
        settings.format,
        args.anchor.as_deref(),
        args.category.clone(),
        color,
    )?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| UsageError(format!("cannot start the async runtime: {e}")))?;
    let output = settings.output.clone();
    let mut run = runtime.block_on(mcpcheck::guard::run(settings));
    if let Some(options) = &scan_options {
        let scan =
            mcpcheck::source::scan(options).map_err(|e| UsageError(format!("--scan {e}")))?;
        run.add_check("static", mcpcheck::source::CODES, scan.findings);
    }
    let verdict = Verdict::of(&run.findings);
    let exit_code = if verdict.ok() { 0 } else { 1 };
    let text = plan.render_guard(&run, exit_code)?;
    match &output {
        Some(path) => std::fs::write(path, text).map_err(|e| {
            UsageError(format!(
                "--output {}: cannot write ({e}); check the directory exists and is writable",
                path.display()
            ))
        })?,
        None => write_stdout(&text)?,
    }
    Ok(ExitCode::from(exit_code as u8))
}

fn proxy(args: ProxyArgs) -> Result<ExitCode, UsageError> {
    let Some((program, rest)) = args.command.split_first() else {
        return Err(UsageError("no server command: give it after `--`".into()));
    };
    if args.format != Format::Json && args.report.is_some() {
        return Err(UsageError(
            "--report is written as JSON: use --format json".into(),
        ));
    }
    let options = mcpcheck::proxy::ProxyOptions {
        command: mcpcheck::process::ServerCommand {
            program: program.clone(),
            args: rest.to_vec(),
            cwd: None,
            env: Vec::new(),
            clear_env: false,
        },
        name: args.name,
        log: args.log,
        report: args.report,
        timeout: std::time::Duration::from_millis(args.timeout.max(1)),
        shutdown_grace: std::time::Duration::from_millis(args.shutdown_grace),
        check_backlog: usize::try_from(args.check_backlog * 1024).unwrap_or(usize::MAX),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| UsageError(format!("cannot start the async runtime: {e}")))?;
    let sarif = args.sarif;
    let outcome = runtime.block_on(mcpcheck::proxy::run(options));
    if let Some(path) = sarif {
        let written = report::output::render_findings(
            Format::Sarif,
            "proxy",
            &outcome.findings,
            outcome.exit_code,
        )
        .and_then(|doc| {
            std::fs::write(&path, doc)
                .map_err(|e| UsageError(format!("--sarif {}: cannot write ({e})", path.display())))
        });
        if let Err(e) = written {
            // The client's session is over; the exit code stays the server's.
            let _ = writeln!(std::io::stderr(), "mcpcheck: {e}");
        }
    }
    // stdin's reader may still sit in a blocking read; the session is over, so leave now
    // with the server's exit code, as the client expects.
    let _ = std::io::stdout().flush();
    std::process::exit(outcome.exit_code)
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
