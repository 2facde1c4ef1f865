//! What every probe watches for besides its own question: garbage on stdout and a crash,
//! and the facts of a crash or a timeout on the probe's findings.

use super::{finding, http, ProbeOutcome, Verdict};
use crate::catalog::Code;
use crate::finding::{excerpt, ProcessFacts, ProcessPhase};
use crate::protocol::jsonrpc::LineContent;
use crate::session::transcript::Frame;
use crate::session::Session;

fn is_json_rpc(f: &Frame) -> bool {
    matches!(
        f.content,
        LineContent::Single { .. } | LineContent::Batch { .. }
    )
}

/// How many lines a server writes on stdout at start-up, before its first JSON-RPC message
/// (a banner): the main session's count, which no probe is blamed for.
pub(crate) fn startup_noise(frames: &[Frame]) -> usize {
    frames.iter().take_while(|f| !is_json_rpc(f)).count()
}

/// Adds what every probe watches for (garbage on stdout, a crash) and ends the session.
/// The first `startup_noise` lines before the server's first message are its start-up
/// output, seen without any probe: they are not blamed on this one.
pub(super) async fn conclude(
    session: Session,
    name: &str,
    frames_before: usize,
    startup_noise: usize,
    mut verdict: Verdict,
) -> ProbeOutcome {
    let alive = session.alive();
    let last_sent = session.last_sent();
    let t = session.finish().await;
    let excused = self::startup_noise(&t.frames).min(startup_noise);
    let garbage: Vec<u64> = t
        .frames
        .iter()
        .skip(frames_before.max(excused))
        .filter(|f| !is_json_rpc(f))
        .map(|f| f.line)
        .collect();
    if let Some(line) = garbage.first() {
        verdict.status = "finding";
        verdict.findings.push(finding(
            Code::AdversarialProbeInvalidStdout,
            name,
            format!("After the {name} probe the server wrote something that is not JSON-RPC on stdout (line {line})."),
        ));
    }
    if let Some(f) = http::not_json_rpc(&t, name, frames_before > 0) {
        verdict.status = "finding";
        verdict.findings.push(f);
    }
    let crashed = !alive
        && t.process
            .shutdown
            .as_ref()
            .is_some_and(|s| s.path == crate::process::ShutdownPath::AlreadyExited);
    if crashed
        && !verdict
            .findings
            .iter()
            .any(|f| f.code == Code::AdversarialProbeCrash)
    {
        let how = t
            .process
            .exit
            .map(|e| e.describe())
            .unwrap_or_else(|| "closed stdout".into());
        verdict.status = "finding";
        verdict.findings.push(finding(
            Code::AdversarialProbeCrash,
            name,
            format!("The server exited ({how}) during the {name} probe; bad input must get an error, not a crash."),
        ));
    }
    // A crash shows what it answered to and what the server said as it went.
    let sent = format!("sent: {}", excerpt(&last_sent, 120));
    for f in &mut verdict.findings {
        match f.code {
            Code::AdversarialProbeCrash => {
                f.process = ProcessFacts::exit(ProcessPhase::Adversarial, t.process.exit);
                if f.evidence.is_none() {
                    // What it answered to, and what the server said as it went.
                    let with_cause = crate::guard::checks::with_stderr_cause(f.clone(), &t);
                    let evidence = match &with_cause.evidence {
                        Some(cause) => format!("{sent} | {cause}"),
                        None => sent.clone(),
                    };
                    *f = with_cause.evidence(&evidence);
                }
            }
            Code::AdversarialProbeTimeout => {
                f.process = ProcessFacts::timeout(ProcessPhase::Adversarial, t.timeout_ms);
            }
            _ => {}
        }
    }
    ProbeOutcome {
        probe: name.into(),
        status: verdict.status,
        observed: verdict.observed,
        findings: verdict.findings,
    }
}
