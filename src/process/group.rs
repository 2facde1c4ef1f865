//! A child process leading its own process group: spawn, wait, signal, stop, and kill and
//! reap everything it leaves behind. Shared by the guard's sessions and the proxy.

use super::{tree, ExitKind, ServerCommand, ShutdownPath, ShutdownReport, SpawnError};
use nix::errno::Errno;
use nix::sys::signal::{kill, killpg, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

pub struct GroupLeader {
    child: Child,
    pgid: Pid,
    exit: Option<ExitKind>,
    /// When the exit was seen: how long processes it left behind outlived it is counted from it.
    exited_at: Option<Instant>,
    /// Our ends of the server's stdin, stdout and stderr pipes, named as /proc names them,
    /// to find processes that left the group but kept a stream.
    pipes: Vec<(&'static str, String)>,
    /// `NAME=value` set in the server's environment on the portable backend, to find its
    /// descendants once they are re-parented away from it (see [`MARKER`]).
    marker: Option<String>,
}

/// The variable that marks a server's processes on the portable backend: its descendants
/// inherit it, so they are found in the process table after they left the group.
pub const MARKER: &str = "MCPCHECK_SERVER_RUN";

/// A marker no other server of this or another mcpcheck process carries.
fn new_marker() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{}-{n}", std::process::id())
}

impl GroupLeader {
    /// The leader's pid (the group's id too).
    pub fn pid(&self) -> u32 {
        self.pgid.as_raw().unsigned_abs()
    }

    /// Starts the command in a new process group with all three streams piped.
    pub fn spawn(
        cmd: &ServerCommand,
    ) -> Result<(Self, ChildStdin, ChildStdout, ChildStderr), SpawnError> {
        let mut command = Command::new(&cmd.program);
        if cmd.clear_env {
            command.env_clear();
        }
        for key in &cmd.unset_env {
            command.env_remove(key);
        }
        command
            .args(&cmd.args)
            .envs(cmd.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(dir) = &cmd.cwd {
            command.current_dir(dir);
        }
        // On both backends: the portable one finds the server's processes by it, and both
        // tell by it whose an orphan is when several sessions run in one process (a sweep).
        let marker = Some(new_marker());
        if let Some(value) = &marker {
            command.env(MARKER, value);
        }
        let mut child =
            tree::spawn_leader(|| command.spawn()).map_err(|e| spawn_error(&cmd.program, &e))?;
        let pid = child.id().ok_or_else(|| SpawnError {
            program: cmd.program.clone(),
            reason: "the process exited before its pid could be read".into(),
            hint: "run the command by hand to see why it stops at once",
            code: String::new(),
        })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(SpawnError {
                program: cmd.program.clone(),
                reason: "its standard streams could not be piped".into(),
                hint: "this is a bug in mcpcheck; please report it",
                code: String::new(),
            });
        };
        use std::os::fd::AsRawFd;
        let pipes = [
            ("stdin", stdin.as_raw_fd()),
            ("stdout", stdout.as_raw_fd()),
            ("stderr", stderr.as_raw_fd()),
        ]
        .into_iter()
        .filter_map(|(name, fd)| Some((name, tree::pipe_name(fd)?)))
        .collect();
        let leader = Self {
            child,
            pgid: Pid::from_raw(pid as i32),
            exit: None,
            exited_at: None,
            pipes,
            marker: marker.map(|value| format!("{MARKER}={value}")),
        };
        Ok((leader, stdin, stdout, stderr))
    }

    pub fn exit(&self) -> Option<ExitKind> {
        self.exit
    }

    /// Waits for the leader to exit. Cancel-safe.
    pub async fn wait_exit(&mut self) -> ExitKind {
        if let Some(exit) = self.exit {
            return exit;
        }
        let exit = match self.child.wait().await {
            Ok(status) => ExitKind::from_status(status),
            Err(_) => ExitKind::Code(-1),
        };
        self.exit = Some(exit);
        self.exited_at = Some(Instant::now());
        exit
    }

    /// The exit, if the leader has ended.
    pub fn poll_exit(&mut self) -> Option<ExitKind> {
        if self.exit.is_none() {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.exit = Some(ExitKind::from_status(status));
                self.exited_at = Some(Instant::now());
            }
        }
        self.exit
    }

    /// Sends a signal to the leader (the proxy forwards the client's signals this way).
    pub fn signal(&self, signal: Signal) {
        if self.exit.is_none() {
            let _ = kill(self.pgid, signal);
        }
    }

    /// The processes still running in the group (after the leader exited: what it left).
    pub fn group_members(&self) -> Vec<tree::EscapedProcess> {
        tree::group_members(self.pgid.as_raw())
    }

    /// Of `pids` (from [`GroupLeader::escaped_candidates`]), those still running, described.
    pub fn describe_live(pids: &[i32]) -> Vec<tree::EscapedProcess> {
        tree::describe_live(pids)
    }

    /// Descendants of the leader and orphans re-parented to us, to kill with the group.
    pub fn escaped_candidates(&self) -> Vec<i32> {
        tree::escaped_candidates(self.pgid.as_raw(), self.marker.as_deref())
    }

    /// After stdin was closed: wait, SIGTERM, wait, SIGKILL; then kill and reap whatever
    /// the group left behind.
    pub async fn stop(
        &mut self,
        escaped: Vec<i32>,
        already_exited: bool,
        grace: Duration,
        term_grace: Duration,
    ) -> ShutdownReport {
        // A server seen idle (every thread in a wait only an outside event or a known, later
        // deadline ends) and that nothing outside can wake (no network socket, no timer
        // signal or timerfd) cannot exit within the grace: escalate at once, with the outcome
        // the full wait would have had. Otherwise the grace is waited out.
        let path = if already_exited {
            ShutdownPath::AlreadyExited
        } else if self.wait_exit_unless_idle(grace).await {
            ShutdownPath::StdinClosed
        } else {
            let _ = killpg(self.pgid, Signal::SIGTERM);
            if self.wait_exit_unless_idle(term_grace).await {
                ShutdownPath::Terminated
            } else {
                let _ = killpg(self.pgid, Signal::SIGKILL);
                // SIGKILL cannot be ignored; the bound only guards against a kernel stall.
                self.wait_exit_within(Duration::from_secs(5)).await;
                ShutdownPath::Killed
            }
        };
        let (killed_leftover_group, escaped, left_running) = self.kill_group(escaped, true).await;
        ShutdownReport {
            path,
            exit: self.exit,
            killed_leftover_group,
            escaped,
            left_running,
            leftovers_checked: super::backend::finds_every_leftover(),
        }
    }

    /// Kills the group at once (a limit was hit); no grace.
    pub async fn kill_now(&mut self) -> ShutdownReport {
        let already = self.poll_exit().is_some();
        let escaped = self.escaped_candidates();
        let _ = killpg(self.pgid, Signal::SIGKILL);
        self.wait_exit_within(Duration::from_secs(5)).await;
        let (_, escaped, _) = self.kill_group(escaped, false).await;
        ShutdownReport {
            path: if already {
                ShutdownPath::AlreadyExited
            } else {
                ShutdownPath::Killed
            },
            exit: self.exit,
            killed_leftover_group: false,
            escaped,
            left_running: Vec::new(),
            leftovers_checked: super::backend::finds_every_leftover(),
        }
    }

    async fn wait_exit_within(&mut self, limit: Duration) -> bool {
        tokio::time::timeout(limit, self.wait_exit()).await.is_ok()
    }

    /// Waits up to `limit` for the leader to exit; false at once when the group is seen idle
    /// until then and nothing its waits do not show can wake it (`Watch::settled`): only
    /// then can it no longer exit in time, and the verdict no longer change.
    async fn wait_exit_unless_idle(&mut self, limit: Duration) -> bool {
        let end = Instant::now() + limit;
        let mut watch = super::idle::Watch::settled(self.pgid.as_raw());
        loop {
            let slice = (Instant::now() + super::idle::CONFIRM).min(end);
            if tokio::time::timeout_at(slice.into(), self.wait_exit())
                .await
                .is_ok()
            {
                return true;
            }
            if Instant::now() >= end || watch.idle_until(end) {
                return false;
            }
        }
    }

    /// A watch over the group, to see it idle.
    pub fn idle_watch(&self) -> super::idle::Watch {
        super::idle::Watch::group(self.pgid.as_raw())
    }

    /// Kills what is left of the group, and the descendants that left it (`escaped`, taken
    /// before the leader died, plus orphans re-parented to us since), and reaps them; returns
    /// whether anything was left, the processes outside the group that kept a stream, and
    /// (`detached`: after a shutdown, not a kill for a limit) those that detached without
    /// one and were still running [`LEFT_RUNNING_GRACE`] after the server exited.
    async fn kill_group(
        &mut self,
        mut escaped: Vec<i32>,
        detached: bool,
    ) -> (bool, Vec<tree::EscapedProcess>, Vec<tree::LeftProcess>) {
        tree::unregister_leader(self.pgid.as_raw());
        escaped.extend(self.escaped_candidates());
        escaped.sort_unstable();
        escaped.dedup();
        // Described before anything is killed, while /proc still shows them.
        let described = tree::escaped_holding(&escaped, self.pgid.as_raw(), &self.pipes);
        let left_running = if detached && self.exit.is_some() {
            let holding: Vec<i32> = described.iter().map(|p| p.pid).collect();
            // Another session's (a sweep runs several at once) is reported there.
            let candidates: Vec<i32> = escaped
                .iter()
                .copied()
                .filter(|p| !holding.contains(p))
                .filter(|p| tree::marker_of(*p).is_none_or(|m| Some(&m) == self.marker.as_ref()))
                .collect();
            self.detached_still_running(&candidates).await
        } else {
            Vec::new()
        };
        let alive = killpg(self.pgid, None::<Signal>).is_ok();
        if alive {
            let _ = killpg(self.pgid, Signal::SIGKILL);
        }
        let deadline = Instant::now() + Duration::from_secs(2);
        // The leader was reaped by `wait_exit`; waiting on the group now cannot steal its status.
        while Instant::now() < deadline {
            match waitpid(
                Pid::from_raw(-self.pgid.as_raw()),
                Some(WaitPidFlag::WNOHANG),
            ) {
                Ok(WaitStatus::StillAlive) => {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                Ok(_) => continue,
                Err(Errno::ECHILD) => {
                    // No child of ours left in the group; others belong to init.
                    if killpg(self.pgid, None::<Signal>).is_err() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                Err(_) => break,
            }
        }
        tree::kill_and_reap(&escaped).await;
        (alive || !escaped.is_empty(), described, left_running)
    }

    /// Of `pids`, the processes outside the server's group still running once the server has
    /// been gone for [`LEFT_RUNNING_GRACE`] (a helper finishing its work exits by then; a
    /// daemon does not), described with how long they outlived it.
    async fn detached_still_running(&self, pids: &[i32]) -> Vec<tree::LeftProcess> {
        let pgid = self.pgid.as_raw();
        let outside = |pids: &[i32]| -> Vec<i32> {
            tree::describe_live(pids)
                .into_iter()
                .map(|p| p.pid)
                .filter(|p| tree::process_group(*p).is_some_and(|g| g != pgid))
                .collect()
        };
        if outside(pids).is_empty() {
            return Vec::new();
        }
        let since = self.exited_at.unwrap_or_else(Instant::now);
        let until = since + LEFT_RUNNING_GRACE;
        while Instant::now() < until && !outside(pids).is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let outlived = since.elapsed();
        tree::describe_live(&outside(pids))
            .into_iter()
            .map(|p| tree::LeftProcess {
                pid: p.pid,
                argv: p.argv,
                outlived_ms: outlived.as_millis() as u64,
            })
            .collect()
    }
}

/// How long a process that detached from the server's group may outlive the server before
/// it counts as left running: enough for a helper to finish, never enough for a daemon.
pub const LEFT_RUNNING_GRACE: Duration = Duration::from_millis(500);

impl Drop for GroupLeader {
    fn drop(&mut self) {
        // Last line of defence (an early return, a panic): never leave the group running.
        if self.exit.is_none() || killpg(self.pgid, None::<Signal>).is_ok() {
            let _ = killpg(self.pgid, Signal::SIGKILL);
        }
    }
}

fn spawn_error(program: &str, e: &std::io::Error) -> SpawnError {
    let hint = match e.kind() {
        std::io::ErrorKind::NotFound => {
            "check that the command is installed and on PATH, or give its full path"
        }
        std::io::ErrorKind::PermissionDenied => {
            "check that the file is executable (chmod +x) and not a directory"
        }
        _ => "run the command by hand to see why it cannot start",
    };
    SpawnError {
        program: program.to_string(),
        reason: e.to_string(),
        hint,
        code: e
            .raw_os_error()
            .map(|n| format!("{:?}", nix::errno::Errno::from_raw(n)))
            .unwrap_or_default(),
    }
}
