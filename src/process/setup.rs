//! A setup command (install, build) run to its end before a server starts, shared by the
//! sweep and the Action: its own process group, a deadline, SIGTERM then SIGKILL to the
//! group, its output handed to the caller as it comes, and whatever it leaves running
//! named and killed.

use super::{EscapedProcess, ExitKind, GroupLeader, ServerCommand, SpawnError};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt};

/// How long a setup may run unless told otherwise.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(600);
/// Between SIGTERM and SIGKILL for a setup past its deadline.
pub const TERM_GRACE: Duration = Duration::from_secs(2);
/// How long the processes a setup started may take to end after it exits before they
/// count as left behind (a child finishing its last write is not a daemon).
const SETTLE: Duration = Duration::from_millis(250);

/// Where a setup's output goes, chunk by chunk, stdout and stderr alike.
pub type OutputSink = Arc<dyn Fn(&[u8]) + Send + Sync>;

/// How a setup ended.
#[derive(Debug, Clone)]
pub struct SetupRun {
    /// Its exit; `None` when the deadline passed and its group was stopped.
    pub exit: Option<ExitKind>,
    /// Processes it left running after it exited (a daemon, a watcher), in its group or
    /// gone from it (setsid) and re-parented to us (with several setups at once in one
    /// process, such an orphan is named by the first to finish); all were killed. Past the
    /// deadline, those outside the group that held its output.
    pub leftovers: Vec<EscapedProcess>,
    /// Whether `leftovers` is complete: false on the portable backend, where a daemon that
    /// left the group and was re-parented to init (launchd) can be missed.
    pub leftovers_checked: bool,
    pub duration: Duration,
}

impl SetupRun {
    pub fn timed_out(&self) -> bool {
        self.exit.is_none()
    }

    /// It exited with code 0 in time.
    pub fn succeeded(&self) -> bool {
        self.exit == Some(ExitKind::Code(0))
    }
}

