//! A failure its environment caused keeps its code, but is filed under `environment` and
//! says so: a list or initialize answered with an error whose own text names an unreachable
//! upstream or a missing credential, or a server that exited (or never answered) whose last
//! words on stderr say the same. Its verdict is "needs inspection", not "fail": nothing
//! shows the server itself is broken. A line anywhere else in stderr never moves a failure:
//! a server could otherwise talk its way out of one.

use crate::catalog::Code;
use crate::finding::{Finding, IssueClass, Severity};
use crate::session::transcript::{Outcome, Transcript};
use crate::upstream::{failure_in, UpstreamFailure};

/// Codes whose cause may lie outside the server.
const MAY_BE_ENVIRONMENT: &[Code] = &[
    Code::InitializeError,
    Code::InitializeTimeout,
    Code::CapabilityListError,
    Code::ServerExited,
    Code::ServerCrashed,
];

/// How many of stderr's last significant lines speak for a server that exited or hung when
/// its last line is not a runtime's error line: a message and the line that closes it
/// (`Error: GITHUB_TOKEN is required` then `Exiting.`), too few to reach a start-up warning
/// printed before the session.
const LAST_WORDS: usize = 2;

/// Refiles each such error under `environment` when the failure's own words show an upstream
/// it could not reach or a credential it lacks: an error answer's message, or else the
/// last lines the server wrote to stderr before it exited or stopped answering.
pub fn refile(found: &mut [Finding], t: &Transcript) {
    let mut last_words: Option<Option<UpstreamFailure>> = None;
    for f in found
        .iter_mut()
        .filter(|f| f.severity == Severity::Error && MAY_BE_ENVIRONMENT.contains(&f.code))
    {
        let upstream = match f.code {
            Code::InitializeError | Code::CapabilityListError => {
                failing_answer_text(f, t).and_then(|text| failure_in(&text))
            }
            _ => last_words
                .get_or_insert_with(|| {
                    failure_in(&last_stderr_lines(&t.process.stderr.tail_text()))
                })
                .clone(),
        };
        let Some(upstream) = upstream else {
            continue;
        };
        f.class_override = Some(IssueClass::Environment);
        let what = match upstream.kind {
            "dns" => "a host name it needs does not resolve",
            "refused" => "a service it needs refused the connection",
            "unreachable" => "a network it needs is unreachable",
            "tls" => "TLS to a host it needs failed",
            "fetch-failed" => "a request it made to an upstream failed",
            "native-library" => "a native library it loads is missing",
            "configuration-missing" => "an argument, variable or file it must be given is missing",
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

/// The message of the error answer a finding reports: the request it is located at, as the
/// server answered it (the first error answer to that method).
fn failing_answer_text(f: &Finding, t: &Transcript) -> Option<String> {
    let method = f.location.request.as_deref()?;
    t.exchanges
        .iter()
        .filter(|e| e.method == method)
        .find_map(|e| match &e.outcome {
            Outcome::Error(err) => Some(err.message.clone()),
            _ => None,
        })
}

/// The failure's own words on stderr: the runtime's error line when the last significant
/// line is one (Python's `KeyError: 'name'` after its traceback, Node's `Error: …` before its
/// stack), else the last [`LAST_WORDS`] significant lines. Significant: not blank, not
/// indented (stack frames, a traceback's code, an error object's fields), not bare
/// punctuation, not a traceback's header, a source location or Node's version line.
fn last_stderr_lines(text: &str) -> String {
    let significant = |l: &&str| {
        !l.trim().is_empty()
            && !l.starts_with(char::is_whitespace)
            && l.chars().any(char::is_alphanumeric)
            && !l.starts_with("Node.js v")
            && !l.starts_with("Traceback (most recent call last)")
            && !is_source_location(l)
    };
    let mut lines: Vec<&str> = text
        .lines()
        .rev()
        .filter(significant)
        .take(LAST_WORDS)
        .collect();
    if lines.first().is_some_and(|l| is_error_line(l)) {
        lines.truncate(1);
    }
    lines.reverse();
    lines.join("\n")
}

/// `/app/index.js:3`: the line Node prints above an uncaught error's source.
fn is_source_location(line: &str) -> bool {
    line.rsplit_once(':').is_some_and(|(path, n)| {
        !path.is_empty()
            && !path.contains(' ')
            && !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
    })
}

/// `KeyError: 'name'`, `httpx.ConnectError: …`, `Error: …`: a runtime's uncaught error.
fn is_error_line(line: &str) -> bool {
    line.split_once(": ").is_some_and(|(name, _)| {
        let last = name.rsplit('.').next().unwrap_or(name);
        !name.contains(' ')
            && ["Error", "Exception", "Exit", "Interrupt", "Group"]
                .iter()
                .any(|end| last.ends_with(end))
    })
}

#[cfg(test)]
mod tests {
    use super::last_stderr_lines;

    #[test]
    fn the_last_words_are_a_runtimes_closing_error_block() {
        let node = "warning: OPENAI_API_KEY not set, using defaults\nstarting\n/app/index.js:3\n    throw e;\n    ^\n\nError: getaddrinfo ENOTFOUND api.x.com\n    at GetAddrInfoReqWrap.onlookup (node:dns:120:26)\n{\n  errno: -3008,\n  code: 'ENOTFOUND'\n}\n\nNode.js v20.20.2\n";
        assert_eq!(
            last_stderr_lines(node),
            "Error: getaddrinfo ENOTFOUND api.x.com"
        );
        let python = "warning: OPENAI_API_KEY not set, using defaults\nTraceback (most recent call last):\n  File \"s.py\", line 3, in <module>\n    main()\nKeyError: 'name'\n";
        assert_eq!(last_stderr_lines(python), "KeyError: 'name'");
        let said = "starting\nError: GITHUB_TOKEN is required\nExiting.\n";
        assert_eq!(
            last_stderr_lines(said),
            "Error: GITHUB_TOKEN is required\nExiting."
        );
        let early =
            "warning: OPENAI_API_KEY not set, using defaults\nserver ready\nshutting down\n";
        assert!(!last_stderr_lines(early).contains("OPENAI"));
    }
}
