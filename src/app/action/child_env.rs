//! The environment the Action gives what it starts (the setup command and the server):
//! the runner's, without the job's tokens. On GitHub the container gets `INPUT_GITHUB_TOKEN`
//! (often with write scopes), `ACTIONS_RUNTIME_TOKEN`, `ACTIONS_ID_TOKEN_REQUEST_*` and
//! the cache and results URLs; a third-party server started with `npx -y` must see none
//! of them. Variables the `env` input names are passed on deliberately.

use crate::error::Error;
use crate::finding::excerpt;

/// Kept even where a name would otherwise be dropped: what servers need to run.
const KEEP: &[&str] = &[
    "PATH",
    "HOME",
    // The shell's working directory, not a password.
    "PWD",
    "OLDPWD",
    "USER",
    "SHELL",
    "TERM",
    "TMPDIR",
    "TZ",
    "LANG",
    "LANGUAGE",
    "CI",
    "GITHUB_WORKSPACE",
    "RUNNER_TEMP",
    "RUNNER_TOOL_CACHE",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
];

/// The step's own workflow-command files: what the server writes there would become the
/// job's environment, PATH or outputs in later steps.
const COMMAND_FILES: &[&str] = &[
    "GITHUB_ENV",
    "GITHUB_PATH",
    "GITHUB_OUTPUT",
    "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY",
];

/// One variable the `env` input passes on: its name, and a value when given as `NAME=value`
/// (else the value is the Action's own variable of that name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassedVar {
    pub name: String,
    pub value: Option<String>,
}

/// The environment for the Action's child processes, and what was left out or added.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChildEnv {
    pub vars: Vec<(String, String)>,
    /// Names dropped from the runner's environment, sorted.
    pub dropped: Vec<String>,
    /// Names the `env` input passed on, in input order.
    pub passed: Vec<String>,
}

/// Whether `name` is one of the job's own credentials (the Action's inputs, github_token
/// among them, the runtime, OIDC and cache tokens, the job token): never passed on, not
/// even when the `env` input names it.
pub fn job_credential(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.starts_with("INPUT_") || upper.starts_with("ACTIONS_") || upper == "GITHUB_TOKEN"
}

/// Whether the runner's variable `name` stays out of a child's environment.
pub fn withheld(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if KEEP.contains(&upper.as_str()) || upper.starts_with("LC_") {
        return false;
    }
    job_credential(name)
        || COMMAND_FILES.contains(&upper.as_str())
        || crate::secrets::names_credential(name)
}

/// Parses the `env` input: one `NAME` or `NAME=value` per line.
pub fn parse_passed(text: Option<&str>) -> Result<Vec<PassedVar>, Error> {
    let mut out: Vec<PassedVar> = Vec::new();
    for line in text.unwrap_or("").lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, value) = match line.split_once('=') {
            Some((n, v)) => (n.trim(), Some(v.to_string())),
            None => (line, None),
        };
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(Error::Usage(format!(
                "input `env`: {:?} is not a variable name; write one NAME or NAME=value per line",
                excerpt(name, 40)
            )));
        }
        // Even `NAME=value`: `GITHUB_TOKEN=${{ github.token }}` would hand over the job's token.
        if job_credential(name) {
            return Err(Error::Usage(format!(
                "input `env` names {name}, and the job's own credentials (INPUT_*, ACTIONS_*, GITHUB_TOKEN) are never passed on; give the server a token of its own under another name (e.g. MY_SERVER_TOKEN, set from a secret in the step's `env:`)"
            )));
        }
        out.retain(|p| p.name != name);
        out.push(PassedVar {
            name: name.to_string(),
            value,
        });
    }
    Ok(out)
}

