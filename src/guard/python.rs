//! Python's block-buffered stdout, diagnosed from behaviour: a Python-launched server that
//! hangs at initialize is rerun with PYTHONUNBUFFERED=1; if it then answers, and a control
//! run with buffering still on hangs again, buffering was the cause.

use super::{session_with_checks, GuardSettings, SessionResult};
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location, ProcessFacts, ProcessPhase, Severity};
use crate::process::ServerCommand;
use crate::session::transcript::{Outcome, Purpose, Transcript};
use std::path::{Path, PathBuf};

const FIX: &str = "Flush after every message (print(..., flush=True) or sys.stdout.flush()), or run Python unbuffered: `python -u` or PYTHONUNBUFFERED=1 in the server's launch environment.";

/// What the reruns showed about a Python server that timed out at initialize.
pub struct BufferingCause {
    /// The run to judge instead of the first one.
    pub rerun: SessionResult,
    /// `python-buffered-stdio`, unless the first timeout was only a slow start.
    pub finding: Option<Finding>,
}

pub async fn diagnose_buffering(
    settings: &GuardSettings,
    result: &SessionResult,
) -> Option<BufferingCause> {
    let timed_out = result
        .transcript
        .initialize()
        .is_some_and(|e| e.outcome == Outcome::Timeout);
    if !timed_out || !launched_through_python(&settings.command) {
        return None;
    }
    let with_buffering = |value: &str| {
        let mut command = settings.command.clone();
        command.env.retain(|(k, _)| k != "PYTHONUNBUFFERED");
        command.env.push(("PYTHONUNBUFFERED".into(), value.into()));
        command
    };
    let rerun = session_with_checks(&with_buffering("1"), settings).await;
    rerun.transcript.initialize_result()?;
    // A control run with buffering forced on (an empty value means unset to Python): if that
    // answers too, the first timeout was a slow start, not buffering, and no cause is named.
    let control = session_with_checks(&with_buffering(""), settings).await;
    if control.transcript.initialize_result().is_some() {
        return Some(BufferingCause {
            rerun: control,
            finding: None,
        });
    }
    let finding = Finding::new(
        Code::PythonBufferedStdio,
        format!(
            "The server did not answer initialize within {} ms, but answered when rerun with PYTHONUNBUFFERED=1: its stdout is block-buffered, so answers sit in the buffer while the client waits.",
            result.transcript.timeout_ms
        ),
    )
    .at(Location::request("initialize"))
    .process(ProcessFacts::timeout(
        ProcessPhase::Initialize,
        result.transcript.timeout_ms,
    ))
    .fix(FIX);
    Some(BufferingCause {
        rerun,
        finding: Some(finding),
    })
}

/// Whether the command runs Python: by interpreter name, launcher, or the script's shebang.
pub fn launched_through_python(cmd: &ServerCommand) -> bool {
    let base = |s: &str| {
        Path::new(s)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(s)
            .to_string()
    };
    let program = base(&cmd.program);
    let first = cmd.args.first().map(String::as_str);
    if is_python_name(&program) || program == "uvx" {
        return true;
    }
    match (program.as_str(), first) {
        ("uv", Some("run")) | ("pipx", Some("run")) => return true,
        ("env", _) => return env_target(&cmd.args).is_some_and(|a| is_python_name(&base(a))),
        _ => {}
    }
    resolve(&cmd.program, cmd.cwd.as_deref())
        .and_then(|p| shebang(&p))
        .is_some_and(|line| line.contains("python"))
}

/// The program `env` runs: the first argument that is not an option, an option's value
/// (`-u NAME`, `-C DIR`) or an assignment.
fn env_target(args: &[String]) -> Option<&String> {
    let mut skip_next = false;
    for arg in args {
        if skip_next {
            skip_next = false;
        } else if matches!(arg.as_str(), "-u" | "--unset" | "-C" | "--chdir") {
            skip_next = true;
        } else if !arg.starts_with('-') && !arg.contains('=') {
            return Some(arg);
        }
    }
    None
}

/// The heuristic, judged from the run: a Python interpreter run without `-u` and without
/// PYTHONUNBUFFERED given (its stdout is block-buffered unless the server flushes), a
/// request after the handshake that went unanswered within the timeout, and no answer after
/// the handshake at all. A server that answered one demonstrably flushed; a handshake that
/// timed out was already rerun unbuffered (`diagnose_buffering`), so only this leaves a
/// suspicion: a note.
pub fn suspected_buffering(cmd: &ServerCommand, t: &Transcript) -> Option<Finding> {
    let program = runs_buffered(cmd)?;
    let after_handshake = || {
        t.exchanges
            .iter()
            .filter(|e| !matches!(e.purpose, Purpose::Initialize | Purpose::Discover))
    };
    // One answer after the handshake arrived in time: the server flushes, whatever else hung.
    if after_handshake().any(|e| e.answered_ms.is_some()) {
        return None;
    }
    let waited = after_handshake().find(|e| e.outcome == Outcome::Timeout)?;
    let finding = Finding::new(
        Code::PythonBufferedStdio,
        format!(
            "`{}` (id {}) was not answered within {} ms, and {program} runs without -u and without PYTHONUNBUFFERED (an inherited one is not passed, as clients do not set it): unless the server flushes after every message, its answers sit in a buffer.",
            excerpt(&waited.method, 128),
            waited.id,
            t.timeout_ms
        ),
    )
    .severity(Severity::Note)
    .at(Location::request(&waited.method))
    .process(ProcessFacts::timeout(ProcessPhase::Operation, t.timeout_ms))
    .fix(FIX);
    Some(finding)
}

