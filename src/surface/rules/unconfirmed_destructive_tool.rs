//! `unconfirmed-destructive-tool`: a tool that sounds destructive but does not say so.
//!
//! Clients ask the user before calling tools annotated `destructiveHint: true`; a tool that
//! deletes or overwrites without that hint, or that claims `readOnlyHint: true`, is called
//! without asking.

use super::SurfaceRule;
use crate::catalog::Code;
use crate::finding::{Finding, Risk};
use crate::surface::item::Item;
use crate::surface::{text, Server};
use regex::bytes::Regex;
use serde_json::Value;
use std::sync::LazyLock;

pub struct UnconfirmedDestructiveTool;

static DESTROYS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    text::phrase_regex(
        r"\b(?:permanently\s+(?:delete|remove|erase|destroy)s?|irreversibl[ey]|cannot\s+be\s+undone|can'?t\s+be\s+undone|overwrites?|wipes?|erases?|destroys?|drops?\s+(?:the\s+)?(?:table|database|collection|index)|deletes?\s+(?:all|every|the\s+entire))\b",
    )
});

/// Why the tool sounds destructive, if it does.
pub(crate) fn destructive_reason(tool: &Item<'_>) -> Option<String> {
    let words = text::words(tool.name().unwrap_or(""));
    if let Some(verb) = words
        .iter()
        .find(|w| text::DESTRUCTIVE_VERBS.contains(&w.as_str()))
    {
        return Some(format!("its name says {verb:?}"));
    }
    let description = tool.str_field("description").unwrap_or("");
    let m = text::find_phrase(DESTROYS.as_ref()?, description)?;
    Some(format!(
        "its description says {:?}",
        text::display(&description[m], 60)
    ))
}

pub(crate) fn hint(tool: &Item<'_>, key: &str) -> Option<bool> {
    tool.value
        .get("annotations")
        .and_then(|a| a.get(key))
        .and_then(Value::as_bool)
}

impl SurfaceRule for UnconfirmedDestructiveTool {
    fn code(&self) -> Code {
        Code::UnconfirmedDestructiveTool
    }

    fn check_tool(&self, _server: &Server<'_>, tool: &Item<'_>, out: &mut Vec<Finding>) {
        let Some(reason) = destructive_reason(tool) else {
            return;
        };
        let (risk, detail, pointer, claim) =
            match (hint(tool, "readOnlyHint"), hint(tool, "destructiveHint")) {
                (Some(true), _) => (
                    Risk::High,
                    "marked-read-only",
                    "annotations/readOnlyHint",
                    "is annotated readOnlyHint: true",
                ),
                (_, Some(true)) => return,
                (_, Some(false)) => (
                    Risk::Medium,
                    "marked-not-destructive",
                    "annotations/destructiveHint",
                    "is annotated destructiveHint: false",
                ),
                (_, None) => (
                    Risk::Medium,
                    "no-destructive-hint",
                    "annotations",
                    "has no destructiveHint annotation",
                ),
            };
        out.push(
            Finding::new(
                self.code(),
                format!(
                    "{} sounds destructive ({reason}) but {claim}, so clients may call it without asking the user.",
                    capitalized_label(tool)
                ),
            )
            .risk(risk)
            .detail(detail)
            .at(tool.location(pointer))
            .fix("Set annotations.readOnlyHint to false and annotations.destructiveHint to true, or rename the tool if it does not destroy anything."),
        );
    }
}

fn capitalized_label(tool: &Item<'_>) -> String {
    let label = tool.label();
    let mut c = label.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::rules::test_support::{run, tools};
    use serde_json::json;

    fn found(tool: serde_json::Value) -> Vec<(String, String, String)> {
        run("unconfirmed-destructive-tool", &[tools(vec![tool])])
            .into_iter()
            .map(|f| {
                (
                    f.detail_code.unwrap_or_default().to_string(),
                    f.severity.as_str().to_string(),
                    f.location.logical.unwrap_or_default(),
                )
            })
            .collect()
    }

    #[test]
    fn pattern_compiles() {
        assert!(DESTROYS.is_some());
    }

    #[test]
    fn finds_unmarked_and_falsely_marked_tools() {
        assert_eq!(
            found(json!({"name": "delete_repo"})),
            [(
                "no-destructive-hint".into(),
                "warning".into(),
                "servers/srv/tools/delete_repo/annotations".into()
            )]
        );
        assert_eq!(
            found(json!({"name": "purgeCache", "annotations": {"readOnlyHint": true}})),
            [(
                "marked-read-only".into(),
                "error".into(),
                "servers/srv/tools/purgeCache/annotations/readOnlyHint".into()
            )]
        );
        assert_eq!(
            found(
                json!({"name": "save", "description": "Overwrites the file.", "annotations": {"destructiveHint": false}})
            ),
            [(
                "marked-not-destructive".into(),
                "warning".into(),
                "servers/srv/tools/save/annotations/destructiveHint".into()
            )]
        );
    }

    #[test]
    fn marked_or_harmless_tools_are_fine() {
        for tool in [
            json!({"name": "delete_entities", "annotations": {"readOnlyHint": false, "destructiveHint": true}}),
            json!({"name": "git_reset", "annotations": {"destructiveHint": true}}),
            json!({"name": "read_file", "annotations": {"readOnlyHint": true}}),
            json!({"name": "create_directory", "description": "If the directory already exists, this operation will succeed silently."}),
            json!({"name": "format_code", "description": "Formats source code."}),
            json!({"name": "list_deleted_items", "annotations": {"readOnlyHint": true}}),
        ] {
            assert_eq!(found(tool.clone()), vec![], "{tool}");
        }
    }
}
