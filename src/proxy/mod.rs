//! `mcpcheck proxy`: sits between a real client and a stdio server for a whole session,
//! forwarding every byte unchanged and checking a copy of the traffic as it happens.

mod log;
pub mod log_record;
mod observer;
mod tap;

use crate::catalog::Code;
use crate::finding::Finding;
use crate::process::{ExitKind, GroupLeader, ServerCommand};
pub use log::{prepare_log_file, LogFileError};
use log::{Outlet, RecordLog};
use nix::sys::signal::Signal;
use observer::Observer;
pub use observer::{Direction, RecordKind};
use std::io::Read;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tap::{Drain, Event, Side, Tap};
use tokio::signal::unix::{signal, SignalKind};

pub struct ProxyOptions {
    pub command: ServerCommand,
    pub name: Option<String>,
    pub log: Option<PathBuf>,
    pub timeout: Duration,
    pub shutdown_grace: Duration,
    /// Bytes of traffic that may wait for the checks before more is forwarded unchecked.
    pub check_backlog: usize,
}

/// What the session produced, for the renderers.
pub struct ProxyOutcome {
    pub exit_code: i32,
    pub findings: Vec<Finding>,
    pub summary: SessionCounts,
}

/// What the proxy counted in one session (zero where it saw nothing).
#[derive(Debug, Clone, Default)]
pub struct SessionCounts {
    pub messages: u64,
    pub invalid: u64,
    /// Messages per method name (bounded).
    pub per_method: std::collections::BTreeMap<String, u64>,
    pub latency: Latency,
    /// Requests of the client still unanswered at the end.
    pub unanswered: usize,
    /// Requests not tracked because too many were already pending.
    pub untracked_requests: u64,
    /// Bytes forwarded unchecked because the checks fell behind.
    pub unobserved_bytes: u64,
    pub stderr_lines_dropped: u64,
    pub log_records_dropped: u64,
    pub exit_code: i32,
    /// The server's name (`--name`), bounded.
    pub name: Option<String>,
}

/// Answer latencies in milliseconds: percentiles (none without samples) and the count.
#[derive(Debug, Clone, Default)]
pub struct Latency {
    pub p50: Option<f64>,
    pub p90: Option<f64>,
    pub p99: Option<f64>,
    pub max: Option<f64>,
    pub samples: usize,
}

/// Where the observer's output goes: never stdout, which belongs to the client.
struct Outlets {
    /// Findings as they happen, and a compact line per message when there is no log.
    err: Outlet<Vec<String>>,
    log: Option<RecordLog>,
}

/// The observer thread: drains the tap in order, checks every message, and hands the
/// records and findings to the outlets. Returns the observer at `End`.
fn observe(mut observer: Observer, drain: Drain, out: &Outlets) -> Observer {
    let mut compact = log::CompactLines::default();
    while let Some(event) = drain.next() {
        match event {
            Event::Chunk {
                dir,
                at,
                gap,
                bytes,
            } => {
                if let Some(gap) = gap {
                    emit(&out.err, &observer.missed(dir, gap));
                }
                let (records, findings) = observer.feed_chunk(dir, at, bytes);
                if !records.is_empty() {
                    match &out.log {
                        Some(log) => log.send(records),
                        None => {
                            let lines = compact.lines(&records);
                            if !lines.is_empty() {
                                out.err.send(lines);
                            }
                        }
                    }
                }
                emit(&out.err, &findings);
            }
            Event::Tick(now) => emit(&out.err, &observer.check_timeouts(now)),
            Event::End => break,
        }
    }
    let held_back = compact.finish();
    if !held_back.is_empty() {
        out.err.send(held_back);
    }
    observer
}

fn emit(err: &Outlet<Vec<String>>, findings: &[Finding]) {
    if findings.is_empty() {
        return;
    }
    let lines = findings.iter().map(|f| {
        format!(
            "mcpcheck: {}[{}] {}",
            f.severity.as_str(),
            f.code,
            f.message
        )
    });
    err.send(lines.collect());
}

