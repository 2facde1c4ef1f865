//! The source scan for people: a headline, what was scanned and skipped, then each finding
//! with its snippet and fix.

use crate::finding::excerpt;
use crate::finding::plural;
use crate::report::human::{closing_counts, finding_body, plain_headline, Style};
use crate::source::SourceScan;
use crate::verdict::Verdict;
use std::fmt::Write;

pub fn render(scan: &SourceScan, style: Style) -> String {
    let verdict = Verdict::of(&scan.findings);
    let stats = &scan.stats;
    let mut out = String::new();
    let headline = plain_headline(style, verdict.status);
    let _ = writeln!(
        out,
        "{headline}  mcpcheck source: {}",
        excerpt(&scan.roots.join(" "), 300)
    );
    let languages: Vec<String> = stats
        .languages
        .iter()
        .map(|(l, n)| format!("{l} {n}"))
        .collect();
    let _ = writeln!(
        out,
        "  scanned: {}{} · parsed: {}{}",
        plural(stats.files_scanned, "file"),
        if languages.is_empty() {
            String::new()
        } else {
            format!(" ({})", languages.join(", "))
        },
        stats.files_parsed,
        if stats.files_with_syntax_errors > 0 {
            format!(" ({} with syntax errors)", stats.files_with_syntax_errors)
        } else {
            String::new()
        }
    );
    let files: Vec<String> = stats
        .skipped_files
        .iter()
        .map(|(r, n)| format!("{} {n}", r.as_str()))
        .collect();
    let dirs: Vec<String> = stats
        .skipped_dirs
        .iter()
        .map(|(r, n)| format!("{} {n}", r.as_str()))
        .collect();
    let _ = writeln!(
        out,
        "  skipped: {}{} · {}{} · {} · {} suppressed",
        plural(stats.files_skipped(), "file"),
        if files.is_empty() {
            String::new()
        } else {
            format!(" ({})", files.join(", "))
        },
        directories(stats.skipped_dirs.values().sum()),
        if dirs.is_empty() {
            String::new()
        } else {
            format!(" ({})", dirs.join(", "))
        },
        plural(stats.other_files, "other file"),
        stats.suppressed
    );
    for f in &scan.findings {
        let sev = style.severity(f.severity);
        let _ = writeln!(
            out,
            "\n{sev}[{}] {}",
            style.paint("1", f.code.as_str()),
            f.location.describe()
        );
        finding_body(&mut out, f, "code");
    }
    closing_counts(&mut out, &verdict);
    let roots: Vec<&str> = scan.roots.iter().map(String::as_str).collect();
    off_stdio(&mut out, &scan.findings, &roots);
    fixable(&mut out, &scan.findings, &roots);
    out
}

/// How many writes are notes because they never run under stdio, by detail code, and the
/// command that reports them as warnings.
fn off_stdio(out: &mut String, findings: &[crate::finding::Finding], roots: &[&str]) {
    let mut by_detail: std::collections::BTreeMap<&str, usize> = Default::default();
    for f in findings {
        if let (crate::finding::Severity::Note, Some(detail)) = (f.severity, f.detail_code) {
            if crate::source::OFF_STDIO_DETAILS.contains(&detail) {
                *by_detail.entry(detail).or_default() += 1;
            }
        }
    }
    let n: usize = by_detail.values().sum();
    if n == 0 {
        return;
    }
    let details: Vec<String> = by_detail.iter().map(|(d, n)| format!("{d} {n}")).collect();
    let command = crate::shell::join(
        ["mcpcheck", "source", "--all-transports"]
            .into_iter()
            .chain(roots.iter().copied()),
    );
    let _ = writeln!(
        out,
        "{n} {} off the stdio path reported as notes ({}): `{command}` reports them as warnings",
        if n == 1 { "write" } else { "writes" },
        details.join(", ")
    );
}

/// As ruff's `[*] 1 fixable with the --fix option`: how many findings `source --fix`
/// rewrites, and the command that does it.
pub(crate) fn fixable(out: &mut String, findings: &[crate::finding::Finding], roots: &[&str]) {
    let n = findings.iter().filter(|f| f.replacement.is_some()).count();
    if n == 0 {
        return;
    }
    let command = crate::shell::join(
        ["mcpcheck", "source", "--fix"]
            .into_iter()
            .chain(roots.iter().copied()),
    );
    let _ = writeln!(
        out,
        "[*] {n} fixable with `{command}` (`--diff` instead of `--fix` shows the rewrites first)"
    );
}

fn directories(n: usize) -> String {
    format!("{n} {}", if n == 1 { "directory" } else { "directories" })
}
