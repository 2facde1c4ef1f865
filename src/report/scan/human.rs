//! The scan's human report: headline, configs, servers with their live state, then each
//! finding with where it is, what is wrong, redacted evidence and a fix.

use crate::finding::{excerpt, Risk};
use crate::report::human::{finding_body, finding_head, Style};
use crate::scan::{lock, risk_of, ScanReport};
use crate::verdict::Status;
use std::fmt::Write;

fn risk_style(style: Style, risk: Risk) -> String {
    let code = match risk {
        Risk::Critical | Risk::High => "31",
        Risk::Medium | Risk::Low => "33",
        Risk::Info => "36",
    };
    style.paint(code, risk.as_str())
}

pub fn render(r: &ScanReport, style: Style) -> String {
    let mut out = String::new();
    let headline = match super::json::status(r) {
        Status::Fail => style.paint("1;31", "FAIL"),
        Status::Warning => style.paint("1;33", "WARN"),
        _ => style.paint("1;32", "PASS"),
    };
    let _ = writeln!(
        out,
        "{headline}  mcpcheck scan: {} · {} · fail on {}",
        crate::finding::plural(r.configs.len(), "config"),
        crate::finding::plural(r.server_count(), "server"),
        r.fail_on.as_str()
    );
    if !r.configs.is_empty() {
        let _ = writeln!(out, "  configs:");
        for c in &r.configs {
            let _ = writeln!(
                out,
                "    {:<40} {:<14} {:<8} {}",
                excerpt(&c.display, 120),
                c.client.as_str(),
                c.scope.as_str(),
                crate::finding::plural(c.servers.len(), "server")
            );
        }
    }
    if r.server_count() > 0 {
        let _ = writeln!(out, "  servers:");
        let index = crate::scan::live::LiveIndex::new(&r.live);
        for c in &r.configs {
            for s in &c.servers {
                let def = lock::definition(s);
                let live = index
                    .get(&c.display, &s.pointer)
                    .map(|l| {
                        let counts = if l.state == crate::scan::live::LiveState::Answered {
                            format!(
                                " ({}, {}, {}, {})",
                                crate::finding::plural(l.tools.len(), "tool"),
                                crate::finding::plural(l.prompts.len(), "prompt"),
                                crate::finding::plural(l.resources.len(), "resource"),
                                crate::finding::plural(l.resource_templates.len(), "template")
                            )
                        } else {
                            String::new()
                        };
                        format!("live: {}{counts}", excerpt(&l.state.describe(), 160))
                    })
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "    {:<24} {:<7} {:<10} {live}",
                    excerpt(&s.name, 40),
                    def.transport,
                    def.launcher
                );
            }
        }
    }
    // A blank line before each finding, so one ends where the next begins.
    for f in &r.findings {
        out.push('\n');
        finding_head(&mut out, style, &risk_style(style, risk_of(f)), f);
        finding_body(&mut out, f, "evidence");
    }
    let count = |risk: Risk| r.findings.iter().filter(|f| risk_of(f) == risk).count();
    let _ = write!(
        out,
        "\n{} at or above {} · {} critical, {} high, {} medium, {} low, {} info",
        crate::finding::plural(r.failing(), "finding"),
        r.fail_on.as_str(),
        count(Risk::Critical),
        count(Risk::High),
        count(Risk::Medium),
        count(Risk::Low),
        count(Risk::Info)
    );
    if r.suppressed > 0 {
        let _ = write!(out, " · {} accepted by the baseline", r.suppressed);
    }
    out.push('\n');
    // Notes come after the verdict and its counts, as every human report ends.
    for n in &r.notices {
        let _ = writeln!(out, "note: {}", excerpt(n, 300));
    }
    out
}
