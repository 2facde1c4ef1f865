//! The child process: its own process group, bounded readers, deadlines, SIGTERM then SIGKILL.
//!
//! Nothing above this module touches a raw pid.

pub mod backend;
mod group;
pub mod idle;
pub mod setup;
mod table;
mod tree;
pub use tree::{EscapedProcess, LeftProcess};

pub use group::GroupLeader;

use crate::protocol::framing::{LineEvent, LineSplitter, RawLine};
use nix::sys::signal::Signal;
use serde::Serialize;
use std::collections::VecDeque;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::task::JoinHandle;

/// How to launch a server.
#[derive(Debug, Clone)]
pub struct ServerCommand {
    pub program: String,
    pub args: Vec<String>,
    pub cwd: Option<PathBuf>,
    /// Added to (or overriding) the inherited environment.
    pub env: Vec<(String, String)>,
    /// Start from an empty environment, so only `env` reaches the server (scan --live).
    pub clear_env: bool,
    /// Inherited variables withheld from the server (those in `env` are still set).
    pub unset_env: Vec<String>,
}

/// Bounds on what the guard reads from a server.
#[derive(Debug, Clone, Copy)]
pub struct StdioLimits {
    /// The hard cap: a longer line stops the run (it also bounds memory).
    pub max_stdout_line_bytes: usize,
    /// Lines longer than this are parsed and judged, and reported as large.
    pub soft_stdout_line_bytes: usize,
    pub max_stdout_bytes: u64,
    /// Stderr past this is counted in full but only its tail kept (a note).
    pub max_stderr_bytes: u64,
    /// Stderr past this in one session is a flood (a warning).
    pub stderr_flood_bytes: u64,
}

impl StdioLimits {
    pub const DEFAULT_MAX_STDOUT_LINE_BYTES: usize = 16 * 1024 * 1024;
    /// One line at the hard cap plus a session's worth of ordinary messages.
    pub const DEFAULT_MAX_STDOUT_BYTES: u64 = 17 * 1024 * 1024;
    pub const DEFAULT_MAX_STDERR_BYTES: u64 = 1024 * 1024;
    pub const DEFAULT_STDERR_FLOOD_BYTES: u64 = 64 * 1024 * 1024;
}

impl Default for StdioLimits {
    fn default() -> Self {
        Self {
            max_stdout_line_bytes: Self::DEFAULT_MAX_STDOUT_LINE_BYTES,
            soft_stdout_line_bytes: 256 * 1024,
            max_stdout_bytes: Self::DEFAULT_MAX_STDOUT_BYTES,
            max_stderr_bytes: Self::DEFAULT_MAX_STDERR_BYTES,
            stderr_flood_bytes: Self::DEFAULT_STDERR_FLOOD_BYTES,
        }
    }
}

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "value")]
pub enum ExitKind {
    Code(i32),
    Signal(i32),
}

impl ExitKind {
    fn from_status(status: ExitStatus) -> Self {
        match (status.code(), status.signal()) {
            (Some(code), _) => ExitKind::Code(code),
            (None, Some(sig)) => ExitKind::Signal(sig),
            (None, None) => ExitKind::Code(-1),
        }
    }

    pub fn describe(self) -> String {
        match self {
            ExitKind::Code(c) => format!("exit code {c}"),
            ExitKind::Signal(s) => format!("signal {} ({})", s, signal_name(s)),
        }
    }
}

/// Where a program would be found as `execvp` finds it: a path with a `/` as given
/// (relative to `cwd`), else the first file of that name in a directory of `PATH`.
pub fn find_program(program: &str, cwd: Option<&std::path::Path>) -> Option<std::path::PathBuf> {
    use std::path::PathBuf;
    if program.contains('/') {
        let p = PathBuf::from(program);
        return Some(match cwd {
            Some(d) if p.is_relative() => d.join(p),
            _ => p,
        });
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// Whether `pid` names a process that still exists (a zombie included); pid 0 never does.
/// Read with `kill(pid, 0)`, so it holds on every Unix (there is no /proc on macOS).
pub fn is_running(pid: u32) -> bool {
    use nix::errno::Errno;
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    raw > 0
        && matches!(
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(raw), None),
            Ok(()) | Err(Errno::EPERM)
        )
}

/// The platform's name of a signal (numbers differ: 10 is SIGUSR1 on Linux, SIGBUS on macOS).
pub fn signal_name(sig: i32) -> &'static str {
    Signal::try_from(sig)
        .map(|s| s.as_str())
        .unwrap_or("unknown")
}

