//! Reports of `mcpcheck surface`: the surface rules over saved listings.

use super::{plural, Status, Verdict};
use crate::finding::{excerpt, Finding, IssueClass};
use crate::report::human::{finding_body, Style};
use crate::surface::{ServerSurface, SurfaceOptions};
use serde_json::{json, Value};
use std::fmt::Write;

/// What one `mcpcheck surface` run inspected and found.
#[derive(Debug)]
pub struct SurfaceRun {
    pub files: Vec<String>,
    pub surfaces: Vec<ServerSurface>,
    pub options: SurfaceOptions,
    pub findings: Vec<Finding>,
}

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
        "schemaVersion": super::json::SCHEMA_VERSION,
        "ok": verdict.ok(),
        "summary": {
            "status": verdict.status.as_str(),
            "primaryIssueCode": verdict.primary.map(|p| p.code.as_str()),
            "issueCounts": {
                "error": verdict.errors,
                "warning": verdict.warnings,
                "note": verdict.notes,
                "total": verdict.errors + verdict.warnings + verdict.notes,
            },
            "display": verdict.display(),
        },
        "files": run.files,
        "servers": servers(run),
        "rules": rules,
        "issues": run.findings.iter().map(|f| {
            let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
            v["class"] = json!(IssueClass::Security.as_str());
            if let Some(owasp) = f.code.meta().owasp {
                v["owasp"] = json!(owasp);
            }
            v
        }).collect::<Vec<_>>(),
    })
}

/// The human report: a headline, what was inspected, then each finding with its fix.
pub fn human(run: &SurfaceRun, style: Style) -> String {
    let verdict = Verdict::of(&run.findings);
    let mut out = String::new();
    let headline = match verdict.status {
        Status::Pass => style.paint("1;32", "PASS"),
        Status::Warning => style.paint("1;33", "WARN"),
        Status::NeedsInspection | Status::Fail => style.paint("1;31", "FAIL"),
    };
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
    let _ = writeln!(
        out,
        "\n{}, {}, {}",
        plural(verdict.errors, "error"),
        plural(verdict.warnings, "warning"),
        plural(verdict.notes, "note")
    );
    out
}
