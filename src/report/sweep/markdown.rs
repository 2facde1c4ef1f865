//! The sweep report as GitHub-flavoured Markdown (job summaries, PR comments). Everything
//! read from results files is untrusted: it appears only inside code spans, where no HTML,
//! link, image, @mention or emphasis is active, bounded in length, with pipes escaped in
//! table cells. The whole document stays under GitHub's 1 MiB job-summary limit.

use super::human::secs;
use crate::finding::{excerpt, plural};
use crate::sweep::changes::{Changed, Changes};
use crate::sweep::summary::{ServerRow, Summary};
use std::fmt::Write;

/// Room left for the closing note; GitHub refuses job summaries over 1 MiB.
const BUDGET_BYTES: usize = 900 * 1024;
const MAX_SERVER_ROWS: usize = 2000;
const MAX_DETAILS: usize = 300;
const MAX_ISSUES_PER_SERVER: usize = 20;
/// Servers listed per kind of change; the JSON report lists every one.
const MAX_CHANGES: usize = 200;

/// Untrusted text as an inline code span.
pub fn code(text: &str, max_chars: usize) -> String {
    span(&excerpt(text, max_chars))
}

/// Untrusted text as a code span inside a table cell: a pipe would end the cell.
pub fn cell(text: &str, max_chars: usize) -> String {
    span(&excerpt(text, max_chars).replace('|', "\\|"))
}

