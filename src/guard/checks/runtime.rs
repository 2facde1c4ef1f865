//! Process and runtime: could the server start, answer, stay up and stop?

use super::{Check, CheckContext};
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location, ProcessFacts, ProcessPhase};
use crate::install_faults::{self, Installer};
use crate::process::{ExitKind, ShutdownPath};
use crate::session::transcript::{Disposition, Outcome, Phase, Purpose, Transcript};
use crate::session::PlannedRequest;

pub struct Runtime;

impl Check for Runtime {
    fn name(&self) -> &'static str {
        "process"
    }

    fn codes(&self) -> &'static [Code] {
        &[
            Code::SpawnFailed,
            Code::InstallPackageMissing,
            Code::InstallRuntimeTooOld,
            Code::InstallNoExecutable,
            Code::ServerExited,
            Code::InitializeTimeout,
            Code::OperationTimeout,
            Code::OperationMissingResponse,
            Code::OperationError,
            Code::ServerCrashed,
            Code::ServerEndedSession,
            Code::ShutdownSlow,
            Code::ProcessEscapedGroup,
            Code::ProcessLeftRunning,
            Code::StderrOutputLimitExceeded,
            Code::StderrFlood,
        ]
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        let t = cx.transcript;
        if let Some(e) = &t.process.spawn_error {
            out.push(
                Finding::new(Code::SpawnFailed, e.to_string())
                    .detail("spawn-failed-before-startup")
                    .fix(e.hint)
                    .process(ProcessFacts::phase(ProcessPhase::Startup)),
            );
            return;
        }
        initialize_outcome(t, cx.launcher, cx.package.as_deref(), out);
        explicit_requests(t, out);
        unsent_requests(t, cx.planned, out);
        crash(t, out);
        shutdown(t, out);
        let stderr = &t.process.stderr;
        if stderr.total_bytes > t.limits.stderr_flood_bytes {
            out.push(Finding::new(
                Code::StderrFlood,
                format!(
                    "The server wrote {} bytes ({}) to stderr in one short session, past the flood threshold (--stderr-flood-bytes {}); a client must drain all of it.",
                    stderr.total_bytes,
                    crate::finding::plural(stderr.lines as usize, "line"),
                    t.limits.stderr_flood_bytes
                ),
            ));
        }
        if stderr.limit_exceeded {
            out.push(Finding::new(
                Code::StderrOutputLimitExceeded,
                format!(
                    "The server wrote {} bytes ({}) to stderr, past --max-stderr-bytes; all of it was drained and counted, and the report keeps only the last {} bytes.",
                    stderr.total_bytes,
                    crate::finding::plural(stderr.lines as usize, "line"),
                    stderr.tail.len()
                ),
            ));
        }
    }
}

/// How long after it was sent a timed-out request's answer came, when it came while the
/// session ran (an answer flushed at exit, in the shutdown phase, is a buffer's doing).
fn answered_late(t: &Transcript, request: &crate::session::transcript::Exchange) -> Option<u64> {
    let index = t.exchanges.iter().position(|e| std::ptr::eq(e, request))?;
    t.frames
        .iter()
        .filter(|f| f.phase != Phase::Shutdown)
        .find(|f| {
            f.dispositions
                .contains(&Disposition::Late { exchange: index })
        })
        .map(|f| f.at_ms.saturating_sub(request.sent_ms))
}

fn initialize_outcome(
    t: &Transcript,
    launcher: Option<Installer>,
    package: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let Some(init) = t.handshake() else { return };
    let location = Location::request(&init.method);
    match &init.outcome {
        Outcome::Timeout => {
            let mut f = Finding::new(
                Code::InitializeTimeout,
                format!(
                    "The server did not answer {} within {} ms.",
                    init.method, t.timeout_ms
                ),
            )
            .detail("startup-timeout")
            .at(location)
            .process(ProcessFacts::timeout(
                ProcessPhase::Initialize,
                t.timeout_ms,
            ));
            if let Some(after_ms) = answered_late(t, init) {
                // The answer came, only too late: the timeout, not the server's output, is short.
                f.message.push_str(&format!(
                    " Its answer came {after_ms} ms after it was sent, past the timeout."
                ));
                f = f.fix(format!(
                    "The server answered, after {after_ms} ms: raise --timeout above that (it takes a unit: --timeout 5s, --timeout 30s; a bare number is milliseconds), or make start-up faster."
                ));
            }
            f = with_stderr_cause(f, t);
            out.push(f);
        }
        Outcome::NoResponse | Outcome::SendFailed(_) if !t.stream_cut() => {
            let f = launcher
                .and_then(|l| not_installed(t, l, package))
                .unwrap_or_else(|| exited_before_initialize(t, &init.method));
            out.push(f.at(location));
        }
        _ => {}
    }
}

