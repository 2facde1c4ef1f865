//! Reports of `mcpcheck surface`: the surface rules over saved listings.

use crate::finding::{excerpt, plural};
use crate::report::human::{closing_counts, finding_body, plain_headline, Style};
use crate::report::issue::{issues_json, summary_json};
use crate::surface::SurfaceRun;
use crate::verdict::Verdict;
use serde_json::{json, Value};
use std::fmt::Write;

/// The surface report contract (v1).
pub const SCHEMA_VERSION: u32 = 1;

fn servers(run: &SurfaceRun) -> Vec<Value> {
    run.surfaces
        .iter()
        .map(|s| {
            json!({
                "name": excerpt(&crate::secrets::redact(&s.server), 128),
                "tools": s.tools.len(),
                "prompts": s.prompts.len(),
                "resources": s.resources.len(),
                "resourceTemplates": s.resource_templates.len(),
            })
        })
        .collect()
}

/// The JSON report (`schemaVersion` 1): `ok`, `summary`, `servers`, `rules`, `issues`.
pub fn json(run: &SurfaceRun) -> Value {
    let verdict = Verdict::of(&run.findings);
    let rules: Vec<&str> = crate::surface::rules::registry()
        .iter()
        .filter(|r| !run.options.only_guard_rules || r.in_guard())
        .map(|r| r.code().as_str())
        .collect();
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "ok": verdict.ok(),
        "summary": summary_json(&verdict),
        "files": run.files,
        "servers": servers(run),
        "rules": rules,
        "issues": issues_json(&run.findings),
    })
}

/// The human report: a headline, what was inspected, then each finding with its fix.
pub fn human(run: &SurfaceRun, style: Style) -> String {
    let verdict = Verdict::of(&run.findings);
    let mut out = String::new();
    let headline = plain_headline(style, verdict.status);
    let _ = writeln!(
        out,
        "{headline}  mcpcheck surface: {}",
        excerpt(&run.files.join(" "), 300)
    );
    for s in &run.surfaces {
        let _ = writeln!(
            out,
            "  server {:?}: {}, {}, {}, {}",
            excerpt(&crate::secrets::redact(&s.server), 64),
            plural(s.tools.len(), "tool"),
            plural(s.prompts.len(), "prompt"),
            plural(s.resources.len(), "resource"),
            plural(s.resource_templates.len(), "resource template"),
        );
    }
    if !run.findings.is_empty() {
        out.push('\n');
    }
    for f in &run.findings {
        let sev = style.severity(f.severity);
        let risk = f
            .risk
            .map(|r| format!(" ({} risk)", r.as_str()))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{sev}[{}]{risk} {}",
            style.paint("1", f.code.as_str()),
            f.location.describe()
        );
        finding_body(&mut out, f, "evidence");
    }
    closing_counts(&mut out, &verdict);
    out
}