fn span(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    // A space keeps a backtick at either end from joining the fence.
    let pad = if text.starts_with('`')
        || text.ends_with('`')
        || (text.starts_with(' ') && text.ends_with(' '))
    {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

pub fn render(summary: &Summary, changes: Option<&Changes>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# mcpcheck sweep report\n");
    let _ = write!(
        out,
        "**{}** from {}",
        plural(summary.servers.len(), "server"),
        plural(summary.files.len(), "results file")
    );
    if summary.duplicates > 0 {
        let _ = write!(
            out,
            " · {} replaced by newer ones",
            plural(summary.duplicates, "older duplicate line")
        );
    }
    let _ = write!(
        out,
        "\n\n**{}**",
        super::human::judged_line(&crate::sweep::judgement::Judged::of(&summary.servers))
    );
    let not_judged = crate::sweep::judgement::not_judged(&summary.servers);
    if !not_judged.is_empty() {
        let members: Vec<String> = not_judged
            .iter()
            .map(|(id, why)| format!("{} ({why})", code(id, 80)))
            .collect();
        let _ = write!(out, "\n\nCould not be judged here: {}", members.join(", "));
    }
    if let Some(changes) = changes {
        changes_section(&mut out, changes);
    }
    let _ = writeln!(out, "\n\n| Status | Servers |\n|---|---:|");
    for (status, n) in &summary.statuses {
        let _ = writeln!(out, "| {} | {n} |", cell(status.as_str(), 40));
    }
    if !summary.top_codes.is_empty() {
        let _ = writeln!(
            out,
            "\n## Most common issues\n\n| Code | Servers |\n|---|---:|"
        );
        for (c, n) in &summary.top_codes {
            let _ = writeln!(out, "| {} | {n} |", cell(c, 80));
        }
    }
    if !summary.classes.is_empty() {
        let _ = writeln!(out, "\n## Issues by class");
    }
    for class in &summary.classes {
        let _ = writeln!(
            out,
            "\n### {} ({})\n\n| Code | Severity | Servers | Title | Examples |\n|---|---|---:|---|---|",
            code(&class.class, 40),
            plural(class.servers, "server")
        );
        for row in &class.codes {
            let examples: Vec<String> = row.examples.iter().map(|e| cell(e, 60)).collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                cell(&row.code, 80),
                cell(&row.severity, 20),
                row.servers,
                // The catalog's own text, not the results file's.
                row.title.replace('|', "\\|"),
                examples.join(", ")
            );
        }
    }
    timing(&mut out, summary);
    servers(&mut out, summary);
    out
}

/// What changed since the baseline, near the top: regressions first.
fn changes_section(out: &mut String, c: &Changes) {
    let _ = write!(
        out,
        "\n\n## Since the baseline\n\n{} in the baseline: **{}**",
        plural(c.baseline_servers, "server"),
        c.counts()
    );
    for list in c.lists() {
        let _ = write!(out, "\n\n{}:\n", list.title);
        let shown = list.items.len().min(MAX_CHANGES);
        for item in &list.items[..shown] {
            let item = match *item {
                Changed::Moved(m) => {
                    let was = m
                        .was_id
                        .as_deref()
                        .map(|w| format!(" (was {})", code(w, 120)))
                        .unwrap_or_default();
                    format!(
                        "{}{was}: {} → {}",
                        code(&m.id, 120),
                        code(&m.before, 120),
                        code(&m.now, 120)
                    )
                }
                Changed::Code(c, n) => format!("{} ({})", code(c, 80), plural(n, "server")),
                Changed::Server(id) => code(id, 120),
            };
            let _ = write!(out, "\n- {item}");
        }
        if list.items.len() > shown {
            let _ = write!(out, "\n- … {} more", list.items.len() - shown);
        }
    }
}

fn timing(out: &mut String, summary: &Summary) {
    let t = &summary.timing;
    let _ = writeln!(
        out,
        "\n## Timing\n\n{} started; their own time, install apart.{}",
        plural(t.count, "server"),
        super::human::install_line(summary)
            .map(|l| format!(" {l}."))
            .unwrap_or_default()
    );
    if t.count > 0 {
        let _ = writeln!(
            out,
            "\n| Total | Min | Median | p90 | p99 | Max | Mean |\n|---:|---:|---:|---:|---:|---:|---:|\n| {} | {} | {} | {} | {} | {} | {} |",
            secs(t.total_ms), secs(t.min_ms), secs(t.median_ms), secs(t.p90_ms), secs(t.p99_ms), secs(t.max_ms), secs(t.mean_ms)
        );
        let _ = writeln!(out, "\n| Wall time | Servers |\n|---|---:|");
        for b in &t.buckets {
            let _ = writeln!(out, "| {} | {} |", b.label, b.servers);
        }
    }
    let _ = writeln!(
        out,
        "\n| Results file | Lines | Unreadable | First start to last finish | Server time | At once |\n|---|---:|---:|---:|---:|---:|"
    );
    for f in &summary.files {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&f.file, 120),
            f.lines,
            f.unreadable_lines,
            f.span_ms.map_or("-".into(), secs),
            secs(f.busy_ms),
            f.concurrency.map_or("-".into(), |c| format!("{c:.1}"))
        );
    }
    if !summary.slowest.is_empty() {
        let slow: Vec<String> = summary
            .slowest
            .iter()
            .take(5)
            .map(|(id, ms)| format!("{} {}", cell(id, 60), secs(*ms)))
            .collect();
        let _ = writeln!(out, "\nSlowest: {}", slow.join(" · "));
    }
}

/// Whether a server gets a details section.
fn has_details(s: &ServerRow) -> bool {
    !s.issues.is_empty() || s.reason.is_some()
}

