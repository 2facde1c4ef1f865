//! The SARIF document as indented JSON, its results built and printed on several threads.
//!
//! A large scan's results are most of the document and most of the time it takes. Each
//! result is printed alone, indented to its depth, and set into the document printed without
//! them, where serde_json prints an empty list: the text is the one `to_string_pretty` makes of
//! the whole document (a test compares them). Below `PARALLEL_FROM` results, one thread.

use super::document::Report;
use super::sarif::{document_with, result, RepoPaths};
use crate::catalog::CodeMeta;
use crate::finding::Finding;

/// Fewer results than this are printed on the calling thread: a thread costs more.
const PARALLEL_FROM: usize = 256;
/// Most threads used.
const MAX_THREADS: usize = 4;
/// Where the empty results list is in the document printed without them: a key of the run
/// object, three levels in (a string's quotes are escaped, so this is structure).
const EMPTY_RESULTS: &str = "\n      \"results\": []";
/// The indentation of a result's lines in the document: four levels in.
const RESULT_INDENT: &str = "        ";

/// The document with the first `limit` findings as results, as `serde_json::to_string_pretty`
/// prints it.
pub(super) fn render(report: &Report, metas: &[(&CodeMeta, String)], limit: usize) -> String {
    let findings = &report.findings[..limit.min(report.findings.len())];
    let skeleton = pretty(&document_with(report, metas, limit, Vec::new()));
    if findings.is_empty() {
        return skeleton;
    }
    let at = match skeleton.match_indices(EMPTY_RESULTS).collect::<Vec<_>>()[..] {
        // Before the `]` of the empty list.
        [(at, _)] => at + EMPTY_RESULTS.len() - 1,
        // An unexpected shape: the document printed whole.
        _ => return pretty(&super::sarif::document(report, metas, limit)),
    };
    let printed = printed_results(report, metas, findings);
    // Room for the results, their separators and the line break `render_limited` adds.
    let room = printed.iter().map(|p| p.len() + 2).sum::<usize>();
    let mut out = String::with_capacity(skeleton.len() + room + 16);
    out.push_str(&skeleton[..at]);
    for (i, one) in printed.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        out.push_str(one);
    }
    out.push_str("\n      ");
    out.push_str(&skeleton[at..]);
    out
}

/// Each finding's result, printed and indented, in order.
fn printed_results(
    report: &Report,
    metas: &[(&CodeMeta, String)],
    findings: &[Finding],
) -> Vec<String> {
    let print = |chunk: &[Finding]| -> Vec<String> {
        let mut paths = RepoPaths::default();
        chunk
            .iter()
            .map(|f| indented(&pretty(&result(report, f, metas, &mut paths))))
            .collect()
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_THREADS);
    if findings.len() < PARALLEL_FROM || threads < 2 {
        return print(findings);
    }
    let chunk = findings.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = findings
            .chunks(chunk)
            .map(|part| scope.spawn(move || print(part)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// A value printed with serde_json's indentation.
fn pretty(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// A result's lines indented to its depth in the document (JSON strings hold no raw line
/// break, so every one is between tokens).
fn indented(text: &str) -> String {
    let lines = 1 + text.bytes().filter(|b| *b == b'\n').count();
    let mut out = String::with_capacity(text.len() + lines * RESULT_INDENT.len());
    out.push_str(RESULT_INDENT);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(RESULT_INDENT);
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::document::ReportContext;
    use super::super::repo::RepoContext;
    use super::super::sarif::document;
    use super::super::sarif_rules::catalog_metas;
    use super::*;
    use crate::catalog::Code;
    use crate::finding::{Location, Replacement, Risk};

    /// Findings of every shape a result takes: a file in the repository with a fix, a file
    /// outside it, a file that does not exist, no file (a stdout line, a request), risk and
    /// evidence with characters that are escaped.
    fn findings(root: &std::path::Path, outside: &std::path::Path, n: u64) -> Vec<Finding> {
        (0..n)
            .map(|i| {
                let line = i % 90 + 1;
                let in_file = |file: String| Location {
                    file: Some(file),
                    line: Some(line),
                    column: Some(3),
                    end_line: Some(line),
                    end_column: Some(14),
                    ..Location::default()
                };
                match i % 5 {
                    0 => Finding::new(Code::StaticStdoutWrite, format!("write {i}"))
                        .at(in_file(root.join("src/a.js").display().to_string()))
                        .replacement(Replacement {
                            description: "Use console.error".into(),
                            start_line: line,
                            start_column: 11,
                            end_line: line,
                            end_column: 14,
                            text: "error".into(),
                        }),
                    1 => Finding::new(Code::StaticStdoutWrite, "outside \u{202e}")
                        .at(in_file(outside.display().to_string()))
                        .evidence("print(\"tab\\there\")\n"),
                    2 => Finding::new(Code::StdoutNonJson, "stray \"line\"")
                        .at(Location::stdout_line(i))
                        .evidence("\u{1b}[31mred"),
                    3 => Finding::new(Code::StdoutNonJson, "gone")
                        .at(in_file("/nonexistent/mcpcheck/x.py".into())),
                    _ => Finding::new(Code::StdoutNonJson, "request")
                        .at(Location::request("tools/list"))
                        .risk(Risk::High),
                }
            })
            .collect()
    }

    #[test]
    fn results_set_into_the_document_print_as_the_whole_document_does() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("src")).expect("src");
        std::fs::write(dir.path().join("src/a.js"), "console.log(1)\n").expect("file");
        let elsewhere = tempfile::tempdir().expect("tempdir");
        let outside = elsewhere.path().join("b.py");
        std::fs::write(&outside, "print(1)\n").expect("file");
        let metas = catalog_metas();
        // One thread (below PARALLEL_FROM) and several; none, one, some and all results.
        for (n, anchor) in [(0, None), (7, Some("package.json")), (700, None)] {
            let mut report = Report::without_engine(ReportContext {
                repo: RepoContext {
                    root: dir.path().canonicalize().expect("root"),
                    link: None,
                },
                anchor: anchor.map(String::from),
                category: Some("mcpcheck".into()),
                invocation: vec!["mcpcheck".into(), "source".into()],
                exit_code: 1,
            });
            report.engine = "test";
            report.findings = findings(&report.repo.root.clone(), &outside, n);
            for limit in [0, 1, n as usize / 2, n as usize] {
                let whole = serde_json::to_string_pretty(&document(&report, &metas, limit))
                    .expect("printed");
                assert_eq!(
                    render(&report, &metas, limit),
                    whole,
                    "{n} findings, {limit} results"
                );
            }
        }
    }
}
