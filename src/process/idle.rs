//! Whether a server's processes are idle: every thread blocked in a system call that only an
//! outside event ends (a read, a wait with no timeout), or one whose deadline is known and
//! lies past a given moment. Such a server writes nothing and exits on its own in the
//! meantime unless something reaches it from outside, so a wait for late output or for its
//! exit can end early with the same outcome.
//!
//! Read from /proc (Linux): each thread's current system call and arguments
//! (`/proc/PID/task/TID/syscall`), its context switches, and, for a wait on an absolute
//! deadline (Python's `time.sleep`, a timed lock), the deadline in the process's memory. When
//! any of it cannot be read (no permission), or on the portable backend (any other OS, or
//! `MCPCHECK_PROCESS_BACKEND=portable`), nothing is idle: the callers wait their full time.

use std::time::{Duration, Instant};

/// What one look at the processes saw.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Per thread: its id, the system-call line and its context switches. Two equal
    /// snapshots mean no thread ran in between.
    tasks: Vec<(i32, String, u64)>,
    /// The earliest moment a thread's wait ends; `None` when none ends by itself.
    wake: Option<Instant>,
}

/// How long apart two looks must be to say the processes stayed idle.
pub const CONFIRM: Duration = Duration::from_millis(15);

impl Snapshot {
    /// Without /proc (the portable build) nothing is ever seen idle.
    #[cfg(not(subreaper))]
    pub fn take(_pids: &[i32]) -> Option<Snapshot> {
        None
    }

    /// Looks at every thread of `pids`; `None` when one is running, in a wait whose end is
    /// not known, or cannot be read.
    #[cfg(subreaper)]
    pub fn take(pids: &[i32]) -> Option<Snapshot> {
        let mut tasks = Vec::new();
        let mut wake: Option<Instant> = None;
        for &pid in pids {
            let dir = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
            for entry in dir {
                let tid: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
                let base = format!("/proc/{pid}/task/{tid}");
                // Asleep and interruptible: not running, not in disk I/O (a read of a file
                // blocked on the disk is in state D, and ends by itself).
                if !sleeping(&base)? {
                    return None;
                }
                let line = std::fs::read_to_string(format!("{base}/syscall")).ok()?;
                let line = line.trim().to_string();
                match blocked(pid, &line, || last_ran(&base))? {
                    Blocked::Indefinitely => {}
                    Blocked::Until(at) => wake = Some(wake.map_or(at, |w| w.min(at))),
                }
                tasks.push((tid, line, switches(&base)?));
            }
        }
        tasks.sort();
        Some(Snapshot { tasks, wake })
    }

    /// Idle until `until`: the same threads in the same waits as `earlier` (none ran in
    /// between), and none whose wait ends before `until`.
    pub fn idle_since(&self, earlier: &Snapshot, until: Instant) -> bool {
        self.tasks == earlier.tasks && self.wake.is_none_or(|w| w >= until)
    }
}

/// Watches a set of processes across waits: idle once two looks [`CONFIRM`] apart saw the
/// same waits and none ends before the moment asked about.
#[derive(Debug, Default)]
pub struct Watch {
    /// The process group watched: its members are read again at every look, so a process
    /// started since (a shell's subshell, a launcher's child) is watched too.
    pgid: Option<i32>,
    last: Option<(Instant, Snapshot)>,
    /// Idle counts only when nothing outside the waits can end one either (see
    /// [`Watch::settled`]).
    settled: bool,
}

impl Watch {
    /// On the portable backend nothing is ever seen idle: the callers wait their full time.
    pub fn group(pgid: i32) -> Self {
        Self {
            pgid: super::backend::finds_every_leftover().then_some(pgid),
            last: None,
            settled: false,
        }
    }

    /// For a wait whose outcome is a verdict (the shutdown's): idle counts only when no
    /// process can be woken by what its waits do not show. A network socket (an update
    /// check's answer), a timer signal (a SIGALRM handler, a POSIX timer) or a timerfd may
    /// end a wait that looks endless, and the server then exits within the grace: ending the
    /// wait early would flip the verdict from run to run. When that cannot be ruled out, the
    /// wait runs its full time.
    pub fn settled(pgid: i32) -> Self {
        Self {
            settled: true,
            ..Self::group(pgid)
        }
    }

    /// Something happened (output came): what was seen before no longer counts.
    pub fn reset(&mut self) {
        self.last = None;
    }

    /// Whether the processes are idle until `until`, judged from this look and the last.
    pub fn idle_until(&mut self, until: Instant) -> bool {
        let Some(pgid) = self.pgid else {
            return false;
        };
        let pids = super::tree::group_and_descendants(pgid);
        if pids.is_empty() {
            return false;
        }
        let Some(now) = Snapshot::take(&pids) else {
            self.last = None;
            return false;
        };
        match &self.last {
            Some((at, before)) if before.tasks == now.tasks => {
                at.elapsed() >= CONFIRM
                    && now.idle_since(before, until)
                    && !(self.settled && may_be_woken(&pids))
            }
            _ => {
                self.last = Some((Instant::now(), now));
                false
            }
        }
    }
}