/// The server never started because its launcher could not install it, as the launcher
/// said on stderr and with a failing exit: what a client that starts it would meet too.
fn not_installed(t: &Transcript, launcher: Installer, package: Option<&str>) -> Option<Finding> {
    if matches!(t.process.exit, Some(ExitKind::Code(0)) | None) {
        return None;
    }
    let fault = install_faults::fault_in(launcher, &t.process.stderr.tail_text(), true, package)?;
    let message = crate::install::never_started_message(launcher, &fault);
    let mut finding = Finding::new(fault.code, message)
        .detail(fault.detail)
        .evidence(&fault.line)
        .process(ProcessFacts::exit(ProcessPhase::Startup, t.process.exit));
    if fault.is_dependency() {
        finding.class_override = Some(crate::finding::IssueClass::Environment);
    }
    Some(finding)
}

fn exited_before_initialize(t: &Transcript, method: &str) -> Finding {
    let (detail, what) = match t.process.exit {
        Some(ExitKind::Code(0)) => (
            "clean-exit-before-initialize",
            "exited cleanly (code 0)".to_string(),
        ),
        Some(ExitKind::Code(c)) => (
            "nonzero-exit-before-initialize",
            format!("exited with code {c}"),
        ),
        Some(k @ ExitKind::Signal(_)) => (
            "signal-exit-before-initialize",
            format!("was killed by {}", k.describe()),
        ),
        None => (
            "stdout-closed-before-initialize",
            "closed its stdout".to_string(),
        ),
    };
    let f = Finding::new(
        Code::ServerExited,
        format!("The server {what} before answering {method}."),
    )
    .detail(detail)
    .process(ProcessFacts::exit(
        t.exit_phase().unwrap_or(ProcessPhase::Initialize),
        t.process.exit,
    ));
    with_stderr_cause(f, t)
}

fn explicit_requests(t: &Transcript, out: &mut Vec<Finding>) {
    for e in t
        .exchanges
        .iter()
        .filter(|e| e.purpose == Purpose::Explicit)
    {
        let location = Location::request(&e.method);
        match &e.outcome {
            Outcome::Timeout => out.push(
                Finding::new(
                    Code::OperationTimeout,
                    format!(
                        "`{}` (id {}) was not answered within {} ms.",
                        e.method, e.id, t.timeout_ms
                    ),
                )
                .detail("request-timeout")
                .at(location)
                .process(ProcessFacts::timeout(ProcessPhase::Operation, t.timeout_ms)),
            ),
            Outcome::NoResponse | Outcome::SendFailed(_) if !t.stream_cut() => out.push(
                Finding::new(
                    Code::OperationMissingResponse,
                    format!(
                        "The server's stdout closed before `{}` (id {}) was answered.",
                        e.method, e.id
                    ),
                )
                .detail(exit_during_operation(t))
                .at(location)
                .process(ProcessFacts::exit(ProcessPhase::Operation, t.process.exit)),
            ),
            Outcome::NotSent { timed_out } => out.push(
                Finding::new(
                    Code::OperationTimeout,
                    format!(
                        "`{}` was not sent: the same request (id {}) had already gone unanswered for {} ms, so the guard did not wait for it twice.",
                        e.method, t.exchanges[*timed_out].id, t.timeout_ms
                    ),
                )
                .detail("request-timeout")
                .at(location)
                .process(ProcessFacts::timeout(ProcessPhase::Operation, t.timeout_ms)),
            ),
            Outcome::Error(err) => out.push(
                Finding::new(
                    Code::OperationError,
                    format!(
                        "`{}` (id {}) was answered with error {}: {}",
                        e.method,
                        e.id,
                        err.code,
                        excerpt(&err.message, 200)
                    ),
                )
                .at(location),
            ),
            _ => {}
        }
    }
}

/// The explicit requests the session never sent because the server had already stopped:
/// each is a request without an answer, as a client that queued it would see it.
fn unsent_requests(t: &Transcript, planned: &[PlannedRequest], out: &mut Vec<Finding>) {
    // A cut stream (a limit, an unusable framing) is the root cause: reported on its own.
    if t.stream_cut() || t.handshake().and_then(|h| h.outcome_result()).is_none() {
        return;
    }
    let sent = t
        .exchanges
        .iter()
        .filter(|e| e.purpose == Purpose::Explicit)
        .count();
    for request in planned.iter().skip(sent) {
        out.push(
            Finding::new(
                Code::OperationMissingResponse,
                format!(
                    "`{}` was never answered: the server's stdout had closed before it could be sent.",
                    request.method
                ),
            )
            .detail(exit_during_operation(t))
            .at(Location::request(&request.method))
            .process(exit_facts(t)),
        );
    }
}

