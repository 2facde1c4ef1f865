//! The Action's inputs, read from `INPUT_<NAME>` variables (an empty value means unset).
//! Input names are single words or use underscores so they survive as variable names.

use super::child_env::{parse_passed, PassedVar};
use crate::duration::Millis;
use crate::error::Error;
use crate::finding::{excerpt, Severity};
use crate::gate::Gate;
use crate::guard::layers::Front;
use crate::guard::GuardRequest;
use std::path::PathBuf;
use std::time::Duration;

/// When the step fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailOn {
    Error,
    Warning,
    Never,
}

impl FailOn {
    /// The one failure gate this input sets.
    pub fn gate(self) -> Gate {
        match self {
            FailOn::Error => Gate::Severity(Severity::Error),
            FailOn::Warning => Gate::Severity(Severity::Warning),
            FailOn::Never => Gate::Never,
        }
    }

    /// As the input spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::Error => "error",
            FailOn::Warning => "warning",
            FailOn::Never => "never",
        }
    }
}

/// Every input of action.yml, parsed and defaulted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inputs {
    pub command: Option<String>,
    /// A remote server to guard over Streamable HTTP instead of a command.
    pub url: Option<String>,
    /// `NAME=VALUE` lines sent as headers to `url` (values never shown).
    pub headers: Vec<String>,
    pub config: Option<String>,
    pub profile: Option<String>,
    pub requests: Vec<String>,
    pub protocol: Option<String>,
    pub timeout: Option<String>,
    /// How long installing the package an `npx`/`uvx` command fetches may take.
    pub install_timeout: Option<String>,
    pub repeat: Option<String>,
    pub scan: Vec<String>,
    pub paths: Vec<String>,
    pub setup: Option<String>,
    /// How long `setup` may run before its process group is stopped.
    pub setup_timeout: Duration,
    /// Variables passed on to setup and the server (the `env` input).
    pub env: Vec<PassedVar>,
    pub working_directory: Option<String>,
    pub sarif_file: String,
    pub category: String,
    pub anchor: Option<String>,
    pub comment: bool,
    pub summary: bool,
    pub fail_on: FailOn,
    pub github_token: Option<String>,
    /// Times given as bare numbers too short to be meant as milliseconds (`timeout: 5`).
    pub duration_warnings: Vec<String>,
}

