//! The seam under the session: a child process over stdio, or a remote server over
//! Streamable HTTP, or the legacy HTTP+SSE transport. The session drives each the same way and
//! records one transcript.

use super::http::legacy::LegacyTransport;
use super::http::{HttpRecord, HttpTarget, HttpTransport, UnawaitedAnswer};
use crate::process::{
    ExitKind, ProcessEvent, ServerCommand, ServerProcess, ShutdownReport, SpawnError,
    StderrCapture, StdioLimits, StdoutEvent, Stopped,
};
use crate::protocol::framing::RawLine;
use std::time::{Duration, Instant};

// The session owns one for its life, so the size difference does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Transport {
    Stdio(ServerProcess),
    Http(HttpTransport),
    Legacy(LegacyTransport),
}

impl Transport {
    pub fn open(
        cmd: &ServerCommand,
        http: Option<&HttpTarget>,
        limits: StdioLimits,
        timeout: Duration,
    ) -> Result<Self, SpawnError> {
        match http {
            Some(target) if target.legacy_sse => Ok(Transport::Legacy(LegacyTransport::new(
                target, limits, timeout,
            ))),
            Some(target) => Ok(Transport::Http(HttpTransport::new(target, limits, timeout))),
            None => ServerProcess::spawn(cmd, limits).map(Transport::Stdio),
        }
    }

    pub async fn send(&mut self, bytes: &[u8], deadline: Instant) -> Result<(), SendError> {
        match self {
            Transport::Stdio(p) => Ok(p.send(bytes, deadline).await?),
            Transport::Http(h) => h.send(bytes, deadline).await,
            Transport::Legacy(l) => l.send(bytes, deadline).await,
        }
    }

    /// The local server's pid; a remote server has none.
    pub fn pid(&self) -> Option<u32> {
        match self {
            Transport::Stdio(p) => Some(p.pid()),
            Transport::Http(_) | Transport::Legacy(_) => None,
        }
    }

    /// Whether anything can still come from the server without a request: over stdio
    /// always; over Streamable HTTP only while a message is queued or the GET stream is open.
    pub fn late_output_possible(&self) -> bool {
        match self {
            Transport::Stdio(_) | Transport::Legacy(_) => true,
            Transport::Http(h) => h.may_deliver_unasked(),
        }
    }

    /// A watch that sees the local server idle; a remote server is never seen idle.
    pub fn idle_watch(&self) -> crate::process::idle::Watch {
        match self {
            Transport::Stdio(p) => p.idle_watch(),
            Transport::Http(_) | Transport::Legacy(_) => crate::process::idle::Watch::default(),
        }
    }

    /// Cancel-safe. A remote server never exits.
    pub async fn next_event(&mut self) -> ProcessEvent {
        match self {
            Transport::Stdio(p) => p.next_event().await,
            Transport::Http(h) => ProcessEvent::Stdout(h.next_event().await),
            Transport::Legacy(l) => ProcessEvent::Stdout(l.next_event().await),
        }
    }

    pub async fn wait_exit(&mut self) -> ExitKind {
        match self {
            Transport::Stdio(p) => p.wait_exit().await,
            Transport::Http(_) | Transport::Legacy(_) => std::future::pending().await,
        }
    }

    /// Streamable HTTP's answer to the last notification or malformed body; the legacy
    /// transport and stdio answer on the stream, if at all.
    pub fn last_unawaited(&self) -> Option<UnawaitedAnswer> {
        match self {
            Transport::Http(h) => h.last_unawaited(),
            Transport::Stdio(_) | Transport::Legacy(_) => None,
        }
    }

    pub fn stdout_bytes(&self) -> u64 {
        match self {
            Transport::Stdio(p) => p.stdout_bytes(),
            Transport::Http(h) => h.bytes(),
            Transport::Legacy(l) => l.bytes(),
        }
    }

    pub fn unterminated_stdout(&self) -> Option<RawLine> {
        match self {
            Transport::Stdio(p) => p.unterminated_stdout(),
            Transport::Http(_) | Transport::Legacy(_) => None,
        }
    }

    pub fn stderr(&self) -> StderrCapture {
        match self {
            Transport::Stdio(p) => p.stderr(),
            Transport::Http(_) | Transport::Legacy(_) => StderrCapture::default(),
        }
    }

    /// Ends the session: the process's shutdown, or the HTTP probes and DELETE.
    pub async fn shutdown(&mut self, kill_now: bool, grace: Duration) -> Ended {
        match self {
            Transport::Stdio(p) => {
                let stopped = if kill_now {
                    Stopped {
                        report: p.kill_now().await,
                        late_stdout: Vec::new(),
                    }
                } else {
                    p.shutdown(grace, grace).await
                };
                Ended {
                    shutdown: Some(stopped.report),
                    http: None,
                    late_stdout: stopped.late_stdout,
                }
            }
            Transport::Http(h) => Ended {
                shutdown: None,
                http: Some(h.finish().await),
                late_stdout: Vec::new(),
            },
            Transport::Legacy(l) => Ended {
                shutdown: None,
                http: Some(l.finish().await),
                late_stdout: Vec::new(),
            },
        }
    }
}

/// How a session's transport ended.
pub struct Ended {
    pub shutdown: Option<ShutdownReport>,
    pub http: Option<HttpRecord>,
    /// What a local server wrote on stdout after its stdin was closed.
    pub late_stdout: Vec<StdoutEvent>,
}

/// Why a message did not reach the server, or why its answer can no longer come.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    #[error(transparent)]
    Stdin(#[from] crate::process::StdinError),
    /// Over HTTP: the request was not answered (unreachable, refused, the stream ended).
    #[error("{0}")]
    Http(String),
    /// Over HTTP: the server was reached and the request's time ran out before its answer.
    #[error("{0}")]
    TimedOut(String),
}