fn servers(out: &mut String, summary: &Summary) {
    let detailed: Vec<usize> = (0..summary.servers.len())
        .filter(|&i| has_details(&summary.servers[i]))
        .take(MAX_DETAILS)
        .collect();
    let _ = writeln!(
        out,
        "\n## Servers\n\n| # | Status | Id | Primary issue | Cause | Install | Run | Details |\n|---:|---|---|---|---|---:|---:|---|"
    );
    let mut shown = 0;
    for (i, s) in summary.servers.iter().enumerate() {
        if shown == MAX_SERVER_ROWS || out.len() > BUDGET_BYTES / 2 {
            break;
        }
        shown += 1;
        let details = if detailed.contains(&i) {
            format!("[details](#server-{})", i + 1)
        } else {
            cell(&format!("{}:{}", s.file, s.line), 120)
        };
        let primary = s
            .primary_issue_code
            .as_deref()
            .or(s.reason.as_deref())
            .unwrap_or("");
        let cause = match crate::sweep::judgement::Judgement::of(s) {
            crate::sweep::judgement::Judgement::Working => String::new(),
            _ => cell(s.cause.as_deref().unwrap_or(""), 160),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {cause} | {} | {} | {details} |",
            i + 1,
            cell(s.status.as_str(), 40),
            cell(&s.id, 120),
            cell(primary, 100),
            s.install_ms.map_or("-".into(), secs),
            s.run_ms.map_or("-".into(), secs),
        );
    }
    if shown < summary.servers.len() {
        let _ = writeln!(
            out,
            "\n{} more not listed here; `mcpcheck sweep-report --format json` has every one.",
            plural(summary.servers.len() - shown, "server")
        );
    }
    if detailed.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n## Details");
    let mut written = 0;
    for &i in &detailed {
        if out.len() > BUDGET_BYTES {
            break;
        }
        written += 1;
        details(out, i + 1, &summary.servers[i]);
    }
    if written < detailed.len()
        || detailed.len() < summary.servers.iter().filter(|s| has_details(s)).count()
    {
        let _ = writeln!(
            out,
            "\nDetails are shown for the first {} only; each server's full guard result is in its results file, at the line given.",
            plural(written, "server")
        );
    }
}

fn details(out: &mut String, number: usize, s: &ServerRow) {
    let _ = writeln!(out, "\n#### server-{number}\n");
    let _ = writeln!(out, "- id: {}", code(&s.id, 200));
    let _ = writeln!(out, "- status: {}", code(s.status.as_str(), 40));
    if let Some(name) = &s.server_name {
        let _ = writeln!(out, "- server: {}", code(name, 128));
    }
    // The command as run may name the sweep's temporary directories, gone by now: the
    // command that reruns the server is what a reader can use.
    if let Some(reproduce) = &s.reproduce {
        let _ = writeln!(out, "- reproduce: {}", code(reproduce, 600));
    }
    if let Some(cause) = &s.cause {
        let _ = writeln!(out, "- cause: {}", code(cause, 200));
    }
    if let Some(reason) = &s.reason {
        let _ = writeln!(out, "- reason: {}", code(reason, 300));
    }
    let _ = writeln!(
        out,
        "- full result: {}",
        code(&format!("{}:{}", s.file, s.line), 200)
    );
    for issue in s.issues.iter().take(MAX_ISSUES_PER_SERVER) {
        let _ = writeln!(
            out,
            "  - {} {}: {}",
            code(&issue.severity, 20),
            code(&issue.code, 80),
            code(&issue.message, 300)
        );
    }
    if s.issues.len() > MAX_ISSUES_PER_SERVER {
        let _ = writeln!(out, "  - … {} more", s.issues.len() - MAX_ISSUES_PER_SERVER);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrusted_text_is_inert_inside_code_spans() {
        assert_eq!(
            code("<img src=x onerror=alert(1)>", 100),
            "`<img src=x onerror=alert(1)>`"
        );
        assert_eq!(
            code("hi @octocat see https://evil.example", 100),
            "`hi @octocat see https://evil.example`"
        );
        assert_eq!(code("a `tick` b", 100), "``a `tick` b``");
        assert_eq!(code("`edge`", 100), "`` `edge` ``");
        assert_eq!(code("line\nbreak", 100), "`line\\nbreak`");
        assert_eq!(cell("a|b", 100), "`a\\|b`");
        assert_eq!(code(&"x".repeat(500), 10), format!("`{}…`", "x".repeat(10)));
        assert_eq!(code("", 10), "");
    }
}
