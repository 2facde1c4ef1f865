//! mcpcheck's published JSON Schemas (schemas/reports/): every JSON report a test reads is
//! validated against the schema of its kind.

use super::repo;
use serde_json::Value;
use std::sync::OnceLock;

/// The JSON outputs that have a published schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    Guard,
    Scan,
    Source,
    Surface,
    SweepReport,
    SweepResultLine,
    Proxy,
}

impl Report {
    const ALL: [Report; 7] = [
        Report::Guard,
        Report::Scan,
        Report::Source,
        Report::Surface,
        Report::SweepReport,
        Report::SweepResultLine,
        Report::Proxy,
    ];

    pub fn file(self) -> &'static str {
        match self {
            Report::Guard => "guard-report.v1.schema.json",
            Report::Scan => "scan-report.schema.json",
            Report::Source => "source-report.schema.json",
            Report::Surface => "surface-report.schema.json",
            Report::SweepReport => "sweep-report.schema.json",
            Report::SweepResultLine => "sweep-result-line.schema.json",
            Report::Proxy => "proxy-report.schema.json",
        }
    }

    fn index(self) -> usize {
        Report::ALL.iter().position(|r| *r == self).expect("listed")
    }
}

pub fn schema(kind: Report) -> Value {
    let path = repo().join("schemas/reports").join(kind.file());
    let text = std::fs::read_to_string(&path).expect("published schema");
    serde_json::from_str(&text).expect("schema is JSON")
}

fn validator(kind: Report) -> &'static jsonschema::Validator {
    static VALIDATORS: [OnceLock<jsonschema::Validator>; 7] = [const { OnceLock::new() }; 7];
    VALIDATORS[kind.index()].get_or_init(|| {
        jsonschema::draft202012::new(&schema(kind))
            .unwrap_or_else(|e| panic!("{} does not compile: {e}", kind.file()))
    })
}

/// Every violation of the schema of `kind` by `doc`, one line each.
pub fn violations(kind: Report, doc: &Value) -> Vec<String> {
    validator(kind)
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// Validates one JSON document against the schema of its kind; panics with every
/// violation otherwise. Returns the document for chaining.
pub fn validate(kind: Report, doc: &Value) -> &Value {
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
pub fn validate_text(kind: Report, text: &str) -> Value {
    let doc: Value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("{} output is not JSON ({e}): {text}", kind.file()));
    validate(kind, &doc);
    doc
}

/// Every schema compiles and names itself (`$id` ends with its file name).
pub fn every_schema_compiles() {
    for kind in Report::ALL {
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
