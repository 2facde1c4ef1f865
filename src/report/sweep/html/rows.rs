//! The servers table: one `<tbody>` per server, its row and its details (findings, the
//! command that reruns it), all rendered here so the page reads without JavaScript. The
//! script sorts, filters, pages and expands what is already there, reading the cells.

use super::escape::text;
use super::CodeBook;
use crate::finding::excerpt;
use crate::sweep::judgement::Judgement;
use crate::sweep::summary::{ServerRow, Summary};
use std::fmt::Write;

/// The page's size limit (10 MB, less a margin); a server's findings are left out (its
/// details then point to its results line) when showing them would leave too little room
/// for the servers after it, each without its findings.
pub const PAGE_BUDGET_BYTES: usize = 9_900_000;
const MAX_ISSUES_PER_SERVER: usize = 12;
const MAX_EVIDENCE_CHARS: usize = 600;
const MAX_REPRODUCE_CHARS: usize = 600;

/// The columns: heading, and how the script sorts them (`n` a number, `t` text, `r` the
/// status's rank).
pub const COLUMNS: &[(&str, &str)] = &[
    ("Status", "r"),
    ("Id", "t"),
    ("Version", "t"),
    ("Registry", "t"),
    ("Primary code", "t"),
    ("Decisive line", "t"),
    ("Install", "n"),
    ("Run", "n"),
];

fn secs(ms: Option<u64>) -> String {
    ms.map_or("-".into(), super::super::human::secs)
}

/// The table; `used` is the size of the page around it, for the budget.
pub fn table(out: &mut String, summary: &Summary, codes: &CodeBook, used: usize) {
    out.push_str(
        r#"<table id="servers"><caption class="sr">Servers, worst first</caption><thead><tr>"#,
    );
    for (heading, sort) in COLUMNS {
        let _ = write!(out, r#"<th scope="col" data-sort="{sort}">{heading}</th>"#);
    }
    out.push_str("</tr></thead>");
    let brief: Vec<usize> = summary
        .servers
        .iter()
        .enumerate()
        .map(|(n, s)| {
            let mut row = String::new();
            server(&mut row, n, s, codes, false);
            row.len()
        })
        .collect();
    // Rows are worst first: the worst keep their findings.
    let mut after: usize = brief.iter().sum();
    let mut row = String::new();
    for (n, s) in summary.servers.iter().enumerate() {
        after -= brief[n];
        row.clear();
        server(&mut row, n, s, codes, true);
        if used + out.len() + row.len() + after > PAGE_BUDGET_BYTES {
            row.clear();
            server(&mut row, n, s, codes, false);
        }
        out.push_str(&row);
    }
    out.push_str("</table>");
}

/// Words of a data attribute: each value once, space-separated.
fn words<'a>(values: impl Iterator<Item = &'a str>) -> String {
    let mut v: Vec<&str> = values.collect();
    v.sort_unstable();
    v.dedup();
    text(&v.join(" "))
}

fn server(out: &mut String, n: usize, s: &ServerRow, codes: &CodeBook, full: bool) {
    let working = matches!(Judgement::of(s), Judgement::Working);
    let _ = write!(
        out,
        r#"<tbody class="srv" data-k="{}" data-c="{}"><tr><td><span class="st st-{}">{}</span></td><td><button class="exp" aria-expanded="false" aria-controls="d{n}">{}</button>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
        words(s.issues.iter().map(|i| i.class.as_str())),
        words(s.issues.iter().map(|i| i.code.as_str())),
        s.status.as_str(),
        s.status.as_str(),
        text(&s.id),
        s.server_name
            .as_deref()
            .map(|n| format!(r#"<span class="name">{}</span>"#, text(n)))
            .unwrap_or_default(),
        text(s.version.as_deref().unwrap_or("-")),
        text(s.registry_type.as_deref().unwrap_or("-")),
        text(s.primary_issue_code.as_deref().unwrap_or("-")),
        if working {
            String::new()
        } else {
            text(s.cause.as_deref().unwrap_or(""))
        },
        secs(s.install_ms),
        secs(s.run_ms),
    );
    let _ = write!(
        out,
        r#"<tr class="detail" id="d{n}"><td colspan="{}">"#,
        COLUMNS.len()
    );
    details(out, s, codes, full);
    out.push_str("</td></tr></tbody>");
}

fn details(out: &mut String, s: &ServerRow, codes: &CodeBook, full: bool) {
    if let Some(reason) = &s.reason {
        let _ = write!(out, "<p><b>Why:</b> {}</p>", text(reason));
    }
    if full {
        for issue in s.issues.iter().take(MAX_ISSUES_PER_SERVER) {
            let code = text(&issue.code);
            let _ = write!(
                out,
                r##"<div class="finding sev-{}" data-code="{code}"><p><b>{code}</b> {} · {}</p><p>{}</p>"##,
                text(&excerpt(&issue.severity, 20)),
                text(&issue.severity),
                text(&issue.class),
                text(&issue.message)
            );
            if let Some(evidence) = &issue.evidence {
                let _ = write!(
                    out,
                    "<pre>{}</pre>",
                    text(&excerpt(evidence, MAX_EVIDENCE_CHARS))
                );
            }
            let in_book = issue
                .fix
                .as_deref()
                .and_then(|f| codes.fix_index(&issue.code, f));
            match (in_book, &issue.fix) {
                // The code's fixes are written once, in the codes table (with what real
                // clients did); the script copies them here on expanding.
                (Some(i), _) => {
                    let _ = write!(
                        out,
                        r##"<p class="fix" data-fix="{i}"><b>Fix:</b> <a href="#code-{code}">see the code</a></p>"##
                    );
                }
                (None, Some(fix)) => {
                    let _ = write!(out, "<p><b>Fix:</b> {}</p>", text(fix));
                }
                (None, None) => {}
            }
            out.push_str("</div>");
        }
        if s.issues.len() > MAX_ISSUES_PER_SERVER {
            let _ = write!(
                out,
                "<p>… {} more in the full result.</p>",
                s.issues.len() - MAX_ISSUES_PER_SERVER
            );
        }
    } else if !s.issues.is_empty() {
        let _ = write!(
            out,
            "<p>{} findings, left out to keep this page small: see the full result.</p>",
            s.issues.len()
        );
    }
    match &s.reproduce {
        // Past the budget a long command is cut, and a cut command is not offered to copy.
        Some(r) if !full && r.chars().count() > MAX_REPRODUCE_CHARS => {
            let _ = write!(
                out,
                r#"<p class="repro"><b>Reproduce</b> (cut; the full result has it): <code>{}</code></p>"#,
                text(&excerpt(r, MAX_REPRODUCE_CHARS))
            );
        }
        // The button copies the code element before it.
        Some(r) => {
            let _ = write!(
                out,
                r#"<p class="repro"><b>Reproduce:</b> <code>{}</code> <button class="copy">Copy</button></p>"#,
                text(r)
            );
        }
        None => {}
    }
    let _ = write!(out, r#"<p class="where">{}:{}</p>"#, text(&s.file), s.line);
}