/// Runs `command` with stdin closed until it exits or `deadline` passes; nothing it
/// started is left running when this returns.
pub async fn run(
    command: &ServerCommand,
    deadline: Duration,
    output: OutputSink,
) -> Result<SetupRun, SpawnError> {
    // Orphans it leaves (a double fork) re-parent to us, so they can be found and reaped.
    super::become_subreaper();
    let started = Instant::now();
    let (mut leader, stdin, stdout, stderr) = GroupLeader::spawn(command)?;
    drop(stdin);
    let out_task = tokio::spawn(drain(stdout, Arc::clone(&output)));
    let err_task = tokio::spawn(drain(stderr, output));
    let exit = tokio::time::timeout(deadline, leader.wait_exit())
        .await
        .ok();
    let leftovers = match exit {
        None => {
            let escaped = leader.escaped_candidates();
            leader
                .stop(escaped, false, Duration::ZERO, TERM_GRACE)
                .await
                .escaped
        }
        Some(_) => {
            let settle_until = Instant::now() + SETTLE;
            while !leader.group_members().is_empty() && Instant::now() < settle_until {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            // In its group, or gone from it (setsid) and re-parented to us.
            let mut left = leader.group_members();
            let escaped = leader.escaped_candidates();
            left.extend(GroupLeader::describe_live(&escaped));
            leader
                .stop(escaped, true, Duration::ZERO, Duration::ZERO)
                .await;
            left.sort_by_key(|p| p.pid);
            left.dedup_by_key(|p| p.pid);
            left
        }
    };
    // A leftover that kept a pipe open was just killed: the readers end now.
    for task in [out_task, err_task] {
        let abort = task.abort_handle();
        if tokio::time::timeout(Duration::from_millis(200), task)
            .await
            .is_err()
        {
            abort.abort();
        }
    }
    Ok(SetupRun {
        exit,
        leftovers,
        leftovers_checked: super::backend::finds_every_leftover(),
        duration: started.elapsed(),
    })
}

async fn drain(mut pipe: impl AsyncRead + Unpin, output: OutputSink) {
    let mut buf = vec![0u8; 8192];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => output(&buf[..n]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Orphans re-parented to this process count as any finishing setup's leftovers: the
    /// tests that leave some run one at a time.
    static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

    fn sh(script: &str) -> ServerCommand {
        ServerCommand {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            cwd: None,
            env: Vec::new(),
            clear_env: false,
            unset_env: Vec::new(),
        }
    }

    fn alive(pid: i32) -> bool {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
    }

    fn collect() -> (OutputSink, Arc<Mutex<Vec<u8>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        (
            Arc::new(move |b: &[u8]| sink.lock().expect("lock").extend_from_slice(b)),
            seen,
        )
    }

    #[tokio::test]
    async fn output_reaches_the_sink_and_a_clean_exit_leaves_nothing() {
        let _one = ONE_AT_A_TIME.lock().await;
        let (sink, seen) = collect();
        let run = run(&sh("echo out; echo err >&2"), Duration::from_secs(10), sink)
            .await
            .expect("spawn");
        assert!(run.succeeded());
        assert!(run.leftovers.is_empty(), "{:?}", run.leftovers);
        let text = String::from_utf8(seen.lock().expect("lock").clone()).expect("utf-8");
        assert!(text.contains("out\n") && text.contains("err\n"), "{text}");
    }

    #[tokio::test]
    async fn a_hanging_setup_is_stopped_at_its_deadline() {
        let _one = ONE_AT_A_TIME.lock().await;
        let dir = tempfile::tempdir().expect("tempdir");
        let pidfile = dir.path().join("pid");
        let script = format!("echo $$ > {}; exec sleep 600", pidfile.display());
        let (sink, _) = collect();
        let run = run(&sh(&script), Duration::from_millis(300), sink)
            .await
            .expect("spawn");
        assert!(run.timed_out());
        assert!(run.duration < Duration::from_secs(10), "{:?}", run.duration);
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .expect("pid file")
            .trim()
            .parse()
            .expect("pid");
        assert!(!alive(pid), "the hanging setup {pid} still runs");
    }

    #[tokio::test]
    async fn a_daemon_left_behind_is_named_and_killed() {
        let _one = ONE_AT_A_TIME.lock().await;
        let dir = tempfile::tempdir().expect("tempdir");
        let pidfile = dir.path().join("pid");
        let script = format!("sleep 600 & echo $! > {}", pidfile.display());
        let (sink, _) = collect();
        let run = run(&sh(&script), Duration::from_secs(10), sink)
            .await
            .expect("spawn");
        assert!(run.succeeded());
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .expect("pid file")
            .trim()
            .parse()
            .expect("pid");
        assert_eq!(
            run.leftovers
                .iter()
                .map(|p| (p.pid, p.argv.clone()))
                .collect::<Vec<_>>(),
            [(pid, vec!["sleep".to_string(), "600".to_string()])]
        );
        assert!(!alive(pid), "the daemon {pid} still runs");
    }

    #[tokio::test]
    async fn a_daemon_that_left_the_group_is_named_and_killed_too() {
        let _one = ONE_AT_A_TIME.lock().await;
        let dir = tempfile::tempdir().expect("tempdir");
        let pidfile = dir.path().join("pid");
        let script = format!(
            // Python's setsid, not util-linux's `setsid` command (absent on macOS).
            "python3 -c 'import os, time; os.setsid(); time.sleep(600)' </dev/null >/dev/null 2>&1 & echo $! > {}",
            pidfile.display()
        );
        let (sink, _) = collect();
        let run = run(&sh(&script), Duration::from_secs(10), sink)
            .await
            .expect("spawn");
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .expect("pid file")
            .trim()
            .parse()
            .expect("pid");
        assert!(
            run.leftovers.iter().any(|p| p.pid == pid),
            "{pid} not in {:?}",
            run.leftovers
        );
        assert!(!alive(pid), "the daemon {pid} still runs");
    }
}
