//! Markdown: one renderer for the job summary, the pull-request comment and
//! `--format markdown`. Every piece of untrusted text goes through `md`.

use super::document::{help_uri, CheckStatus, Report};
use super::markdown_escape as md;
use crate::finding::plural;
use crate::finding::{Finding, Severity};
use crate::verdict::Status;
use std::fmt::Write;

/// The first line of the sticky pull-request comment, by which later runs find it.
pub const COMMENT_MARKER: &str = "<!-- mcpcheck:sticky-comment -->";
/// GitHub refuses comments of 65,536 characters or more.
pub const COMMENT_MAX_CHARS: usize = 65_000;
/// GitHub refuses step summaries of 1 MiB or more.
pub const SUMMARY_MAX_BYTES: usize = 1_000_000;

const MESSAGE_CHARS: usize = 400;
const EVIDENCE_CHARS: usize = 160;
const COMMAND_CHARS: usize = 2_000;

/// What the document is for: where it goes decides its limits and marker.
#[derive(Debug, Clone)]
pub struct MarkdownOptions {
    /// A hidden first line (the sticky comment's marker).
    pub marker: Option<&'static str>,
    /// Most findings listed before the rest are summarised.
    pub max_findings: usize,
    /// The document stays under this many bytes (chars for comments are never more).
    pub max_bytes: usize,
    /// Notes about delivery (a comment that could not be posted...), shown with the notices.
    pub extra_notes: Vec<String>,
}

impl MarkdownOptions {
    pub fn summary() -> Self {
        Self {
            marker: None,
            max_findings: 1_000,
            max_bytes: SUMMARY_MAX_BYTES,
            extra_notes: Vec::new(),
        }
    }

    pub fn comment() -> Self {
        Self {
            marker: Some(COMMENT_MARKER),
            max_findings: 50,
            max_bytes: COMMENT_MAX_CHARS,
            extra_notes: Vec::new(),
        }
    }

    /// `--format markdown`: the same document as the job summary.
    pub fn document() -> Self {
        Self::summary()
    }
}

/// Renders the report, listing fewer findings until it fits the size limit.
pub fn render(report: &Report, options: &MarkdownOptions) -> String {
    let mut shown = options.max_findings.min(report.findings.len());
    loop {
        let doc = render_with(report, options, shown);
        if doc.len() <= options.max_bytes {
            return doc;
        }
        if shown == 0 {
            // Only a pathological header could get here; cut on a character boundary.
            let mut end = options.max_bytes.saturating_sub(64);
            while !doc.is_char_boundary(end) {
                end -= 1;
            }
            return format!("{}\n\n*(truncated to fit GitHub's limit)*\n", &doc[..end]);
        }
        shown /= 2;
    }
}

fn render_with(report: &Report, options: &MarkdownOptions, shown: usize) -> String {
    let verdict = report.verdict();
    let mut out = String::new();
    if let Some(marker) = options.marker {
        let _ = writeln!(out, "{marker}");
    }
    let icon = match verdict.status {
        Status::Pass => "✅",
        Status::Warning => "⚠️",
        Status::NeedsInspection | Status::Fail => "❌",
    };
    let _ = writeln!(
        out,
        "## {icon} mcpcheck {}: {}\n",
        report.engine,
        verdict.status.headline()
    );
    let _ = writeln!(
        out,
        "**{}** · {}, {}, {}\n",
        md::text(&verdict.display(), 200),
        plural(verdict.errors, "error"),
        plural(verdict.warnings, "warning"),
        plural(verdict.notes, "note")
    );
    checks(&mut out, report);
    findings(&mut out, report, shown);
    notices(&mut out, report, &options.extra_notes);
    what_was_run(&mut out, report);
    reproduce(&mut out, report);
    let _ = writeln!(
        out,
        "<sub>{} {}</sub>",
        super::document::TOOL_NAME,
        super::document::TOOL_VERSION
    );
    out
}

