//! What a result line says of the commands run before its server: the entry's `setup`, and
//! the install of its package. Written and read back as these types, so the schema of
//! `sweep --out` lines describes each field and no reader looks one up by name.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Duration;

/// How a command that was started (a setup, an installer) ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommandRun {
    /// The command, credentials masked.
    pub command: Vec<String>,
    /// Whether it exited with 0 in time.
    pub ok: bool,
    /// Whether it ran out of time and was stopped.
    pub timed_out: bool,
    /// Its exit code; null when it was ended by a signal or stopped.
    pub exit_code: Option<i32>,
    /// The signal that ended it; null when it exited.
    pub signal: Option<i32>,
    pub duration_ms: u64,
    /// A failed command only: the end of its output (stdout and stderr as they came), each
    /// secret of the entry shown as `${NAME}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tail: Option<String>,
}

/// A command that could not be started at all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpawnFailure {
    /// Why it could not be started.
    pub spawn_error: String,
    /// What to check.
    pub hint: String,
}

/// The `setup` of a result line: how the entry's setup command ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SetupFacts {
    Ran(CommandRun),
    NotStarted(SpawnFailure),
}

/// The `install` of a result line: how the entry's package was installed, or found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum InstallFacts {
    Ran(InstallRun),
    NotStarted(InstallNotStarted),
    NoneRan(NoInstallRan),
    NoDirectory(InstallDirectoryError),
}

/// The installer ran: its last command (an install may take several, such as a virtual
/// environment then pip), with the whole install's time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstallRun {
    #[serde(flatten)]
    pub run: CommandRun,
    /// False: this install was made for this entry.
    pub cached: bool,
    /// The executable started, when the install provided one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
}

/// The installer could not be started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstallNotStarted {
    #[serde(flatten)]
    pub failure: SpawnFailure,
    /// False: no earlier install was used.
    pub cached: bool,
    pub duration_ms: u64,
}

/// No installer ran: the package was installed earlier in the same sweep, or the project
/// the entry runs in has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NoInstallRan {
    /// Whether an earlier install (or the project's) was used.
    pub cached: bool,
    /// True: found in the project's own `node_modules`, as npx finds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_project: Option<bool>,
    pub duration_ms: u64,
    /// The executable started, when the install provides one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
}

/// The directory to install into could not be made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InstallDirectoryError {
    pub error: String,
}

impl InstallFacts {
    /// Nothing ran: `cached` when an earlier install is used, `in_project` when the project has
    /// the package.
    pub fn none_ran(cached: bool, in_project: bool) -> Self {
        InstallFacts::NoneRan(NoInstallRan {
            cached,
            in_project: in_project.then_some(true),
            duration_ms: 0,
            program: None,
        })
    }

    /// One installer command's facts, as a fresh install's.
    pub fn ran(setup: SetupFacts) -> Self {
        match setup {
            SetupFacts::Ran(run) => InstallFacts::Ran(InstallRun {
                run,
                cached: false,
                program: None,
            }),
            SetupFacts::NotStarted(failure) => InstallFacts::NotStarted(InstallNotStarted {
                failure,
                cached: false,
                duration_ms: 0,
            }),
        }
    }

    pub fn directory_error(error: String) -> Self {
        InstallFacts::NoDirectory(InstallDirectoryError { error })
    }

    /// The whole install's time.
    pub fn set_duration(&mut self, took: Duration) {
        let ms = took.as_millis() as u64;
        match self {
            InstallFacts::Ran(r) => r.run.duration_ms = ms,
            InstallFacts::NotStarted(n) => n.duration_ms = ms,
            InstallFacts::NoneRan(n) => n.duration_ms = ms,
            InstallFacts::NoDirectory(_) => {}
        }
    }

    /// The executable the install provided, which the sweep starts.
    pub fn set_program(&mut self, program: &Path) {
        let shown = Some(program.display().to_string());
        match self {
            InstallFacts::Ran(r) => r.program = shown,
            InstallFacts::NoneRan(n) => n.program = shown,
            InstallFacts::NotStarted(_) | InstallFacts::NoDirectory(_) => {}
        }
    }