/// One event from the server's stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StdoutEvent {
    Line(RawLine),
    LineTooLarge { number: u64, bytes_seen: usize },
    OutputLimitExceeded { limit: u64 },
    Eof,
    ReadError(String),
}

/// What a running server did next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcessEvent {
    Stdout(StdoutEvent),
    Exited(ExitKind),
}

/// Reads stdout in chunks and frames it, holding at most one line's worth of bytes.
struct StdoutStream {
    pipe: ChildStdout,
    splitter: LineSplitter,
    queue: VecDeque<StdoutEvent>,
    buf: Vec<u8>,
    total: u64,
    max_total: u64,
    done: bool,
}

impl StdoutStream {
    /// Cancel-safe: state changes only after a read completes.
    async fn next_event(&mut self) -> StdoutEvent {
        loop {
            if let Some(e) = self.queue.pop_front() {
                return e;
            }
            if self.done {
                return StdoutEvent::Eof;
            }
            match self.pipe.read(&mut self.buf).await {
                Ok(0) => {
                    self.done = true;
                    return StdoutEvent::Eof;
                }
                Ok(n) => self.accept(n),
                Err(e) => {
                    self.done = true;
                    return StdoutEvent::ReadError(e.to_string());
                }
            }
        }
    }

    /// Whether every event has been handed out: nothing more will come.
    fn ended(&self) -> bool {
        self.done && self.queue.is_empty()
    }

    fn accept(&mut self, n: usize) {
        let room = self.max_total.saturating_sub(self.total);
        let take = (n as u64).min(room) as usize;
        self.total += n as u64;
        let mut events = Vec::new();
        self.splitter.feed(&self.buf[..take], &mut events);
        self.queue.extend(events.into_iter().map(|e| match e {
            LineEvent::Line(l) => StdoutEvent::Line(l),
            LineEvent::TooLarge { number, bytes_seen } => {
                StdoutEvent::LineTooLarge { number, bytes_seen }
            }
        }));
        if self.splitter.has_overflowed() {
            self.done = true;
        } else if take < n {
            self.queue.push_back(StdoutEvent::OutputLimitExceeded {
                limit: self.max_total,
            });
            self.done = true;
        }
    }
}

/// What was read from stderr: counted in full, only the tail kept.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StderrCapture {
    pub total_bytes: u64,
    pub lines: u64,
    pub limit_exceeded: bool,
    #[serde(skip)]
    pub tail: VecDeque<u8>,
}

/// Bytes of stderr kept for the report.
const STDERR_TAIL_BYTES: usize = 16 * 1024;

impl StderrCapture {
    fn record(&mut self, chunk: &[u8], max_total: u64) {
        self.total_bytes += chunk.len() as u64;
        self.lines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
        self.limit_exceeded |= self.total_bytes > max_total;
        let keep = chunk.len().min(STDERR_TAIL_BYTES);
        self.tail.extend(&chunk[chunk.len() - keep..]);
        let excess = self.tail.len().saturating_sub(STDERR_TAIL_BYTES);
        self.tail.drain(..excess);
    }

