//! Tool definitions from `tools/list`: names, descriptions and JSON Schemas.

use super::initialize::json_kind;
use super::{Check, CheckContext};
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location, Severity};
use crate::session::transcript::{ListKind, Transcript};
use jsonschema::meta::MetaValidator;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

pub struct ToolSchemas;

impl Check for ToolSchemas {
    fn name(&self) -> &'static str {
        "toolSchemas"
    }

    fn codes(&self) -> &'static [Code] {
        &[
            Code::ToolNameDuplicate,
            Code::ToolNameInvalid,
            Code::ToolInputSchemaInvalid,
            Code::ToolInputSchemaRequiredMissing,
            Code::ToolOutputSchemaInvalid,
            Code::ToolDescriptionMissing,
        ]
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        let tools = tools(cx.transcript);
        let mut by_name: BTreeMap<&str, usize> = BTreeMap::new();
        for (index, tool) in tools.iter().enumerate() {
            out.extend(inspect_tool(index, tool));
            if let Some(name) = tool.get("name").and_then(Value::as_str) {
                *by_name.entry(name).or_default() += 1;
            }
        }
        for (name, count) in by_name.into_iter().filter(|(_, n)| *n > 1) {
            out.push(
                Finding::new(
                    Code::ToolNameDuplicate,
                    format!(
                        "{count} tools are named {:?}; a client can reach only one of them.",
                        excerpt(name, 128)
                    ),
                )
                .at(Location::logical(format!("tools/{}", excerpt(name, 128)))),
            );
        }
    }
}

/// How many advertised tools have usable definitions.
#[derive(Debug, Clone, Copy, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSchemaSummary {
    pub total: usize,
    pub valid: usize,
    pub invalid: usize,
}

impl ToolSchemaSummary {
    pub fn of(t: &Transcript) -> Self {
        let tools = tools(t);
        let invalid = tools
            .iter()
            .enumerate()
            .filter(|(i, tool)| {
                inspect_tool(*i, tool)
                    .iter()
                    .any(|f| f.severity == Severity::Error)
            })
            .count();
        Self {
            total: tools.len(),
            valid: tools.len() - invalid,
            invalid,
        }
    }
}

fn tools(t: &Transcript) -> &[Value] {
    t.list(ListKind::Tools)
        .map(|p| p.items.as_slice())
        .unwrap_or(&[])
}

/// Every finding about one tool definition (duplicates aside).
fn inspect_tool(index: usize, tool: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let name = tool.get("name");
    let label = match name.and_then(Value::as_str) {
        Some(n) if !n.is_empty() => excerpt(n, 128),
        _ => format!("#{index}"),
    };
    let path = |member: &str| Location::logical(format!("tools/{label}{member}"));
    let Some(obj) = tool.as_object() else {
        out.push(
            Finding::new(
                Code::ToolNameInvalid,
                format!("Tool #{index} is {}, not an object.", json_kind(tool)),
            )
            .detail("not-an-object")
            .at(path("")),
        );
        return out;
    };
    match name {
        Some(Value::String(n)) if n.is_empty() => out.push(
            Finding::new(Code::ToolNameInvalid, format!("Tool #{index} has an empty name."))
                .detail("empty")
                .at(path("/name")),
        ),
        Some(Value::String(n)) if !follows_naming_guidance(n) => out.push(
            Finding::new(
                Code::ToolNameInvalid,
                format!(
                    "Tool name {:?} is outside the naming guidance (1–128 characters of A–Z a–z 0–9 _ - .).",
                    excerpt(n, 140)
                ),
            )
            .severity(Severity::Warning)
            .detail("naming-guidance")
            .at(path("/name")),
        ),
        Some(Value::String(_)) => {}
        None => out.push(
            Finding::new(Code::ToolNameInvalid, format!("Tool #{index} has no name."))
                .detail("missing")
                .at(path("")),
        ),
        Some(other) => out.push(
            Finding::new(
                Code::ToolNameInvalid,
                format!("Tool #{index} has a name that is {}, not a string.", json_kind(other)),
            )
            .detail("not-a-string")
            .at(path("/name")),
        ),
    }
    match obj.get("description") {
        Some(Value::String(d)) if !d.trim().is_empty() => {}
        _ => out.push(
            Finding::new(
                Code::ToolDescriptionMissing,
                format!("Tool {label} has no description."),
            )
            .at(path("/description")),
        ),
    }
    match obj.get("inputSchema") {
        None => out.push(
            Finding::new(
                Code::ToolInputSchemaInvalid,
                format!("Tool {label} has no inputSchema."),
            )
            .detail("missing")
            .at(path("/inputSchema")),
        ),
        Some(schema) => {
            for (severity, detail, problem) in schema_problems(schema) {
                out.push(
                    Finding::new(
                        Code::ToolInputSchemaInvalid,
                        format!("The inputSchema of tool {label} {problem}."),
                    )
                    .severity(severity)
                    .detail(detail)
                    .at(path("/inputSchema")),
                );
            }
            for missing in required_not_in_properties(schema) {
                out.push(
                    Finding::new(
                        Code::ToolInputSchemaRequiredMissing,
                        format!(
                            "Tool {label} requires {:?}, which inputSchema.properties does not define.",
                            excerpt(&missing, 128)
                        ),
                    )
                    .at(path("/inputSchema/required")),
                );
            }
        }
    }
    if let Some(schema) = obj.get("outputSchema") {
        for (severity, detail, problem) in schema_problems(schema) {
            out.push(
                Finding::new(
                    Code::ToolOutputSchemaInvalid,
                    format!("The outputSchema of tool {label} {problem}."),
                )
                .severity(severity)
                .detail(detail)
                .at(path("/outputSchema")),
            );
        }
    }
    out
}