/// The contract's detail code for a request the server stopped before answering.
fn exit_during_operation(t: &Transcript) -> &'static str {
    match t.process.exit {
        Some(ExitKind::Code(0)) => "clean-exit-during-operation",
        Some(ExitKind::Signal(_)) => "signal-exit-during-operation",
        Some(ExitKind::Code(_)) => "nonzero-exit-during-operation",
        None => "stdout-closed-during-operation",
    }
}

fn crash(t: &Transcript, out: &mut Vec<Finding>) {
    let Some(phase) = t.process.exited_in else {
        return;
    };
    if phase < Phase::Operations || t.stream_cut() {
        return;
    }
    if t.process.exit == Some(ExitKind::Code(0)) {
        // The spec lets a server end the session; what it left unanswered is reported per request.
        out.push(Finding::new(
            Code::ServerEndedSession,
            format!(
                "The server ended the session early: it exited cleanly (code 0) {} at {} ms, before the client closed its stdin.",
                phase.describe(),
                t.process.exited_ms.unwrap_or(0)
            ),
        ).process(exit_facts(t)));
        return;
    }
    let how = match t.process.exit {
        Some(k) => k.describe(),
        None => "an unknown status".into(),
    };
    let f = Finding::new(
        Code::ServerCrashed,
        format!(
            "The server exited with {how} {} at {} ms, while the client still needed it.",
            phase.describe(),
            t.process.exited_ms.unwrap_or(0)
        ),
    )
    .detail(match t.process.exit {
        Some(ExitKind::Signal(_)) => "signal-exit-after-initialize",
        _ => "nonzero-exit-after-initialize",
    })
    .process(exit_facts(t));
    out.push(with_stderr_cause(f, t));
}

/// An exit after initialize: where the session was, and how the process ended.
fn exit_facts(t: &Transcript) -> ProcessFacts {
    ProcessFacts::exit(
        t.exit_phase().unwrap_or(ProcessPhase::PostInitialize),
        t.process.exit,
    )
}

fn shutdown(t: &Transcript, out: &mut Vec<Finding>) {
    if t.process.killed_for_limit {
        return;
    }
    let Some(report) = &t.process.shutdown else {
        return;
    };
    for p in &report.escaped {
        out.push(escaped_process(p));
    }
    for p in &report.left_running {
        out.push(left_running(p));
    }
    let (detail, what) = match report.path {
        ShutdownPath::Terminated => ("needed-sigterm", "it exited only on SIGTERM"),
        ShutdownPath::Killed => (
            "needed-sigkill",
            "it ignored SIGTERM and had to be killed with SIGKILL",
        ),
        ShutdownPath::AlreadyExited | ShutdownPath::StdinClosed => return,
    };
    out.push(
        Finding::new(
            Code::ShutdownSlow,
            format!("The server did not exit after its stdin was closed; {what}."),
        )
        .detail(detail),
    );
}

/// A process that left the server's group with one of its streams: killed by the guard,
/// left running by a client that signals only the group.
fn escaped_process(p: &crate::process::EscapedProcess) -> Finding {
    let command = excerpt(&crate::secrets::redact_argv(&p.argv).join(" "), 200);
    let streams = match p.holds.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => p.holds.join(""),
    };
    Finding::new(
        Code::ProcessEscapedGroup,
        format!(
            "Process {} (`{command}`), started by the server, left its process group and session but kept the server's {streams}; the guard killed it at the end. A client stops a server by its process group, so it would be left with this process running, holding the pipe open.",
            p.pid,
        ),
    )
    .detail(if p.holds.contains(&"stdout") {
        "holds-stdout"
    } else {
        "holds-stream"
    })
}

/// A process that detached from the server's group and outlived it: killed by the guard,
/// left running by a client after every session.
fn left_running(p: &crate::process::LeftProcess) -> Finding {
    let command = excerpt(&crate::secrets::redact_argv(&p.argv).join(" "), 200);
    Finding::new(
        Code::ProcessLeftRunning,
        format!(
            "Process {} (`{command}`), started by the server, detached from its process group and was still running {} ms after the server exited; the guard killed it. A client stops a server by closing stdin and signalling its group, so it would leave this process running after every session.",
            p.pid, p.outlived_ms,
        ),
    )
    .detail("detached")
}

/// What stderr says about why a server stopped: the error line as evidence and the excerpt
/// shown under the finding.
pub(crate) fn with_stderr_cause(f: Finding, t: &Transcript) -> Finding {
    match super::stderr_cause::stderr_cause(&t.process.stderr.tail_text()) {
        Some(cause) => {
            let mut f = f.evidence(&cause.evidence);
            f.stderr_excerpt = Some(cause.excerpt);
            f
        }
        None => f,
    }
}