/// Without /proc nothing is seen idle at all, so nothing is asked.
#[cfg(not(subreaper))]
fn may_be_woken(_pids: &[i32]) -> bool {
    true
}

/// Whether something the threads' waits do not show may still wake one of `pids`: a timer
/// signal it handles (SIGALRM, SIGVTALRM, SIGPROF: an `alarm` or `setitimer` is not in
/// /proc), a POSIX timer, a timerfd, or a TCP or UDP socket (an answer from the network).
/// True when it cannot be read: then nothing is ruled out.
#[cfg(subreaper)]
fn may_be_woken(pids: &[i32]) -> bool {
    pids.iter().any(|&pid| {
        handles_timer_signals(pid).unwrap_or(true)
            || std::fs::read_to_string(format!("/proc/{pid}/timers"))
                .map(|t| !t.trim().is_empty())
                .unwrap_or(false)
            || outside_descriptors(pid).unwrap_or(true)
    })
}

/// SIGALRM (14), SIGVTALRM (26) or SIGPROF (27) caught: `SigCgt` in /proc/PID/status.
#[cfg(subreaper)]
fn handles_timer_signals(pid: i32) -> Option<bool> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let mask = status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())?;
    Some([14u32, 26, 27].iter().any(|n| mask & (1 << (n - 1)) != 0))
}

/// A timerfd, or a socket that is TCP or UDP, among the process's descriptors.
#[cfg(subreaper)]
fn outside_descriptors(pid: i32) -> Option<bool> {
    let mut sockets: Vec<String> = Vec::new();
    // Bounded: a process with a huge fd table is judged by its first descriptors.
    for entry in std::fs::read_dir(format!("/proc/{pid}/fd"))
        .ok()?
        .take(4096)
    {
        let link = std::fs::read_link(entry.ok()?.path()).ok()?;
        let link = link.to_string_lossy();
        if link == "anon_inode:[timerfd]" {
            return Some(true);
        }
        if let Some(inode) = link
            .strip_prefix("socket:[")
            .and_then(|l| l.strip_suffix(']'))
        {
            sockets.push(inode.to_string());
        }
    }
    if sockets.is_empty() {
        return Some(false);
    }
    for table in ["tcp", "tcp6", "udp", "udp6"] {
        // Absent when the kernel has no IPv6: that table holds nothing then.
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")) else {
            continue;
        };
        let inet = text.lines().skip(1).take(100_000).any(|line| {
            line.split_whitespace()
                .nth(9)
                .is_some_and(|inode| sockets.iter().any(|s| s == inode))
        });
        if inet {
            return Some(true);
        }
    }
    Some(false)
}

/// Whether a thread is in interruptible sleep (`S` in its stat).
#[cfg(subreaper)]
fn sleeping(task: &str) -> Option<bool> {
    let stat = std::fs::read_to_string(format!("{task}/stat")).ok()?;
    let state = stat.rsplit_once(')')?.1.split_whitespace().next()?;
    Some(state == "S")
}

/// Voluntary and involuntary context switches of one thread.
#[cfg(subreaper)]
fn switches(task: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("{task}/status")).ok()?;
    let mut total = 0;
    let mut seen = 0;
    for line in status.lines() {
        if let Some(n) = line
            .strip_prefix("voluntary_ctxt_switches:")
            .or_else(|| line.strip_prefix("nonvoluntary_ctxt_switches:"))
        {
            total += n.trim().parse::<u64>().ok()?;
            seen += 1;
        }
    }
    (seen == 2).then_some(total)
}

#[cfg(subreaper)]
enum Blocked {
    Indefinitely,
    Until(Instant),
}

/// The system calls this module understands, by what their arguments say of a timeout.
#[derive(Clone, Copy)]
#[cfg(subreaper)]
enum Call {
    /// Blocks until an outside event (data, a child, a signal).
    Waits,
    /// `epoll_wait`/`epoll_pwait`/`poll`: the timeout in ms is argument `n`; -1 waits forever.
    MillisArg(usize),
    /// `epoll_pwait2`/`ppoll`/`pselect6`: a relative `timespec` pointer at argument `n`;
    /// null waits forever.
    TimespecArg(usize),
    /// `select`: a relative `timeval` pointer at argument `n`; null waits forever.
    TimevalArg(usize),
    Futex,
    ClockNanosleep,
    /// `nanosleep`: a relative `timespec` at argument 0.
    Nanosleep,
}