    /// The whole install's time (0 when an earlier install was used).
    pub fn duration_ms(&self) -> u64 {
        match self {
            InstallFacts::Ran(r) => r.run.duration_ms,
            InstallFacts::NotStarted(n) => n.duration_ms,
            InstallFacts::NoneRan(n) => n.duration_ms,
            InstallFacts::NoDirectory(_) => 0,
        }
    }

    /// The end of a failed installer's output.
    pub fn output_tail(&self) -> Option<String> {
        match self {
            InstallFacts::Ran(r) => r.run.output_tail.clone(),
            _ => None,
        }
    }

    /// Whether the installer ran out of time.
    pub fn timed_out(&self) -> bool {
        matches!(self, InstallFacts::Ran(r) if r.run.timed_out)
    }

    /// Why the installer could not be started, if it could not.
    pub fn spawn_error(&self) -> Option<&str> {
        match self {
            InstallFacts::NotStarted(n) => Some(&n.failure.spawn_error),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(ok: bool) -> CommandRun {
        CommandRun {
            command: vec!["npm".into(), "install".into()],
            ok,
            timed_out: false,
            exit_code: Some(if ok { 0 } else { 1 }),
            signal: None,
            duration_ms: 12,
            output_tail: (!ok).then(|| "npm error 404".into()),
        }
    }

    fn text(facts: &InstallFacts) -> String {
        serde_json::to_string(facts).expect("facts are JSON")
    }

    /// Each shape keeps the key order the sweep has always written, and reads back as itself.
    #[test]
    fn install_facts_are_written_in_their_order_and_read_back() {
        let mut fresh = InstallFacts::ran(SetupFacts::Ran(run(true)));
        fresh.set_duration(Duration::from_millis(40));
        fresh.set_program(Path::new("/i/node_modules/.bin/x"));
        let mut failed = InstallFacts::ran(SetupFacts::Ran(run(false)));
        failed.set_duration(Duration::from_millis(41));
        let mut missing = InstallFacts::ran(SetupFacts::NotStarted(SpawnFailure {
            spawn_error: "npm: not found".into(),
            hint: "install npm".into(),
        }));
        missing.set_duration(Duration::from_millis(2));
        let mut cached = InstallFacts::none_ran(true, false);
        cached.set_program(Path::new("/i/x"));
        let mut project = InstallFacts::none_ran(true, true);
        project.set_program(Path::new("/p/x"));
        let cases = [
            (
                fresh,
                r#"{"command":["npm","install"],"ok":true,"timedOut":false,"exitCode":0,"signal":null,"durationMs":40,"cached":false,"program":"/i/node_modules/.bin/x"}"#,
            ),
            (
                failed,
                r#"{"command":["npm","install"],"ok":false,"timedOut":false,"exitCode":1,"signal":null,"durationMs":41,"outputTail":"npm error 404","cached":false}"#,
            ),
            (
                missing,
                r#"{"spawnError":"npm: not found","hint":"install npm","cached":false,"durationMs":2}"#,
            ),
            (cached, r#"{"cached":true,"durationMs":0,"program":"/i/x"}"#),
            (
                project,
                r#"{"cached":true,"inProject":true,"durationMs":0,"program":"/p/x"}"#,
            ),
            (
                InstallFacts::directory_error("disk full".into()),
                r#"{"error":"disk full"}"#,
            ),
        ];
        for (facts, want) in cases {
            assert_eq!(text(&facts), want);
            let back: InstallFacts = serde_json::from_str(want).expect("reads back");
            assert_eq!(back, facts, "{want}");
        }
    }

    #[test]
    fn setup_facts_read_back_as_what_was_written() {
        for facts in [
            SetupFacts::Ran(run(false)),
            SetupFacts::NotStarted(SpawnFailure {
                spawn_error: "sh: not found".into(),
                hint: "h".into(),
            }),
        ] {
            let text = serde_json::to_string(&facts).expect("json");
            let back: SetupFacts = serde_json::from_str(&text).expect("reads back");
            assert_eq!(back, facts, "{text}");
        }
        assert_eq!(
            serde_json::to_string(&SetupFacts::Ran(run(true))).expect("json"),
            r#"{"command":["npm","install"],"ok":true,"timedOut":false,"exitCode":0,"signal":null,"durationMs":12}"#
        );
    }
}
