//! Helpers for the report and Action tests: a clean environment, a temporary workspace
//! holding a fixture server, SARIF schema validation, and checks that untrusted text stays
//! inert in Markdown and in the runner log.
#![allow(dead_code)]

pub mod snapshot;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The binary with no trace of the developer's or CI's GitHub environment.
pub fn mcpcheck() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpcheck"));
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        if k.starts_with("GITHUB_") || k.starts_with("INPUT_") || k.starts_with("RUNNER_") {
            cmd.env_remove(&key);
        }
    }
    cmd.env_remove("PYTHONUNBUFFERED")
        .env_remove("NO_COLOR")
        .env_remove("FIXTURE_PID_FILE");
    cmd
}

/// A temporary repository checkout holding one fixture server (and its base module).
pub struct Workspace {
    pub dir: tempfile::TempDir,
}

impl Workspace {
    /// `server` is a name in tests/fixtures/servers; `manifest` an optional (name, content).
    pub fn new(server: &str, manifest: Option<(&str, &str)>) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let servers = repo().join("tests/fixtures/servers");
        for name in ["mcpfixture.py", &format!("{server}.py")] {
            std::fs::copy(servers.join(name), dir.path().join(name)).expect("copy fixture");
        }
        if let Some((name, content)) = manifest {
            std::fs::write(dir.path().join(name), content).expect("write manifest");
        }
        Self { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `mcpcheck` run from the workspace as GITHUB_WORKSPACE.
    pub fn mcpcheck(&self) -> Command {
        let mut cmd = mcpcheck();
        cmd.current_dir(self.path())
            .env("GITHUB_WORKSPACE", self.path());
        cmd
    }
}

pub const PYPROJECT: &str = "[project]\nname = \"fixture-server\"\nversion = \"1.0.0\"\n";

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

/// Links and HTML that mcpcheck itself writes (rule pages, the comment marker, details).
const OWN_LINK_PREFIXES: &[&str] = &[
    "https://github.com/mcpcheck/mcpcheck/blob/main/docs/rules/",
    "https://github.com/o/r/blob/",
];
const OWN_TAGS: &[&str] = &[
    "<!-- mcpcheck:sticky-comment -->",
    "<details>",
    "<summary>",
    "</summary>",
    "</details>",
    "<sub>",
    "</sub>",
];

/// Active Markdown built from untrusted text: raw HTML, links or images not ours,
/// mentions, bare URLs, and table rows broken by a stray `|`. Code spans are inert and
/// skipped (their fence is matched exactly, as CommonMark does).
pub fn active_forms(markdown: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_block: Option<String> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if let Some(fence) = &in_block {
            if trimmed.starts_with(fence.as_str()) && trimmed.trim_end().chars().all(|c| c == '`') {
                in_block = None;
            }
            continue;
        }
        if trimmed.starts_with("```") {
            in_block = Some(trimmed.chars().take_while(|c| *c == '`').collect());
            continue;
        }
        let cleaned = OWN_TAGS
            .iter()
            .fold(strip_code_spans(line), |acc, tag| acc.replace(tag, ""));
        for (i, c) in cleaned.char_indices() {
            let escaped = cleaned[..i].ends_with('\\') && !cleaned[..i].ends_with("\\\\");
            if escaped {
                continue;
            }
            match c {
                '<' => found.push(format!("raw HTML in: {line}")),
                '@' if cleaned[i + 1..].starts_with(|n: char| n.is_ascii_alphanumeric()) => {
                    found.push(format!("mention in: {line}"))
                }
                '!' if cleaned[i + 1..].starts_with('[') => found.push(format!("image in: {line}")),
                ']' if cleaned[i + 1..].starts_with('(') => {
                    let target = &cleaned[i + 2..];
                    if !OWN_LINK_PREFIXES.iter().any(|p| target.starts_with(p)) {
                        found.push(format!("link in: {line}"));
                    }
                }
                _ => {}
            }
        }
        let without_own = OWN_LINK_PREFIXES
            .iter()
            .fold(cleaned.clone(), |acc, p| acc.replace(p, ""));
        for bare in ["http://", "https://", "www."] {
            if without_own.contains(bare) {
                found.push(format!("bare URL in: {line}"));
            }
        }
    }
    found
}

/// The line with every inline code span removed.
pub fn strip_code_spans(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        // CommonMark: a backslash-escaped backtick is literal and cannot open a code span.
        let backslashes = chars[..i].iter().rev().take_while(|c| **c == '\\').count();
        if chars[i] == '`' && backslashes % 2 == 0 {
            let n = chars[i..].iter().take_while(|c| **c == '`').count();
            // Find the closing run of exactly n backticks.
            let mut j = i + n;
            let mut close = None;
            while j < chars.len() {
                if chars[j] == '`' {
                    let m = chars[j..].iter().take_while(|c| **c == '`').count();
                    if m == n {
                        close = Some(j);
                        break;
                    }
                    j += m;
                } else {
                    j += 1;
                }
            }
            match close {
                Some(j) => {
                    out.push_str("CODE");
                    i = j + n;
                }
                None => {
                    out.extend(&chars[i..i + n]);
                    i += n;
                }
            }
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Number of cell separators (unescaped `|`) in a table row. GFM splits cells before it
/// parses code spans, so a pipe inside a code span counts too unless escaped.
pub fn cell_separators(row: &str) -> usize {
    let mut count = 0;
    let mut escaped = false;
    for c in row.chars() {
        if c == '|' && !escaped {
            count += 1;
        }
        escaped = c == '\\' && !escaped;
    }
    count
}

/// Workflow commands in a runner log that did not come from mcpcheck itself. Between
/// `::stop-commands::TOKEN` and `::TOKEN::` the runner ignores commands.
pub fn stray_commands(log: &str) -> Vec<String> {
    let mut stray = Vec::new();
    let mut stopped: Option<String> = None;
    for line in log.lines() {
        let l = line.trim_start();
        if let Some(token) = &stopped {
            if l == format!("::{token}::") {
                stopped = None;
            }
            continue;
        }
        if let Some(token) = l.strip_prefix("::stop-commands::") {
            let fresh = token.len() == 32 && token.chars().all(|c| c.is_ascii_hexdigit());
            if !fresh {
                stray.push(line.to_string());
            }
            stopped = Some(token.to_string());
            continue;
        }
        if !l.starts_with("::") {
            continue;
        }
        let ours = ["::group::", "::endgroup::"]
            .iter()
            .any(|p| l.starts_with(p))
            || ["::error ", "::warning ", "::notice "]
                .iter()
                .any(|p| l.starts_with(p) && l.contains("title=mcpcheck"));
        if !ours {
            stray.push(line.to_string());
        }
    }
    assert!(stopped.is_none(), "a stop-commands block was never closed");
    stray
}
