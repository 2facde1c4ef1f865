//! `mcpcheck proxy`: sits between a real client and a stdio server for a whole session,
//! forwarding every byte unchanged and checking a copy of the traffic as it happens.

mod log;
mod observer;

use crate::catalog::Code;
use crate::finding::Finding;
use crate::process::{ExitKind, GroupLeader, ServerCommand};
use log::RecordLog;
use nix::sys::signal::Signal;
use observer::{Direction, Observer};
use serde_json::json;
use std::io::Read;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::signal::unix::{signal, SignalKind};

pub struct ProxyOptions {
    pub command: ServerCommand,
    pub name: Option<String>,
    pub log: Option<PathBuf>,
    pub report: Option<PathBuf>,
    pub timeout: Duration,
    pub shutdown_grace: Duration,
}

/// What the session produced, for the renderers.
pub struct ProxyOutcome {
    pub exit_code: i32,
    pub findings: Vec<Finding>,
    pub summary: serde_json::Value,
}

/// Shared between the two forwarding directions and the timer.
struct Shared {
    observer: Mutex<Observer>,
    log: Option<RecordLog>,
}

impl Shared {
    /// Observes forwarded bytes: records to the log (or one compact stderr line each),
    /// findings to stderr as they happen. Never to stdout: that belongs to the client.
    fn observe(&self, dir: Direction, bytes: &[u8]) {
        let Ok(mut observer) = self.observer.lock() else {
            return;
        };
        let (records, findings) = observer.feed(dir, bytes);
        drop(observer);
        let mut err = std::io::stderr().lock();
        for r in records {
            match &self.log {
                Some(log) => log.record(r.value),
                None => {
                    let _ = writeln!(err, "{}", r.compact());
                }
            }
        }
        emit(&mut err, &findings);
    }
}

fn emit(err: &mut impl std::io::Write, findings: &[Finding]) {
    for f in findings {
        let _ = writeln!(
            err,
            "mcpcheck: {}[{}] {}",
            f.severity.as_str(),
            f.code,
            f.message
        );
    }
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
                summary: json!({"messages": 0}),
            };
        }
    };
    let mut observer = Observer::new(opts.timeout);
    if let Some(name) = &opts.name {
        observer.set_server_name(name);
    }
    let shared = Arc::new(Shared {
        observer: Mutex::new(observer),
        log: opts.log.clone().map(RecordLog::start),
    });

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
        return finish(leader, shared, opts, None).await;
    };
    let (client_closed_tx, mut client_closed) = tokio::sync::oneshot::channel::<()>();
    let (server_done_tx, server_done) = tokio::sync::oneshot::channel::<()>();
    let c2s = Arc::clone(&shared);
    std::thread::spawn(move || {
        pump(
            std::io::stdin(),
            server_in,
            Some(&c2s),
            Direction::ClientToServer,
        );
        let _ = client_closed_tx.send(());
    });
    let s2c = Arc::clone(&shared);
    std::thread::spawn(move || {
        pump(
            server_out,
            std::io::stdout(),
            Some(&s2c),
            Direction::ServerToClient,
        );
        let _ = server_done_tx.send(());
    });
    std::thread::spawn(move || {
        pump(
            server_err,
            std::io::stderr(),
            None,
            Direction::ServerToClient,
        );
    });
    let timer_shared = Arc::clone(&shared);
    let timer = tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        loop {
            tick.tick().await;
            let late = match timer_shared.observer.lock() {
                Ok(mut o) => o.check_timeouts(),
                Err(_) => return,
            };
            emit(&mut std::io::stderr().lock(), &late);
        }
    });

    let (Ok(mut sigint), Ok(mut sigterm), Ok(mut sighup)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        timer.abort();
        return finish(leader, shared, opts, Some(server_done)).await;
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
    finish(leader, shared, opts, Some(server_done)).await
}

async fn finish(
    mut leader: GroupLeader,
    shared: Arc<Shared>,
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
    let (findings, mut summary) = match shared.observer.lock() {
        Ok(mut o) => {
            let tail = o.finish();
            emit(&mut std::io::stderr().lock(), &tail);
            let mut findings = o.findings().to_vec();
            crate::finding::sort(&mut findings);
            (findings, o.summary())
        }
        Err(_) => (Vec::new(), json!({})),
    };
    let dropped = shared
        .log
        .as_ref()
        .map_or(0, |log| log.close(Duration::from_secs(1)));
    let exit_code = match exit {
        ExitKind::Code(c) => c,
        ExitKind::Signal(s) => 128 + s,
    };
    summary["logRecordsDropped"] = json!(dropped);
    summary["exitCode"] = json!(exit_code);
    if let Some(name) = &opts.name {
        summary["name"] = json!(crate::finding::excerpt(name, 128));
    }
    if let Some(path) = &opts.report {
        let doc = json!({
            "schemaVersion": 1,
            "session": summary,
            "issues": findings.iter().map(|f| {
                let mut v = serde_json::to_value(f).unwrap_or_default();
                v["class"] = json!(f.class().as_str());
                v
            }).collect::<Vec<_>>(),
        });
        if let Err(e) = std::fs::write(path, format!("{doc:#}\n")) {
            let _ = writeln!(
                std::io::stderr(),
                "mcpcheck: cannot write the report to {}: {e}",
                path.display()
            );
        }
    }
    ProxyOutcome {
        exit_code,
        findings,
        summary,
    }
}

/// Copies one stream to another unchanged, chunk by chunk, flushing each; observes a copy.
/// Returns at end of input; a closed output keeps the input drained and observed.
fn pump(mut from: impl Read, mut to: impl Write, observer: Option<&Shared>, dir: Direction) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut writable = true;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        // A client's request is noted before the server can see it, so its answer, observed
        // on the other thread, always finds it; the server's bytes go out first.
        let observe_first = dir == Direction::ClientToServer;
        if let (true, Some(shared)) = (observe_first, observer) {
            shared.observe(dir, &buf[..n]);
        }
        if writable {
            writable = to.write_all(&buf[..n]).and_then(|()| to.flush()).is_ok();
        }
        if let (false, Some(shared)) = (observe_first, observer) {
            shared.observe(dir, &buf[..n]);
        }
    }
    let _ = to.flush();
}
