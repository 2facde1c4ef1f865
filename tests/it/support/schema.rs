//! mcpcheck's published JSON Schemas (schemas/reports/): every JSON output a test reads (the
//! reports, result and log lines, the baseline and lock files) is validated against the
//! schema of its kind.

use super::repo;
use serde_json::Value;
use std::sync::OnceLock;

/// The JSON outputs that have a published schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportKind {
    Guard,
    Scan,
    Source,
    Surface,
    SweepReport,
    SweepResultLine,
    Proxy,
    Inventory,
    /// `.mcpcheck-baseline.json`, written by `mcpcheck baseline`.
    Baseline,
    /// `.mcpcheck-lock.json`, written by `mcpcheck pin`.
    Lock,
    /// One line of `proxy --log`.
    ProxyLogLine,
}

impl ReportKind {
    pub const ALL: [ReportKind; 11] = [
        ReportKind::Guard,
        ReportKind::Scan,
        ReportKind::Source,
        ReportKind::Surface,
        ReportKind::SweepReport,
        ReportKind::SweepResultLine,
        ReportKind::Proxy,
        ReportKind::Inventory,
        ReportKind::Baseline,
        ReportKind::Lock,
        ReportKind::ProxyLogLine,
    ];

    pub fn file(self) -> &'static str {
        match self {
            ReportKind::Guard => "guard-report.v1.schema.json",
            ReportKind::Scan => "scan-report.schema.json",
            ReportKind::Source => "source-report.schema.json",
            ReportKind::Surface => "surface-report.schema.json",
            ReportKind::SweepReport => "sweep-report.schema.json",
            ReportKind::SweepResultLine => "sweep-result-line.schema.json",
            ReportKind::Proxy => "proxy-report.schema.json",
            ReportKind::Inventory => "inventory-report.schema.json",
            ReportKind::Baseline => "baseline-file.schema.json",
            ReportKind::Lock => "lock-file.schema.json",
            ReportKind::ProxyLogLine => "proxy-log-line.schema.json",
        }
    }

    fn index(self) -> usize {
        ReportKind::ALL
            .iter()
            .position(|r| *r == self)
            .expect("listed")
    }
}

pub fn schema(kind: ReportKind) -> Value {
    let path = repo().join("schemas/reports").join(kind.file());
    let text = std::fs::read_to_string(&path).expect("published schema");
    serde_json::from_str(&text).expect("schema is JSON")
}

fn validator(kind: ReportKind) -> &'static jsonschema::Validator {
    static VALIDATORS: [OnceLock<jsonschema::Validator>; ReportKind::ALL.len()] =
        [const { OnceLock::new() }; ReportKind::ALL.len()];
    VALIDATORS[kind.index()].get_or_init(|| {
        jsonschema::draft202012::new(&schema(kind))
            .unwrap_or_else(|e| panic!("{} does not compile: {e}", kind.file()))
    })
}

/// Every violation of the schema of `kind` by `doc`, one line each.
pub fn violations(kind: ReportKind, doc: &Value) -> Vec<String> {
    validator(kind)
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// Validates one JSON document against the schema of its kind; panics with every
/// violation otherwise. Returns the document for chaining.
pub fn validate(kind: ReportKind, doc: &Value) -> &Value {
    let errors = violations(kind, doc);
    assert!(
        errors.is_empty(),
        "{} violated by the output:\n{}",
        kind.file(),
        errors.join("\n")
    );
    doc
}

/// Parses `text` as JSON and validates it.
pub fn validate_text(kind: ReportKind, text: &str) -> Value {
    let doc: Value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("{} output is not JSON ({e}): {text}", kind.file()));
    validate(kind, &doc);
    doc
}

/// Every schema compiles and names itself (`$id` ends with its file name).
pub fn every_schema_compiles() {
    for kind in ReportKind::ALL {
        let s = schema(kind);
        assert!(
            s["$id"]
                .as_str()
                .is_some_and(|id| id.ends_with(kind.file())),
            "{}: $id",
            kind.file()
        );
        let _ = validator(kind);
    }
}