fn checks(out: &mut String, report: &Report) {
    if report.checks.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "### Checks\n\n| Check | Status | Findings |\n|---|---|---|"
    );
    for row in &report.checks {
        let status = match row.status {
            CheckStatus::Pass => "✅ pass",
            CheckStatus::Warning => "⚠️ warning",
            CheckStatus::Fail => "❌ fail",
            CheckStatus::NotChecked => "➖ not checked",
        };
        let codes: Vec<String> = row
            .codes
            .iter()
            .map(|c| format!("[`{}`]({})", c.as_str(), help_uri(*c)))
            .collect();
        let _ = writeln!(
            out,
            "| {} | {status} | {} |",
            md::text(&row.name, 60),
            codes.join(" ")
        );
    }
    out.push('\n');
}

/// Under the table, what the server's stderr said about each crash or hang listed, folded.
fn stderr_excerpts(out: &mut String, listed: &[&Finding]) {
    for f in listed {
        let Some(lines) = &f.stderr_excerpt else {
            continue;
        };
        let _ = write!(
            out,
            "\n<details><summary>stderr of <code>{}</code></summary>\n\n{}\n</details>\n",
            f.code.as_str(),
            md::block(&lines.join("\n"), "text")
        );
    }
}

fn findings(out: &mut String, report: &Report, shown: usize) {
    if report.findings.is_empty() {
        let _ = writeln!(out, "No findings.\n");
        return;
    }
    let _ = writeln!(
        out,
        "### Findings\n\n| Severity | Code | Finding | Location |\n|---|---|---|---|"
    );
    // The verdict's order: the finding the headline names comes first.
    let ordered = crate::verdict::ranked(&report.findings);
    for f in ordered.iter().copied().take(shown) {
        let severity = match f.severity {
            Severity::Error => "❌ error",
            Severity::Warning => "⚠️ warning",
            Severity::Note => "ℹ️ note",
        };
        let mut what = md::prose(&f.message, MESSAGE_CHARS);
        if let Some(ev) = &f.evidence {
            let _ = write!(what, " — evidence: {}", md::code(ev, EVIDENCE_CHARS));
        }
        for traced in f.printed_by.iter().flatten() {
            let _ = write!(
                what,
                " — stdout line {} {}",
                traced.stdout_line,
                printed_by(&traced.writes)
            );
        }
        let fix = f.fix.as_deref().unwrap_or(f.code.meta().help);
        let _ = write!(what, " — **fix:** {}", md::prose(fix, MESSAGE_CHARS));
        if let Some(seen) = crate::catalog::clients::line(f.code.as_str()) {
            let _ = write!(what, " — **clients:** {}", md::prose(&seen, MESSAGE_CHARS));
        }
        let _ = writeln!(
            out,
            "| {severity} | [`{}`]({}) | {} | {} |",
            f.code.as_str(),
            help_uri(f.code),
            md::cell(&what),
            md::cell(&location(report, f))
        );
    }
    stderr_excerpts(out, &ordered[..shown.min(ordered.len())]);
    let hidden = &ordered[shown.min(ordered.len())..];
    if !hidden.is_empty() {
        let count = |s: Severity| hidden.iter().filter(|f| f.severity == s).count();
        let _ = writeln!(
            out,
            "\n…and {} not listed here ({}, {}, {}); the SARIF file and the JSON report have them all.",
            plural(hidden.len(), "more finding"),
            plural(count(Severity::Error), "error"),
            plural(count(Severity::Warning), "warning"),
            plural(count(Severity::Note), "note")
        );
    }
    out.push('\n');
}

/// A finding's place: a linked file position when it has one, and its protocol location.
fn location(report: &Report, f: &Finding) -> String {
    let mut parts = Vec::new();
    let file = f
        .location
        .file
        .as_deref()
        .and_then(|p| report.repo.relative(std::path::Path::new(p)));
    if let Some(rel) = file {
        let label = match f.location.line {
            Some(l) => format!("{rel}:{l}"),
            None => rel.clone(),
        };
        let code = md::code(&label, 200);
        parts.push(match &report.repo.link {
            Some(link) => format!("[{code}]({})", link.url(&rel, f.location.line)),
            None => code,
        });
    } else if let Some(p) = &f.location.file {
        let line = f.location.line.map(|l| format!(":{l}")).unwrap_or_default();
        parts.push(md::code(&format!("{p}{line}"), 200));
    }
    let protocol = crate::finding::Location {
        file: None,
        line: None,
        column: None,
        end_line: None,
        end_column: None,
        ..f.location.clone()
    }
    .describe();
    if !protocol.is_empty() {
        parts.push(md::text(&protocol, 200));
    }
    parts.join(" · ")
}

