//! What a session saw and did: every stdout frame, every request and its outcome.
//! Engines read this; they never talk to the process themselves.

use crate::process::{ExitKind, ShutdownReport, StderrCapture};
use crate::protocol::jsonrpc::{EnvelopeProblem, ErrorObject, LineContent, RequestId};
use serde::Serialize;
use serde_json::Value;

/// Where in its life the session was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Phase {
    Spawn,
    Initialize,
    Operations,
    Settle,
    Shutdown,
}

impl Phase {
    pub fn describe(self) -> &'static str {
        match self {
            Phase::Spawn => "before initialize was sent",
            Phase::Initialize => "during initialize",
            Phase::Operations => "after initialize",
            Phase::Settle => "while the guard waited for late output",
            Phase::Shutdown => "during shutdown",
        }
    }
}

/// Generations of MCP: with an initialize handshake, or stateless (2026-07-28 and later).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Era {
    Legacy,
    Modern,
}

/// Why a request was sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Purpose {
    Initialize,
    /// `server/discover` (2026-07-28, or the probe of `--protocol auto`).
    Discover,
    /// One page of a list probe for an advertised capability.
    ListProbe {
        list: ListKind,
        page: usize,
    },
    /// Asked for on the command line.
    Explicit,
}

/// The list methods a client probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ListKind {
    Tools,
    Prompts,
    Resources,
    ResourceTemplates,
}

impl ListKind {
    pub const ALL: [ListKind; 4] = [
        ListKind::Tools,
        ListKind::Prompts,
        ListKind::Resources,
        ListKind::ResourceTemplates,
    ];

    pub fn method(self) -> &'static str {
        match self {
            ListKind::Tools => "tools/list",
            ListKind::Prompts => "prompts/list",
            ListKind::Resources => "resources/list",
            ListKind::ResourceTemplates => "resources/templates/list",
        }
    }

    /// The capability that advertises this list.
    pub fn capability(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Prompts => "prompts",
            ListKind::Resources | ListKind::ResourceTemplates => "resources",
        }
    }

    /// The member of the result that holds the items.
    pub fn items_key(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Prompts => "prompts",
            ListKind::Resources => "resources",
            ListKind::ResourceTemplates => "resourceTemplates",
        }
    }
}

/// How a request ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Pending,
    Result(Value),
    Error(ErrorObject),
    /// The answer matched by id but was not a valid response envelope.
    Malformed(EnvelopeProblem),
    Timeout,
    /// The server's stdout ended (exit, closed pipe or a limit) before the answer came.
    NoResponse,
    /// Instead of answering, the server sent a request of its own carrying this request's
    /// id, with a method no client serves (`method`): it took the request for its own, so
    /// no answer will come.
    RequestInstead {
        method: String,
    },
    /// Not sent: the same request (exchange `timed_out`, same method and params) had already
    /// gone unanswered until its deadline, and a second wait would learn nothing new.
    NotSent {
        timed_out: usize,
    },
    SendFailed(String),
}

impl Outcome {
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Pending => "pending",
            Outcome::Result(_) => "result",
            Outcome::Error(_) => "error",
            Outcome::Malformed(_) => "malformed",
            Outcome::Timeout => "timeout",
            Outcome::NoResponse => "no-response",
            Outcome::RequestInstead { .. } => "request-instead",
            Outcome::NotSent { .. } => "not-sent",
            Outcome::SendFailed(_) => "send-failed",
        }
    }
}

/// One request the guard sent.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub id: RequestId,
    pub method: String,
    pub params: Option<Value>,
    pub purpose: Purpose,
    pub sent_ms: u64,
    pub outcome: Outcome,
    pub answered_ms: Option<u64>,
    /// The stdout line that answered it.
    pub answer_line: Option<u64>,
    /// The answer's id had another JSON type ("1" for 1).
    pub id_type_mismatch: bool,
}

/// What the session made of a frame that was a message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Disposition {
    /// Not a message, or nothing to match.
    None,
    Answered {
        exchange: usize,
    },
    /// A second answer to a request already answered.
    Duplicate {
        exchange: usize,
    },
    /// An answer that came after the guard stopped waiting.
    Late {
        exchange: usize,
    },
    /// An answer to an id the guard never sent.
    UnknownId,
    /// A request of the server's carrying the id of a request still waiting, with a method
    /// no client serves: the server's stand-in for that request's answer.
    RequestInsteadOfAnswer {
        exchange: usize,
    },
    /// A null- or missing-id response after the guard sent only notifications to match it.
    NotificationReply {
        notification: String,
    },
    /// A null- or missing-id response the guard cannot attribute to anything.
    Unattributed,
    /// A null- or missing-id error after the guard sent a malformed line: a fair answer.
    ParseErrorReply,
    ServerRequest {
        answered_with_error: bool,
    },
    ServerNotification,
}

