//! The observations of real clients (`catalog::clients`) as Markdown: a code's section of its
//! rule page (and SARIF help), and the matrix of `docs/clients.md`.

use super::markdown_escape as md;
use crate::catalog::clients::{self, Fixture, Observation};
use std::fmt::Write;

/// Characters of a client's message shown in a table cell.
const DETAIL_CHARS: usize = 160;

fn cell(o: &Observation) -> String {
    let at = o.at();
    let outcome = if o.flaky {
        let seen: Vec<&str> = o.seen().iter().map(|s| s.as_str()).collect();
        format!("{} (flaky)", seen.join(" / "))
    } else {
        o.outcome.as_str().to_string()
    };
    format!("{outcome}{at}")
}

fn detail(o: &Observation) -> String {
    o.detail
        .as_deref()
        .map(|d| md::code(d, DETAIL_CHARS))
        .unwrap_or_default()
}

/// "`a.py`", or "`a.py` (guard `--protocol-matrix`)" when the fault shows only under options.
fn named(fixture: &Fixture) -> String {
    if fixture.guard_args.is_empty() {
        format!("`{}`", fixture.fixture)
    } else {
        format!(
            "`{}` (guard {})",
            fixture.fixture,
            md::code(&fixture.guard_args.join(" "), 200)
        )
    }
}

fn provenance(fixture: &Fixture) -> String {
    let data = clients::data();
    format!(
        "Observed on the fixture server {} ({}) by `scripts/client-impact` on {}; each client had {} ms for the whole session, {} runs.",
        named(fixture), fixture.transport, data.generated, data.bound_ms, data.runs
    )
}

/// A rule page's section: what each client did on the code's fixture. Empty when no fixture
/// produced the code.
pub fn observed(code: &str) -> String {
    let Some(fixture) = clients::evidence(code) else {
        return String::new();
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n## What real clients did\n\n{}\n",
        provenance(fixture)
    );
    let _ = writeln!(out, "| Client | Outcome | What it did |\n|---|---|---|");
    for (client, o) in fixture.ran() {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            client.label(),
            cell(o),
            md::cell(&format!("{} {}", o.phrase(), detail(o)))
        );
    }
    out
}

/// `docs/clients.md`'s generated section: the clients, then codes × clients.
pub fn matrix() -> String {
    let data = clients::data();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Run of {} ({} ms per session, {} runs).\n\n| Client | Package | Version | Language |\n|---|---|---|---|",
        data.generated, data.bound_ms, data.runs
    );
    for c in &data.clients {
        let _ = writeln!(
            out,
            "| `{}` | `{}` | {} | {} |",
            c.id, c.package, c.version, c.language
        );
    }
    let header: Vec<String> = data.clients.iter().map(|c| format!("`{}`", c.id)).collect();
    let _ = writeln!(
        out,
        "\n| Code | Severity | Fixture | {} |\n|---|---|---|{}",
        header.join(" | "),
        "---|".repeat(header.len())
    );
    let row = |out: &mut String, code: &str, severity: &str, fixture: &Fixture| {
        let cells: Vec<String> = data
            .clients
            .iter()
            .map(|c| {
                fixture
                    .observations
                    .iter()
                    .find(|o| o.client == c.id)
                    .map(cell)
                    .unwrap_or_else(|| "not run".to_string())
            })
            .collect();
        let _ = writeln!(
            out,
            "| {code} | {severity} | {} ({}) | {} |",
            named(fixture),
            fixture.transport,
            cells.join(" | ")
        );
    };
    for control in data.fixtures.iter().filter(|f| f.codes.is_empty()) {
        row(&mut out, "none (control)", "", control);
    }
    let mut unobserved = Vec::new();
    for code in clients::guard_codes() {
        match clients::evidence(code.as_str()) {
            Some(fixture) => row(
                &mut out,
                &format!("[`{code}`](rules/{code}.md)"),
                code.severity().as_str(),
                fixture,
            ),
            None => unobserved.push(format!("`{code}`")),
        }
    }
    if !unobserved.is_empty() {
        let _ = writeln!(
            out,
            "\nNo fixture server produces these guard codes, so no client was observed on them: {}.",
            unobserved.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "\nThese codes have no row, since no client meets a server fault behind them:\n"
    );
    for (code, why) in clients::NOT_DRIVEN {
        let _ = writeln!(out, "- `{code}`: {why}.");
    }
    let _ = writeln!(out, "\n### What each client said\n");
    for code in clients::guard_codes() {
        let Some(fixture) = clients::evidence(code.as_str()) else {
            continue;
        };
        let said: Vec<String> = fixture
            .ran()
            .iter()
            .filter(|(_, o)| o.detail.is_some())
            .map(|(c, o)| format!("  - {}: {}", c.label(), detail(o)))
            .collect();
        if said.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "- `{code}` on {}:\n{}",
            named(fixture),
            said.join("\n")
        );
    }
    out
}