/// Whether the server's stdout is Python's, block-buffered on a pipe: launched through
/// Python, without `-u` where the interpreter is named, and without PYTHONUNBUFFERED given.
pub(super) fn block_buffered(cmd: &ServerCommand) -> bool {
    let program = Path::new(&cmd.program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(&cmd.program);
    if is_python_name(program) {
        return runs_buffered(cmd).is_some();
    }
    let given = cmd
        .env
        .iter()
        .any(|(k, v)| k == "PYTHONUNBUFFERED" && !v.is_empty());
    !given && launched_through_python(cmd)
}

/// The interpreter's name when the command runs Python's interpreter directly without `-u`
/// and without PYTHONUNBUFFERED given.
fn runs_buffered(cmd: &ServerCommand) -> Option<&str> {
    let program = Path::new(&cmd.program).file_name()?.to_str()?;
    // Python reads the variable as set only when it is not empty.
    let given = cmd
        .env
        .iter()
        .any(|(k, v)| k == "PYTHONUNBUFFERED" && !v.is_empty());
    if !is_python_name(program) || given {
        return None;
    }
    // Interpreter options come before the script or `-m`; `-u` may be grouped (`-Bu`).
    let unbuffered = cmd
        .args
        .iter()
        .take_while(|a| a.starts_with('-') && !a.starts_with("--") && *a != "-m" && *a != "-c")
        .any(|a| a[1..].chars().all(|c| c.is_ascii_alphabetic()) && a.contains('u'));
    (!unbuffered).then_some(program)
}

/// `python`, `python3`, `python3.12`, `pythonw`…
pub(super) fn is_python_name(name: &str) -> bool {
    name.strip_prefix("python").is_some_and(|rest| {
        rest.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == 'w')
    })
}

fn resolve(program: &str, cwd: Option<&Path>) -> Option<PathBuf> {
    crate::process::find_program(program, cwd)
}

/// The first line of a script if it starts with `#!` (read at most 256 bytes).
fn shebang(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut buf = [0u8; 256];
    let n = std::fs::File::open(path).ok()?.read(&mut buf).ok()?;
    let head = &buf[..n];
    if !head.starts_with(b"#!") {
        return None;
    }
    let end = head.iter().position(|&b| b == b'\n').unwrap_or(n);
    Some(String::from_utf8_lossy(&head[..end]).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_interpreter_without_unbuffered_output_runs_buffered() {
        assert!(runs_buffered(&cmd("python3", &["server.py"])).is_some());
        assert!(runs_buffered(&cmd("/usr/bin/python3.12", &["-B", "server.py"])).is_some());
        assert!(runs_buffered(&cmd("python3", &["-u", "server.py"])).is_none());
        assert!(runs_buffered(&cmd("python3", &["-Bu", "-m", "pkg"])).is_none());
        // `-u` after the script is the script's own argument.
        assert!(runs_buffered(&cmd("python3", &["server.py", "-u"])).is_some());
        assert!(runs_buffered(&cmd("node", &["server.js"])).is_none());
        let mut given = cmd("python3", &["server.py"]);
        given.env.push(("PYTHONUNBUFFERED".into(), "1".into()));
        assert!(runs_buffered(&given).is_none());
        // Any non-empty value turns buffering off, "0" included, as Python reads it; an
        // empty one does not (mcp-stdio-guard's "detects Python unbuffered settings").
        let mut zero = cmd("python3", &["server.py"]);
        zero.env.push(("PYTHONUNBUFFERED".into(), "0".into()));
        assert!(runs_buffered(&zero).is_none());
        let mut empty = cmd("python3", &["server.py"]);
        empty.env.push(("PYTHONUNBUFFERED".into(), String::new()));
        assert!(runs_buffered(&empty).is_some());
    }

    fn cmd(program: &str, args: &[&str]) -> ServerCommand {
        ServerCommand {
            program: program.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            cwd: None,
            env: Vec::new(),
            clear_env: false,
            unset_env: Vec::new(),
        }
    }

    #[test]
    fn recognises_python_launchers() {
        assert!(launched_through_python(&cmd("python3", &["s.py"])));
        assert!(launched_through_python(&cmd(
            "/usr/bin/python3.11",
            &["s.py"]
        )));
        assert!(launched_through_python(&cmd("uv", &["run", "server"])));
        assert!(launched_through_python(&cmd("uvx", &["mcp-server-time"])));
        assert!(launched_through_python(&cmd("pipx", &["run", "x"])));
        assert!(launched_through_python(&cmd(
            "env",
            &["-u", "X", "python", "s.py"]
        )));
        assert!(!launched_through_python(&cmd("node", &["s.js"])));
        assert!(!launched_through_python(&cmd("uv", &["pip", "list"])));
        assert!(!launched_through_python(&cmd("pythonic-tool", &[])));
    }

    #[test]
    fn recognises_a_python_shebang() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = dir.path().join("server");
        std::fs::write(&script, "#!/opt/venv/bin/python3\nprint('x')\n").expect("write");
        assert!(launched_through_python(&cmd(
            &script.display().to_string(),
            &[]
        )));
        std::fs::write(&script, "#!/usr/bin/env node\n").expect("write");
        assert!(!launched_through_python(&cmd(
            &script.display().to_string(),
            &[]
        )));
    }
}