    pub fn tail_text(&self) -> String {
        let bytes: Vec<u8> = self.tail.iter().copied().collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// Why a spawn failed, for the person reading the report.
#[derive(Debug, Clone, thiserror::Error)]
#[error("could not start `{program}`: {reason}")]
pub struct SpawnError {
    pub program: String,
    pub reason: String,
    pub hint: &'static str,
    /// The platform's short name for the error (`ENOENT`), or empty when there is none.
    pub code: String,
}

/// What the guard did to end the process, and what it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ShutdownPath {
    /// The process had already exited when shutdown began.
    AlreadyExited,
    /// It exited after its stdin was closed, within the grace period.
    StdinClosed,
    /// It needed SIGTERM.
    Terminated,
    /// It needed SIGKILL.
    Killed,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShutdownReport {
    pub path: ShutdownPath,
    pub exit: Option<ExitKind>,
    /// Processes of the group still alive after the leader was gone, that the guard killed.
    pub killed_leftover_group: bool,
    /// Processes that left the group but held a stream of the session; killed too.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub escaped: Vec<tree::EscapedProcess>,
    /// Processes that detached from the group without a stream and were still running after
    /// the server exited (a daemon); killed too.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_running: Vec<tree::LeftProcess>,
    /// Whether processes that left the group were all looked for: false on the portable
    /// backend, which can miss one re-parented to init (launchd), and cannot see which
    /// process holds a pipe, so `escaped` is not checked there.
    pub leftovers_checked: bool,
}

/// A stopped process: how it ended, and what it wrote on stdout after its stdin closed.
#[derive(Debug, Clone)]
pub struct Stopped {
    pub report: ShutdownReport,
    pub late_stdout: Vec<StdoutEvent>,
}

/// How long stdout may stay open once the whole group is gone.
const LATE_STDOUT_DRAIN: Duration = Duration::from_millis(250);

/// Why a message could not be written to a server's stdin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StdinError {
    #[error("stdin is already closed")]
    Closed,
    #[error("the server did not read its stdin in time")]
    NotRead,
    /// The write failed (the server closed its stdin): the OS's words.
    #[error("{0}")]
    Write(String),
}

/// A running server in its own process group, read through bounded framed streams.
pub struct ServerProcess {
    leader: GroupLeader,
    stdin: Option<ChildStdin>,
    stdout: StdoutStream,
    stderr_capture: Arc<Mutex<StderrCapture>>,
    stderr_task: Option<JoinHandle<()>>,
    pub started: Instant,
}

/// Makes this process the reaper of orphaned descendants, so no zombie outlives a run
/// (Linux backend; the portable one has no such thing, and init reaps the orphans).
pub fn become_subreaper() {
    // Best effort: without it orphans go to init, which reaps them too.
    #[cfg(subreaper)]
    if backend::finds_every_leftover() {
        let _ = nix::sys::prctl::set_child_subreaper(true);
    }
}

impl ServerProcess {
    pub fn spawn(cmd: &ServerCommand, limits: StdioLimits) -> Result<Self, SpawnError> {
        let (leader, stdin, stdout, stderr) = GroupLeader::spawn(cmd)?;
        let stderr_capture = Arc::new(Mutex::new(StderrCapture::default()));
        let stderr_task = tokio::spawn(drain_stderr(
            stderr,
            Arc::clone(&stderr_capture),
            limits.max_stderr_bytes,
        ));
        Ok(Self {
            leader,
            stdin: Some(stdin),
            stdout: StdoutStream {
                pipe: stdout,
                splitter: LineSplitter::new(limits.max_stdout_line_bytes),
                queue: VecDeque::new(),
                buf: vec![0; 64 * 1024],
                total: 0,
                max_total: limits.max_stdout_bytes,
                done: false,
            },
            stderr_capture,
            stderr_task: Some(stderr_task),
            started: Instant::now(),
        })
    }

    /// The server's pid.
    pub fn pid(&self) -> u32 {
        self.leader.pid()
    }

    /// A watch over the server's process group, to see it idle (see [`idle`]).
    pub fn idle_watch(&self) -> idle::Watch {
        self.leader.idle_watch()
    }

