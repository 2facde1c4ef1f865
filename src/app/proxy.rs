//! `mcpcheck proxy`: flags → `ProxyOptions`, the tapped session, the SARIF file, and the
//! server's own exit code handed back to the client.

use super::cli::{Format, ProxyArgs, ReportFormat};
use super::io::{check_destination, json_text, note, runtime, write_file, write_file_parts};
use super::render::render_findings;
use crate::error::Error;
use std::io::Write;
use std::process::ExitCode;

pub fn run(args: ProxyArgs) -> Result<ExitCode, Error> {
    let Some((program, rest)) = args.command.split_first() else {
        return Err(Error::Usage("no server command: give it after `--`".into()));
    };
    // One format exists today; the match keeps a new one from being accepted unwritten.
    match args.format {
        ReportFormat::Json => {}
    }
    // Every file the session will write must be creatable before the server starts.
    for (flag, path) in [
        ("--log", &args.log),
        ("--report", &args.report),
        ("--sarif", &args.sarif),
    ] {
        if let Some(path) = path {
            check_destination(flag, path)?;
        }
    }
    if let Some(path) = &args.log {
        let tightened = crate::proxy::prepare_log_file(path)
            .map_err(|e| Error::Usage(format!("--log {}: {e}", path.display())))?;
        if let Some(mode) = tightened {
            note(&format!(
                "--log {}: group or others could read it (mode {mode:04o}); made it 0600, as it records whole messages",
                path.display()
            ));
        }
    }
    let options = crate::proxy::ProxyOptions {
        command: crate::process::ServerCommand {
            program: program.clone(),
            args: rest.to_vec(),
            cwd: None,
            env: Vec::new(),
            clear_env: false,
            unset_env: Vec::new(),
        },
        name: args.name,
        log: args.log,
        timeout: std::time::Duration::from_millis(args.timeout.ms.max(1)),
        shutdown_grace: args.shutdown_grace.as_duration(),
        check_backlog: usize::try_from(args.check_backlog * 1024).unwrap_or(usize::MAX),
    };
    let outcome = runtime(None)?.block_on(crate::proxy::run(options));
    if let Some(path) = &args.report {
        let written = json_text(&crate::report::proxy::json(
            &outcome.summary,
            &outcome.findings,
        ))
        .and_then(|doc| write_file("--report", path, &doc));
        if let Err(e) = written {
            // The client's session is over; the exit code stays the server's.
            let _ = writeln!(std::io::stderr(), "mcpcheck: {e}");
        }
    }
    if let Some(path) = &args.sarif {
        let written = render_findings(
            Format::Sarif,
            "proxy",
            outcome.findings.clone(),
            outcome.exit_code,
        )
        .and_then(|doc| write_file_parts("--sarif", path, doc.parts()));
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