#[cfg(all(subreaper, target_arch = "x86_64"))]
fn call(nr: u64) -> Option<Call> {
    Some(match nr {
        0 | 17 | 19 | 34 | 43 | 45 | 47 | 61 | 130 | 247 | 288 => Call::Waits,
        232 | 281 => Call::MillisArg(3),
        7 => Call::MillisArg(2),
        441 => Call::TimespecArg(3),
        271 => Call::TimespecArg(2),
        270 => Call::TimespecArg(4),
        23 => Call::TimevalArg(4),
        202 => Call::Futex,
        230 => Call::ClockNanosleep,
        35 => Call::Nanosleep,
        _ => return None,
    })
}

#[cfg(all(subreaper, target_arch = "aarch64"))]
fn call(nr: u64) -> Option<Call> {
    Some(match nr {
        63 | 65 | 67 | 95 | 133 | 202 | 207 | 212 | 242 | 260 => Call::Waits,
        22 => Call::MillisArg(3),
        441 => Call::TimespecArg(3),
        73 => Call::TimespecArg(2),
        72 => Call::TimespecArg(4),
        98 => Call::Futex,
        115 => Call::ClockNanosleep,
        101 => Call::Nanosleep,
        _ => return None,
    })
}

#[cfg(all(subreaper, not(any(target_arch = "x86_64", target_arch = "aarch64"))))]
fn call(_nr: u64) -> Option<Call> {
    None
}

#[cfg(subreaper)]
const FUTEX_WAIT: u64 = 0;
#[cfg(subreaper)]
const FUTEX_WAIT_BITSET: u64 = 9;
#[cfg(subreaper)]
const FUTEX_CMD_MASK: u64 = 0x7f;
#[cfg(subreaper)]
const FUTEX_CLOCK_REALTIME: u64 = 256;
#[cfg(subreaper)]
const TIMER_ABSTIME: u64 = 1;
#[cfg(subreaper)]
const CLOCK_REALTIME: u64 = 0;
#[cfg(subreaper)]
const CLOCK_MONOTONIC: u64 = 1;

/// How the thread whose syscall line is `line` waits; `None` when it runs or its wait may
/// end at a moment that cannot be known. A relative timeout ends no sooner than its length
/// after the thread last started running (`ran`, from the scheduler), when it entered the
/// wait.
#[cfg(subreaper)]
fn blocked(pid: i32, line: &str, ran: impl Fn() -> Option<Instant>) -> Option<Blocked> {
    let mut words = line.split_whitespace();
    let nr: u64 = words.next()?.parse().ok()?;
    let args: Vec<u64> = words
        .take(6)
        .map(|w| u64::from_str_radix(w.trim_start_matches("0x"), 16).ok())
        .collect::<Option<_>>()?;
    if args.len() < 6 {
        return None;
    }
    let after = |length: Duration| ran().map(|at| Blocked::Until(at + length));
    let relative = |address: u64, micros: bool| {
        if address == 0 {
            return Some(Blocked::Indefinitely);
        }
        after(read_time(pid, address, micros)?)
    };
    match call(nr)? {
        Call::Waits => Some(Blocked::Indefinitely),
        Call::MillisArg(n) => match args[n] as u32 as i32 {
            -1 => Some(Blocked::Indefinitely),
            ms if ms > 0 => after(Duration::from_millis(ms as u64)),
            _ => None,
        },
        Call::TimespecArg(n) => relative(args[n], false),
        Call::TimevalArg(n) => relative(args[n], true),
        Call::Nanosleep => relative(args[0], false),
        Call::Futex => {
            let (op, timeout) = (args[1] & FUTEX_CMD_MASK, args[3]);
            match op {
                FUTEX_WAIT => relative(timeout, false),
                FUTEX_WAIT_BITSET if timeout == 0 => Some(Blocked::Indefinitely),
                FUTEX_WAIT_BITSET => {
                    let clock = if args[1] & FUTEX_CLOCK_REALTIME != 0 {
                        CLOCK_REALTIME
                    } else {
                        CLOCK_MONOTONIC
                    };
                    deadline(pid, clock, timeout).map(Blocked::Until)
                }
                _ => None,
            }
        }
        Call::ClockNanosleep if args[1] & TIMER_ABSTIME == 0 => relative(args[2], false),
        Call::ClockNanosleep => deadline(pid, args[0], args[2]).map(Blocked::Until),
    }
}

/// A relative `timespec` (or `timeval`) at `address` in process `pid`.
#[cfg(subreaper)]
fn read_time(pid: i32, address: u64, micros: bool) -> Option<Duration> {
    let (secs, frac) = read_pair(pid, address)?;
    let secs = u64::try_from(secs).ok()?;
    let frac = u64::try_from(frac).ok()?;
    Some(
        Duration::from_secs(secs)
            + if micros {
                Duration::from_micros(frac)
            } else {
                Duration::from_nanos(frac)
            },
    )
}

