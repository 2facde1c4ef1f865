//! The processes a server left behind outside its process group (daemons that called
//! `setsid`), found through the process table so they can be killed and reaped too.

use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::table;

/// Leaders of the server groups this process is running, so orphans re-parented to us
/// can be told apart from them.
static LEADERS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn leaders() -> std::sync::MutexGuard<'static, BTreeSet<i32>> {
    // A panic elsewhere cannot leave the set half-updated: every change is one insert or remove.
    LEADERS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Spawns a leader and registers it in one step, under the lock `escaped_candidates` takes:
/// with several sessions at once, a child spawned but not yet registered would otherwise
/// look like an orphan to another session's clean-up, and be killed.
pub fn spawn_leader(
    spawn: impl FnOnce() -> std::io::Result<tokio::process::Child>,
) -> std::io::Result<tokio::process::Child> {
    let mut leaders = leaders();
    let child = spawn()?;
    if let Some(pid) = child.id() {
        leaders.insert(pid as i32);
    }
    Ok(child)
}

pub fn unregister_leader(pid: i32) {
    leaders().remove(&pid);
}

/// Every descendant of `leader`, plus orphans already re-parented to this process (a child
/// subreaper on Linux) that are not the leader of another running server, plus (portable
/// backend) the processes whose environment carries the server's `marker`, wherever they
/// were re-parented.
pub fn escaped_candidates(leader: i32, marker: Option<&str>) -> Vec<i32> {
    let me = std::process::id() as i32;
    // Held across the table read, so no leader can appear in the table unregistered.
    let leaders = leaders();
    let table = table::entries();
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for e in &table {
        children.entry(e.ppid).or_default().push(e.pid);
    }
    let mut found = Vec::new();
    let mut stack = vec![leader];
    // Only a subreaper gets orphans back; on the portable backend its children are its own.
    // An orphan that carries another session's marker is that session's to find.
    if super::backend::finds_every_leftover() {
        stack.extend(
            children
                .get(&me)
                .into_iter()
                .flatten()
                .filter(|p| !leaders.contains(p) && **p != leader)
                .filter(|p| marker_of(**p).is_none_or(|m| Some(m.as_str()) == marker)),
        );
    } else if let Some(marker) = marker {
        stack.extend(table::carrying(marker).into_iter().filter(|p| *p != leader));
    }
    while let Some(pid) = stack.pop() {
        // Never this process itself (a table that lists threads would name it a child).
        if pid != leader && pid != me && !found.contains(&pid) {
            found.push(pid);
        }
        if let Some(kids) = children.get(&pid) {
            stack.extend(kids.iter().filter(|k| !found.contains(k)));
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// A process that left the server's process group (it called `setsid` or `setpgid`) while
/// still holding one of the session's pipes, as found before it was killed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EscapedProcess {
    pub pid: i32,
    /// Its arguments from /proc/PID/cmdline, at most [`EscapedProcess::MAX_ARGS`] of them,
    /// each at most [`EscapedProcess::MAX_ARG_BYTES`]; not yet redacted or escaped.
    pub argv: Vec<String>,
    /// Which of the server's streams it held: "stdin", "stdout", "stderr".
    pub holds: Vec<&'static str>,
}

impl EscapedProcess {
    pub const MAX_ARGS: usize = 16;
    pub const MAX_ARG_BYTES: usize = 256;
    /// Escaped processes described per session; more are killed but not described.
    pub const MAX_DESCRIBED: usize = 8;
}

/// The pipe behind one of our file descriptors, as /proc names it ("pipe:[1234]"); `None`
/// on the portable backend, which cannot tell who holds a pipe.
pub fn pipe_name(fd: i32) -> Option<String> {
    #[cfg(subreaper)]
    if super::backend::finds_every_leftover() {
        let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
        let name = link.to_string_lossy().into_owned();
        return name.starts_with("pipe:").then_some(name);
    }
    let _ = fd;
    None
}

/// Of `pids`, those outside process group `pgid` that hold one of `pipes` (stream name and
/// pipe name): what a client that kills only the server's group would leave running.
pub fn escaped_holding(
    pids: &[i32],
    pgid: i32,
    pipes: &[(&'static str, String)],
) -> Vec<EscapedProcess> {
    let mut out = Vec::new();
    for &pid in pids {
        if out.len() == EscapedProcess::MAX_DESCRIBED {
            break;
        }
        if process_group(pid).is_none_or(|g| g == pgid) {
            continue;
        }
        let holds = held_pipes(pid, pipes);
        if holds.is_empty() {
            continue;
        }
        out.push(EscapedProcess {
            pid,
            argv: command_line(pid),
            holds,
        });
    }
    out
}

/// The pids of the live processes of group `pgid`.
pub fn group_pids(pgid: i32) -> Vec<i32> {
    table::entries()
        .into_iter()
        .filter(|e| e.live && e.pgid == Some(pgid))
        .map(|e| e.pid)
        .collect()
}

/// The pids of the live processes of group `pgid` and of every descendant of them (one
/// that left the group still works for it), from one read of the process table.
pub fn group_and_descendants(pgid: i32) -> Vec<i32> {
    let table: Vec<table::Entry> = table::entries().into_iter().filter(|e| e.live).collect();
    let mut found: Vec<i32> = table
        .iter()
        .filter(|e| e.pgid == Some(pgid))
        .map(|e| e.pid)
        .collect();
    let mut stack = found.clone();
    stack.push(pgid);
    while let Some(parent) = stack.pop() {
        for e in &table {
            if e.ppid == parent && !found.contains(&e.pid) {
                found.push(e.pid);
                stack.push(e.pid);
            }
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// The live processes of group `pgid`, described (`holds` stays empty).
pub fn group_members(pgid: i32) -> Vec<EscapedProcess> {
    describe_live(&group_pids(pgid))
}

/// Of `pids`, those still running (not zombies), sorted and described, at most
/// [`EscapedProcess::MAX_DESCRIBED`]; `holds` stays empty.
pub fn describe_live(pids: &[i32]) -> Vec<EscapedProcess> {
    let live: BTreeSet<i32> = table::entries()
        .into_iter()
        .filter(|e| e.live)
        .map(|e| e.pid)
        .collect();
    let mut pids: Vec<i32> = pids.iter().copied().filter(|p| live.contains(p)).collect();
    pids.sort_unstable();
    pids.dedup();
    pids.truncate(EscapedProcess::MAX_DESCRIBED);
    pids.into_iter()
        .map(|pid| EscapedProcess {
            pid,
            argv: command_line(pid),
            holds: Vec::new(),
        })
        .collect()
}

/// A process that detached from the server's group (a new session, no stream of the server)
/// and was still running after the server exited, as described before it was killed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeftProcess {
    pub pid: i32,
    /// As [`EscapedProcess::argv`]: bounded, not yet redacted or escaped.
    pub argv: Vec<String>,
    /// How long after the server's exit it was still seen running, in ms.
    pub outlived_ms: u64,
}

/// The session marker (`MCPCHECK_SERVER_RUN=...`, see `group::MARKER`) in a process's
/// environment, read from /proc; `None` when it has none or it cannot be read (and always on
/// the portable build, whose table finds marked processes itself).
pub fn marker_of(pid: i32) -> Option<String> {
    #[cfg(subreaper)]
    {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
        let prefix = format!("{}=", super::group::MARKER);
        environ
            .split(|b| *b == 0)
            .take(10_000)
            .find(|v| v.starts_with(prefix.as_bytes()) && v.len() < 256)
            .map(|v| String::from_utf8_lossy(v).into_owned())
    }
    #[cfg(not(subreaper))]
    {
        let _ = pid;
        None
    }
}

pub fn process_group(pid: i32) -> Option<i32> {
    nix::unistd::getpgid(Some(Pid::from_raw(pid)))
        .ok()
        .map(|g| g.as_raw())
}

#[cfg(not(subreaper))]
fn held_pipes(_pid: i32, _pipes: &[(&'static str, String)]) -> Vec<&'static str> {
    Vec::new()
}

#[cfg(subreaper)]
fn held_pipes(pid: i32, pipes: &[(&'static str, String)]) -> Vec<&'static str> {
    if pipes.is_empty() {
        return Vec::new();
    }
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    let mut holds: Vec<&'static str> = Vec::new();
    // Bounded: a process with a huge fd table is judged by its first descriptors.
    for entry in fds.flatten().take(4096) {
        let Ok(link) = std::fs::read_link(entry.path()) else {
            continue;
        };
        let link = link.to_string_lossy();
        for (stream, pipe) in pipes {
            if *pipe == link && !holds.contains(stream) {
                holds.push(stream);
            }
        }
    }
    holds.sort_by_key(|s| ["stdin", "stdout", "stderr"].iter().position(|x| x == s));
    holds
}

fn command_line(pid: i32) -> Vec<String> {
    table::command_line(pid, EscapedProcess::MAX_ARGS, EscapedProcess::MAX_ARG_BYTES)
}

/// Kills the given processes and reaps those that are (or become) our children.
pub async fn kill_and_reap(pids: &[i32]) {
    for &pid in pids {
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut pending: Vec<i32> = pids.to_vec();
    while !pending.is_empty() && Instant::now() < deadline {
        pending.retain(|&pid| {
            match waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => true,
                Ok(_) => false,
                // Not our child (yet): it goes away on its own once its parent reaps it.
                Err(_) => kill(Pid::from_raw(pid), None::<Signal>).is_ok(),
            }
        });
        if !pending.is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_leader_is_registered_by_the_time_its_spawn_returns() {
        let child = spawn_leader(|| {
            tokio::process::Command::new("sleep")
                .arg("30")
                .kill_on_drop(true)
                .spawn()
        })
        .expect("spawn sleep");
        let pid = child.id().expect("pid") as i32;
        // Another session's orphan hunt leaves a registered leader alone...
        assert!(!escaped_candidates(-1, None).contains(&pid));
        // ...and would kill the same child were it not registered: the race this closes
        // (a subreaper's; the portable backend takes no orphans of its own).
        unregister_leader(pid);
        assert_eq!(
            escaped_candidates(-1, None).contains(&pid),
            super::super::backend::finds_every_leftover()
        );
    }
}
