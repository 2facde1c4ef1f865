//! The guard's JSON config file (`--config FILE`): parsed and validated before anything runs.

use crate::error::Error;
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
    pub timeout_ms: Option<u64>,
    pub repeat: Option<u32>,
    pub json: Option<bool>,
    pub max_stdout_bytes: Option<u64>,
    pub max_stdout_line_bytes: Option<usize>,
    pub max_stderr_bytes: Option<u64>,
    pub scan: Option<PathList>,
    pub fail_on_static: Option<bool>,
    pub request: Option<RequestSpec>,
    pub requests: Option<Vec<RequestSpec>>,
    pub safe_tool_calls: Option<Vec<ToolCallSpec>>,
    pub adversarial_probes: Option<ProbeSelection>,
    pub adversarial_tool_calls: Option<Vec<ToolCallSpec>>,
}

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
        Error::Input(format!(
            "{shown}:{}:{}: {}; fix it (keys are camelCase, see the README's config section)",
            e.line(),
            e.column(),
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
    }

    #[test]
    fn names_an_unknown_key_and_its_line() {
        let e = parse("{\n  \"command\": [\"x\"],\n  \"timeout\": 5\n}").expect_err("unknown key");
        assert!(e.contains("mcpcheck.json:3:"), "{e}");
        assert!(e.contains("unknown field `timeout`"), "{e}");
    }

    #[test]
    fn names_a_wrong_type_and_its_line() {
        let e = parse("{\n\"repeat\": \"twice\"\n}").expect_err("wrong type");
        assert!(e.contains(":2:"), "{e}");
        assert!(e.contains("invalid type"), "{e}");
    }
}
