//! What every human report shares: ANSI styling and the body under a finding's headline.

use crate::finding::{excerpt, plural, Finding, Severity};
use crate::verdict::{Status, Verdict};
use std::fmt::Write;

/// ANSI styling; the command layer decides whether colour is on.
#[derive(Clone, Copy)]
pub struct Style {
    pub color: bool,
}

impl Style {
    pub(crate) fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// A severity's name, in its colour.
    pub(crate) fn severity(self, severity: Severity) -> String {
        match severity {
            Severity::Error => self.paint("31", "error"),
            Severity::Warning => self.paint("33", "warning"),
            Severity::Note => self.paint("36", "note"),
        }
    }
}

/// A report's first word: the verdict's headline in its colour.
pub(crate) fn headline(style: Style, status: Status) -> String {
    let code = match status {
        Status::Pass => "1;32",
        Status::Warning => "1;33",
        Status::NeedsInspection | Status::Fail => "1;31",
    };
    style.paint(code, status.headline())
}

/// The headline of a report without runtime findings (source, surface): every failure is
/// plain FAIL, never "needs inspection".
pub(crate) fn plain_headline(style: Style, status: Status) -> String {
    match status {
        Status::NeedsInspection => headline(style, Status::Fail),
        s => headline(style, s),
    }
}

/// A finding's first line: `label[code] place`, the place only when there is one.
pub(crate) fn finding_head(out: &mut String, style: Style, label: &str, f: &Finding) {
    let place = f.location.describe();
    let _ = writeln!(
        out,
        "{label}[{}]{}",
        style.paint("1", f.code.as_str()),
        if place.is_empty() {
            String::new()
        } else {
            format!(" {place}")
        }
    );
}

/// What every human report says under a finding's headline: its message, its evidence
/// (under `evidence_label`) and its fix.
pub(crate) fn finding_body(out: &mut String, f: &Finding, evidence_label: &str) {
    let _ = writeln!(out, "  {}", f.message);
    if let Some(ev) = &f.evidence {
        let _ = writeln!(out, "  {evidence_label}: {ev}");
    }
    if let Some(lines) = &f.stderr_excerpt {
        let _ = writeln!(out, "  stderr (excerpt):");
        for line in lines {
            let _ = writeln!(out, "    │ {line}");
        }
    }
    printed_by(out, f);
    let _ = writeln!(
        out,
        "  fix: {}",
        f.fix.as_deref().unwrap_or(f.code.meta().help)
    );
    if let Some(seen) = crate::catalog::clients::line(f.code.as_str()) {
        let _ = writeln!(out, "  clients: {seen}");
    }
}

/// Stray stdout traced to the source: the write, or the ranked writes, that could print it.
fn printed_by(out: &mut String, f: &Finding) {
    let Some(lines) = &f.printed_by else {
        return;
    };
    for traced in lines {
        let label = if lines.len() == 1 {
            String::new()
        } else {
            format!("stdout line {}: ", traced.stdout_line)
        };
        printed_line(out, &label, &traced.writes);
    }
}

fn printed_line(out: &mut String, label: &str, writes: &[crate::finding::SourceWrite]) {
    let shown = |w: &crate::finding::SourceWrite| {
        format!(
            "{}:{}:{} (`{}`)",
            excerpt(&w.file, 200),
            w.line,
            w.column,
            excerpt(&w.code, 100)
        )
    };
    match writes {
        [] => {
            let _ = writeln!(
                out,
                "  {label}printed by: no stdout write in the scanned source prints this line"
            );
        }
        [only] => {
            let _ = writeln!(out, "  {label}printed by {}", shown(only));
        }
        several => {
            let _ = writeln!(out, "  {label}printed by one of (best match first):");
            for (i, w) in several.iter().enumerate() {
                let _ = writeln!(out, "    {}. {}", i + 1, shown(w));
            }
        }
    }
}

/// The closing line of every human report that has a verdict: its counts, notes included.
pub(crate) fn closing_counts(out: &mut String, verdict: &Verdict<'_>) {
    let _ = writeln!(
        out,
        "\n{}, {}, {}",
        plural(verdict.errors, "error"),
        plural(verdict.warnings, "warning"),
        plural(verdict.notes, "note")
    );
}
