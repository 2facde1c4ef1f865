//! The parameters a tool's `inputSchema` declares, nested ones included, within bounds.

use super::item::segment;
use serde_json::Value;

/// One declared property.
#[derive(Debug)]
pub struct Parameter<'a> {
    /// Escaped pointer inside the item, e.g. `inputSchema/properties/query`.
    pub pointer: String,
    pub name: &'a str,
    pub schema: &'a Value,
}

impl Parameter<'_> {
    pub fn description(&self) -> &str {
        self.schema
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// A string the caller may fill freely: no `enum`, `const` or `pattern` narrows it.
    pub fn is_free_string(&self) -> bool {
        let narrowed = ["enum", "const", "pattern"]
            .iter()
            .any(|k| self.schema.get(k).is_some());
        let stringy = match self.schema.get("type") {
            None => !self.schema.as_object().is_some_and(|o| {
                ["properties", "items", "anyOf", "oneOf", "allOf"]
                    .iter()
                    .any(|k| o.contains_key(*k))
            }),
            Some(Value::String(t)) => t == "string",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
            Some(_) => false,
        };
        stringy && !narrowed
    }
}

const MAX_DEPTH: usize = 8;
const MAX_PARAMETERS: usize = 1_000;

/// Every property of `inputSchema`, depth first, through `properties`, `items` and
/// `anyOf`/`oneOf`/`allOf`.
pub fn parameters(tool: &Value) -> Vec<Parameter<'_>> {
    let mut out = Vec::new();
    if let Some(schema) = tool.get("inputSchema") {
        walk(schema, "inputSchema".to_string(), 0, &mut out);
    }
    out
}

fn walk<'a>(schema: &'a Value, pointer: String, depth: usize, out: &mut Vec<Parameter<'a>>) {
    if depth > MAX_DEPTH || out.len() >= MAX_PARAMETERS {
        return;
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            let here = format!("{pointer}/properties/{}", segment(name));
            if out.len() >= MAX_PARAMETERS {
                return;
            }
            out.push(Parameter {
                pointer: here.clone(),
                name,
                schema: sub,
            });
            walk(sub, here, depth + 1, out);
        }
    }
    if let Some(items) = schema.get("items") {
        walk(items, format!("{pointer}/items"), depth + 1, out);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(list) = schema.get(key).and_then(Value::as_array) {
            for (i, sub) in list.iter().enumerate() {
                walk(sub, format!("{pointer}/{key}/{i}"), depth + 1, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_nested_parameters_with_pointers() {
        let tool = json!({"inputSchema": {"type": "object", "properties": {
            "edits": {"type": "array", "items": {"type": "object", "properties": {"oldText": {"type": "string"}}}},
            "mode": {"type": "string", "enum": ["a"]}
        }}});
        let found: Vec<(String, bool)> = parameters(&tool)
            .iter()
            .map(|p| (p.pointer.clone(), p.is_free_string()))
            .collect();
        assert_eq!(
            found,
            [
                ("inputSchema/properties/edits".to_string(), false),
                (
                    "inputSchema/properties/edits/items/properties/oldText".to_string(),
                    true
                ),
                ("inputSchema/properties/mode".to_string(), false),
            ]
        );
    }
}
