//! A failure its environment caused keeps its code, but is filed under `environment` and
//! says so: a list or initialize answered with an error that names an unreachable upstream,
//! a server that exited or never answered while its stderr says the same. Its verdict is
//! "needs inspection", not "fail": nothing shows the server itself is broken.

use crate::catalog::Code;
use crate::finding::{Finding, IssueClass, Severity};
use crate::session::transcript::Transcript;
use crate::upstream::{failure_in, UpstreamFailure};

/// Codes whose cause may lie outside the server.
const MAY_BE_ENVIRONMENT: &[Code] = &[
    Code::InitializeError,
    Code::InitializeTimeout,
    Code::CapabilityListError,
    Code::ServerExited,
    Code::ServerCrashed,
];

/// Files each such error under `environment` when the server's own error text, or else
/// its stderr, shows an upstream it could not reach.
pub fn file(found: &mut [Finding], t: &Transcript) {
    let mut stderr: Option<Option<UpstreamFailure>> = None;
    for f in found
        .iter_mut()
        .filter(|f| f.severity == Severity::Error && MAY_BE_ENVIRONMENT.contains(&f.code))
    {
        let own = failure_in(&f.message);
        let Some(upstream) = own.or_else(|| {
            stderr
                .get_or_insert_with(|| {
                    let tail: Vec<u8> = t.process.stderr.tail.iter().copied().collect();
                    failure_in(&String::from_utf8_lossy(&tail))
                })
                .clone()
        }) else {
            continue;
        };
        f.class_override = Some(IssueClass::Environment);
        let what = match upstream.kind {
            "dns" => "a host name it needs does not resolve",
            "refused" => "a service it needs refused the connection",
            "unreachable" => "a network it needs is unreachable",
            "tls" => "TLS to a host it needs failed",
            "fetch-failed" => "a request it made to an upstream failed",
            _ => "a credential it needs is missing",
        };
        f.message = format!(
            "{} Its own output says {what} where it ran: this failure is the environment's, and says nothing of the server itself.",
            f.message
        );
        f.evidence = Some(upstream.line);
        f.fix = Some(
            "Run the check where the server's upstream is reachable and its credentials are set (pass them by name: --env, or the sweep's env and --pass-env); until then the server could not be judged."
                .into(),
        );
    }
}