/// Runs the proxied session to its end and returns the exit code to pass on.
pub async fn run(opts: ProxyOptions) -> ProxyOutcome {
    crate::process::become_subreaper();
    let (mut leader, server_in, server_out, server_err) = match GroupLeader::spawn(&opts.command) {
        Ok(parts) => parts,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "mcpcheck: {e}; {}", e.hint);
            return ProxyOutcome {
                exit_code: 127,
                findings: vec![Finding::new(Code::SpawnFailed, e.to_string()).fix(e.hint)],
                summary: SessionCounts {
                    exit_code: 127,
                    name: opts
                        .name
                        .as_deref()
                        .map(|n| crate::finding::excerpt(n, 128)),
                    ..SessionCounts::default()
                },
            };
        }
    };
    let mut observer = Observer::new(opts.timeout);
    if let Some(name) = &opts.name {
        observer.set_server_name(name);
    }
    let (tap, drain) = tap::tap(opts.check_backlog);
    let outlets = Outlets {
        err: Outlet::stderr(),
        log: opts.log.clone().map(RecordLog::open),
    };
    let observing = std::thread::spawn(move || {
        let observer = observe(observer, drain, &outlets);
        (observer, outlets)
    });
    let session = Observing { tap, observing };

    // Forwarding runs on plain threads with blocking I/O: no async hop between a read and
    // its write, so the proxy adds as little latency as a pipe can.
    let files = (
        server_in.into_owned_fd().map(std::fs::File::from),
        server_out.into_owned_fd().map(std::fs::File::from),
        server_err.into_owned_fd().map(std::fs::File::from),
    );
    let (Ok(server_in), Ok(server_out), Ok(server_err)) = files else {
        let _ = writeln!(
            std::io::stderr(),
            "mcpcheck: cannot take over the server's pipes"
        );
        return finish(leader, session, opts, None).await;
    };
    let (client_closed_tx, mut client_closed) = tokio::sync::oneshot::channel::<()>();
    let (server_done_tx, server_done) = tokio::sync::oneshot::channel::<()>();
    let c2s = session.tap.side(Direction::ClientToServer);
    std::thread::spawn(move || {
        pump(std::io::stdin(), server_in, Some(c2s));
        let _ = client_closed_tx.send(());
    });
    let s2c = session.tap.side(Direction::ServerToClient);
    std::thread::spawn(move || {
        pump(server_out, std::io::stdout(), Some(s2c));
        // The server's stdout ended: so does the client's, as it would without the proxy.
        end_stdout();
        let _ = server_done_tx.send(());
    });
    std::thread::spawn(move || {
        pump(server_err, std::io::stderr(), None);
    });
    let timer_tap = session.tap.clone();
    let timer = tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        loop {
            tick.tick().await;
            timer_tap.tick();
        }
    });

    let (Ok(mut sigint), Ok(mut sigterm), Ok(mut sighup)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        timer.abort();
        return finish(leader, session, opts, Some(server_done)).await;
    };
    loop {
        tokio::select! {
            _ = leader.wait_exit() => break,
            _ = sigint.recv() => leader.signal(Signal::SIGINT),
            _ = sigterm.recv() => leader.signal(Signal::SIGTERM),
            _ = sighup.recv() => leader.signal(Signal::SIGHUP),
            _ = &mut client_closed => {
                // The client closed our stdin, and so the server's: shut down as the spec says.
                let escaped = leader.escaped_candidates();
                leader.stop(escaped, false, opts.shutdown_grace, opts.shutdown_grace).await;
                break;
            }
        }
    }
    timer.abort();
    finish(leader, session, opts, Some(server_done)).await
}

/// The tap and the thread observing through it.
struct Observing {
    tap: Tap,
    observing: std::thread::JoinHandle<(Observer, Outlets)>,
}

async fn finish(
    mut leader: GroupLeader,
    session: Observing,
    opts: ProxyOptions,
    server_done: Option<tokio::sync::oneshot::Receiver<()>>,
) -> ProxyOutcome {
    let exit = leader.wait_exit().await;
    // Whatever the server wrote before exiting still reaches the client, unless a leftover
    // child holds the pipe open; then it is cut after a moment.
    if let Some(done) = server_done {
        let _ = tokio::time::timeout(Duration::from_millis(500), done).await;
    }
    let escaped = leader.escaped_candidates();
    leader
        .stop(escaped, true, Duration::ZERO, Duration::ZERO)
        .await;
    // Everything forwarded so far is observed before the verdict.
    session.tap.end();
    let joined = tokio::task::spawn_blocking(move || session.observing.join()).await;
    let (findings, mut summary, dropped) = match joined {
        Ok(Ok((mut o, outlets))) => {
            let tail = o.finish();
            emit(&outlets.err, &tail);
            let mut findings = o.findings().to_vec();
            crate::finding::sort(&mut findings);
            let wait = Duration::from_secs(1);
            let dropped = outlets.log.map_or(0, |log| log.close(wait));
            let mut summary = o.counts();
            summary.stderr_lines_dropped = outlets.err.close(wait);
            (findings, summary, dropped)
        }
        _ => (Vec::new(), SessionCounts::default(), 0),
    };
    let exit_code = match exit {
        ExitKind::Code(c) => c,
        ExitKind::Signal(s) => 128 + s,
    };
    summary.log_records_dropped = dropped;
    summary.exit_code = exit_code;
    summary.name = opts
        .name
        .as_deref()
        .map(|n| crate::finding::excerpt(n, 128));
    ProxyOutcome {
        exit_code,
        findings,
        summary,
    }
}

/// Closes the proxy's stdout (the client's end of the server's stdout) so the client reads
/// end of file; fd 1 stays open on /dev/null, so nothing can reuse it.
fn end_stdout() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = nix::unistd::dup2_stdout(&null);
    }
}

/// Copies one stream to another unchanged, chunk by chunk, flushing each; hands a copy to
/// the observer. Returns at end of input; a closed output keeps the input drained and
/// observed.
fn pump(mut from: impl Read, mut to: impl Write, mut tap: Option<Side>) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut writable = true;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let at = Instant::now();
        // Handed over before it is written: a request is queued before the server can see
        // it, so its answer, read later on the other thread, is queued after it.
        if let Some(side) = tap.as_mut() {
            side.offer(at, &buf[..n]);
        }
        if writable {
            writable = to.write_all(&buf[..n]).and_then(|()| to.flush()).is_ok();
        }
    }
    let _ = to.flush();
    if let Some(side) = tap {
        side.close();
    }
}