/// The 2025-11-25 naming guidance: 1–128 characters of `[A-Za-z0-9_.-]`.
fn follows_naming_guidance(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Problems of a tool schema (input or output): shape, root type, meta-schema validity.
fn schema_problems(schema: &Value) -> Vec<(Severity, &'static str, String)> {
    let Some(obj) = schema.as_object() else {
        return vec![(
            Severity::Error,
            "not-an-object",
            format!("is {}, not an object", json_kind(schema)),
        )];
    };
    let mut problems = Vec::new();
    match obj.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => problems.push((
            Severity::Error,
            "root-type-not-object",
            format!(
                "has root type {}, not \"object\"",
                excerpt(&other.to_string(), 60)
            ),
        )),
        None => problems.push((
            Severity::Error,
            "root-type-missing",
            "has no root type; it must be \"object\"".to_string(),
        )),
    }
    match dialect_validator(obj.get("$schema")) {
        Dialect::Known(validator) => {
            if let Err(e) = validator.validate(schema) {
                let at = e.instance_path().to_string();
                let at = if at.is_empty() { "/".to_string() } else { at };
                problems.push((
                    Severity::Error,
                    "meta-schema",
                    format!(
                        "is not a valid JSON Schema: at {}: {}",
                        excerpt(&at, 100),
                        excerpt(&e.to_string(), 200)
                    ),
                ));
            }
        }
        Dialect::Unknown(uri) => problems.push((
            Severity::Warning,
            "unknown-dialect",
            format!(
                "declares the unknown dialect {:?}, so clients cannot validate against it",
                excerpt(&uri, 120)
            ),
        )),
        Dialect::NotAString => problems.push((
            Severity::Error,
            "schema-keyword-not-string",
            "has a $schema that is not a string".to_string(),
        )),
    }
    problems
}

enum Dialect {
    Known(MetaValidator<'static>),
    Unknown(String),
    NotAString,
}

/// The meta-schema for a `$schema` value; 2020-12 when there is none, as MCP specifies.
fn dialect_validator(declared: Option<&Value>) -> Dialect {
    let uri = match declared {
        None => return Dialect::Known(jsonschema::draft202012::meta::validator()),
        Some(Value::String(s)) => s,
        Some(_) => return Dialect::NotAString,
    };
    let normalized = uri
        .trim_end_matches('#')
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    match normalized {
        "json-schema.org/draft/2020-12/schema" => {
            Dialect::Known(jsonschema::draft202012::meta::validator())
        }
        "json-schema.org/draft/2019-09/schema" => {
            Dialect::Known(jsonschema::draft201909::meta::validator())
        }
        "json-schema.org/draft-07/schema" => Dialect::Known(jsonschema::draft7::meta::validator()),
        "json-schema.org/draft-06/schema" => Dialect::Known(jsonschema::draft6::meta::validator()),
        "json-schema.org/draft-04/schema" => Dialect::Known(jsonschema::draft4::meta::validator()),
        _ => Dialect::Unknown(uri.clone()),
    }
}

fn required_not_in_properties(schema: &Value) -> Vec<String> {
    let Some(required) = schema.get("required").and_then(Value::as_array) else {
        return Vec::new();
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    required
        .iter()
        .filter_map(Value::as_str)
        .filter(|name| !properties.is_some_and(|p| p.contains_key(*name)))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(tool: Value) -> Vec<(Code, Severity)> {
        inspect_tool(0, &tool)
            .iter()
            .map(|f| (f.code, f.severity))
            .collect()
    }

    #[test]
    fn a_good_tool_has_no_finding() {
        let tool = json!({"name": "echo", "description": "Echo.", "inputSchema":
            {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
             "properties": {"text": {"type": "string"}}, "required": ["text"]}});
        assert_eq!(codes(tool), vec![]);
    }

    #[test]
    fn schema_problems_are_named() {
        let base = |schema: Value| json!({"name": "t", "description": "d", "inputSchema": schema});
        assert_eq!(
            codes(base(json!({"type": "array"}))),
            vec![(Code::ToolInputSchemaInvalid, Severity::Error)]
        );
        assert_eq!(
            codes(base(json!({"type": "object", "properties": 5}))),
            vec![(Code::ToolInputSchemaInvalid, Severity::Error)]
        );
        assert_eq!(
            codes(base(
                json!({"type": "object", "$schema": "https://example.com/s"})
            )),
            vec![(Code::ToolInputSchemaInvalid, Severity::Warning)]
        );
        assert_eq!(
            codes(base(
                json!({"type": "object", "properties": {"a": {}}, "required": ["a", "b"]})
            )),
            vec![(Code::ToolInputSchemaRequiredMissing, Severity::Error)]
        );
    }

    #[test]
    fn names_follow_the_guidance_or_warn() {
        assert!(follows_naming_guidance("get_weather.v2-beta"));
        assert!(!follows_naming_guidance("do stuff!"));
        assert!(!follows_naming_guidance(&"a".repeat(129)));
        assert_eq!(
            codes(
                json!({"name": "do stuff!", "description": "d", "inputSchema": {"type": "object"}})
            ),
            vec![(Code::ToolNameInvalid, Severity::Warning)]
        );
    }
}
