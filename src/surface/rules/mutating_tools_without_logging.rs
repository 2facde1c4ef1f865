//! `mutating-tools-without-logging`: state-changing tools and no logging capability.
//!
//! Judged only when the server's `initialize` capabilities are known.

use super::unconfirmed_destructive_tool::{destructive_reason, hint};
use super::SurfaceRule;
use crate::catalog::Code;
use crate::finding::Finding;
use crate::session::advertises;
use crate::surface::item::Item;
use crate::surface::{text, Server};

pub struct MutatingToolsWithoutLogging;

/// A tool that changes state: annotated so, or named so and not annotated read-only.
fn mutates(tool: &Item<'_>) -> bool {
    if hint(tool, "readOnlyHint") == Some(true) {
        return false;
    }
    hint(tool, "destructiveHint") == Some(true)
        || hint(tool, "readOnlyHint") == Some(false)
        || destructive_reason(tool).is_some()
        || names_a_change(tool.name().unwrap_or(""))
}

/// Write verbs that name a change only with an object: alone, `add` or `set` is as likely
/// a calculator or a view setting as a write (`add_user` and `set_config` are writes).
const NEEDS_OBJECT: &[&str] = &[
    "add", "set", "put", "post", "run", "apply", "merge", "replace", "import", "move", "change",
    "toggle", "patch", "append", "assign", "cp", "mv", "send", "store", "checkout",
];

/// A tool name that says it changes state: a write verb, with an object where the verb
/// alone is ambiguous.
fn names_a_change(name: &str) -> bool {
    let words = text::words(name);
    words.iter().any(|w| {
        text::WRITE_VERBS.contains(&w.as_str())
            && (words.len() > 1 || !NEEDS_OBJECT.contains(&w.as_str()))
    })
}

impl SurfaceRule for MutatingToolsWithoutLogging {
    fn code(&self) -> Code {
        Code::MutatingToolsWithoutLogging
    }

    fn check_server(&self, server: &Server<'_>, out: &mut Vec<Finding>) {
        let Some(capabilities) = server.capabilities else {
            return;
        };
        if advertises(capabilities, "logging") {
            return;
        }
        let mutating: Vec<String> = server
            .tools()
            .filter(|t| mutates(t))
            .map(|t| format!("{:?}", t.display_name()))
            .collect();
        if mutating.is_empty() {
            return;
        }
        let shown: Vec<&str> = mutating.iter().take(5).map(String::as_str).collect();
        let more = mutating.len().saturating_sub(shown.len());
        out.push(
            Finding::new(
                self.code(),
                format!(
                    "Server {:?} has {} state ({}{}) but does not advertise the logging capability, so clients keep no server-side record of what they did.",
                    server.display(),
                    if mutating.len() == 1 { "1 tool that changes".to_string() } else { format!("{} tools that change", mutating.len()) },
                    shown.join(", "),
                    if more > 0 { format!(" and {more} more") } else { String::new() }
                ),
            )
            .at(server.location("capabilities")),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::surface::{check_with_initialize, ServerSurface, SurfaceOptions};
    use serde_json::{json, Value};

    fn found(tools: Vec<Value>, capabilities: Option<Value>) -> Vec<String> {
        let surface = ServerSurface {
            server: "srv".into(),
            tools,
            ..ServerSurface::default()
        };
        let init = capabilities.map(|c| serde_json::json!({ "capabilities": c }));
        check_with_initialize(&[surface], &[init], &SurfaceOptions::default())
            .into_iter()
            .filter(|f| f.code.as_str() == "mutating-tools-without-logging")
            .map(|f| format!("{} {}", f.location.logical.unwrap_or_default(), f.message))
            .collect()
    }

    #[test]
    fn finds_mutating_tools_without_logging() {
        let tools = vec![
            json!({"name": "git_commit", "annotations": {"readOnlyHint": false}}),
            json!({"name": "git_status", "annotations": {"readOnlyHint": true}}),
            json!({"name": "drop_table"}),
        ];
        let found = found(tools, Some(json!({"tools": {}})));
        assert_eq!(found.len(), 1);
        assert!(found[0].starts_with("servers/srv/capabilities Server \"srv\" has 2 tools that change state (\"git_commit\", \"drop_table\")"), "{}", found[0]);
    }

    #[test]
    fn one_tool_is_named_in_the_singular() {
        let found = found(
            vec![json!({"name": "write_file"})],
            Some(json!({"tools": {}})),
        );
        assert_eq!(found.len(), 1);
        assert!(
            found[0].contains("has 1 tool that changes state (\"write_file\")"),
            "{}",
            found[0]
        );
    }

    #[test]
    fn an_ambiguous_verb_alone_is_no_change_but_with_an_object_it_is() {
        let caps = || Some(json!({"tools": {}}));
        for calculator in ["add", "set", "run", "merge"] {
            let found = found(vec![json!({"name": calculator})], caps());
            assert_eq!(found, Vec::<String>::new(), "{calculator}");
        }
        for name in ["add_user", "setConfig", "upload", "save", "git_add"] {
            let found = found(vec![json!({"name": name})], caps());
            assert_eq!(found.len(), 1, "{name}");
        }
        // An annotation says more than a name.
        let annotated = found(
            vec![json!({"name": "add", "annotations": {"readOnlyHint": false}})],
            caps(),
        );
        assert_eq!(annotated.len(), 1);
    }

    #[test]
    fn logging_read_only_tools_or_unknown_capabilities_are_fine() {
        let writer = || vec![json!({"name": "write_file"})];
        assert_eq!(
            found(writer(), Some(json!({"tools": {}, "logging": {}}))),
            Vec::<String>::new()
        );
        assert_eq!(found(writer(), None), Vec::<String>::new());
        assert_eq!(
            found(
                vec![json!({"name": "get_time", "annotations": {"readOnlyHint": true}})],
                Some(json!({"tools": {}}))
            ),
            Vec::<String>::new()
        );
    }
}
