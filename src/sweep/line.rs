//! The sweep's own fields of one results line. When the guard ran, the guard report's fields
//! follow them on the same line. The schema of `sweep --out` lines is generated from this
//! type, so a field cannot be written without being described.

use super::results::rfc3339;
use crate::install::facts::{InstallFacts, SetupFacts};
use crate::verdict::Status;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::time::{Instant, SystemTime};

/// Why an entry was not judged by the guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum NotJudged {
    /// Values the entry needs (a secret, a header) were not given.
    NeedsConfiguration,
    /// The sweep does not start this entry (remote without `--remote`, nothing startable).
    NotAsked,
    /// The entry's `setup` command failed; the server was not started.
    SetupFailed,
    /// Its package could not be installed (an install-* issue says why).
    InstallFailed,
    /// The sweep itself could not run this entry.
    SweepError,
}

/// A line's status: the guard's verdict, or why there is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum LineStatus {
    Judged(Status),
    NotJudged(NotJudged),
}

impl NotJudged {
    pub fn as_str(self) -> &'static str {
        match self {
            NotJudged::NeedsConfiguration => "needs-configuration",
            NotJudged::NotAsked => "not-asked",
            NotJudged::SetupFailed => "setup-failed",
            NotJudged::InstallFailed => "install-failed",
            NotJudged::SweepError => "sweep-error",
        }
    }
}

impl LineStatus {
    /// As the line spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            LineStatus::Judged(status) => status.as_str(),
            LineStatus::NotJudged(why) => why.as_str(),
        }
    }

    /// Whether the sweep started anything for the entry (needs-configuration and not-asked
    /// entries have no server time).
    pub fn was_started(self) -> bool {
        !matches!(
            self,
            LineStatus::NotJudged(NotJudged::NeedsConfiguration | NotJudged::NotAsked)
        )
    }
}

impl std::fmt::Display for LineStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// The server.json transport a remote entry was guarded as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RemoteType {
    StreamableHttp,
    Sse,
}

impl RemoteType {
    /// As server.json spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            RemoteType::StreamableHttp => "streamable-http",
            RemoteType::Sse => "sse",
        }
    }
}

/// One line of `sweep --out` (its own fields; the guard report's, when it ran, follow).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Line {
    pub id: String,
    pub status: LineStatus,
    /// When the entry started (RFC 3339, UTC).
    pub started_at: String,
    /// The entry's wall time, install and setup included, in milliseconds.
    pub wall_ms: u64,
    /// Why the entry has this status, when it was not judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// needs-configuration: the values that were not given (names only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<Vec<String>>,
    /// A remote entry only: the server.json `remotes[].type` it was guarded as
    /// (`streamable-http` for a manifest's remote entry, which names none). The guard's
    /// `transport` says what the session spoke (`http`, or `sse` after the fallback). Added
    /// in v1 without breaking it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote_type: Option<RemoteType>,
    /// A started entry: the POSIX shell command that reruns this one server alone
    /// (`mcpcheck guard` with the sweep's and the entry's settings). Every secret appears as
    /// `${NAME}`: export the named values, then run it. Added in v1 without breaking it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reproduce: Option<String>,
    /// A registry entry whose runtimeHint names a language (`python`, `node`): which
    /// launcher ran it and why. Added in v1 without breaking it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_note: Option<String>,
    /// An entry with a `setup` command: how it ran (command, ok, timedOut, exitCode, signal,
    /// durationMs and, when it failed, outputTail), or why it could not start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub setup: Option<SetupFacts>,
    /// A registry entry whose package the sweep installed before starting it (npm for npx,
    /// uv for uvx): the installer's command, ok, timedOut, exitCode, signal, durationMs, cached
    /// (installed earlier in the same sweep), inProject (found in the project), program (the
    /// executable started) and, when it failed, outputTail; or why it could not start. A
    /// failed install makes the line's status `install-failed`, with `summary` and `issues`
    /// (an install-* code). Added in v1 without breaking it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install: Option<InstallFacts>,
}

impl Line {
    pub fn new(id: &str, status: LineStatus, started_at: SystemTime, clock: Instant) -> Self {
        Line {
            id: id.to_string(),
            status,
            started_at: rfc3339(started_at),
            wall_ms: clock.elapsed().as_millis() as u64,
            reason: None,
            missing: None,
            remote_type: None,
            reproduce: None,
            runtime_note: None,
            setup: None,
            install: None,
        }
    }

    pub fn not_judged(id: &str, why: NotJudged, started_at: SystemTime, clock: Instant) -> Self {
        Line::new(id, LineStatus::NotJudged(why), started_at, clock)
    }

    /// The same fields with the wall time up to now.
    pub fn timed(mut self, clock: Instant) -> Self {
        self.wall_ms = clock.elapsed().as_millis() as u64;
        self
    }

    pub fn reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }

    /// These fields, then `rest` (a guard report's, or an install failure's issues), as the
    /// results file gets them.
    pub fn with(self, rest: Value) -> LineOut {
        let status = self.status;
        let mut line = match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        if let Value::Object(fields) = rest {
            line.extend(fields);
        }
        LineOut {
            status,
            json: Value::Object(line),
        }
    }
}

/// A finished entry's whole line, and its status for the progress display.
#[derive(Debug, Clone)]
pub struct LineOut {
    pub status: LineStatus,
    pub json: Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::facts::{CommandRun, SpawnFailure};
    use crate::sweep::results::ResultLine;

    /// The sweep's own fields read back as they were written, every status spelled as the
    /// schema says.
    #[test]
    fn a_line_reads_back_as_written() {
        let clock = Instant::now();
        let at = std::time::UNIX_EPOCH;
        let mut line = Line::not_judged("a", NotJudged::SetupFailed, at, clock).reason("exit 3");
        line.setup = Some(SetupFacts::Ran(CommandRun {
            command: vec!["make".into()],
            ok: false,
            timed_out: false,
            exit_code: Some(3),
            signal: None,
            duration_ms: 5,
            output_tail: Some("error".into()),
        }));
        line.install = Some(InstallFacts::ran(SetupFacts::NotStarted(SpawnFailure {
            spawn_error: "npm: not found".into(),
            hint: "install npm".into(),
        })));
        line.reproduce = Some("mcpcheck guard -- x".into());
        line.remote_type = Some(RemoteType::Sse);
        let text = serde_json::to_vec(&line.clone().with(Value::Null).json).expect("json");
        let read = ResultLine::parse(&text, 1).expect("reads back");
        assert_eq!(read.fields, line);
        for status in [
            LineStatus::Judged(Status::NeedsInspection),
            LineStatus::NotJudged(NotJudged::NeedsConfiguration),
        ] {
            let json = serde_json::to_value(status).expect("json");
            assert_eq!(json, status.as_str());
            assert_eq!(
                serde_json::from_value::<LineStatus>(json).ok(),
                Some(status)
            );
        }
    }
}
