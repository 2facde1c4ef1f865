//! `unrestricted-exec-input`: a tool that runs a free-form string as a command or code.

use super::SurfaceRule;
use crate::catalog::Code;
use crate::finding::Finding;
use crate::surface::item::Item;
use crate::surface::schema::parameters;
use crate::surface::{text, Server};
use regex::bytes::Regex;
use std::sync::LazyLock;

pub struct UnrestrictedExecInput;

static EXECUTES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    text::phrase_regex(
        r"\b(?:execute|executes|executing|run|runs|running|evaluate|evaluates|eval)\s+(?:an?\s+|any\s+|arbitrary\s+|the\s+(?:given|provided|specified)\s+)?(?:shell\s+|bash\s+|terminal\s+|system\s+|os\s+|raw\s+)?(?:commands?|command\s+lines?|code|scripts?|sql(?:\s+(?:queries|query|statements?))?|python(?:\s+code)?|javascript(?:\s+code)?|expressions?)\b",
    )
});

/// Squashed parameter names that carry a command or a program.
const PAYLOAD_NAMES: &[&str] = &[
    "command",
    "cmd",
    "commandline",
    "script",
    "code",
    "sql",
    "statement",
    "expression",
    "expr",
    "program",
    "shell",
    "bash",
    "python",
    "js",
    "javascript",
    "snippet",
];

/// Name words that say the tool executes what it is given.
fn executes_by_name(words: &[String]) -> bool {
    let has = |w: &str| words.iter().any(|x| x == w);
    text::has_any(words, text::EXEC_VERBS)
        || (["run", "eval"].iter().any(|v| has(v))
            && [
                "command",
                "code",
                "script",
                "python",
                "js",
                "javascript",
                "node",
                "sql",
                "shell",
            ]
            .iter()
            .any(|o| has(o)))
        || (has("sql") && ["query", "run", "execute", "raw"].iter().any(|o| has(o)))
}

impl SurfaceRule for UnrestrictedExecInput {
    fn code(&self) -> Code {
        Code::UnrestrictedExecInput
    }

    fn check_tool(&self, _server: &Server<'_>, tool: &Item<'_>, out: &mut Vec<Finding>) {
        let name_words = text::words(tool.name().unwrap_or(""));
        let description = tool.str_field("description").unwrap_or("");
        let by_description = EXECUTES
            .as_ref()
            .and_then(|re| text::find_phrase(re, description));
        if !executes_by_name(&name_words) && by_description.is_none() {
            return;
        }
        // "query" carries a program only where the tool speaks SQL.
        let sql = name_words.iter().any(|w| w == "sql")
            || description.to_ascii_lowercase().contains("sql");
        let Some(param) = parameters(tool.value).into_iter().find(|p| {
            let name = text::squash(p.name);
            p.is_free_string()
                && (PAYLOAD_NAMES.contains(&name.as_str())
                    || (sql && name == "query")
                    || EXECUTES
                        .as_ref()
                        .is_some_and(|re| text::find_phrase(re, p.description()).is_some()))
        }) else {
            return;
        };
        let why = match &by_description {
            Some(m) => format!(
                "its description says it will {:?}",
                text::display(&description[m.clone()], 80)
            ),
            None => "its name says it executes what it is given".to_string(),
        };
        out.push(
            Finding::new(
                self.code(),
                format!(
                    "{} takes {:?}, a free-form string with no enum or pattern, and {why}: anything that steers the model can run commands.",
                    capitalize(&tool.label()),
                    text::display(param.name, 64)
                ),
            )
            .detail(if by_description.is_some() { "described-as-exec" } else { "named-as-exec" })
            .at(tool.location(&param.pointer))
            .evidence(&text::evidence(description, by_description.map_or(0, |m| m.start))),
        );
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::rules::test_support::{places, tools};
    use serde_json::json;

    fn tool(name: &str, description: &str, properties: serde_json::Value) -> Vec<String> {
        places(
            "unrestricted-exec-input",
            &[tools(vec![
                json!({"name": name, "description": description,
                "inputSchema": {"type": "object", "properties": properties}}),
            ])],
        )
    }

    #[test]
    fn pattern_compiles() {
        assert!(EXECUTES.is_some());
    }

    #[test]
    fn finds_free_form_execution() {
        assert_eq!(
            tool(
                "run_command",
                "Runs a shell command.",
                json!({"command": {"type": "string"}})
            ),
            ["servers/srv/tools/run_command/inputSchema/properties/command"]
        );
        assert_eq!(
            tool(
                "db",
                "Executes a SQL query against the warehouse.",
                json!({"q": {"type": "string", "description": "SQL statement"}, "sql": {"type": "string"}})
            ),
            ["servers/srv/tools/db/inputSchema/properties/sql"]
        );
        assert_eq!(
            tool("eval_python", "Evaluates.", json!({"code": {}})),
            ["servers/srv/tools/eval_python/inputSchema/properties/code"]
        );
    }

    #[test]
    fn restricted_or_non_exec_tools_are_fine() {
        for (name, description, properties) in [
            (
                "run_command",
                "Runs one of the allowed commands.",
                json!({"command": {"type": "string", "enum": ["git status", "ls"]}}),
            ),
            (
                "run_tests",
                "Runs the test suite.",
                json!({"suite": {"type": "string"}}),
            ),
            (
                "search_nodes",
                "Search for nodes in the knowledge graph based on a query",
                json!({"query": {"type": "string"}}),
            ),
            (
                "exec_sql",
                "Executes SQL.",
                json!({"table": {"type": "string", "pattern": "^[a-z_]+$"}}),
            ),
            (
                "git_show",
                "Shows the contents of a commit",
                json!({"revision": {"type": "string"}}),
            ),
            (
                "execute_workflow",
                "Starts a workflow run.",
                json!({"input": {"type": "string"}}),
            ),
            (
                "execute_search",
                "Executes a search.",
                json!({"query": {"type": "string"}, "source": {"type": "string"}}),
            ),
        ] {
            assert_eq!(
                tool(name, description, properties),
                Vec::<String>::new(),
                "{name}"
            );
        }
    }
}
