//! `mcpcheck source`: flags → `ScanOptions`, the scan, the report, the exit code (1 when a
//! finding is an error, as under `--fail-on-static`).

use super::cli::{ColorChoice, Format, SourceArgs};
use super::io::{json_text, Output};
use super::render::render_findings;
use crate::error::Error;
use crate::gate::Gate;
use crate::report::human::Style;
use std::process::ExitCode;

impl SourceArgs {
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
            prefilter: true,
            all_transports: self.all_transports,
        }
    }
}

/// `--fix` writes the rewrites and prints the summary; `--diff` prints them as a diff (the
/// summary goes to stderr) and writes nothing.
fn fix(
    args: &SourceArgs,
    scan: &crate::source::SourceScan,
    roots: &[std::path::PathBuf],
    output: &Output,
    format: Format,
) -> Result<ExitCode, Error> {
    if format != Format::Human {
        return Err(Error::Usage(
            "--fix and --diff print a diff or a summary, not a report: drop --format/--json (SARIF reports carry the same rewrites as fixes)".into(),
        ));
    }
    let plan = crate::source::fix::plan(scan, roots);
    let summary = crate::report::source::fix::summary(&plan, args.diff);
    if args.diff {
        output.write(&crate::source::fix::unified_diff(&plan))?;
        for line in summary.lines() {
            super::io::note(line);
        }
    } else {
        crate::source::fix::apply(&plan)?;
        output.write(&summary)?;
    }
    // Clean means nothing is left: after --fix, no write that needs a person; under --diff,
    // no rewrite to make either (as `git diff --exit-code`).
    let left = plan.not_fixable.len() + plan.refused.len();
    let pending = if args.diff { plan.fixed() } else { 0 };
    Ok(super::verdict_exit(left + pending == 0))
}

pub fn run(args: &SourceArgs, color: ColorChoice) -> Result<ExitCode, Error> {
    let options = args.scan_options();
    crate::source::validate(&options).map_err(|e| Error::Usage(e.to_string()))?;
    let format = args.format.chosen()?;
    let output = Output::new("--output", args.output.as_deref(), color)?;
    let scan = crate::source::scan(&options).map_err(|e| Error::Input(e.to_string()))?;
    if args.fix || args.diff {
        return fix(args, &scan, &options.roots, &output, format);
    }
    let ok = Gate::default().passes(&scan.findings);
    let text = match format {
        Format::Json => json_text(&crate::report::source::json::render(&scan))?,
        // Paths a terminal can open: from the working directory, not from the scanned root.
        Format::Human => crate::report::source::human::render(
            &crate::source::SourceScan {
                findings: crate::source::rooted(scan.findings.clone(), &options.roots),
                ..scan.clone()
            },
            Style {
                color: output.color(),
            },
        ),
        format @ (Format::Sarif | Format::Markdown) => render_findings(
            format,
            "source",
            &crate::source::rooted(scan.findings.clone(), &options.roots),
            i32::from(!ok),
        )?,
    };
    output.write(&text)?;
    if scan.stats.files_scanned == 0 {
        // As ruff warns: a pass over nothing is more likely a wrong path than a clean tree.
        super::io::note(&format!(
            "no source file found under {} (JavaScript, TypeScript, Python, Go, Rust, Java, Kotlin, C#); check the path",
            options
                .roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(super::verdict_exit(ok))
}
