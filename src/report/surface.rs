//! Reports of `mcpcheck surface`: the surface rules over saved listings.

use crate::finding::{excerpt, plural};
use crate::report::human::{closing_counts, finding_body, plain_headline, Style};
use crate::report::issue::{Issue, SchemaVersion, Summary};
use crate::surface::SurfaceRun;
use crate::verdict::Verdict;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write;

/// The surface report contract (v1).
pub const SCHEMA_VERSION: u32 = 1;

/// The surface rules' JSON report on tool, prompt and resource listings.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "mcpcheck surface --format json")]
pub struct SurfaceReport<'a> {
    pub schema_version: SchemaVersion,
    /// True when no finding has severity `error`.
    pub ok: bool,
    pub summary: Summary,
    /// The listing files read.
    pub files: &'a [String],
    pub servers: Vec<ServerCounts>,
    /// The codes of the rules that ran.
    pub rules: Vec<&'static str>,
    pub issues: Vec<Issue<'a>>,
}

/// One server's listing: its name and how many of each it lists.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerCounts {
    pub name: String,
    pub tools: usize,
    pub prompts: usize,
    pub resources: usize,
    pub resource_templates: usize,
}

pub fn report(run: &SurfaceRun) -> SurfaceReport<'_> {
    let verdict = Verdict::of(&run.findings);
    let rules = crate::surface::rules::registry()
        .iter()
        .filter(|r| !run.options.only_guard_rules || r.in_guard())
        .map(|r| r.code().as_str())
        .collect();
    let servers = run
        .surfaces
        .iter()
        .map(|s| ServerCounts {
            name: excerpt(&crate::secrets::redact(&s.server), 128),
            tools: s.tools.len(),
            prompts: s.prompts.len(),
            resources: s.resources.len(),
            resource_templates: s.resource_templates.len(),
        })
        .collect();
    SurfaceReport {
        schema_version: SchemaVersion,
        ok: verdict.ok(),
        summary: Summary::of(&verdict),
        files: &run.files,
        servers,
        rules,
        issues: run.findings.iter().map(Issue::of).collect(),
    }
}

/// The JSON report (`schemaVersion` 1): `ok`, `summary`, `servers`, `rules`, `issues`.
pub fn json(run: &SurfaceRun) -> Value {
    serde_json::to_value(report(run)).unwrap_or(Value::Null)
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
    // A blank line before each finding, so one ends where the next begins.
    for f in &run.findings {
        out.push('\n');
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
