//! The servers table: one `<tbody>` per server, its row and its details (findings, the
//! command that reruns it), all rendered here so the page reads without JavaScript. The
//! script sorts, filters, pages and expands what is already there.

use super::escape::text;
use crate::finding::excerpt;
use crate::sweep::judgement::Judgement;
use crate::sweep::summary::{status_rank, ServerRow, Summary};
use std::fmt::Write;

/// Room for every server's details; past it a server's details point to its results line,
/// so 10,000 servers stay under 10 MB.
const DETAILS_BUDGET_BYTES: usize = 6 * 1024 * 1024;
const MAX_ISSUES_PER_SERVER: usize = 12;

/// The columns: heading, the row's `data-` attribute the script sorts by (else the cell's
/// text), and whether that sorts as a number.
pub const COLUMNS: &[(&str, &str, bool)] = &[
    ("Status", "r", true),
    ("Id", "", false),
    ("Version", "", false),
    ("Registry", "g", false),
    ("Primary code", "p", false),
    ("Decisive line", "", false),
    ("Install", "i", true),
    ("Run", "t", true),
];

fn secs(ms: Option<u64>) -> String {
    ms.map_or("-".into(), super::super::human::secs)
}

pub fn table(out: &mut String, summary: &Summary) {
    out.push_str(
        r#"<table id="servers"><caption class="sr">Servers, worst first</caption><thead><tr>"#,
    );
    for (heading, key, numeric) in COLUMNS {
        let _ = write!(
            out,
            r#"<th scope="col" data-key="{key}"{}>{heading}</th>"#,
            match (*numeric, *key) {
                (true, "r") => r#" data-num="1""#,
                (true, _) => r#" data-num="1" class="num""#,
                _ => "",
            }
        );
    }
    out.push_str("</tr></thead>");
    let start = out.len();
    for (n, s) in summary.servers.iter().enumerate() {
        let full = out.len() - start < DETAILS_BUDGET_BYTES;
        server(out, n, s, full);
    }
    out.push_str("</table>");
}

fn server(out: &mut String, n: usize, s: &ServerRow, full: bool) {
    let mut classes: Vec<&str> = s.issues.iter().map(|i| i.class.as_str()).collect();
    classes.sort_unstable();
    classes.dedup();
    let mut codes: Vec<&str> = s.issues.iter().map(|i| i.code.as_str()).collect();
    codes.sort_unstable();
    codes.dedup();
    let working = matches!(Judgement::of(s), Judgement::Working);
    let _ = write!(
        out,
        r#"<tbody class="srv" id="s{n}" data-s="{}" data-r="{}" data-k="{}" data-c="{}" data-p="{}" data-g="{}" data-i="{}" data-t="{}">"#,
        s.status.as_str(),
        status_rank(s.status),
        text(&classes.join(" ")),
        text(&codes.join(" ")),
        text(s.primary_issue_code.as_deref().unwrap_or("")),
        text(s.registry_type.as_deref().unwrap_or("")),
        s.install_ms.map_or(-1, |v| v as i64),
        s.run_ms.map_or(-1, |v| v as i64),
    );
    let _ = write!(
        out,
        r#"<tr class="row"><td><span class="st st-{}">{}</span></td><td class="id"><button type="button" class="exp" aria-expanded="false" aria-controls="d{n}">{}</button>{}</td><td>{}</td><td>{}</td><td class="code">{}</td><td class="cause">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
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
    details(out, s, full);
    out.push_str("</td></tr></tbody>");
}

fn details(out: &mut String, s: &ServerRow, full: bool) {
    let place = format!("{}:{}", s.file, s.line);
    if let Some(reason) = &s.reason {
        let _ = write!(out, r#"<p><b>Why:</b> {}</p>"#, text(reason));
    }
    if let Some(command) = &s.command {
        let _ = write!(
            out,
            r#"<p><b>Command:</b> <code>{}</code></p>"#,
            text(command)
        );
    }
    if full {
        for issue in s.issues.iter().take(MAX_ISSUES_PER_SERVER) {
            let _ = write!(
                out,
                r#"<div class="finding sev-{}" data-code="{}"><p><b class="code">{}</b> <span class="sev">{}</span> · {}</p><p>{}</p>"#,
                text(&excerpt(&issue.severity, 20)),
                text(&issue.code),
                text(&issue.code),
                text(&issue.severity),
                text(&issue.class),
                text(&issue.message)
            );
            if let Some(evidence) = &issue.evidence {
                let _ = write!(
                    out,
                    r#"<pre class="evidence">{}</pre>"#,
                    text(&excerpt(evidence, 1000))
                );
            }
            if let Some(fix) = &issue.fix {
                let _ = write!(out, r#"<p><b>Fix:</b> {}</p>"#, text(fix));
            }
            // What real clients did with this code: filled in from the code table on
            // expanding, and listed once per code in the codes section below the table.
            let _ = write!(
                out,
                r##"<p class="clients"><a href="#code-{}">What real clients did</a></p></div>"##,
                text(&issue.code)
            );
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
            "<p>{} findings: past this page's size budget, see the full result.</p>",
            s.issues.len()
        );
    }
    if let Some(reproduce) = &s.reproduce {
        let _ = write!(
            out,
            r#"<div class="repro"><b>Reproduce:</b> <code>{}</code> <button type="button" class="copy" data-copy="{}">Copy</button></div>"#,
            text(reproduce),
            text(reproduce)
        );
    }
    let _ = write!(
        out,
        r#"<p class="where">Full result: <code>{}</code></p>"#,
        text(&place)
    );
}
