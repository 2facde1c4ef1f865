//! The guard's JSON config file (`--config FILE`): parsed and validated before anything runs.

use crate::error::Error;
use crate::finding::excerpt;
use crate::session::tuning::Tuning;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Largest config file accepted: configs are small; anything bigger is a mistake.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The file as written. Every key is optional; CLI flags override it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GuardConfig {
    pub command: Option<CommandSpec>,
    pub args: Option<Vec<String>>,
    pub cwd: Option<PathBuf>,
    pub env: Option<BTreeMap<String, String>>,
    pub profile: Option<String>,
    pub protocol: Option<String>,
    pub repeat: Option<u32>,
    pub json: Option<bool>,
    pub scan: Option<PathList>,
    pub fail_on_static: Option<bool>,
    pub request: Option<RequestSpec>,
    pub requests: Option<Vec<RequestSpec>>,
    pub safe_tool_calls: Option<Vec<ToolCallSpec>>,
    pub adversarial_probes: Option<ProbeSelection>,
    pub adversarial_tool_calls: Option<Vec<ToolCallSpec>>,
    /// The times and limits (`timeoutMs`, `maxStdoutBytes`…), as `tuning` declares them.
    #[serde(flatten)]
    pub tuning: Tuning,
}

/// The config file's own keys (the tuning's are [`Tuning::KEYS`]), for "did you mean".
const KEYS: &[&str] = &[
    "command",
    "args",
    "cwd",
    "env",
    "profile",
    "protocol",
    "repeat",
    "json",
    "scan",
    "failOnStatic",
    "request",
    "requests",
    "safeToolCalls",
    "adversarialProbes",
    "adversarialToolCalls",
];

/// `"command": ["node", "server.js"]` or `"command": "node", "args": ["server.js"]`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum CommandSpec {
    Argv(Vec<String>),
    Program(String),
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum PathList {
    One(PathBuf),
    Many(Vec<PathBuf>),
}

/// `"tools/list"` or `{"method": "tools/call", "params": {...}}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum RequestSpec {
    Method(String),
    Full(FullRequest),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FullRequest {
    pub method: String,
    pub params: Option<Value>,
}

/// A `tools/call` the user declares safe (or, for adversarial calls, deliberately wrong).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallSpec {
    pub name: String,
    #[serde(default)]
    pub arguments: Value,
}

/// `"all"`, `"none"` or a list of probe names.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ProbeSelection {
    Keyword(String),
    List(Vec<String>),
}

/// A parsed config and the directory its relative paths are resolved against.
pub struct LoadedConfig {
    pub path: PathBuf,
    pub dir: PathBuf,
    pub config: GuardConfig,
}

pub fn load(path: &Path) -> Result<LoadedConfig, Error> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| {
        Error::Input(format!(
            "--config {shown}: cannot read ({e}); check the path"
        ))
    })?;
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(Error::Input(format!(
            "--config {shown}: {} bytes is larger than the {MAX_CONFIG_BYTES}-byte limit for a config file",
            meta.len()
        )));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Input(format!("--config {shown}: cannot read as UTF-8 text ({e})")))?;
    let config: GuardConfig = serde_json::from_str(&text).map_err(|e| {
        // serde_json names the key or type and ends with "at line L column C".
        let message = e.to_string();
        let what = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m);
        // The tuning's keys and the unknown ones are read once the object has ended: the
        // place of the key named is where it was written.
        let (line, column) = named_key(what)
            .and_then(|key| place_of_key(&text, key))
            .unwrap_or((e.line(), e.column()));
        let hint = match e.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                "fix the JSON".to_string()
            }
            _ => match nearest_key(what) {
                Some(key) => format!("did you mean `{key}`? (keys are listed in docs/config.md)"),
                None => "keys and their types are listed in docs/config.md".to_string(),
            },
        };
        Error::Input(format!(
            "{shown}:{line}:{column}: {}; {hint}",
            crate::finding::excerpt(what, 300)
        ))
    })?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    Ok(LoadedConfig {
        path: path.to_path_buf(),
        dir,
        config,
    })
}

/// `${VAR}` and `${env:VAR}` in an `env` value come from mcpcheck's own environment, as
/// client configs (Claude's `${VAR}`, VS Code's `${env:VAR}`) expand them. An unset
/// variable is an error that names it; no value is ever shown.
pub fn expand_env(
    key: &str,
    value: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<String, Error> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        let inner = &rest[start + 2..start + len];
        let name = inner.strip_prefix("env:").unwrap_or(inner);
        let valid = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !valid {
            return Err(Error::Input(format!(
                "config env {key}: `${{{}}}` is not a variable reference; use ${{NAME}} or ${{env:NAME}}",
                excerpt(inner, 40)
            )));
        }
        let Some(found) = lookup(name) else {
            return Err(Error::Input(format!(
                "config env {key}: ${{{name}}} is not set in mcpcheck's environment; export it, or write the value"
            )));
        };
        out.push_str(&rest[..start]);
        out.push_str(&found);
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The key an error names: "unknown field `x`…" or "config `x`: …".
fn named_key(message: &str) -> Option<&str> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("config `"))?;
    rest.split_once('`').map(|(key, _)| key)
}

/// Line and column (1-based) of `"key":` in `text`, as serde_json counts them.
fn place_of_key(text: &str, key: &str) -> Option<(usize, usize)> {
    let quoted = format!("\"{key}\"");
    let at = text
        .match_indices(&quoted)
        .map(|(i, _)| i)
        .find(|&i| text[i + quoted.len()..].trim_start().starts_with(':'))?;
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |n| n + 1) + 1;
    Some((line, column))
}

