//! The Markdown and SARIF renderers over findings made of hostile strings.

use crate::catalog;
use crate::finding::{Finding, Location, Replacement, Severity};
use crate::report::document::{CheckRow, CheckStatus, OperationRow, Report, ReportContext};
use crate::report::markdown::{self, MarkdownOptions};
use crate::report::repo::{BlobLink, RepoContext};
use crate::report::sarif;
use std::path::PathBuf;

/// What the renderer itself writes as HTML; any other `<` outside code must be escaped.
const OWN_TAGS: &[&str] = &[
    markdown::COMMENT_MARKER,
    "<sub>",
    "</sub>",
    "<details>",
    "</details>",
    "<summary>",
    "</summary>",
];

const ENGINES: [&str; 5] = ["guard", "scan", "source", "surface", "proxy"];

/// Fields separated by U+001E fill a report: messages, evidence, paths, logical paths,
/// fixes, the server, the command, notices, checks and requests. Invariants: the Markdown
/// has no raw `<` outside code spans and blocks but the renderer's own tags, every table row
/// has its header's cell count, and the SARIF parses as JSON with one run.
pub fn renderers(data: &[u8]) {
    let (control, rest) = super::split_first(data);
    let text = String::from_utf8_lossy(rest);
    let parts: Vec<&str> = text.split('\u{1e}').collect();
    let part = |i: usize| parts[i % parts.len()].to_string();
    let report = report(control, &part);
    for options in [MarkdownOptions::document(), MarkdownOptions::comment()] {
        let doc = markdown::render(&report, &options);
        assert!(
            doc.len() <= options.max_bytes,
            "the document outgrows its limit"
        );
        if let Some(at) = raw_angle_bracket(&doc) {
            let mut from = at.saturating_sub(40);
            while !doc.is_char_boundary(from) {
                from -= 1;
            }
            panic!("raw `<` at byte {at}: {:?}", &doc[from..]);
        }
        check_tables(&doc);
    }
    let sarif = sarif::render(&report);
    let value: serde_json::Value = serde_json::from_str(&sarif).expect("the SARIF is JSON");
    assert_eq!(
        value["runs"].as_array().map(Vec::len),
        Some(1),
        "a SARIF log without its run"
    );
}

fn report(control: u8, part: &dyn Fn(usize) -> String) -> Report {
    let repo = RepoContext {
        root: PathBuf::from("/repo"),
        link: (control & 0x80 != 0).then(|| BlobLink {
            server: "https://github.com".into(),
            repository: "o/r".into(),
            sha: "0123456789abcdef0123456789abcdef01234567".into(),
        }),
    };
    let mut report = Report::without_engine(ReportContext {
        repo,
        anchor: (control & 0x40 != 0).then(|| part(11)),
        category: Some(part(12)),
        invocation: vec!["mcpcheck".into(), part(6)],
        exit_code: 1,
    });
    report.engine = ENGINES[usize::from(control) % ENGINES.len()];
    let count = usize::from(control % 8) + 1;
    for i in 0..count {
        let code = catalog::ALL[(usize::from(control) + i * 7) % catalog::ALL.len()];
        let at = i * 13;
        let mut finding = Finding::new(code, part(at))
            .severity([Severity::Note, Severity::Warning, Severity::Error][i % 3])
            .at(Location {
                file: (i % 2 == 0).then(|| part(at + 2)),
                line: Some(i as u64 + 1),
                column: Some(1),
                logical: Some(part(at + 3)),
                request: (i % 3 == 0).then(|| part(at + 9)),
                ..Location::default()
            })
            .evidence(&part(at + 1))
            .fix(part(at + 4));
        if i % 4 == 1 {
            finding = finding.replacement(Replacement {
                description: part(at + 10),
                start_line: 1,
                start_column: 1,
                end_line: 1,
                end_column: 2,
                text: part(at + 13),
            });
        }
        report.findings.push(finding);
    }
    report.command = vec![part(6), part(7)];
    report.server = Some(part(5));
    report.profile = Some(part(14));
    report.protocol = Some(part(15));
    report.negotiated = Some(part(16));
    report.notices = vec![part(8)];
    report.reproduce = vec![part(17)];
    report.checks = vec![CheckRow {
        name: part(9),
        status: CheckStatus::Fail,
        codes: report.findings.iter().map(|f| f.code).collect(),
    }];
    report.operations = vec![OperationRow {
        method: part(9),
        outcome: part(10),
        latency_ms: Some(3),
    }];
    report
}

/// The byte offset of the first `<` that is neither escaped, inside a code span or fenced
/// block, nor one of the renderer's own tags.
pub fn raw_angle_bracket(doc: &str) -> Option<usize> {
    let mut fence: Option<usize> = None;
    let mut offset = 0;
    for line in doc.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let ticks = line.bytes().take_while(|&b| b == b'`').count();
        if let Some(open) = fence {
            if ticks >= open && line[ticks..].trim().is_empty() {
                fence = None;
            }
            continue;
        }
        if ticks >= 3 {
            fence = Some(ticks);
            continue;
        }
        if let Some(at) = raw_in_line(line) {
            return Some(start + at);
        }
    }
    None
}

fn raw_in_line(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'`' => {
                let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
                i += run;
                if let Some(close) = closing_run(&bytes[i..], run) {
                    i += close + run;
                }
            }
            b'<' => match OWN_TAGS.iter().find(|t| line[i..].starts_with(**t)) {
                Some(tag) => i += tag.len(),
                None => return Some(i),
            },
            _ => i += 1,
        }
    }
    None
}

/// Where a backtick run of exactly `run` starts in `rest`, closing a code span.
fn closing_run(rest: &[u8], run: usize) -> Option<usize> {
    let mut i = 0;
    while i < rest.len() {
        if rest[i] == b'`' {
            let n = rest[i..].iter().take_while(|&&b| b == b'`').count();
            if n == run {
                return Some(i);
            }
            i += n;
        } else {
            i += 1;
        }
    }
    None
}

/// Every row of a table has as many unescaped `|` as its header.
pub fn check_tables(doc: &str) {
    let lines: Vec<&str> = doc.lines().collect();
    let mut i = 0;
    while i + 1 < lines.len() {
        let is_delimiter = lines[i + 1].starts_with("|-") || lines[i + 1].starts_with("|:");
        if !(lines[i].starts_with('|') && is_delimiter) {
            i += 1;
            continue;
        }
        let cells = pipes(lines[i]);
        assert_eq!(pipes(lines[i + 1]), cells, "a delimiter row's cells");
        let mut row = i + 2;
        while row < lines.len() && lines[row].starts_with('|') {
            assert_eq!(
                pipes(lines[row]),
                cells,
                "a table row has another cell count than its header: {:?}",
                lines[row]
            );
            row += 1;
        }
        i = row;
    }
}

/// `|` not escaped by an odd run of backslashes before it.
fn pipes(line: &str) -> usize {
    let mut count = 0;
    let mut backslashes = 0;
    for c in line.chars() {
        match c {
            '|' if backslashes % 2 == 0 => count += 1,
            _ => {}
        }
        backslashes = if c == '\\' { backslashes + 1 } else { 0 };
    }
    count
}