/// The runner's environment without what [`withheld`] names, plus the passed variables.
/// A `NAME` whose variable is unset is an error: the workflow meant to pass something.
pub fn child_env(
    runner: impl IntoIterator<Item = (String, String)>,
    passed: &[PassedVar],
) -> Result<ChildEnv, Error> {
    let mut vars = Vec::new();
    let mut dropped = Vec::new();
    let mut all = Vec::new();
    for (name, value) in runner {
        all.push((name.clone(), value.clone()));
        if withheld(&name) {
            dropped.push(name);
        } else {
            vars.push((name, value));
        }
    }
    for p in passed {
        let value = match &p.value {
            Some(v) => v.clone(),
            None => all
                .iter()
                .find(|(n, _)| *n == p.name)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "input `env` names {} but the step has no such variable; set it in the step's `env:` or write {}=value",
                        p.name, p.name
                    ))
                })?,
        };
        vars.retain(|(n, _)| *n != p.name);
        dropped.retain(|n| *n != p.name);
        vars.push((p.name.clone(), value));
    }
    dropped.sort();
    Ok(ChildEnv {
        vars,
        dropped,
        passed: passed.iter().map(|p| p.name.clone()).collect(),
    })
}

impl ChildEnv {
    /// The values the `env` input passed on: no output of the step shows them.
    pub fn given_secrets(&self) -> crate::secrets::KnownSecrets {
        let mut known = crate::secrets::KnownSecrets::new();
        for name in &self.passed {
            if let Some((_, v)) = self.vars.iter().find(|(n, _)| n == name) {
                known.add(v, crate::secrets::known::MASK);
            }
        }
        known
    }