/// For an unknown key: the key nearest to the one written, when one is near (a typo, or
/// snake_case for camelCase).
fn nearest_key(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (written, _) = rest.split_once('`')?;
    let folded = |k: &str| k.replace('_', "").to_ascii_lowercase();
    KEYS.iter()
        .chain(Tuning::KEYS)
        .map(|k| (strsim::jaro_winkler(&folded(written), &folded(k)), *k))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<GuardConfig, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let path = dir.path().join("mcpcheck.json");
        std::fs::write(&path, text).map_err(|e| e.to_string())?;
        load(&path)
            .map(|l| l.config)
            .map_err(|e| e.message().to_string())
    }

    #[test]
    fn accepts_every_documented_key() {
        let c = parse(
            r#"{"command": ["node", "s.js"], "cwd": "srv", "env": {"A": "1"}, "profile": "ci",
                "protocol": "2025-06-18", "timeoutMs": 100, "repeat": 2, "json": true,
                "maxStdoutBytes": 10, "maxStdoutLineBytes": 5, "maxStderrBytes": 7,
                "scan": "src", "failOnStatic": true, "request": "ping",
                "requests": [{"method": "tools/call", "params": {"name": "x"}}, "prompts/list"],
                "safeToolCalls": [{"name": "echo", "arguments": {"text": "hi"}}],
                "adversarialProbes": ["invalid-method"],
                "adversarialToolCalls": [{"name": "echo", "arguments": {"text": 5}}]}"#,
        )
        .expect("valid config");
        assert!(matches!(c.command, Some(CommandSpec::Argv(ref v)) if v.len() == 2));
        assert_eq!(c.repeat, Some(2));
        assert_eq!(c.requests.map(|r| r.len()), Some(2));
        assert_eq!(c.tuning.max_stdout_line_bytes, Some(5));
        // Every key "did you mean" offers is one the file takes.
        let every: serde_json::Map<String, Value> = KEYS
            .iter()
            .chain(Tuning::KEYS)
            .map(|k| (k.to_string(), Value::Null))
            .collect();
        parse(&Value::Object(every).to_string()).expect("every key is taken");
    }

    #[test]
    fn a_time_takes_a_unit() {
        // Issue 44 item 5: every time mcpcheck reads takes a unit; a number stays milliseconds.
        let c = parse(r#"{"timeoutMs": "5s"}"#).expect("a duration");
        assert_eq!(c.tuning.timeout, Some(5_000));
        let c = parse(r#"{"timeoutMs": 250}"#).expect("milliseconds");
        assert_eq!(c.tuning.timeout, Some(250));
        let e = parse("{\n  \"command\": [\"x\"],\n  \"timeoutMs\": \"soon\"\n}")
            .expect_err("not a time");
        assert!(e.contains("\"soon\" is not a duration"), "{e}");
        assert!(e.contains("mcpcheck.json:3:3: config `timeoutMs`"), "{e}");
    }

    #[test]
    fn names_an_unknown_key_and_its_line() {
        let e = parse("{\n  \"command\": [\"x\"],\n  \"timeout\": 5\n}").expect_err("unknown key");
        assert!(e.contains("mcpcheck.json:3:"), "{e}");
        assert!(e.contains("unknown field `timeout`"), "{e}");
        assert!(
            e.ends_with("did you mean `timeoutMs`? (keys are listed in docs/config.md)"),
            "{e}"
        );
        let e = parse("{\"max_stdout_bytes\": 5}").expect_err("snake_case");
        assert!(e.contains("did you mean `maxStdoutBytes`?"), "{e}");
    }

    #[test]
    fn a_syntax_error_is_not_blamed_on_key_names() {
        let e = parse("{\n  \"command\": [\"x\"],\n}").expect_err("trailing comma");
        assert!(e.contains("mcpcheck.json:3:"), "{e}");
        assert!(e.ends_with("; fix the JSON"), "{e}");
        assert!(
            !e.contains("camelCase") && !e.contains("did you mean"),
            "{e}"
        );
        let e = parse("{\"frobnicate\": 1}").expect_err("far from any key");
        assert!(
            e.ends_with("keys and their types are listed in docs/config.md"),
            "{e}"
        );
    }

    #[test]
    fn names_a_wrong_type_and_its_line() {
        let e = parse("{\n\"repeat\": \"twice\"\n}").expect_err("wrong type");
        assert!(e.contains(":2:"), "{e}");
        assert!(e.contains("invalid type"), "{e}");
    }

    #[test]
    fn env_values_expand_variables_and_name_an_unset_one() {
        let lookup = |name: &str| (name == "API_KEY").then(|| "s3cr3t".to_string());
        assert_eq!(
            expand_env("K", "${API_KEY}", lookup).expect("plain"),
            "s3cr3t"
        );
        assert_eq!(
            expand_env("K", "Bearer ${env:API_KEY}!", lookup).expect("vs code form"),
            "Bearer s3cr3t!"
        );
        assert_eq!(
            expand_env("K", "cost $5 {x}", lookup).expect("no reference"),
            "cost $5 {x}"
        );
        let e = expand_env("K", "${MISSING}", lookup).expect_err("unset");
        assert!(e.message().contains("${MISSING} is not set"), "{e}");
        assert!(!e.message().contains("s3cr3t"));
        let e = expand_env("K", "${not a name}", lookup).expect_err("not a name");
        assert!(e.message().contains("not a variable reference"), "{e}");
    }
}
