//! Human output: a headline, what happened, then each finding with its fix.

use crate::finding::{excerpt, plural};
use crate::guard::GuardRun;
use crate::report::human::{closing_counts, finding_body, finding_head, headline, Style};
use crate::secrets::redact_argv;
use crate::session::transcript::{Outcome, Purpose};
use crate::verdict::Verdict;
use serde_json::Value;
use std::fmt::Write;

pub fn render(run: &GuardRun, style: Style) -> String {
    let verdict = Verdict::of(&run.findings);
    let t = run.transcript();
    let mut out = String::new();
    let headline = headline(style, verdict.status);
    let argv: Vec<String> = std::iter::once(run.command.program.clone())
        .chain(run.command.args.iter().cloned())
        .collect();
    let _ = writeln!(
        out,
        "{headline}  mcpcheck guard: {}",
        excerpt(&redact_argv(&argv).join(" "), 300)
    );

    let init = t.initialize_result();
    let negotiated = t.session_version().map(|v| excerpt(&v, 40)).or_else(|| {
        init.and_then(|r| r.get("protocolVersion"))
            .map(|v| excerpt(&v.to_string(), 40))
    });
    let server = run
        .server
        .as_ref()
        .map(crate::report::document::server_label);
    let _ = writeln!(
        out,
        "  protocol: {} (requested {}){}",
        negotiated.as_deref().unwrap_or("not negotiated"),
        match t.era {
            Some(era) if run.plan.protocol == "auto" => format!(
                "auto: {} server",
                if era == crate::session::transcript::Era::Modern {
                    "modern (stateless)"
                } else {
                    "legacy (initialize)"
                }
            ),
            _ => run.plan.protocol.clone(),
        },
        server
            .map(|s| format!(" · server: {s}"))
            .unwrap_or_default()
    );
    if let Some(ms) = run.timings.install_ms {
        let _ = writeln!(
            out,
            "  install: the launcher's package installed first, in {:.1} s (before the session; --timeout started with the server)",
            ms as f64 / 1000.0
        );
    }
    let invalid = t.frames.iter().filter(|f| !f.is_valid_message()).count();
    let stderr = &t.process.stderr;
    if let Some(line) = super::http::human_line(t) {
        let _ = writeln!(out, "{line}");
    } else {
        let _ = writeln!(
            out,
            "  stdout: {} ({} invalid) · stderr: {} ({} bytes) · {} ms",
            plural(t.frames.len(), "frame"),
            invalid,
            plural(stderr.lines as usize, "line"),
            stderr.total_bytes,
            t.duration_ms
        );
    }
    server_requests(t, &mut out);
    if !t.exchanges.is_empty() {
        let _ = writeln!(out, "  requests:");
        for e in &t.exchanges {
            let latency = e
                .answered_ms
                .map(|a| format!("{} ms", a.saturating_sub(e.sent_ms)))
                .unwrap_or_default();
            let extra = match (&e.outcome, &e.purpose) {
                (Outcome::Error(err), _) => format!(" {} {}", err.code, excerpt(&err.message, 80)),
                (Outcome::Result(r), Purpose::ListProbe { list, .. }) => r
                    .get(list.items_key())
                    .and_then(Value::as_array)
                    .map(|a| format!(" {}", plural(a.len(), "item")))
                    .unwrap_or_default(),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "    {:<26} {:<12} {:>8}{extra}",
                excerpt(&e.method, 26),
                e.outcome.label(),
                latency
            );
        }
    }
    if t.list(crate::session::transcript::ListKind::Tools)
        .is_some()
    {
        let _ = writeln!(
            out,
            "  tool schemas: {}/{} valid",
            run.primary().tool_schema.valid,
            run.primary().tool_schema.total
        );
    }
    if run.runs.len() > 1 {
        let drifted: Vec<String> = run.drift.iter().map(|d| d.run.to_string()).collect();
        let _ = writeln!(
            out,
            "  runs: {} ({})",
            run.runs.len(),
            if drifted.is_empty() {
                "no drift".to_string()
            } else {
                format!("drift in run {}", drifted.join(", "))
            }
        );
    }
    if !run.matrix.is_empty() {
        let _ = writeln!(out, "  protocol matrix:");
        for e in &run.matrix {
            let _ = writeln!(
                out,
                "    {:<12} {:<16} {:<10} {}",
                e.requested,
                e.method,
                e.outcome,
                e.negotiated
                    .as_deref()
                    .map(|n| format!("→ {n}"))
                    .or(e.error_code.map(|c| format!("error {c}")))
                    .unwrap_or_default()
            );
        }
    }
    if !run.probes.is_empty() {
        let _ = writeln!(out, "  adversarial probes:");
        for p in &run.probes {
            let _ = writeln!(
                out,
                "    {:<26} {:<14} {}",
                excerpt(&p.probe, 26),
                p.status,
                excerpt(&p.observed, 100)
            );
        }
    }
    if run.leftovers_not_checked() {
        let _ = writeln!(
            out,
            "  leftover processes: {}",
            crate::process::backend::LEFTOVERS_NOT_CHECKED
        );
    }
    // A blank line before each finding, so one ends where the next begins.
    for f in &run.findings {
        out.push('\n');
        finding_head(&mut out, style, &style.severity(f.severity), f);
        finding_body(&mut out, f, "evidence");
    }
    closing_counts(&mut out, &verdict);
    // `--scan`'s findings that `source --fix` rewrites.
    let roots: Vec<String> = run
        .settings
        .scan
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
    crate::report::source::human::fixable(&mut out, &run.findings, &roots);
    out
}

/// The server's own requests: a count per method (the JSON lists the first of them).
fn server_requests(t: &crate::session::transcript::Transcript, out: &mut String) {
    let requests = &t.server_requests;
    if requests.total == 0 {
        return;
    }
    const SHOWN: usize = 5;
    let mut methods: Vec<(&String, u64)> = requests
        .by_method
        .iter()
        .map(|(m, c)| (m, c.count))
        .collect();
    methods.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut listed: Vec<String> = methods
        .iter()
        .take(SHOWN)
        .map(|(m, n)| format!("{} {n}", excerpt(m, 60)))
        .collect();
    let rest = methods.len().saturating_sub(SHOWN) as u64 + u64::from(requests.other_methods > 0);
    if rest > 0 {
        listed.push(format!("{rest} more methods"));
    }
    let _ = writeln!(
        out,
        "  server requests: {} ({}){}",
        requests.total,
        listed.join(", "),
        if requests.omitted() > 0 {
            format!(
                "; the JSON report lists the first {}",
                requests.sample.len()
            )
        } else {
            String::new()
        }
    );
}
