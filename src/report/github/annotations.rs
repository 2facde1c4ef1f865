//! `::error` and `::warning` annotations with file and line, at most ten of each (GitHub
//! shows no more per step), and a notice counting the rest.

use super::workflow_commands::{escape_data, escape_property};
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
            "::notice title=mcpcheck::{} and {} are not annotated (GitHub shows at most {MAX_PER_LEVEL} of each per step); the job summary and the SARIF file list them all.",
            crate::finding::plural(omitted[0], "more error"),
            crate::finding::plural(omitted[1], "more warning")
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
    let mut message = excerpt(&message, MESSAGE_CHARS);
    // Each line of the excerpt is bounded and escaped already; GitHub shows them as lines.
    if let Some(lines) = &f.stderr_excerpt {
        message.push_str("\nstderr (excerpt):\n");
        message.push_str(&lines.join("\n"));
    }
    format!("::{command} {}::{}", props.join(","), escape_data(&message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Code;
    use crate::finding::Location;
    use crate::report::document::ReportContext;
    use crate::report::repo::RepoContext;

    fn report(dir: &std::path::Path, findings: Vec<Finding>, anchor: Option<&str>) -> Report {
        let mut r = Report::without_engine(ReportContext {
            repo: RepoContext {
                root: dir.canonicalize().expect("root"),
                link: None,
            },
            anchor: anchor.map(String::from),
            category: None,
            invocation: Vec::new(),
            exit_code: 1,
        });
        r.findings = findings;
        r
    }

    #[test]
    fn at_most_ten_of_each_level_and_a_notice_for_the_rest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut findings: Vec<Finding> = (0..15)
            .map(|i| Finding::new(Code::StdoutNonJson, format!("e{i}")))
            .collect();
        findings.extend((0..12).map(|i| Finding::new(Code::StdoutEmptyLine, format!("w{i}"))));
        findings.push(Finding::new(Code::AdversarialDuplicateIdResult, "a note"));
        let lines = lines(&report(dir.path(), findings, None));
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("::error ")).count(),
            10
        );
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("::warning ")).count(),
            10
        );
        assert_eq!(
            lines.last().map(String::as_str),
            Some("::notice title=mcpcheck::5 more errors and 2 more warnings are not annotated (GitHub shows at most 10 of each per step); the job summary and the SARIF file list them all.")
        );
        assert_eq!(lines.len(), 21, "notes are not annotated");
    }

    #[test]
    fn properties_and_messages_are_escaped() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a,b:c.py"), "x").expect("write");
        let f = Finding::new(Code::StdoutNonJson, "50% of\nlines")
            .at(Location {
                file: Some(dir.path().join("a,b:c.py").display().to_string()),
                line: Some(4),
                column: Some(2),
                ..Location::default()
            })
            .evidence("::error::x\r\n");
        let lines = lines(&report(dir.path(), vec![f], None));
        assert_eq!(
            lines[0],
            "::error file=a%2Cb%3Ac.py,line=4,col=2,title=mcpcheck stdout-non-json::50%25 of\\nlines Evidence: ::error::x\\r\\n"
        );
    }

    #[test]
    fn a_crash_carries_its_stderr_excerpt_escaped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut f = Finding::new(Code::ServerExited, "The server exited with code 1.")
            .evidence("stderr: Error: Cannot find module 'x'");
        f.stderr_excerpt = Some(vec![
            "…".into(),
            "Error: Cannot find module 'x'".into(),
            "::error::y".into(),
        ]);
        let lines = lines(&report(dir.path(), vec![f], None));
        assert!(
            lines[0].ends_with("Evidence: stderr: Error: Cannot find module 'x'%0Astderr (excerpt):%0A…%0AError: Cannot find module 'x'%0A::error::y"),
            "{}",
            lines[0]
        );
        assert!(!lines[0].contains('\n'), "one workflow command, one line");
    }
}
