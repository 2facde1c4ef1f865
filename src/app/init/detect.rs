//! What `mcpcheck init` reads from a repository: how to install it (the Action's `setup`)
//! and how its server starts (`command`), from lockfiles and manifests. Where the files do
//! not say, the command is left unknown with the reason, never guessed.

use super::{node, python};
use std::path::Path;

/// How a repository's server is installed and started, as far as its files tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Shell command run before the server, through `sh -c`.
    pub setup: Option<String>,
    /// The command that starts the server, or why the files do not say.
    pub command: Result<String, Unsure>,
    /// The files the plan was read from, for the message (empty: nothing was found).
    pub basis: Vec<&'static str>,
}

/// Why the repository's files do not say how its server starts: the workflow's TODO
/// comment and init's message give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsure(pub String);

/// Node first (a package.json is the stronger sign), then Python; a project that names its
/// entry wins over one that does not.
pub fn detect(root: &Path) -> Plan {
    let node = root
        .join("package.json")
        .is_file()
        .then(|| node::plan(root));
    if let Some(plan) = node.as_ref().filter(|p| p.command.is_ok()) {
        return plan.clone();
    }
    let python = python::plan(root);
    match (node, python) {
        (_, Some(p)) if p.command.is_ok() => p,
        (Some(n), _) => n,
        (None, Some(p)) => p,
        (None, None) => Plan {
            setup: None,
            command: Err(Unsure(
                "no package.json, pyproject.toml, requirements.txt, server.py or main.py here"
                    .into(),
            )),
            basis: Vec::new(),
        },
    }
}

/// A relative path or name safe to write into a command unquoted: no spaces, quotes,
/// shell syntax, absolute paths or `..`.
pub fn is_plain_path(s: &str) -> bool {
    !s.is_empty()
        && s.len() < 200
        && !s.starts_with(['/', '-'])
        && s.split('/').all(|part| part != "..")
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./@".contains(c))
}

/// A repository of `files` (name, content) in a temporary directory, for the detectors'
/// tests.
#[cfg(test)]
pub(super) fn test_repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, content) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, content).expect("write");
    }
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_paths_exclude_shell_syntax_and_escapes() {
        for ok in ["dist/index.js", "bin/cli.mjs", "my-server", "@scope/x"] {
            assert!(is_plain_path(ok), "{ok}");
        }
        for bad in [
            "", "a b", "/etc/x", "../x", "a/../b", "$(x)", "a;b", "-rf", "'x'",
        ] {
            assert!(!is_plain_path(bad), "{bad}");
        }
    }

    #[test]
    fn an_empty_directory_has_no_plan() {
        let dir = tempfile::tempdir().expect("tempdir");
        let plan = detect(dir.path());
        assert_eq!(plan.setup, None);
        assert!(plan.command.is_err());
        assert!(plan.basis.is_empty());
    }

    #[test]
    fn a_node_project_that_names_no_entry_yields_to_a_python_one_that_does() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("package.json"), r#"{"name": "tools"}"#).expect("write");
        std::fs::write(dir.path().join("server.py"), "").expect("write");
        let plan = detect(dir.path());
        assert_eq!(plan.command.as_deref(), Ok("python3 server.py"));
    }
}