/// Two native 64-bit integers at `address` in process `pid`'s memory.
#[cfg(subreaper)]
fn read_pair(pid: i32, address: u64) -> Option<(i64, i64)> {
    use std::os::unix::fs::FileExt;
    let mut raw = [0u8; 16];
    let mem = std::fs::File::open(format!("/proc/{pid}/mem")).ok()?;
    mem.read_exact_at(&mut raw, address).ok()?;
    Some((
        i64::from_ne_bytes(raw[..8].try_into().ok()?),
        i64::from_ne_bytes(raw[8..].try_into().ok()?),
    ))
}

/// When the scheduler last started running thread `task` (its `se.exec_start`), as an
/// Instant: measured against this thread's own, which is a moment ago. A few milliseconds
/// early, never late.
#[cfg(subreaper)]
fn last_ran(task: &str) -> Option<Instant> {
    let theirs = exec_start(&format!("{task}/sched"))?;
    let ours = exec_start("/proc/thread-self/sched")?;
    let ago = Duration::from_secs_f64(((ours - theirs).max(0.0) + SCHED_MARGIN_MS) / 1000.0);
    Instant::now().checked_sub(ago)
}

/// How much earlier than the scheduler says a thread may have started running, in ms: our
/// own `exec_start` lags the present by at most our current slice.
#[cfg(subreaper)]
const SCHED_MARGIN_MS: f64 = 5.0;

/// `se.exec_start` of a `sched` file, in milliseconds.
#[cfg(subreaper)]
fn exec_start(path: &str) -> Option<f64> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("se.exec_start"))?
        .trim_start_matches([' ', ':'])
        .trim()
        .parse()
        .ok()
}

/// The absolute `timespec` at `address` in process `pid`, on `clock`, as an Instant.
#[cfg(subreaper)]
fn deadline(pid: i32, clock: u64, address: u64) -> Option<Instant> {
    use nix::time::{clock_gettime, ClockId};
    let id = match clock {
        CLOCK_REALTIME => ClockId::CLOCK_REALTIME,
        CLOCK_MONOTONIC => ClockId::CLOCK_MONOTONIC,
        _ => return None,
    };
    let (secs, nanos) = read_pair(pid, address)?;
    let at = i128::from(secs) * 1_000_000_000 + i128::from(nanos);
    let now = clock_gettime(id).ok()?;
    let now = i128::from(now.tv_sec()) * 1_000_000_000 + i128::from(now.tv_nsec());
    let ahead = u64::try_from((at - now).max(0)).ok()?;
    Instant::now().checked_add(Duration::from_nanos(ahead))
}

#[cfg(all(test, subreaper))]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    fn settled(pid: i32, until: Duration) -> bool {
        for _ in 0..100 {
            if let Some(first) = Snapshot::take(&[pid]) {
                std::thread::sleep(CONFIRM);
                if let Some(second) = Snapshot::take(&[pid]) {
                    if second.idle_since(&first, Instant::now() + until) {
                        return true;
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    /// The interpreter itself, not a version manager's shim (a shell that waits for it).
    fn interpreter() -> String {
        let out = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3");
        String::from_utf8(out.stdout)
            .expect("utf8")
            .trim()
            .to_string()
    }

    /// A Python child, registered as a leader so that other tests' leftover checks, which
    /// look at this process's children, do not count it.
    fn python(code: &str) -> tokio::process::Child {
        let mut cmd = tokio::process::Command::new(interpreter());
        cmd.args(["-c", code])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .kill_on_drop(true);
        crate::process::tree::spawn_leader(|| cmd.spawn()).expect("python3")
    }

    fn pid(child: &tokio::process::Child) -> i32 {
        child.id().expect("pid") as i32
    }

    async fn end(mut child: tokio::process::Child) {
        let pid = pid(&child);
        let _ = child.kill().await;
        crate::process::tree::unregister_leader(pid);
    }

    #[tokio::test]
    async fn a_process_blocked_reading_stdin_is_idle() {
        let child = python("import sys; sys.stdin.read()");
        assert!(settled(pid(&child), Duration::from_secs(3600)));
        end(child).await;
    }

    #[tokio::test]
    async fn a_sleep_is_idle_until_its_deadline_only() {
        let child = python("import time; time.sleep(30)");
        assert!(settled(pid(&child), Duration::from_secs(5)));
        assert!(!settled(pid(&child), Duration::from_secs(60)));
        end(child).await;
    }

    #[tokio::test]
    async fn a_busy_process_is_not_idle() {
        let child = python("while True: pass");
        std::thread::sleep(Duration::from_millis(100));
        let first = Snapshot::take(&[pid(&child)]);
        std::thread::sleep(CONFIRM);
        let second = Snapshot::take(&[pid(&child)]);
        assert!(first.is_none() || second.is_none());
        end(child).await;
    }
}
