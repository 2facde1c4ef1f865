//! The official MCP JSON schemas, one per revision, and validation of wire messages against them.
//!
//! Each definition is compiled at most once per `WireSchemas` (one per run), never per message.

use jsonschema::Validator;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// The vendored schema text of a revision (see schemas/README.md for provenance).
fn schema_text(version: &str) -> Option<&'static str> {
    Some(match version {
        "2024-11-05" => include_str!("../../schemas/mcp/2024-11-05/schema.json"),
        "2025-03-26" => include_str!("../../schemas/mcp/2025-03-26/schema.json"),
        "2025-06-18" => include_str!("../../schemas/mcp/2025-06-18/schema.json"),
        "2025-11-25" => include_str!("../../schemas/mcp/2025-11-25/schema.json"),
        "2026-07-28" => include_str!("../../schemas/mcp/2026-07-28/schema.json"),
        _ => return None,
    })
}

/// One violation: where in the message, what, and which schema definition it breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireViolation {
    /// JSON pointer into the whole message, e.g. `/result/tools/0/inputSchema/type`.
    pub pointer: String,
    /// The validator's words, bounded ([`MAX_MESSAGE_CHARS`]) but not escaped or cut to
    /// be shown: they quote the server's values, which a report cleans before it cuts.
    pub message: String,
    /// The definition and property path, e.g. `Tool.inputSchema`.
    pub definition: String,
}

/// Characters of a validator's message kept.
pub const MAX_MESSAGE_CHARS: usize = 4096;

impl std::fmt::Display for WireViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} ({})",
            self.pointer, self.message, self.definition
        )
    }
}

/// What a message should be, by definition name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Shape {
    /// The `result` member must match the definition.
    Result(&'static str),
    /// The whole message must match the definition.
    Message(&'static str),
}

/// The compiled schemas of one revision.
pub struct WireSchemas {
    version: &'static str,
    defs_key: &'static str,
    dialect: Value,
    defs: Map<String, Value>,
    compiled: HashMap<Shape, Option<Validator>>,
}

impl WireSchemas {
    /// Schemas for a known revision; `None` for anything else.
    pub fn for_version(version: &str) -> Option<Self> {
        let version = crate::protocol::versions::KNOWN_VERSIONS
            .iter()
            .find(|v| **v == version)?;
        let doc: Value = serde_json::from_str(schema_text(version)?).ok()?;
        let defs_key = if doc.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        let defs = doc.get(defs_key)?.as_object()?.clone();
        Some(Self {
            version,
            defs_key,
            dialect: doc.get("$schema").cloned().unwrap_or(Value::Null),
            defs,
            compiled: HashMap::new(),
        })
    }

    pub fn version(&self) -> &'static str {
        self.version
    }

    /// Validates the result of a request by its method; unknown methods are not judged.
    pub fn check_result(&mut self, method: &str, message: &Value) -> Vec<WireViolation> {
        match result_definition(method) {
            Some(def) => self.check(Shape::Result(def), message),
            None => Vec::new(),
        }
    }

    /// Validates an error response.
    pub fn check_error(&mut self, message: &Value) -> Vec<WireViolation> {
        let def = if self.defs.contains_key("JSONRPCErrorResponse") {
            "JSONRPCErrorResponse"
        } else {
            "JSONRPCError"
        };
        self.check(Shape::Message(def), message)
    }

    /// Validates a notification or request the server sent, by its method.
    pub fn check_server_message(&mut self, method: &str, message: &Value) -> Vec<WireViolation> {
        match server_message_definition(method) {
            Some(def) => self.check(Shape::Message(def), message),
            None => Vec::new(),
        }
    }

    fn check(&mut self, shape: Shape, message: &Value) -> Vec<WireViolation> {
        let (def, target) = match shape {
            Shape::Result(d) | Shape::Message(d) => (d, shape),
        };
        if !self.defs.contains_key(def) {
            return Vec::new();
        }
        if !self.compiled.contains_key(&target) {
            let validator = self.compile(target);
            self.compiled.insert(target, validator);
        }
        let Some(Some(validator)) = self.compiled.get(&target) else {
            return Vec::new();
        };
        validator
            .iter_errors(message)
            .take(MAX_VIOLATIONS)
            .map(|e| WireViolation {
                pointer: {
                    let p = e.instance_path().to_string();
                    if p.is_empty() {
                        "/".into()
                    } else {
                        p
                    }
                },
                message: e.to_string().chars().take(MAX_MESSAGE_CHARS).collect(),
                definition: definition_path(&e.schema_path().to_string(), self.defs_key)
                    .unwrap_or_else(|| def.to_string()),
            })
            .collect()
    }

    fn compile(&self, shape: Shape) -> Option<Validator> {
        let reference = |def: &str| json!({ "$ref": format!("#/{}/{def}", self.defs_key) });
        let mut root = match shape {
            Shape::Result(def) => json!({
                "type": "object",
                "required": ["result"],
                "properties": { "result": reference(def) },
            }),
            Shape::Message(def) => json!({ "allOf": [reference(def)] }),
        };
        root["$schema"] = self.dialect.clone();
        root[self.defs_key] = Value::Object(self.defs.clone());
        jsonschema::validator_for(&root).ok()
    }
}

