//! `mcpcheck source`: the command-line edge of the source scan (scan, render, exit code).

use crate::cli::{Format, SourceArgs, UsageError};
use crate::report::{self, human::Style, Verdict};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// Runs the scan and writes the report; exit code 1 if a finding is an error (`--fail-on-static`).
pub fn run(args: &SourceArgs) -> Result<ExitCode, UsageError> {
    let options = args.scan_options();
    super::validate(&options).map_err(|e| UsageError(e.to_string()))?;
    check_output_dir(args.output.as_deref())?;
    let scan = super::scan(&options).map_err(|e| UsageError(e.to_string()))?;
    let text = match args.format.chosen() {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&report::source_json::render(&scan))
                .map_err(|e| UsageError(format!("cannot serialise the report: {e}")))?;
            s.push('\n');
            s
        }
        Format::Human => {
            let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
            let color = to_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
            report::source_human::render(&scan, Style { color })
        }
        format @ (Format::Sarif | Format::Markdown) => report::output::render_findings(
            format,
            "source",
            &super::rooted(scan.findings.clone(), &options.roots),
            i32::from(!Verdict::of(&scan.findings).ok()),
        )?,
    };
    match &args.output {
        Some(path) => std::fs::write(path, text).map_err(|e| {
            UsageError(format!(
                "--output {}: cannot write ({e}); check the directory exists and is writable",
                path.display()
            ))
        })?,
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                // A closed pipe (`| head`) is the reader's choice.
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    return Err(UsageError(format!("cannot write to stdout: {e}")))
                }
                _ => {}
            }
        }
    }
    Ok(if Verdict::of(&scan.findings).ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `--output` into a directory that does not exist is a usage error before any work.
fn check_output_dir(path: Option<&std::path::Path>) -> Result<(), UsageError> {
    let Some(path) = path else {
        return Ok(());
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    if dir.is_dir() {
        Ok(())
    } else {
        Err(UsageError(format!(
            "--output {}: the directory does not exist; create it or choose another path",
            path.display()
        )))
    }
}