impl Inputs {
    /// Reads the inputs through `var` (the process environment in production).
    pub fn read(var: impl Fn(&str) -> Option<String>) -> Result<Self, Error> {
        let input = |name: &str| {
            var(&format!("INPUT_{}", name.to_ascii_uppercase()))
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let flag = |name: &str, default: bool| -> Result<bool, Error> {
            match input(name) {
                None => Ok(default),
                Some(v) => match v.to_ascii_lowercase().as_str() {
                    "true" => Ok(true),
                    "false" => Ok(false),
                    _ => Err(Error::Usage(format!(
                        "input `{name}` is {:?}; use true or false",
                        excerpt(&v, 40)
                    ))),
                },
            }
        };
        let fail_on = match input("fail_on").as_deref() {
            None | Some("error") => FailOn::Error,
            Some("warning") => FailOn::Warning,
            Some("never") => FailOn::Never,
            Some(other) => {
                return Err(Error::Usage(format!(
                    "input `fail_on` is {:?}; use error, warning or never",
                    excerpt(other, 40)
                )))
            }
        };
        let setup_timeout = match input("setup_timeout") {
            None => crate::process::setup::DEFAULT_DEADLINE,
            Some(v) => match v.parse::<Millis>() {
                Ok(t) if t.ms > 0 => t.as_duration(),
                _ => {
                    return Err(Error::Usage(format!(
                        "input `setup_timeout` must be a duration of at least 1 ms, such as 10m or 90s (a bare number is milliseconds), got {:?}",
                        excerpt(&v, 40)
                    )))
                }
            },
        };
        let duration_warnings = ["timeout", "setup_timeout", "install_timeout"]
            .into_iter()
            .filter_map(|name| {
                let given = input(name)?.parse::<Millis>().ok()?;
                given.warning(&format!("input `{name}`:"))
            })
            .collect();
        let inputs = Self {
            command: input("command"),
            url: input("url"),
            headers: input("headers")
                .map(|v| {
                    v.lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default(),
            config: input("config"),
            profile: input("profile"),
            requests: list(input("requests")),
            protocol: input("protocol"),
            timeout: input("timeout"),
            install_timeout: input("install_timeout"),
            repeat: input("repeat"),
            scan: list(input("scan")),
            paths: list(input("paths")),
            setup: input("setup"),
            setup_timeout,
            env: parse_passed(input("env").as_deref())?,
            working_directory: input("working_directory"),
            sarif_file: input("sarif_file").unwrap_or_else(|| "mcpcheck.sarif".into()),
            category: input("category").unwrap_or_else(|| "mcpcheck".into()),
            anchor: input("anchor"),
            comment: flag("comment", true)?,
            summary: flag("summary", true)?,
            fail_on,
            github_token: input("github_token"),
            duration_warnings,
        };
        inputs.check_paths()?;
        Ok(inputs)
    }

    /// No path input holds a control character: the log line that echoes the path would
    /// end there, and the runner would read what follows as a workflow command.
    fn check_paths(&self) -> Result<(), Error> {
        let single = [
            ("sarif_file", Some(&self.sarif_file)),
            ("config", self.config.as_ref()),
            ("working_directory", self.working_directory.as_ref()),
            ("anchor", self.anchor.as_ref()),
        ];
        let listed = [("scan", &self.scan), ("paths", &self.paths)]
            .into_iter()
            .flat_map(|(name, items)| items.iter().map(move |item| (name, item)));
        let mut all = single
            .into_iter()
            .filter_map(|(name, value)| Some((name, value?)))
            .chain(listed);
        match all.find(|(_, value)| value.chars().any(char::is_control)) {
            None => Ok(()),
            Some((name, value)) => Err(Error::Usage(format!(
                "input `{name}` is \"{}\": a path may not hold a control character (a line break, a carriage return, a tab...); give the path without it",
                excerpt(value, 200)
            ))),
        }
    }

    /// The `mcpcheck guard` command line these inputs stand for.
    pub fn guard_argv(&self) -> Result<Vec<String>, Error> {
        // Derived from the request, never assembled apart from it.
        Ok(crate::app::guard::argv(&self.guard_request()?))
    }

    /// The `command` input split like a shell would (it is not run through one).
    fn command_words(&self) -> Result<Vec<String>, Error> {
        let Some(command) = &self.command else {
            return Ok(Vec::new());
        };
        let words = shell_words::split(command).map_err(|e| {
            Error::Usage(format!(
                "input `command` cannot be split into words ({e}); check its quotes"
            ))
        })?;
        if words.is_empty() {
            return Err(Error::Usage("input `command` is empty".into()));
        }
        Ok(words)
    }

    /// The guard run these inputs ask for, built directly (never through a command line).
    pub fn guard_request(&self) -> Result<GuardRequest, Error> {
        let number = |name: &str, value: &Option<String>| -> Result<Option<u64>, Error> {
            value
                .as_deref()
                .map(|v| {
                    v.trim().parse::<u64>().map_err(|_| {
                        Error::Usage(format!(
                            "input `{name}` must be a whole number, got {:?}",
                            excerpt(v, 40)
                        ))
                    })
                })
                .transpose()
        };
        let duration = |name: &str, value: &Option<String>| -> Result<Option<u64>, Error> {
            value
                .as_deref()
                .map(|v| {
                    v.parse::<Millis>()
                        .map(|t| t.ms)
                        .map_err(|e| Error::Usage(format!("input `{name}`: {e}")))
                })
                .transpose()
        };
        Ok(GuardRequest {
            front: Front::ActionInputs,
            config: self.config.as_ref().map(PathBuf::from),
            profile: self.profile.clone(),
            protocol: self.protocol.clone(),
            timeout: duration("timeout", &self.timeout)?,
            install_timeout: duration("install_timeout", &self.install_timeout)?,
            repeat: number("repeat", &self.repeat)?.map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
            cwd: self.working_directory.as_ref().map(PathBuf::from),
            requests: self.requests.clone(),
            command: self.command_words()?,
            url: self.url.clone(),
            headers: self.headers.clone(),
            scan: self.scan.iter().map(PathBuf::from).collect(),
            // A runner's network is no place to relax the policy: there is no allowance input.
            url_policy: crate::guard::options::UrlPolicy {
                allow_unsafe: false,
                hint: "the Action dials only loopback and public addresses",
            },
            ..GuardRequest::default()
        })
    }

    /// Whether the guard has a server to run.
    pub fn runs_guard(&self) -> bool {
        self.command.is_some() || self.config.is_some() || self.url.is_some()
    }
}

/// A list input: one item per line or comma.
fn list(value: Option<String>) -> Vec<String> {
    value
        .map(|v| {
            v.split(['\n', ','])
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn read(pairs: &[(&str, &str)]) -> Result<Inputs, Error> {
        let env: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Inputs::read(|k| env.get(k).cloned())
    }

    #[test]
    fn empty_inputs_are_unset_and_defaults_apply() {
        let i = read(&[("INPUT_COMMAND", ""), ("INPUT_PROFILE", "  ")]).expect("inputs");
        assert_eq!(i.command, None);
        assert_eq!(i.profile, None);
        assert_eq!(i.sarif_file, "mcpcheck.sarif");
        assert_eq!(i.category, "mcpcheck");
        assert!(i.comment && i.summary);
        assert_eq!(i.fail_on, FailOn::Error);
    }

    #[test]
    fn command_is_split_like_a_shell_and_options_precede_it() {
        let i = read(&[
            ("INPUT_COMMAND", "node 'dist/my server.js' --port=1"),
            ("INPUT_REQUESTS", "tools/list,\nprompts/list"),
            ("INPUT_TIMEOUT", "9000"),
            ("INPUT_WORKING_DIRECTORY", "pkg"),
        ])
        .expect("inputs");
        assert_eq!(
            i.guard_argv().expect("argv"),
            [
                "mcpcheck",
                "guard",
                "--timeout",
                "9s",
                "--cwd",
                "pkg",
                "--request",
                "tools/list",
                "--request",
                "prompts/list",
                "--",
                "node",
                "dist/my server.js",
                "--port=1"
            ]
        );
    }

    #[test]
    fn the_request_is_what_the_reproduce_line_would_run() {
        use crate::app::cli::{Cli, Command};
        use clap::Parser;
        let i = read(&[
            ("INPUT_COMMAND", "node 'dist/my server.js' --port=1"),
            ("INPUT_REQUESTS", "tools/list,\nprompts/list"),
            ("INPUT_TIMEOUT", "9000"),
            ("INPUT_REPEAT", "2"),
            ("INPUT_PROFILE", "ci"),
            ("INPUT_PROTOCOL", "auto"),
            ("INPUT_CONFIG", "mcpcheck.json"),
            ("INPUT_WORKING_DIRECTORY", "pkg"),
            ("INPUT_SCAN", "src\nlib"),
        ])
        .expect("inputs");
        let Command::Guard(args) = Cli::try_parse_from(i.guard_argv().expect("argv"))
            .expect("parses")
            .command
        else {
            panic!("not a guard command");
        };
        // The same request but for who asks (which only names settings in errors and says
        // how a refused URL could be allowed).
        let request = i.guard_request().expect("request");
        assert_eq!(request.front, Front::ActionInputs);
        assert!(!request.url_policy.allow_unsafe);
        assert_eq!(
            GuardRequest {
                front: Front::Flags,
                url_policy: crate::guard::options::UrlPolicy {
                    hint: args.request().url_policy.hint,
                    ..request.url_policy
                },
                ..request
            },
            args.request()
        );
        let bad =
            read(&[("INPUT_COMMAND", "node s.js"), ("INPUT_TIMEOUT", "soon")]).expect("inputs");
        let e = bad
            .guard_request()
            .expect_err("a timeout that is not a number");
        assert!(e.message().contains("input `timeout`"), "{e}");
    }

    #[test]
    fn times_take_units_and_a_short_bare_number_is_warned_about() {
        // Issue 44 item 5: `timeout: 5` was silently 5 ms.
        let i = read(&[
            ("INPUT_COMMAND", "node s.js"),
            ("INPUT_TIMEOUT", "5s"),
            ("INPUT_SETUP_TIMEOUT", "10m"),
        ])
        .expect("inputs");
        assert_eq!(i.guard_request().expect("request").timeout, Some(5_000));
        assert_eq!(i.setup_timeout, Duration::from_secs(600));
        assert!(i.duration_warnings.is_empty());
        let i = read(&[("INPUT_COMMAND", "node s.js"), ("INPUT_TIMEOUT", "5")]).expect("inputs");
        assert_eq!(i.guard_request().expect("request").timeout, Some(5));
        assert_eq!(
            i.duration_warnings,
            ["input `timeout`: 5 is 5 milliseconds (a bare number is milliseconds); write 5s for seconds, or 5ms to keep it and silence this"]
        );
        let e = read(&[("INPUT_SETUP_TIMEOUT", "soon")]).expect_err("not a time");
        assert!(e.message().contains("input `setup_timeout`"), "{e}");
    }

    #[test]
    fn a_control_character_in_a_path_input_is_named() {
        for (var, value, name) in [
            ("INPUT_SARIF_FILE", "a.sarif\n::error::x", "sarif_file"),
            ("INPUT_CONFIG", "a.json\r::error::x", "config"),
            (
                "INPUT_WORKING_DIRECTORY",
                "pkg\u{1b}[2J",
                "working_directory",
            ),
            ("INPUT_ANCHOR", "a\tb", "anchor"),
            ("INPUT_SCAN", "src\nlib\r::error::x", "scan"),
            ("INPUT_PATHS", ".mcp.json,a\u{7f}b", "paths"),
        ] {
            let e = read(&[(var, value)]).expect_err(value);
            assert!(
                e.message().starts_with(&format!("input `{name}` is \"")),
                "{}",
                e.message()
            );
            assert!(e.message().contains("control character"), "{}", e.message());
            assert!(
                !e.message().chars().any(char::is_control),
                "{}",
                e.message()
            );
        }
        // Lists end their items at a line break; a CRLF line ending is not part of an item.
        let i = read(&[
            ("INPUT_SCAN", "src\r\nlib\r\n"),
            ("INPUT_SARIF_FILE", "a.sarif\n"),
        ])
        .expect("inputs");
        assert_eq!(i.scan, ["src", "lib"]);
        assert_eq!(i.sarif_file, "a.sarif");
    }

    #[test]
    fn the_reproduce_line_keeps_history_bangs_in_single_quotes() {
        let i = read(&[("INPUT_COMMAND", r#"node s.js 'a!b' "!!" 'it'\''s'"#)]).expect("inputs");
        let argv = i.guard_argv().expect("argv");
        let line = crate::shell::join(&argv);
        assert_eq!(line, r"mcpcheck guard -- node s.js 'a!b' '!!' 'it'\''s'");
        assert_eq!(shell_words::split(&line).expect("splits"), argv);
    }

    #[test]
    fn bad_inputs_are_named() {
        let e = read(&[("INPUT_FAIL_ON", "sometimes")]).expect_err("bad fail_on");
        assert!(e.message().contains("fail_on"), "{}", e.message());
        let e = read(&[("INPUT_COMMENT", "yes please")]).expect_err("bad flag");
        assert!(e.message().contains("comment"), "{}", e.message());
        let i = read(&[("INPUT_COMMAND", "node 'unclosed")]).expect("inputs");
        assert!(i
            .guard_argv()
            .expect_err("quotes")
            .message()
            .to_string()
            .contains("quotes"));
    }
}
