//! The sweep report as one self-contained page: inline CSS, script and SVG, no request of any
//! kind (its Content-Security-Policy forbids every fetch and runs only its own script, by
//! hash). Every count, chart, row and detail is HTML rendered here, so the page reads with
//! scripts off; the script only sorts, filters, pages and expands. Every string from a
//! results file was excerpted (bounded, secrets masked at entry) when the summary was built,
//! and is escaped here for where it lands (`escape`).

mod charts;
mod escape;
mod rows;

use crate::finding::plural;
use crate::sweep::changes::{Changed, Changes};
use crate::sweep::judgement::{self, Judged};
use crate::sweep::summary::{severity_rank, Summary};
use escape::text;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");
/// Runs before the body is parsed: with scripts on, rows past the first page are never laid out.
const HEAD_SCRIPT: &str = "document.documentElement.className='js';";
/// Fixes of one code written once in the codes table; a rarer one is written in its finding.
const FIXES_PER_CODE: usize = 4;
/// Codes in the codes table, the commonest (the catalog has about 150; a results file
/// written by hand could name any number).
const MAX_CODES: usize = 400;

/// What the page shows.
pub struct Page<'a> {
    pub summary: &'a Summary,
    pub changes: Option<&'a Changes>,
}

/// What the page's script reads: each code's title, usual fix and what real clients did, and
/// the values its filters offer (statuses worst first: the status column sorts by that order).
#[derive(Serialize)]
struct ScriptData<'a> {
    codes: &'a BTreeMap<String, CodeInfo>,
    statuses: Vec<&'static str>,
    classes: Vec<&'a str>,
    registries: Vec<&'a str>,
}

/// Each code found, notes too: written once in the codes table and the script's data, not
/// again in every finding.
pub struct CodeBook {
    codes: BTreeMap<String, CodeInfo>,
}

#[derive(Serialize)]
struct CodeInfo {
    title: String,
    clients: Option<String>,
    /// The fixes its findings give, the commonest first (a few at most).
    fixes: Vec<String>,
    #[serde(skip)]
    class: String,
    #[serde(skip)]
    severity: String,
    /// Servers with it.
    #[serde(skip)]
    servers: usize,
}

impl CodeBook {
    fn of(summary: &Summary) -> Self {
        let mut fixes: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
        let mut codes: BTreeMap<String, CodeInfo> = BTreeMap::new();
        for s in &summary.servers {
            let mut mine: Vec<&str> = Vec::new();
            for issue in &s.issues {
                if let Some(fix) = &issue.fix {
                    *fixes
                        .entry(&issue.code)
                        .or_default()
                        .entry(fix)
                        .or_default() += 1;
                }
                let info = codes.entry(issue.code.clone()).or_insert_with(|| CodeInfo {
                    title: crate::catalog::Code::from_name(&issue.code)
                        .map(|c| c.meta().title.to_string())
                        .unwrap_or_default(),
                    clients: crate::catalog::clients::line(&issue.code),
                    fixes: Vec::new(),
                    class: issue.class.clone(),
                    severity: issue.severity.clone(),
                    servers: 0,
                });
                if !mine.contains(&issue.code.as_str()) {
                    mine.push(&issue.code);
                    info.servers += 1;
                }
                if severity_rank(&issue.severity) < severity_rank(&info.severity) {
                    info.severity.clone_from(&issue.severity);
                }
            }
        }
        if codes.len() > MAX_CODES {
            let mut counts: Vec<usize> = codes.values().map(|c| c.servers).collect();
            counts.sort_unstable_by(|a, b| b.cmp(a));
            let least = counts[MAX_CODES - 1];
            codes.retain(|_, c| c.servers > least);
        }
        for (code, info) in &mut codes {
            let Some(fixes) = fixes.get(code.as_str()) else {
                continue;
            };
            let mut by_count: Vec<(&&str, &usize)> = fixes.iter().collect();
            by_count.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
            info.fixes = by_count
                .into_iter()
                .take(FIXES_PER_CODE)
                .map(|(fix, _)| fix.to_string())
                .collect();
        }
        CodeBook { codes }
    }

    /// Which of its code's fixes `fix` is, when the book has it.
    pub fn fix_index(&self, code: &str, fix: &str) -> Option<usize> {
        self.codes.get(code)?.fixes.iter().position(|f| f == fix)
    }
}

