//! `mcpcheck init`: writes `.github/workflows/mcpcheck.yml` for the user's repository, with
//! the permissions the Action needs and the SARIF upload step. Never overwrites unasked.

mod detect;
mod node;
mod python;

use super::cli::InitArgs;
use crate::error::Error;
use crate::finding::excerpt;
use crate::report::document::{REPOSITORY_URL, SOURCE_COMMIT, SOURCE_REF, TOOL_VERSION};
use detect::Plan;
use std::io::Write;

pub const WORKFLOW_PATH: &str = ".github/workflows/mcpcheck.yml";
/// actions/checkout v6.0.2 and github/codeql-action v4.38.1, pinned by commit.
const CHECKOUT: &str = "actions/checkout@de0fac2e4500dabe0009e67214ff5f5447ce83dd # v6.0.2";
const UPLOAD_SARIF: &str =
    "github/codeql-action/upload-sarif@1c5b675653bb5c22dbe9b12b556ec555138e09fd # v4.38.1";
/// Written when nothing in the directory says how the server starts: one word, so the
/// Action fails on it by name (spawn-failed) rather than running a guess.
pub const PLACEHOLDER_COMMAND: &str = "REPLACE-ME-with-the-command-that-starts-your-server";

/// Where the workflow's command came from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    /// `--command`.
    Given,
    /// Read from these files of the project (lockfile, package.json…): worth a check.
    Detected(Vec<&'static str>),
    /// The files do not say how the server starts (why): a marked placeholder to replace.
    Placeholder(String),
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
        None => match detect::detect(&root) {
            Plan {
                setup,
                command: Ok(command),
                basis,
            } => (command, setup, Origin::Detected(basis)),
            Plan {
                setup,
                command: Err(why),
                ..
            } => (
                PLACEHOLDER_COMMAND.to_string(),
                setup,
                Origin::Placeholder(why.0),
            ),
        },
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
    let text = workflow(&command, setup.as_deref(), &origin);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Usage(format!("cannot create {}: {e}", dir.display())))?;
    }
    std::fs::write(&path, &text)
        .map_err(|e| Error::Usage(format!("cannot write {}: {e}", path.display())))?;
    let mut out = std::io::stdout().lock();
    let note = match &origin {
        Origin::Given => String::new(),
        Origin::Detected(basis) => format!(
            " (setup and command read from {}: check them)",
            basis.join(", ")
        ),
        Origin::Placeholder(why) => format!(
            " with a placeholder command ({}): replace {PLACEHOLDER_COMMAND} with the command that starts your server over stdio, or run again with --command",
            one_line(why)
        ),
    };
    let _ = write!(out, "wrote {WORKFLOW_PATH}{note}:\n\n{text}");
    let _ = out.flush();
    Ok(())
}

/// The workflow the docs show (README, docs/action.md, docs/install.md): what init writes
/// for a TypeScript server with an npm lockfile and a build script, so the example installs
/// and builds before it starts `dist/index.js`, as init does.
pub(super) fn documented_workflow() -> String {
    let (setup, command) = node::documented_launch();
    workflow(command, Some(&setup), &Origin::Given)
}

/// A YAML single-quoted scalar: nothing in it is interpreted but `''`.
fn yaml_quote(s: &str) -> String {
    format!("'{}'", excerpt(s, 1_000).replace('\'', "''"))
}

/// A reason fit for one line of text or a YAML comment: no control characters.
fn one_line(s: &str) -> String {
    excerpt(s, 200).replace(|c: char| c.is_control(), " ")
}

fn workflow(command: &str, setup: Option<&str>, origin: &Origin) -> String {
    let action = REPOSITORY_URL
        .strip_prefix("https://github.com/")
        .unwrap_or("mcpcheck/mcpcheck");
    let guess_note = match origin {
        Origin::Given => String::new(),
        Origin::Detected(_) => {
            "          # Read by mcpcheck init from the project's files: how it installs, and the\n          # command that starts your MCP server over stdio.\n".into()
        }
        Origin::Placeholder(why) => format!(
            "          # TODO: mcpcheck init found no server here.\n          # Why: {}.\n          # Replace the placeholder below with the command that starts your MCP server\n          # over stdio (e.g. 'node dist/index.js').\n",
            one_line(why)
        ),
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
{uses}        with:
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
        uses = action_uses(action, TOOL_VERSION, SOURCE_REF, SOURCE_COMMIT),
    )
}

/// The step's `uses:` line. A release build knows its tag and commit (packages.yml passes
/// them; a build at the tag reads them from git): the Action is pinned by that commit with
/// the version in a comment, as actions/checkout is. Any other build knows no release
/// commit to pin to, so it names the tag and says how to pin it.
fn action_uses(action: &str, version: &str, source_ref: &str, commit: &str) -> String {
    let tag = format!("v{version}");
    let is_commit = commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit());
    if source_ref == tag && is_commit {
        format!("        uses: {action}@{commit} # {tag}\n")
    } else {
        format!(
            "        # Pin by commit, as the steps around it are, once {tag} is released: the\n        # commit of `git ls-remote https://github.com/{action} refs/tags/{tag}`.\n        uses: {action}@{tag}\n"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_build_pins_the_action_by_commit_with_its_version_in_a_comment() {
        // Issue 44 item 4: zizmor's unpinned-uses rejected `mcpcheck/mcpcheck@v0.1.0`.
        let commit = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(
            action_uses("mcpcheck/mcpcheck", "0.1.0", "v0.1.0", commit),
            format!("        uses: mcpcheck/mcpcheck@{commit} # v0.1.0\n")
        );
        // A build that is not the release (a commit, main, no commit known) names the tag
        // and says how to pin it.
        for (source_ref, commit) in [(commit, commit), ("main", ""), ("v0.1.0", "")] {
            let uses = action_uses("mcpcheck/mcpcheck", "0.1.0", source_ref, commit);
            assert!(
                uses.ends_with("        uses: mcpcheck/mcpcheck@v0.1.0\n"),
                "{uses}"
            );
            assert!(uses.contains("Pin by commit"), "{uses}");
        }
    }

    #[test]
    fn yaml_quoting_neutralises_quotes_and_expressions() {
        assert_eq!(yaml_quote("it's"), "'it''s'");
        assert_eq!(yaml_quote("a: b # c"), "'a: b # c'");
    }

    #[test]
    fn workflow_has_the_permissions_and_the_upload_step() {
        let text = workflow("node dist/index.js", Some("npm ci"), &Origin::Given);
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
