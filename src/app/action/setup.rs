//! The Action's `setup` input, run by the process layer's setup runner (as the sweep runs
//! an entry's setup): `sh -c` in `working_directory` with the scrubbed environment, its own
//! process group, stopped at `setup_timeout` (SIGTERM, then SIGKILL), its output streamed
//! into the log inside a stop-commands fence, and anything it leaves running killed and
//! reported.

use super::child_env::ChildEnv;
use super::inputs::Inputs;
use crate::error::Error;
use crate::finding::excerpt;
use crate::process::setup::{OutputSink, SetupRun};
use crate::process::{EscapedProcess, ServerCommand};
use crate::report::github::workflow_commands::{escape_data, random_token, write_outputs};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How the setup went when it did not fail the step.
pub enum SetupResult {
    Done,
    /// It succeeded but left processes running, which were killed: a note for the report.
    LeftProcesses(String),
}

/// Runs `setup`; `Err` says why the step fails.
pub fn run(
    log: &mut impl Write,
    setup: &str,
    inputs: &Inputs,
    child: &ChildEnv,
) -> Result<SetupResult, Error> {
    let token = random_token();
    line(
        log,
        &format!(
            "::group::mcpcheck setup: {}",
            escape_data(&excerpt(setup, 200))
        ),
    );
    line(log, &format!("::stop-commands::{token}"));
    let command = ServerCommand {
        program: "sh".into(),
        args: vec!["-c".into(), setup.into()],
        cwd: inputs.working_directory.as_ref().map(PathBuf::from),
        env: child.vars.clone(),
        clear_env: true,
        unset_env: Vec::new(),
    };
    // Stdout and stderr both go to our stdout, inside the fence (the runner reads workflow
    // commands on stderr too), a line at a time without the values the `env` input passed.
    let lines = Arc::new(CleanLines {
        known: child.given_secrets(),
        pending: std::sync::Mutex::new(Vec::new()),
    });
    let sink = Arc::clone(&lines);
    let to_log: OutputSink = Arc::new(move |chunk: &[u8]| sink.feed(chunk));
    let outcome = crate::app::io::runtime(None)?.block_on(crate::process::setup::run(
        &command,
        inputs.setup_timeout,
        to_log,
    ));
    lines.finish();
    line(log, &format!("::{token}::"));
    line(log, "::endgroup::");
    let dir = inputs
        .working_directory
        .as_deref()
        .unwrap_or("the repository root");
    let run = outcome
        .map_err(|e| Error::Input(format!("the setup command could not be started: {e}")))?;
    judge(&run, inputs.setup_timeout.as_millis(), dir)
}

/// A setup's output on its way to the log, written a line at a time without the given
/// secrets, so none is split across two writes and missed.
struct CleanLines {
    known: crate::secrets::KnownSecrets,
    pending: std::sync::Mutex<Vec<u8>>,
}

/// A line longer than this is written in parts.
const MAX_PENDING: usize = 64 * 1024;

impl CleanLines {
    fn feed(&self, chunk: &[u8]) {
        let Ok(mut pending) = self.pending.lock() else {
            return;
        };
        pending.extend_from_slice(chunk);
        while let Some(end) = pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            self.write(&line);
        }
        if pending.len() > MAX_PENDING {
            let part = std::mem::take(&mut *pending);
            self.write(&part);
        }
    }

    fn finish(&self) {
        if let Ok(mut pending) = self.pending.lock() {
            let rest = std::mem::take(&mut *pending);
            if !rest.is_empty() {
                self.write(&rest);
            }
        }
    }

    fn write(&self, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(self.known.remove(&text).as_bytes());
        let _ = out.flush();
    }
}

/// The step's view of a finished setup.
fn judge(run: &SetupRun, timeout_ms: u128, dir: &str) -> Result<SetupResult, Error> {
    if run.timed_out() {
        return Err(Error::Input(format!(
            "the setup command was still running after {timeout_ms} ms (input `setup_timeout`) and was stopped; run it locally in {dir} to see where it waits, or raise `setup_timeout`"
        )));
    }
    if let (false, Some(exit)) = (run.succeeded(), run.exit) {
        return Err(Error::Input(format!(
            "the setup command failed ({}); run it locally in {dir} to see why",
            exit.describe()
        )));
    }
    if run.leftovers.is_empty() {
        return Ok(SetupResult::Done);
    }
    Ok(SetupResult::LeftProcesses(format!(
        "The setup command left {} running, killed before the checks: {}. Start services the server needs in an earlier step of the job, not in `setup`.",
        match run.leftovers.len() {
            1 => "1 process".to_string(),
            n => format!("{n} processes"),
        },
        describe(&run.leftovers)
    )))
}

/// `pid 123 (sleep 600), ...`, arguments redacted and shortened.
fn describe(processes: &[EscapedProcess]) -> String {
    processes
        .iter()
        .map(|p| {
            let argv = crate::secrets::redact_argv(&p.argv).join(" ");
            format!("pid {} ({})", p.pid, excerpt(&argv, 80))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A failed setup still fills the summary and the outputs.
pub fn report_failure(log: &mut impl Write, inputs: &Inputs, failure: &str) {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    if inputs.summary {
        if let Some(path) = var("GITHUB_STEP_SUMMARY") {
            let text = format!(
                "## ❌ mcpcheck: setup failed\n\n{}\n",
                crate::report::markdown_escape::text(failure, 500)
            );
            let _ = super::append(Path::new(&path), &text);
        }
    }
    if let Some(path) = var("GITHUB_OUTPUT") {
        let _ = write_outputs(
            Path::new(&path),
            &[
                ("status", "error".into()),
                ("ok", "false".into()),
                ("sarif-file", String::new()),
            ],
        );
    }
    let _ = log.flush();
}

fn line(log: &mut impl Write, text: &str) {
    let _ = writeln!(log, "{text}");
    let _ = log.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::ExitKind;
    use std::time::Duration;

    fn run(exit: Option<ExitKind>, leftovers: Vec<EscapedProcess>) -> SetupRun {
        SetupRun {
            exit,
            leftovers,
            leftovers_checked: true,
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn a_timeout_names_the_input_and_a_leftover_is_named_not_failed() {
        let err = judge(&run(None, Vec::new()), 1500, "server").err();
        assert_eq!(
            err.as_ref().map(Error::message),
            Some("the setup command was still running after 1500 ms (input `setup_timeout`) and was stopped; run it locally in server to see where it waits, or raise `setup_timeout`")
        );
        let err = judge(&run(Some(ExitKind::Code(3)), Vec::new()), 1, "server").err();
        assert!(err.is_some_and(|e| e.message().contains("failed (exit code 3)")));
        let daemon = EscapedProcess {
            pid: 42,
            argv: vec!["sleep".into(), "600".into()],
            holds: Vec::new(),
        };
        match judge(&run(Some(ExitKind::Code(0)), vec![daemon]), 1, "server") {
            Ok(SetupResult::LeftProcesses(note)) => {
                assert!(note.contains("left 1 process running"), "{note}");
                assert!(note.contains("pid 42 (sleep 600)"), "{note}");
            }
            _ => panic!("a leftover is a note, not a failure"),
        }
    }
}
