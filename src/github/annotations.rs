//! `::error` and `::warning` annotations with file and line, at most ten of each (GitHub
//! shows no more per step), and a notice counting the rest.

use super::commands::{escape_data, escape_property};
use crate::finding::{excerpt, Finding, Severity};
use crate::report::document::Report;

/// GitHub displays at most this many annotations of each level per step.
pub const MAX_PER_LEVEL: usize = 10;
const MESSAGE_CHARS: usize = 1_000;

/// The annotation command lines for a report, in report order.
pub fn lines(report: &Report) -> Vec<String> {
    let mut out = Vec::new();
    let mut omitted = [0usize; 2];
    for (slot, severity) in [(0, Severity::Error), (1, Severity::Warning)] {
        let of_level: Vec<&Finding> = report
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .collect();
        for f in of_level.iter().take(MAX_PER_LEVEL) {
            out.push(line(report, f));
        }
        omitted[slot] = of_level.len().saturating_sub(MAX_PER_LEVEL);
    }
    if omitted.iter().any(|&n| n > 0) {
        out.push(format!(
            "::notice title=mcpcheck::{} more errors and {} more warnings are not annotated (GitHub shows at most {MAX_PER_LEVEL} of each per step); the job summary and the SARIF file list them all.",
            omitted[0], omitted[1]
        ));
    }
    out
}

fn line(report: &Report, f: &Finding) -> String {
    let command = match f.severity {
        Severity::Error => "error",
        _ => "warning",
    };
    let own = f
        .location
        .file
        .as_deref()
        .and_then(|p| report.repo.relative(std::path::Path::new(p)));
    let mut props = Vec::new();
    match (&own, &report.anchor) {
        (Some(rel), _) => {
            props.push(format!("file={}", escape_property(rel)));
            if let Some(l) = f.location.line {
                props.push(format!("line={l}"));
            }
            if let Some(c) = f.location.column {
                props.push(format!("col={c}"));
            }
            if let Some(l) = f.location.end_line {
                props.push(format!("endLine={l}"));
            }
        }
        (None, Some(anchor)) => {
            props.push(format!("file={}", escape_property(anchor)));
            props.push("line=1".into());
        }
        (None, None) => {}
    }
    props.push(format!(
        "title={}",
        escape_property(&format!("mcpcheck {}", f.code.as_str()))
    ));
    let mut message = f.message.clone();
    let place = f.location.describe();
    if own.is_none() && !place.is_empty() {
        message.push_str(&format!(" (at {place})"));
    }
    if let Some(ev) = &f.evidence {
        message.push_str(&format!(" Evidence: {ev}"));
    }
    format!(
        "::{command} {}::{}",
        props.join(","),
        escape_data(&excerpt(&message, MESSAGE_CHARS))
    )
}