impl Disposition {
    /// A reply with a null or missing id: a fair parse-error answer after the client sent a
    /// line it could not parse; else a reply to the client's last notification; else nothing.
    pub fn of_unidentified_reply(sent_malformed: bool, last_notification: Option<&str>) -> Self {
        match last_notification {
            _ if sent_malformed => Disposition::ParseErrorReply,
            Some(n) => Disposition::NotificationReply {
                notification: n.to_string(),
            },
            None => Disposition::Unattributed,
        }
    }
}

/// One line of stdout.
#[derive(Debug, Clone)]
pub struct Frame {
    pub line: u64,
    pub at_ms: u64,
    pub bytes: usize,
    pub had_carriage_return: bool,
    pub phase: Phase,
    pub content: LineContent,
    /// One per message on the line (a batch has several).
    pub dispositions: Vec<Disposition>,
}

impl Frame {
    /// One well-formed JSON-RPC message on a cleanly terminated line.
    pub fn is_valid_message(&self) -> bool {
        !self.had_carriage_return
            && matches!(
                &self.content,
                LineContent::Single { message, .. } if !matches!(message, crate::protocol::jsonrpc::Message::Invalid { .. })
            )
    }
}

/// A request the server sent to the client, and how the guard answered it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerRequest {
    pub line: u64,
    pub method: String,
    pub answered_with_error: bool,
    #[serde(skip)]
    pub phase: Phase,
}

/// The requests of one method the server sent.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MethodCount {
    pub count: u64,
    pub first_line: u64,
    pub answered_with_error: bool,
    /// Sent before the session was initialized (by the time initialize was answered).
    #[serde(skip)]
    pub before_initialized: u64,
}

/// The server's requests, bounded whatever their number: a count per method (for so many
/// methods) and the first requests in order, so a flood of them costs no memory.
#[derive(Debug, Clone, Default)]
pub struct ServerRequests {
    /// The first [`ServerRequests::SAMPLE`] requests.
    pub sample: Vec<ServerRequest>,
    pub by_method: std::collections::BTreeMap<String, MethodCount>,
    /// Requests of methods past the first [`ServerRequests::METHODS`] distinct ones.
    pub other_methods: u64,
    pub total: u64,
}

impl ServerRequests {
    pub const SAMPLE: usize = 100;
    pub const METHODS: usize = 64;

    pub fn record(&mut self, request: ServerRequest) {
        self.total += 1;
        let known =
            self.by_method.len() < Self::METHODS || self.by_method.contains_key(&request.method);
        if known {
            let entry = self
                .by_method
                .entry(request.method.clone())
                .or_insert_with(|| MethodCount {
                    first_line: request.line,
                    answered_with_error: request.answered_with_error,
                    ..MethodCount::default()
                });
            entry.count += 1;
            if request.phase <= Phase::Initialize {
                entry.before_initialized += 1;
            }
        } else {
            self.other_methods += 1;
        }
        if self.sample.len() < Self::SAMPLE {
            self.sample.push(request);
        }
    }

    /// Requests recorded in the totals but not listed in the sample.
    pub fn omitted(&self) -> u64 {
        self.total - self.sample.len() as u64
    }
}

/// The probe of one advertised list, across its pages.
#[derive(Debug, Clone)]
pub struct ListProbe {
    pub list: ListKind,
    pub exchanges: Vec<usize>,
    /// Every item of every page that answered with an array.
    pub items: Vec<Value>,
    pub paging_problem: Option<PagingProblem>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PagingProblem {
    /// `nextCursor` repeated one already followed.
    CursorLoop { cursor: String },
    /// More pages than the guard follows.
    PageCap { pages: usize },
    /// `nextCursor` was present but not a string.
    CursorNotString,
}

/// Why the stdout stream stopped being read before shutdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum StreamEnd {
    /// The server closed stdout (usually by exiting).
    Closed,
    LineTooLarge {
        line: u64,
        bytes_seen: usize,
    },
    OutputLimit {
        limit: u64,
    },
    ReadError,
    /// The server framed stdout with Content-Length headers: no newline-delimited client can
    /// read another message, so the session stopped reading there.
    Unusable {
        line: u64,
    },
}

/// Everything about the process, for the report.
#[derive(Debug, Clone, Default)]
pub struct ProcessRecord {
    /// The server's pid, once spawned (none over HTTP).
    pub pid: Option<u32>,
    pub spawn_error: Option<crate::process::SpawnError>,
    pub exit: Option<ExitKind>,
    /// When the exit was noticed, if it was not caused by the guard's shutdown.
    pub exited_in: Option<Phase>,
    pub exited_ms: Option<u64>,
    pub shutdown: Option<ShutdownReport>,
    pub killed_for_limit: bool,
    pub stderr: StderrCapture,
    pub stdout_bytes: u64,
}

