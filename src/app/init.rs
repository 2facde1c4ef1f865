//! `mcpcheck init`: writes `.github/workflows/mcpcheck.yml` for the user's repository, with
//! the permissions the Action needs and the SARIF upload step. Never overwrites unasked.

use super::cli::InitArgs;
use crate::error::Error;
use crate::finding::excerpt;
use crate::report::document::{REPOSITORY_URL, TOOL_VERSION};
use std::io::Write;
use std::path::Path;

pub const WORKFLOW_PATH: &str = ".github/workflows/mcpcheck.yml";
/// actions/checkout v6.0.2 and github/codeql-action v4.38.1, pinned by commit.
const CHECKOUT: &str = "actions/checkout@de0fac2e4500dabe0009e67214ff5f5447ce83dd # v6.0.2";
const UPLOAD_SARIF: &str =
    "github/codeql-action/upload-sarif@1c5b675653bb5c22dbe9b12b556ec555138e09fd # v4.38.1";
/// Written when nothing in the directory says how the server starts: one word, so the
/// Action fails on it by name (spawn-failed) rather than running a guess.
pub const PLACEHOLDER_COMMAND: &str = "REPLACE-ME-with-the-command-that-starts-your-server";

/// Where the workflow's command came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// `--command`.
    Given,
    /// Read from the project's files (package.json, server.py…): worth a check.
    Guessed,
    /// Nothing to go on: a marked placeholder the user must replace.
    Placeholder,
}

pub fn run(args: &InitArgs) -> Result<(), Error> {
    let root = match &args.dir {
        Some(d) => d.clone(),
        None => std::env::current_dir()
            .map_err(|e| Error::Usage(format!("cannot read the current directory: {e}")))?,
    };
    if !root.is_dir() {
        return Err(Error::Usage(format!(
            "--dir {}: not a directory",
            root.display()
        )));
    }
    let path = root.join(WORKFLOW_PATH);
    if path.exists() && !args.force {
        return Err(Error::Usage(format!(
            "{} already exists; pass --force to overwrite it",
            path.display()
        )));
    }
    let (command, setup, origin) = match &args.command {
        Some(c) => (c.clone(), None, Origin::Given),
        None => guess(&root),
    };
    if command.contains(['\n', '\r']) {
        return Err(Error::Usage(
            "--command must be one line, as you would type it in a shell".into(),
        ));
    }
    // The Action splits the command into words as a shell would: refuse now what it would
    // refuse later, on every push.
    match shell_words::split(&command) {
        Ok(words) if !words.is_empty() => {}
        Ok(_) => {
            return Err(Error::Usage(
                "--command is empty; give the command that starts your MCP server".into(),
            ))
        }
        Err(e) => {
            return Err(Error::Usage(format!(
                "--command {}: cannot be split into words ({e}); check its quotes",
                excerpt(&command, 80)
            )))
        }
    }
    let text = workflow(&command, setup.as_deref(), origin);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Usage(format!("cannot create {}: {e}", dir.display())))?;
    }
    std::fs::write(&path, &text)
        .map_err(|e| Error::Usage(format!("cannot write {}: {e}", path.display())))?;
    let mut out = std::io::stdout().lock();
    let _ = write!(
        out,
        "wrote {WORKFLOW_PATH}{}:\n\n{text}",
        match origin {
            Origin::Given => "",
            Origin::Guessed => " (check the guessed command)",
            Origin::Placeholder =>
                " with a placeholder command: no server was found here, so replace it (or run again with --command)",
        }
    );
    let _ = out.flush();
    Ok(())
}

/// A best guess at how the server starts: (command, setup, where it came from).
fn guess(root: &Path) -> (String, Option<String>, Origin) {
    if let Ok(text) = std::fs::read_to_string(root.join("package.json")) {
        let pkg: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let bin = match &pkg["bin"] {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Object(o) => o.values().find_map(|v| v.as_str().map(String::from)),
            _ => None,
        };
        let entry = bin.or_else(|| pkg["main"].as_str().map(String::from));
        if let Some(entry) = entry.filter(|e| is_plain_path(e)) {
            return (
                format!("node {entry}"),
                Some("npm ci".into()),
                Origin::Guessed,
            );
        }
        return (
            "node index.js".into(),
            Some("npm ci".into()),
            Origin::Guessed,
        );
    }
    for script in ["server.py", "main.py", "src/server.py"] {
        if root.join(script).is_file() {
            let setup = root
                .join("requirements.txt")
                .is_file()
                .then(|| "pip install -r requirements.txt".to_string());
            return (format!("python3 {script}"), setup, Origin::Guessed);
        }
    }
    if root.join("pyproject.toml").is_file() {
        return ("uv run server.py".into(), None, Origin::Guessed);
    }
    (PLACEHOLDER_COMMAND.into(), None, Origin::Placeholder)
}

fn is_plain_path(s: &str) -> bool {
    !s.is_empty()
        && s.len() < 200
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./@".contains(c))
}

/// A YAML single-quoted scalar: nothing in it is interpreted but `''`.
fn yaml_quote(s: &str) -> String {
    format!("'{}'", excerpt(s, 1_000).replace('\'', "''"))
}

fn workflow(command: &str, setup: Option<&str>, origin: Origin) -> String {
    let action = REPOSITORY_URL
        .strip_prefix("https://github.com/")
        .unwrap_or("mcpcheck/mcpcheck");
    let guess_note = match origin {
        Origin::Given => "",
        Origin::Guessed => {
            "          # Guessed by mcpcheck init: the command that starts your MCP server over stdio.\n"
        }
        Origin::Placeholder => {
            "          # TODO: mcpcheck init found no server here. Replace the placeholder below with\n          # the command that starts your MCP server over stdio (e.g. 'node dist/index.js').\n"
        }
    };
    let setup_line = setup
        .map(|s| format!("          setup: {}\n", yaml_quote(s)))
        .unwrap_or_default();
    format!(
        r#"# Written by `mcpcheck init` (mcpcheck {TOOL_VERSION}).
# Checks the MCP server on every push and pull request: findings go to the Code Scanning
# tab (SARIF), the job summary and one pull-request comment.
name: mcpcheck

on:
  push:
  pull_request:

permissions: {{}}

jobs:
  mcpcheck:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      security-events: write
      pull-requests: write
    steps:
      - uses: {CHECKOUT}
        with:
          persist-credentials: false
      - id: mcpcheck
        uses: {action}@v{TOOL_VERSION}
        with:
{guess_note}          command: {command}
{setup_line}          sarif_file: mcpcheck.sarif
          category: mcpcheck
      - if: ${{{{ always() && steps.mcpcheck.outputs.sarif-file != '' }}}}
        uses: {UPLOAD_SARIF}
        with:
          sarif_file: ${{{{ steps.mcpcheck.outputs.sarif-file }}}}
          category: mcpcheck
"#,
        command = yaml_quote(command),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_quoting_neutralises_quotes_and_expressions() {
        assert_eq!(yaml_quote("it's"), "'it''s'");
        assert_eq!(yaml_quote("a: b # c"), "'a: b # c'");
    }

    #[test]
    fn workflow_has_the_permissions_and_the_upload_step() {
        let text = workflow("node dist/index.js", Some("npm ci"), Origin::Given);
        for needle in [
            "security-events: write",
            "pull-requests: write",
            "contents: read",
            "command: 'node dist/index.js'",
            "setup: 'npm ci'",
            "category: mcpcheck",
            "${{ steps.mcpcheck.outputs.sarif-file }}",
            UPLOAD_SARIF,
        ] {
            assert!(text.contains(needle), "missing {needle} in\n{text}");
        }
    }
}