/// Violations reported per message, at most.
const MAX_VIOLATIONS: usize = 3;

fn result_definition(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "InitializeResult",
        "server/discover" => "DiscoverResult",
        "ping" | "logging/setLevel" => "EmptyResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "completion/complete" => "CompleteResult",
        _ => return None,
    })
}

fn server_message_definition(method: &str) -> Option<&'static str> {
    Some(match method {
        "notifications/message" => "LoggingMessageNotification",
        "notifications/progress" => "ProgressNotification",
        "notifications/cancelled" => "CancelledNotification",
        "notifications/tools/list_changed" => "ToolListChangedNotification",
        "notifications/prompts/list_changed" => "PromptListChangedNotification",
        "notifications/resources/list_changed" => "ResourceListChangedNotification",
        "notifications/resources/updated" => "ResourceUpdatedNotification",
        "ping" => "PingRequest",
        "roots/list" => "ListRootsRequest",
        "sampling/createMessage" => "CreateMessageRequest",
        "elicitation/create" => "ElicitRequest",
        _ => return None,
    })
}

/// `Tool.inputSchema` from a keyword location such as
/// `/properties/result/$ref/properties/tools/items/$ref/properties/inputSchema/...`:
/// the last definition entered, then the properties below it.
fn definition_path(schema_path: &str, defs_key: &str) -> Option<String> {
    let segments: Vec<&str> = schema_path.split('/').collect();
    let mut name: Option<String> = None;
    let mut props: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < segments.len() {
        match segments[i] {
            k if k == defs_key && i + 1 < segments.len() => {
                name = Some(segments[i + 1].to_string());
                props.clear();
                i += 2;
                continue;
            }
            "properties" if i + 1 < segments.len() && name.is_some() => {
                props.push(segments[i + 1]);
                i += 2;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    let mut out = name?;
    for p in props {
        out.push('.');
        out.push_str(p);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_revision_loads() {
        for v in crate::protocol::versions::KNOWN_VERSIONS {
            assert!(WireSchemas::for_version(v).is_some(), "{v}");
        }
        assert!(WireSchemas::for_version("1999-01-01").is_none());
    }

    #[test]
    fn names_the_pointer_and_the_definition() {
        let mut s = WireSchemas::for_version("2025-11-25").expect("schemas");
        let msg = json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [
            {"name": "a", "inputSchema": {"type": "array"}}
        ]}});
        let v = s.check_result("tools/list", &msg);
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].pointer, "/result/tools/0/inputSchema/type");
        assert_eq!(v[0].definition, "Tool.inputSchema.type");
        assert!(v[0].message.contains("\"object\""), "{}", v[0].message);
    }

    #[test]
    fn a_valid_result_has_no_violation() {
        let mut s = WireSchemas::for_version("2024-11-05").expect("schemas");
        let msg = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
            "serverInfo": {"name": "x", "version": "1"}}});
        assert_eq!(s.check_result("initialize", &msg), vec![]);
        assert_eq!(s.check_result("unknown/method", &json!({})), vec![]);
    }
}