/// "printed by `src/index.js:7` (`console.log(…)`)", ranked when several writes match.
fn printed_by(writes: &[crate::finding::SourceWrite]) -> String {
    let shown: Vec<String> = writes
        .iter()
        .map(|w| {
            format!(
                "{} ({})",
                md::code(&format!("{}:{}", w.file, w.line), 200),
                md::code(&w.code, 100)
            )
        })
        .collect();
    match shown.as_slice() {
        [] => "printed by: no stdout write in the scanned source prints this line".into(),
        [only] => format!("printed by {only}"),
        several => format!("printed by one of (best first): {}", several.join(", ")),
    }
}

fn notices(out: &mut String, report: &Report, extra: &[String]) {
    if report.notices.is_empty() && extra.is_empty() {
        return;
    }
    let _ = writeln!(out, "### Notes\n");
    for note in report.notices.iter().chain(extra) {
        let _ = writeln!(out, "- {}", md::prose(note, 1_000));
    }
    out.push('\n');
}

fn what_was_run(out: &mut String, report: &Report) {
    // Rows first: a report that ran nothing it can name (a source scan) has no table.
    let mut rows = String::new();
    if !report.command.is_empty() {
        let _ = writeln!(
            rows,
            "| Command | {} |",
            md::cell(&md::code(
                &shell_words::join(&report.command),
                COMMAND_CHARS
            ))
        );
    }
    if let Some(server) = &report.server {
        let _ = writeln!(rows, "| Server | {} |", md::cell(&md::code(server, 120)));
    }
    if let Some(requested) = &report.protocol {
        let negotiated = report.negotiated.as_deref().unwrap_or("not negotiated");
        let _ = writeln!(
            rows,
            "| Protocol | {} (requested {}) |",
            md::text(negotiated, 40),
            md::text(requested, 40)
        );
    }
    if let Some(profile) = &report.profile {
        let _ = writeln!(rows, "| Profile | {} |", md::text(profile, 40));
    }
    if let Some(ms) = report.duration_ms {
        let _ = writeln!(rows, "| Duration | {ms} ms |");
    }
    if let Some(anchor) = &report.anchor {
        let code = md::code(anchor, 200);
        let shown = match &report.repo.link {
            Some(link) => format!("[{code}]({})", link.url(anchor, None)),
            None => code,
        };
        let _ = writeln!(rows, "| Anchor file | {} |", md::cell(&shown));
    }
    if !rows.is_empty() {
        let _ = writeln!(out, "### What was run\n\n| | |\n|---|---|\n{rows}");
    }
    if !report.operations.is_empty() {
        let _ = writeln!(
            out,
            "<details><summary>Requests ({})</summary>\n\n| Method | Outcome | Latency |\n|---|---|---|",
            report.operations.len()
        );
        for op in report.operations.iter().take(200) {
            let latency = op
                .latency_ms
                .map(|ms| format!("{ms} ms"))
                .unwrap_or_else(|| "—".into());
            let _ = writeln!(
                out,
                "| {} | {} | {latency} |",
                md::cell(&md::code(&op.method, 60)),
                md::text(&op.outcome, 20)
            );
        }
        if report.operations.len() > 200 {
            let _ = writeln!(out, "\n…and {} more.", report.operations.len() - 200);
        }
        let _ = writeln!(out, "\n</details>\n");
    }
}

fn reproduce(out: &mut String, report: &Report) {
    if report.reproduce.is_empty() {
        return;
    }
    let lines: Vec<String> = report
        .reproduce
        .iter()
        .map(|l| crate::finding::excerpt(l, COMMAND_CHARS))
        .collect();
    let _ = writeln!(
        out,
        "### Reproduce locally\n\n{}",
        md::block(&lines.join("\n"), "sh")
    );
}
