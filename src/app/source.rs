//! `mcpcheck source`: flags → `ScanOptions`, the scan, the report, the exit code (1 when a
//! finding is an error, as under `--fail-on-static`).

use super::cli::{ColorChoice, Format, SourceArgs};
use super::io::{json_text, Output};
use super::render::render_findings;
use crate::error::Error;
use crate::gate::Gate;
use crate::report::human::Style;
use crate::report::printed::Printed;
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
    let nothing_scanned =
        (scan.stats.files_scanned == 0).then(|| nothing_scanned(&options.roots, &scan.stats));
    let text: Printed = match format {
        Format::Json => json_text(&crate::report::source::json::render(&scan))?.into(),
        // Paths a terminal can open: from the working directory, not from the scanned root.
        Format::Human => crate::report::source::human::render(
            &crate::source::SourceScan {
                findings: crate::source::rooted(scan.findings, &options.roots),
                ..scan
            },
            Style {
                color: output.color(),
            },
        )
        .into(),
        format @ (Format::Sarif | Format::Markdown) => render_findings(
            format,
            "source",
            crate::source::rooted(scan.findings, &options.roots),
            i32::from(!ok),
        )?,
    };
    output.write_printed(&text)?;
    if let Some(note) = nothing_scanned {
        super::io::note(&note);
    }
    Ok(super::verdict_exit(ok))
}

/// Why a scan read no source file: what the walking rules left out and the flag that
/// includes it, or, with nothing left out, that no file is in a supported language.
fn nothing_scanned(roots: &[std::path::PathBuf], stats: &crate::source::ScanStats) -> String {
    use crate::source::walk::{DirSkip, FileSkip};
    let roots = roots
        .iter()
        .map(|r| crate::finding::excerpt(&r.display().to_string(), 200))
        .collect::<Vec<_>>()
        .join(", ");
    let mut left_out: Vec<String> = Vec::new();
    for (reason, n) in &stats.skipped_dirs {
        let how = match reason {
            DirSkip::Dependency => "of dependencies or build output (node_modules, dist, build, .venv...; --no-default-excludes scans them)",
            DirSkip::Test => "of tests (--include-tests scans them)",
            DirSkip::Excluded => "matching --exclude",
            DirSkip::Symlink => "behind symbolic links (give the target's path)",
        };
        let dirs = if *n == 1 { "directory" } else { "directories" };
        left_out.push(format!("{n} {dirs} {how}"));
    }
    for (reason, n) in &stats.skipped_files {
        let (kind, how) = match reason {
            FileSkip::Test => ("test ", " (--include-tests scans them)"),
            FileSkip::Excluded => ("", " left out by --include or --exclude"),
            FileSkip::TooLarge => ("", " over --max-file-bytes (raise it)"),
            FileSkip::Minified | FileSkip::Generated => {
                ("minified or generated ", " (give a file's path to scan it)")
            }
            FileSkip::Symlink => ("", " behind symbolic links (give the target's path)"),
            FileSkip::Binary
            | FileSkip::Unreadable
            | FileSkip::ParseTimeout
            | FileSkip::Malformed => ("unreadable, binary or malformed ", ""),
        };
        let files = if *n == 1 { "file" } else { "files" };
        left_out.push(format!("{n} {kind}{files}{how}"));
    }
    if left_out.is_empty() {
        // As ruff warns: a pass over nothing is more likely a wrong path than a clean tree.
        format!(
            "no source file found under {roots} (JavaScript, TypeScript, Python, Go, Rust, Java, Kotlin, C#); check the path"
        )
    } else {
        format!(
            "no source file scanned under {roots}: the excludes left out {}",
            left_out.join(", ")
        )
    }
}