pub fn render(page: &Page) -> String {
    let summary = page.summary;
    let mut out = String::with_capacity(64 * 1024 + summary.servers.len() * 900);
    let csp = format!(
        "default-src 'none'; script-src {} {}; style-src {}; img-src data:; base-uri 'none'; form-action 'none'",
        escape::csp_hash(HEAD_SCRIPT),
        escape::csp_hash(SCRIPT),
        escape::csp_hash(STYLE)
    );
    let _ = write!(
        out,
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="{csp}"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>mcpcheck sweep report: {}</title><script>{HEAD_SCRIPT}</script><style>{STYLE}</style></head><body><header><h1>mcpcheck sweep report</h1><p>{} from {}{}</p></header><main>"#,
        plural(summary.servers.len(), "server"),
        plural(summary.servers.len(), "server"),
        plural(summary.files.len(), "results file"),
        if summary.duplicates > 0 {
            format!(
                " · {} replaced by newer ones",
                plural(summary.duplicates, "older duplicate line")
            )
        } else {
            String::new()
        }
    );
    if let Some(changes) = page.changes {
        changes_section(&mut out, changes);
    }
    headline(&mut out, summary);
    let _ = write!(
        out,
        r#"<section aria-labelledby="h-charts"><h2 id="h-charts">Statuses and codes</h2><div class="charts"><figure>{}</figure>{}</div></section>"#,
        charts::statuses(summary),
        charts::codes_by_class(summary)
            .map(|c| format!("<figure>{c}</figure>"))
            .unwrap_or_default()
    );
    out.push_str(r#"<section aria-labelledby="h-servers"><h2 id="h-servers">Servers</h2>"#);
    out.push_str(FILTERS);
    let codes = CodeBook::of(summary);
    let mut tail = String::new();
    codes_section(&mut tail, &codes);
    facts_section(&mut tail, summary);
    let _ = write!(
        tail,
        r#"</main><script type="application/json" id="data">{}</script><script>{SCRIPT}</script></body></html>"#,
        escape::script_json(&script_data(summary, &codes))
    );
    // The table's own closing tags and pager, with the tail.
    let around = tail.len() + 128;
    rows::table(&mut out, summary, &codes, around);
    out.push_str(r#"<nav class="pager" aria-label="Pages" hidden></nav></section>"#);
    out.push_str(&tail);
    out
}

/// The filters and search; shown by the script, which alone makes them work.
const FILTERS: &str = r#"<form class="filters" role="search" hidden><label>Status <select name="s"><option value="">any</option></select></label> <label>Class <select name="k"><option value="">any</option></select></label> <label>Code <select name="c"><option value="">any</option></select></label> <label>Registry <select name="g"><option value="">any</option></select></label> <label>Search <input type="search" name="q" placeholder="id, name, line"></label> <output class="count" aria-live="polite"></output></form>"#;

fn headline(out: &mut String, summary: &Summary) {
    let judged = Judged::of(&summary.servers);
    out.push_str(r#"<section aria-labelledby="h-headline"><h2 id="h-headline">Headline</h2><ul class="headline">"#);
    for (n, name, meaning) in judged.explained() {
        let _ = write!(
            out,
            r#"<li class="h-{}"><b>{n}</b> {name}<p>{meaning}</p></li>"#,
            name.split(' ').next().unwrap_or(name)
        );
    }
    out.push_str("</ul>");
    let not_judged = judgement::not_judged(&summary.servers);
    if !not_judged.is_empty() {
        let mut why: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, reason) in &not_judged {
            *why.entry(reason).or_default() += 1;
        }
        let parts: Vec<String> = why
            .iter()
            .map(|(reason, n)| format!("{} ({n})", text(reason)))
            .collect();
        let _ = write!(
            out,
            "<p>Could not be judged here: {}.</p>",
            parts.join(", ")
        );
    }
    out.push_str("</section>");
}

fn changes_section(out: &mut String, c: &Changes) {
    let _ = write!(
        out,
        r#"<section class="changes" aria-labelledby="h-changes"><h2 id="h-changes">Since the baseline</h2><p>{} in the baseline: <b>{}</b></p>"#,
        plural(c.baseline_servers, "server"),
        text(&c.counts())
    );
    for list in c.lists() {
        let _ = write!(out, "<h3>{} ({})</h3><ul>", list.title, list.items.len());
        for item in list.items {
            let _ = match item {
                Changed::Moved(m) => {
                    let was = m
                        .was_id
                        .as_deref()
                        .map(|w| format!(" (was <code>{}</code>)", text(w)))
                        .unwrap_or_default();
                    write!(
                        out,
                        "<li><code>{}</code>{was}: {} → {}</li>",
                        text(&m.id),
                        text(&m.before),
                        text(&m.now)
                    )
                }
                Changed::Code(code, n) => write!(
                    out,
                    "<li><code>{}</code> ({})</li>",
                    text(code),
                    plural(n, "server")
                ),
                Changed::Server(id) => write!(out, "<li><code>{}</code></li>", text(id)),
            };
        }
        out.push_str("</ul>");
    }
    out.push_str("</section>");
}

/// Every code found, once, by how many servers have it: its title, its usual fix, what real
/// clients did.
fn codes_section(out: &mut String, codes: &CodeBook) {
    if codes.codes.is_empty() {
        return;
    }
    out.push_str(r#"<section aria-labelledby="h-codes"><h2 id="h-codes">Codes found</h2><table class="codes"><thead><tr><th scope="col">Code</th><th scope="col">Class</th><th scope="col">Severity</th><th scope="col" class="num">Servers</th><th scope="col">What it is, its usual fix, and what real clients did</th></tr></thead><tbody>"#);
    let mut rows: Vec<(&String, &CodeInfo)> = codes.codes.iter().collect();
    rows.sort_by(|a, b| b.1.servers.cmp(&a.1.servers).then_with(|| a.0.cmp(b.0)));
    for (code, info) in rows {
        let fix: String = info
            .fixes
            .iter()
            .map(|f| format!("<br>Fix: {}", text(f)))
            .collect();
        let clients = info
            .clients
            .as_deref()
            .map(|l| format!("<br><small>What real clients did: {}</small>", text(l)))
            .unwrap_or_default();
        let _ = write!(
            out,
            r#"<tr id="code-{}"><td><code>{}</code></td><td>{}</td><td>{}</td><td class="num">{}</td><td>{}{fix}{clients}</td></tr>"#,
            text(code),
            text(code),
            text(&info.class),
            text(&info.severity),
            info.servers,
            text(&info.title)
        );
    }
    out.push_str("</tbody></table></section>");
}

fn facts_section(out: &mut String, summary: &Summary) {
    let secs = super::human::secs;
    let t = &summary.timing;
    out.push_str(
        r#"<section aria-labelledby="h-facts"><h2 id="h-facts">The run</h2><dl class="facts">"#,
    );
    let mut fact = |name: &str, value: String| {
        let _ = write!(out, "<dt>{name}</dt><dd>{value}</dd>");
    };
    fact(
        "When",
        match (&summary.started, &summary.finished) {
            (Some(s), Some(f)) => format!("{} to {}", text(s), text(f)),
            _ => "-".into(),
        },
    );
    fact(
        "Servers' own time",
        if t.count > 0 {
            format!(
                "{} started · total {} · median {} · p90 {} · max {}",
                t.count,
                secs(t.total_ms),
                secs(t.median_ms),
                secs(t.p90_ms),
                secs(t.max_ms)
            )
        } else {
            "none started".into()
        },
    );
    if let Some(line) = super::human::install_line(summary) {
        fact("Install", text(&line));
    }
    fact(
        "Report made by",
        format!("mcpcheck {}", env!("CARGO_PKG_VERSION")),
    );
    out.push_str(r#"</dl><table class="files"><caption>Results files merged</caption><thead><tr><th scope="col">File</th><th scope="col" class="num">Lines</th><th scope="col" class="num">Unreadable</th><th scope="col" class="num">First start to last finish</th><th scope="col" class="num">At once</th></tr></thead><tbody>"#);
    for f in &summary.files {
        let _ = write!(
            out,
            r#"<tr><td><code>{}</code></td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
            text(&f.file),
            f.lines,
            f.unreadable_lines,
            f.span_ms.map_or("-".into(), secs),
            f.concurrency.map_or("-".into(), |c| format!("{c:.1}"))
        );
    }
    out.push_str("</tbody></table></section>");
}

fn script_data<'a>(summary: &'a Summary, codes: &'a CodeBook) -> ScriptData<'a> {
    let mut registries: Vec<&str> = summary
        .servers
        .iter()
        .filter_map(|s| s.registry_type.as_deref())
        .collect();
    registries.sort_unstable();
    registries.dedup();
    ScriptData {
        codes: &codes.codes,
        statuses: summary.statuses.iter().map(|(s, _)| s.as_str()).collect(),
        classes: summary
            .classes
            .iter()
            .take(MAX_CODES)
            .map(|c| c.class.as_str())
            .collect(),
        registries,
    }
}

#[cfg(test)]
mod tests;
