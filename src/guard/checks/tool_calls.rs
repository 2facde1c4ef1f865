//! Tool calls the user asked for (safeToolCalls, --request tools/call): tool errors and
//! structured content checked against the tool's outputSchema.

use super::{Check, CheckContext};
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location};
use crate::session::transcript::{ListKind, Outcome, Purpose};
use serde_json::Value;

pub struct ToolCalls;

impl Check for ToolCalls {
    fn name(&self) -> &'static str {
        "toolCalls"
    }

    fn codes(&self) -> &'static [Code] {
        &[Code::ToolCallError, Code::ToolStructuredContentInvalid]
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        let t = cx.transcript;
        let tools = t
            .list(ListKind::Tools)
            .map(|p| p.items.as_slice())
            .unwrap_or(&[]);
        let calls = t
            .exchanges
            .iter()
            .filter(|e| e.purpose == Purpose::Explicit && e.method == "tools/call");
        for e in calls {
            let Outcome::Result(result) = &e.outcome else {
                continue;
            };
            let name = e
                .params
                .as_ref()
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("?");
            let shown = excerpt(name, 128);
            let mut location = Location::request("tools/call");
            location.stdout_line = e.answer_line;
            location.logical = Some(format!("tools/{shown}"));
            if result.get("isError") == Some(&Value::Bool(true)) {
                out.push(
                    Finding::new(
                        Code::ToolCallError,
                        format!(
                            "Calling tool {shown} returned isError: true{}.",
                            first_text(result)
                                .map(|t| format!(": {}", excerpt(t, 200)))
                                .unwrap_or_default()
                        ),
                    )
                    .at(location),
                );
                continue;
            }
            let schema = tools
                .iter()
                .find(|tool| tool.get("name").and_then(Value::as_str) == Some(name))
                .and_then(|tool| tool.get("outputSchema"));
            let Some(schema) = schema else { continue };
            let problem = match result.get("structuredContent") {
                None => Some("the result has no structuredContent".to_string()),
                Some(content) => match jsonschema::validator_for(schema) {
                    Err(_) => None, // An invalid outputSchema is reported by the tool-schema check.
                    Ok(v) => v.iter_errors(content).next().map(|err| {
                        let at = err.instance_path().to_string();
                        let at = if at.is_empty() { "/".to_string() } else { at };
                        format!(
                            "its structuredContent at {at} does not validate: {}",
                            excerpt(&err.to_string(), 200)
                        )
                    }),
                },
            };
            if let Some(problem) = problem {
                out.push(
                    Finding::new(
                        Code::ToolStructuredContentInvalid,
                        format!("Tool {shown} declares an outputSchema, but {problem}."),
                    )
                    .at(location),
                );
            }
        }
    }
}

fn first_text(result: &Value) -> Option<&str> {
    result
        .get("content")?
        .as_array()?
        .iter()
        .find_map(|c| c.get("text").and_then(Value::as_str))
}