/// The record of one session.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    pub protocol_requested: String,
    /// Which generation of the protocol the session used.
    pub era: Option<Era>,
    /// The wait the session allowed each request.
    pub timeout_ms: u64,
    /// What the session read within, for the checks that judge sizes.
    pub limits: crate::process::StdioLimits,
    pub frames: Vec<Frame>,
    pub exchanges: Vec<Exchange>,
    pub notifications_sent: Vec<String>,
    pub server_requests: ServerRequests,
    pub lists: Vec<ListProbe>,
    /// Bytes after the last newline when the session ended.
    pub unterminated: Option<UnterminatedOutput>,
    pub stream_end: Option<StreamEnd>,
    pub process: ProcessRecord,
    /// What HTTP did, when the session ran over Streamable HTTP.
    pub http: Option<super::http::HttpRecord>,
    pub duration_ms: u64,
    /// How long each step took.
    pub phases: PhaseTimes,
}

/// How long each step of a session took, in milliseconds; with the gaps between them
/// (none but the checks' bookkeeping) they add up to `duration_ms`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PhaseTimes {
    /// Starting the process (or opening the HTTP client).
    pub spawn_ms: u64,
    /// The handshake: initialize sent to initialized sent, or given up.
    pub initialize_ms: u64,
    /// tools/list, prompts/list, resources/list… with their pages.
    pub lists_ms: u64,
    /// The explicit requests (`--request`).
    pub requests_ms: u64,
    /// Listening for late output after the last answer.
    pub settle_ms: u64,
    /// Closing stdin (or the HTTP session) until the process was gone.
    pub shutdown_ms: u64,
}

#[derive(Debug, Clone)]
pub struct UnterminatedOutput {
    pub line: u64,
    pub bytes: usize,
    /// The bytes parse as a JSON value: a message that lacked only its newline.
    pub is_json: bool,
}

impl Transcript {
    /// Whether the guard stopped the stream itself (a limit, or framing no client can read):
    /// what was left unanswered then is the root cause's doing, not a fault of its own.
    pub fn stream_cut(&self) -> bool {
        self.process.killed_for_limit
            || matches!(self.stream_end, Some(StreamEnd::Unusable { .. }))
            || self.http.as_ref().is_some_and(|h| h.answer_lost())
    }

    pub fn initialize(&self) -> Option<&Exchange> {
        self.exchanges
            .iter()
            .find(|e| e.purpose == Purpose::Initialize)
    }

    /// The initialize result, when the server answered with one.
    pub fn initialize_result(&self) -> Option<&Value> {
        match &self.initialize()?.outcome {
            Outcome::Result(v) => Some(v),
            _ => None,
        }
    }

    pub fn discover(&self) -> Option<&Exchange> {
        self.exchanges
            .iter()
            .find(|e| e.purpose == Purpose::Discover)
    }

    /// The exchange the session depended on to open: initialize if it was sent, else discover.
    pub fn handshake(&self) -> Option<&Exchange> {
        self.initialize().or_else(|| self.discover())
    }

    /// The protocol version the session ran under: negotiated by initialize, or the one a
    /// modern server accepted.
    pub fn session_version(&self) -> Option<String> {
        if let Some(init) = self.initialize() {
            return init
                .outcome_result()?
                .get("protocolVersion")?
                .as_str()
                .map(str::to_string);
        }
        let discover = self.discover()?;
        discover.outcome_result()?;
        discover
            .params
            .as_ref()?
            .pointer("/_meta/io.modelcontextprotocol~1protocolVersion")?
            .as_str()
            .map(str::to_string)
    }

    pub fn initialized(&self) -> bool {
        self.notifications_sent
            .iter()
            .any(|m| m == "notifications/initialized")
    }

    /// Where the session was when the process exited on its own, in the contract's names: in
    /// an operation when a request after the handshake was sent (and the exit left one
    /// unanswered, or it was an explicit one), after initialize when none was pending.
    pub fn exit_phase(&self) -> Option<crate::finding::ProcessPhase> {
        use crate::finding::ProcessPhase;
        let in_request = || {
            self.exchanges.iter().any(|e| match e.purpose {
                Purpose::Initialize | Purpose::Discover => false,
                Purpose::Explicit => true,
                Purpose::ListProbe { .. } => {
                    matches!(e.outcome, Outcome::NoResponse | Outcome::SendFailed(_))
                }
            })
        };
        Some(match self.process.exited_in? {
            Phase::Spawn => ProcessPhase::Startup,
            Phase::Initialize => ProcessPhase::Initialize,
            Phase::Operations if in_request() => ProcessPhase::Operation,
            Phase::Operations | Phase::Settle | Phase::Shutdown => ProcessPhase::PostInitialize,
        })
    }

    pub fn list(&self, kind: ListKind) -> Option<&ListProbe> {
        self.lists.iter().find(|l| l.list == kind)
    }
}