    /// Writes one framed message to the server's stdin. An error means the server stopped reading.
    pub async fn send(&mut self, bytes: &[u8], deadline: Instant) -> Result<(), StdinError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(StdinError::Closed);
        };
        let write = async {
            stdin.write_all(bytes).await?;
            stdin.flush().await
        };
        match tokio::time::timeout_at(deadline.into(), write).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(StdinError::Write(e.to_string())),
            Err(_) => Err(StdinError::NotRead),
        }
    }

    /// The next stdout event or the process's exit (reported once). Cancel-safe, so it can
    /// sit in a `select!` beside a deadline.
    pub async fn next_event(&mut self) -> ProcessEvent {
        let exited = self.leader.exit().is_some();
        tokio::select! {
            biased;
            event = self.stdout.next_event() => ProcessEvent::Stdout(event),
            exit = self.leader.wait_exit(), if !exited => ProcessEvent::Exited(exit),
        }
    }

    /// Waits for the process to exit. Cancel-safe.
    pub async fn wait_exit(&mut self) -> ExitKind {
        self.leader.wait_exit().await
    }

    pub fn stdout_bytes(&self) -> u64 {
        self.stdout.total
    }

    /// Bytes after the last newline, if any.
    pub fn unterminated_stdout(&self) -> Option<RawLine> {
        self.stdout.splitter.unterminated()
    }

    pub fn stderr(&self) -> StderrCapture {
        self.stderr_capture
            .lock()
            .map(|c| c.clone())
            .unwrap_or_default()
    }

    /// Ends the process the way a client should: close stdin, wait, SIGTERM, wait, SIGKILL.
    /// Whatever the leader did, every process left in its group is killed and reaped.
    /// Stdout is read all the while, to its end: what a server writes at exit (a buffer
    /// flushed as the interpreter stops) is returned, every byte of it judged like the rest.
    pub async fn shutdown(&mut self, grace: Duration, term_grace: Duration) -> Stopped {
        let escaped = self.leader.escaped_candidates();
        let already_exited = self.leader.poll_exit().is_some();
        self.stdin = None;
        let mut late_stdout = Vec::new();
        let report = {
            let stdout = &mut self.stdout;
            let stop = self.leader.stop(escaped, already_exited, grace, term_grace);
            tokio::pin!(stop);
            loop {
                tokio::select! {
                    biased;
                    report = &mut stop => break report,
                    event = stdout.next_event(), if !stdout.ended() => late_stdout.push(event),
                }
            }
        };
        // The group is gone; a pipe still open is held by a process the backend could not
        // find, so the wait for its end is bounded.
        let drain = tokio::time::Instant::now() + LATE_STDOUT_DRAIN;
        while !self.stdout.ended() {
            match tokio::time::timeout_at(drain, self.stdout.next_event()).await {
                Ok(event) => late_stdout.push(event),
                Err(_) => break,
            }
        }
        self.finish_stderr().await;
        Stopped {
            report,
            late_stdout,
        }
    }

    /// Ends the process at once (a limit was hit); no grace.
    pub async fn kill_now(&mut self) -> ShutdownReport {
        self.stdin = None;
        let report = self.leader.kill_now().await;
        self.finish_stderr().await;
        report
    }

    /// Lets the stderr reader catch up, then stops it (a grandchild may hold the pipe open).
    async fn finish_stderr(&mut self) {
        if let Some(task) = self.stderr_task.take() {
            let abort = task.abort_handle();
            if tokio::time::timeout(Duration::from_millis(200), task)
                .await
                .is_err()
            {
                abort.abort();
            }
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Some(task) = self.stderr_task.take() {
            task.abort();
        }
    }
}

async fn drain_stderr(
    mut pipe: tokio::process::ChildStderr,
    capture: Arc<Mutex<StderrCapture>>,
    max_total: u64,
) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if let Ok(mut c) = capture.lock() {
                    c.record(&buf[..n], max_total);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_capture_counts_everything_and_keeps_the_tail() {
        let mut c = StderrCapture::default();
        let chunk = vec![b'a'; STDERR_TAIL_BYTES];
        c.record(&chunk, 100);
        c.record(b"end\n", 100);
        assert_eq!(c.total_bytes, STDERR_TAIL_BYTES as u64 + 4);
        assert_eq!(c.lines, 1);
        assert!(c.limit_exceeded);
        assert_eq!(c.tail.len(), STDERR_TAIL_BYTES);
        assert!(c.tail_text().ends_with("aend\n"));
    }

    #[test]
    fn signal_names_are_the_platforms_own() {
        assert_eq!(signal_name(9), "SIGKILL");
        #[cfg(target_os = "linux")]
        assert_eq!(signal_name(10), "SIGUSR1");
        #[cfg(target_os = "macos")]
        assert_eq!(signal_name(10), "SIGBUS");
        assert_eq!(signal_name(1000), "unknown");
    }

    #[tokio::test]
    async fn a_pid_is_running_while_its_process_exists() {
        assert!(is_running(std::process::id()));
        assert!(is_running(1));
        assert!(!is_running(0));
        // Registered as a leader, so the setup tests' orphan hunt leaves it alone.
        let mut child = tree::spawn_leader(|| tokio::process::Command::new("true").spawn())
            .expect("spawn true");
        let pid = child.id().expect("pid");
        let _ = child.wait().await;
        tree::unregister_leader(pid as i32);
        assert!(!is_running(pid));
    }

    #[test]
    fn exit_kinds_read_well() {
        assert_eq!(ExitKind::Code(3).describe(), "exit code 3");
        assert_eq!(ExitKind::Signal(11).describe(), "signal 11 (SIGSEGV)");
    }
}
