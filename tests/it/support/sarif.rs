//! SARIF checks: the official 2.1.0 schema, and artifact URIs that name workspace files.

use super::repo;
use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;

fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let text = std::fs::read_to_string(repo().join("schemas/sarif/sarif-schema-2.1.0.json"))
            .expect("vendored SARIF schema");
        let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
        jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .expect("the vendored schema compiles")
    })
}

/// Parses a SARIF document and validates it against the official 2.1.0 schema; panics
/// with every violation otherwise.
pub fn validate_sarif(text: &str) -> Value {
    let doc: Value = serde_json::from_str(text).expect("SARIF is JSON");
    let errors: Vec<String> = validator()
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF violates the schema:\n{}",
        errors.join("\n")
    );
    doc
}

/// Every artifact URI in a SARIF document is relative, `%SRCROOT%`-based and names a file
/// that exists in the workspace.
pub fn assert_uris_are_workspace_files(doc: &Value, workspace: &Path) {
    let mut uris = Vec::new();
    collect_artifact_locations(doc, &mut uris);
    for (uri, base) in uris {
        assert_eq!(base.as_deref(), Some("%SRCROOT%"), "uriBaseId of {uri}");
        assert!(
            !uri.contains("://") && !uri.starts_with('/'),
            "absolute URI {uri}"
        );
        assert!(
            workspace.join(&uri).is_file(),
            "{uri} is not a file in the workspace"
        );
    }
}

fn collect_artifact_locations(v: &Value, out: &mut Vec<(String, Option<String>)>) {
    match v {
        Value::Object(o) => {
            if let Some(Value::Object(al)) = o.get("artifactLocation") {
                if let Some(uri) = al.get("uri").and_then(Value::as_str) {
                    let base = al
                        .get("uriBaseId")
                        .and_then(Value::as_str)
                        .map(String::from);
                    out.push((uri.to_string(), base));
                }
            }
            o.values().for_each(|x| collect_artifact_locations(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| collect_artifact_locations(x, out)),
        _ => {}
    }
}