    /// One line for the summary: names only, never values.
    pub fn notice(&self) -> Option<String> {
        let list = |names: &[String]| {
            let shown: Vec<&str> = names.iter().take(20).map(String::as_str).collect();
            let more = names.len().saturating_sub(shown.len());
            let mut s = shown.join(", ");
            if more > 0 {
                s.push_str(&format!(" and {more} more"));
            }
            s
        };
        if self.dropped.is_empty() && self.passed.is_empty() {
            return None;
        }
        let mut text = String::from("Setup and server environment:");
        if !self.dropped.is_empty() {
            // The inputs are many and all alike: one entry for them.
            let mut names: Vec<String> = Vec::new();
            if self.dropped.iter().any(|n| n.starts_with("INPUT_")) {
                names.push("INPUT_* (the Action's inputs, github_token among them)".into());
            }
            names.extend(
                self.dropped
                    .iter()
                    .filter(|n| !n.starts_with("INPUT_"))
                    .cloned(),
            );
            text.push_str(&format!(
                " withheld job tokens and credentials ({});",
                list(&names)
            ));
        }
        if self.passed.is_empty() {
            text.push_str(" nothing passed on by the `env` input.");
        } else {
            text.push_str(&format!(
                " passed on by the `env` input: {}.",
                list(&self.passed)
            ));
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runner() -> Vec<(String, String)> {
        [
            ("PATH", "/usr/bin"),
            ("PWD", "/github/workspace"),
            ("HOME", "/github/home"),
            ("LC_ALL", "C.UTF-8"),
            ("HTTPS_PROXY", "http://proxy:3128"),
            ("GITHUB_WORKSPACE", "/github/workspace"),
            ("GITHUB_SHA", "0123456789abcdef0123456789abcdef01234567"),
            ("RUNNER_TEMP", "/home/runner/work/_temp"),
            ("CI", "true"),
            ("GITHUB_ENV", "/github/file_commands/set_env"),
            ("INPUT_GITHUB_TOKEN", "ghs_input"),
            ("INPUT_COMMAND", "node server.js"),
            ("ACTIONS_RUNTIME_TOKEN", "runtime"),
            ("ACTIONS_ID_TOKEN_REQUEST_URL", "https://oidc"),
            ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "oidc"),
            ("ACTIONS_CACHE_URL", "https://cache"),
            ("ACTIONS_RESULTS_URL", "https://results"),
            ("GITHUB_TOKEN", "ghs_env"),
            ("NPM_TOKEN", "npm_x"),
            ("OPENAI_API_KEY", "sk-x"),
            ("API_KEY", "wanted"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    #[test]
    fn tokens_are_withheld_and_what_servers_need_is_kept() {
        let env = child_env(runner(), &[]).expect("env");
        let names: Vec<&str> = env.vars.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "PATH",
                "PWD",
                "HOME",
                "LC_ALL",
                "HTTPS_PROXY",
                "GITHUB_WORKSPACE",
                "GITHUB_SHA",
                "RUNNER_TEMP",
                "CI"
            ]
        );
        assert_eq!(
            env.dropped,
            [
                "ACTIONS_CACHE_URL",
                "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
                "ACTIONS_ID_TOKEN_REQUEST_URL",
                "ACTIONS_RESULTS_URL",
                "ACTIONS_RUNTIME_TOKEN",
                "API_KEY",
                "GITHUB_ENV",
                "GITHUB_TOKEN",
                "INPUT_COMMAND",
                "INPUT_GITHUB_TOKEN",
                "NPM_TOKEN",
                "OPENAI_API_KEY"
            ]
        );
    }

    #[test]
    fn the_env_input_passes_named_variables_deliberately() {
        let passed = parse_passed(Some("API_KEY\n\n  MODE=fast=yes \n# a comment")).expect("env");
        assert_eq!(
            passed,
            [
                PassedVar {
                    name: "API_KEY".into(),
                    value: None
                },
                PassedVar {
                    name: "MODE".into(),
                    value: Some("fast=yes".into())
                }
            ]
        );
        let env = child_env(runner(), &passed).expect("env");
        assert!(env.vars.contains(&("API_KEY".into(), "wanted".into())));
        assert!(env.vars.contains(&("MODE".into(), "fast=yes".into())));
        assert!(!env.dropped.contains(&"API_KEY".to_string()));
        let notice = env.notice().expect("notice");
        assert!(
            notice.contains("passed on by the `env` input: API_KEY, MODE."),
            "{notice}"
        );
        assert!(
            notice.contains(
                "(INPUT_* (the Action's inputs, github_token among them), ACTIONS_CACHE_URL,"
            ),
            "{notice}"
        );
        assert!(
            !notice.contains("wanted") && !notice.contains("ghs_"),
            "{notice}"
        );
    }

    #[test]
    fn bad_env_lines_and_unset_names_are_usage_errors() {
        let e = parse_passed(Some("MY VAR=1")).expect_err("space");
        assert!(e.message().contains("input `env`"), "{}", e.message());
        let e = parse_passed(Some("=1")).expect_err("empty name");
        assert!(e.message().contains("NAME=value"), "{}", e.message());
        let passed = parse_passed(Some("NOT_SET_ANYWHERE")).expect("env");
        let e = child_env(runner(), &passed).expect_err("unset");
        assert!(e.message().contains("NOT_SET_ANYWHERE"), "{}", e.message());
    }

    #[test]
    fn the_env_input_may_not_name_the_jobs_credentials() {
        for (entry, name) in [
            ("INPUT_GITHUB_TOKEN", "INPUT_GITHUB_TOKEN"),
            ("ACTIONS_RUNTIME_TOKEN", "ACTIONS_RUNTIME_TOKEN"),
            (
                "actions_id_token_request_url",
                "actions_id_token_request_url",
            ),
            ("API_KEY\nGITHUB_TOKEN=ghs_inline", "GITHUB_TOKEN"),
        ] {
            let e = parse_passed(Some(entry)).expect_err(entry);
            assert!(
                e.message()
                    .starts_with(&format!("input `env` names {name},")),
                "{}",
                e.message()
            );
            assert!(!e.message().contains("ghs_inline"), "{}", e.message());
        }
        // Names that merely contain the words are the workflow's own.
        assert_eq!(
            parse_passed(Some("MY_GITHUB_TOKEN\nGITHUB_TOKEN_FOR_SERVER=x"))
                .expect("env")
                .len(),
            2
        );
    }
}
