//! The one mapping from a stdout frame (and the JSON-RPC message on it) to findings.
//!
//! The guard's checks and the proxy's observer both name what they saw on a line as a
//! `FrameFault` and turn it into a finding here, so a fault gets the same code, message and
//! detail code in either engine. The guard, which has the whole transcript, lists every line
//! of a fault in one finding; the proxy reports a fault when it first sees it, with that line.

use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location};
use crate::protocol::jsonrpc::{
    EnvelopeProblem, JsonLimit, LineContent, Message, RequestId, MAX_JSON_DEPTH,
};
use crate::session::transcript::{Disposition, Phase};
use std::collections::hash_map::Entry;
use std::collections::HashMap;

/// Why a line that is not JSON is there, as far as the line (and those after it) tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonJsonCause {
    PlainText,
    ByteOrderMark,
    /// The first line of a JSON value written across several lines.
    MultiLineJson,
}

/// One fault seen on one stdout line.
#[derive(Debug, Clone, PartialEq)]
pub enum FrameFault {
    ContentLengthHeader,
    NonJson {
        text: String,
        cause: NonJsonCause,
    },
    /// JSON syntax past a parser limit (nesting depth, number range).
    BeyondParserLimits(JsonLimit),
    InvalidUtf8,
    Empty,
    CarriageReturn,
    Envelope(EnvelopeProblem),
    /// A JSON array where the negotiated revision has no batches.
    Batch,
    /// A null- or missing-id response that answers nothing the client sent.
    ResponseWithoutId,
    UnknownId,
    /// A request of the server's with the id of a request still waiting (and a method no
    /// client serves) instead of its answer.
    RequestInsteadOfResponse {
        method: String,
        id: RequestId,
        request_method: String,
    },
    DuplicateResponse {
        method: String,
        id: RequestId,
    },
    NotificationReply {
        notification: String,
    },
}

/// What decides how a line is judged, beyond the line itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct LineContext {
    /// The session runs under 2025-03-26, the only revision with batches.
    pub batches_allowed: bool,
    /// The server frames its output with Content-Length headers: the blank separators, the
    /// `\r\n` and the headers glued to bodies are part of that one fault.
    pub lsp_framed: bool,
}

/// The faults a line's content shows on its own (answers are judged by who matches them).
pub fn line_faults(content: &LineContent, had_cr: bool, cx: LineContext) -> Vec<FrameFault> {
    let mut out = Vec::new();
    if had_cr && !cx.lsp_framed {
        out.push(FrameFault::CarriageReturn);
    }
    match content {
        LineContent::Empty if !cx.lsp_framed => out.push(FrameFault::Empty),
        LineContent::Empty => {}
        LineContent::InvalidUtf8 { .. } => out.push(FrameFault::InvalidUtf8),
        LineContent::BeyondParserLimits { limit } => {
            out.push(FrameFault::BeyondParserLimits(*limit))
        }
        LineContent::ContentLengthHeader => out.push(FrameFault::ContentLengthHeader),
        LineContent::NonJson { text } if cx.lsp_framed && contains_header(text) => {}
        LineContent::NonJson { text } => out.push(FrameFault::NonJson {
            text: text.clone(),
            cause: if text.starts_with('\u{feff}') {
                NonJsonCause::ByteOrderMark
            } else {
                NonJsonCause::PlainText
            },
        }),
        LineContent::Single { message, .. } => {
            if let Message::Invalid { problem, .. } = message {
                out.push(FrameFault::Envelope(*problem));
            }
        }
        LineContent::Batch { messages } => {
            if !cx.batches_allowed {
                out.push(FrameFault::Batch);
            }
            for (m, _) in messages {
                if let Message::Invalid { problem, .. } = m {
                    out.push(FrameFault::Envelope(*problem));
                }
            }
        }
    }
    out
}

fn contains_header(text: &str) -> bool {
    text.to_ascii_lowercase().contains("content-length:")
}

impl FrameFault {
    /// What the session's (or the proxy's) matching of an answer found wrong with it; a
    /// duplicate names its request, which only the caller knows.
    pub fn of_disposition(d: &Disposition) -> Option<FrameFault> {
        match d {
            Disposition::UnknownId => Some(FrameFault::UnknownId),
            Disposition::NotificationReply { notification } => {
                Some(FrameFault::NotificationReply {
                    notification: notification.clone(),
                })
            }
            Disposition::Unattributed => Some(FrameFault::ResponseWithoutId),
            _ => None,
        }
    }

    pub fn code(&self) -> Code {
        match self {
            FrameFault::ContentLengthHeader => Code::StdoutContentLengthFraming,
            FrameFault::NonJson { .. } => Code::StdoutNonJson,
            FrameFault::BeyondParserLimits(_) => Code::StdoutJsonBeyondParserLimits,
            FrameFault::InvalidUtf8 => Code::StdoutInvalidUtf8,
            FrameFault::Empty => Code::StdoutEmptyLine,
            FrameFault::CarriageReturn => Code::StdoutCarriageReturn,
            FrameFault::Envelope(_) | FrameFault::Batch | FrameFault::ResponseWithoutId => {
                Code::StdoutInvalidJsonRpc
            }
            FrameFault::UnknownId | FrameFault::DuplicateResponse { .. } => {
                Code::ResponseIdMismatch
            }
            FrameFault::NotificationReply { .. } => Code::NotificationResponse,
            FrameFault::RequestInsteadOfResponse { .. } => Code::RequestInsteadOfResponse,
        }
    }

    pub fn detail_code(&self) -> Option<&'static str> {
        match self {
            FrameFault::NonJson { cause, .. } => Some(match cause {
                NonJsonCause::PlainText => "plain-text",
                NonJsonCause::ByteOrderMark => "byte-order-mark",
                NonJsonCause::MultiLineJson => "multi-line-json",
            }),
            FrameFault::BeyondParserLimits(JsonLimit::Depth) => Some("nesting-too-deep"),
            FrameFault::BeyondParserLimits(JsonLimit::NumberRange) => Some("number-out-of-range"),
            FrameFault::Envelope(p) => Some(p.detail_code()),
            FrameFault::Batch => Some("batch"),
            FrameFault::ResponseWithoutId => Some("response-without-id"),
            FrameFault::UnknownId => Some("unknown-id"),
            FrameFault::DuplicateResponse { .. } => Some("duplicate-response"),
            _ => None,
        }
    }

    /// Lines with the same key are one finding. Non-JSON lines are one fault whatever their
    /// cause (the first line's names it); each answer fault stands on its own line.
    pub fn key(&self) -> (Code, Option<&'static str>) {
        match self {
            FrameFault::NonJson { .. } => (self.code(), None),
            _ => (self.code(), self.detail_code()),
        }
    }

    /// Lines with the same group are one finding listing them: the fault's key, and for an
    /// answer fault that names a request or a notification, that request's id or that
    /// notification. A server repeating a fault on every line makes one finding, whatever
    /// the number of lines, since the guard's own requests bound the groups.
    pub fn group(&self) -> (Code, Option<&'static str>, Option<String>) {
        let (code, detail) = self.key();
        let named = match self {
            FrameFault::RequestInsteadOfResponse { id, .. }
            | FrameFault::DuplicateResponse { id, .. } => Some(id.to_string()),
            FrameFault::NotificationReply { notification } => Some(notification.clone()),
            _ => None,
        };
        (code, detail, named)
    }

    /// The finding for this fault on `lines` (never empty; the first is where it is
    /// located), `phase` being the session's phase at the first line.
    pub fn finding(&self, lines: &[u64], phase: Phase) -> Finding {
        let first = lines.first().copied().unwrap_or_default();
        let n = lines.len();
        // "line 3" or "lines 3, 7".
        let list = format!(
            "{} {}",
            if n == 1 { "line" } else { "lines" },
            line_list(lines)
        );
        let message = match self {
            FrameFault::ContentLengthHeader => format!(
                "The server framed its output with LSP-style Content-Length headers ({} at stdout {list}); MCP stdio is newline-delimited JSON.",
                plural(n, "header", "headers"),
            ),
            FrameFault::NonJson { cause, .. } => format!(
                "{} on stdout {} not JSON ({list}), first {}: a client fails to parse {}.{}",
                plural(n, "line", "lines"),
                if n == 1 { "is" } else { "are" },
                phase.describe(),
                if n == 1 { "it" } else { "them" },
                match cause {
                    NonJsonCause::PlainText => "",
                    NonJsonCause::ByteOrderMark => " The line starts with a UTF-8 byte-order mark.",
                    NonJsonCause::MultiLineJson =>
                        " The server pretty-prints JSON across lines; write each message on one line.",
                },
            ),
            FrameFault::BeyondParserLimits(JsonLimit::Depth) => format!(
                "{} on stdout {} JSON nested deeper than {MAX_JSON_DEPTH} levels ({list}), first {}: parsers with a depth limit refuse it (serde_json, under Rust clients, reads at most {MAX_JSON_DEPTH}; Python's json about 1,000), so no message on it arrives.",
                plural(n, "line", "lines"),
                if n == 1 { "is" } else { "are" },
                phase.describe(),
            ),
            FrameFault::BeyondParserLimits(JsonLimit::NumberRange) => format!(
                "{} on stdout {} a number outside the range clients can represent, beyond a 64-bit float such as 1e400 ({list}), first {}: strict parsers refuse the message, JavaScript and Python read the number as Infinity.",
                plural(n, "line", "lines"),
                if n == 1 { "holds" } else { "hold" },
                phase.describe(),
            ),
            FrameFault::InvalidUtf8 => format!(
                "{} on stdout {} not valid UTF-8 ({list}).",
                plural(n, "line", "lines"),
                if n == 1 { "is" } else { "are" },
            ),
            FrameFault::Empty => format!(
                "{} on stdout ({list}).",
                plural(n, "empty line", "empty lines"),
            ),
            FrameFault::CarriageReturn => format!(
                "{} on stdout {} in \\r\\n instead of \\n ({list}).",
                plural(n, "line", "lines"),
                if n == 1 { "ends" } else { "end" },
            ),
            FrameFault::Envelope(_) | FrameFault::Batch | FrameFault::ResponseWithoutId => {
                let what = match self {
                    FrameFault::Envelope(p) => p.describe(),
                    FrameFault::Batch => {
                        "a JSON array (batch) was sent; only the 2025-03-26 revision has batches"
                    }
                    _ => "a response with a null or missing id answers nothing the client sent",
                };
                format!("Invalid JSON-RPC on stdout: {what} ({list}).")
            }
            FrameFault::UnknownId if n == 1 => {
                format!("Stdout line {first} is a response to an id the client never sent.")
            }
            FrameFault::UnknownId => {
                format!("{n} stdout lines are responses to ids the client never sent ({list}).")
            }
            FrameFault::RequestInsteadOfResponse {
                method,
                id,
                request_method,
            } => format!(
                "Stdout line {first} is a request from the server, `{}`, carrying the id of the client's `{}` request (id {}) instead of its answer: the server sent requests instead of answers, so the guard stopped waiting for one.",
                excerpt(request_method, 80),
                excerpt(method, 80),
                excerpt(&id.to_string(), 40),
            ),
            FrameFault::DuplicateResponse { method, id } => format!(
                "Stdout line {first} answers `{}` (id {}) a second time.",
                excerpt(method, 80),
                excerpt(&id.to_string(), 40),
            ),
            FrameFault::NotificationReply { notification } => format!(
                "Stdout line {first} is a reply (with a null or missing id) after the notification `{}`; notifications must never be answered.",
                excerpt(notification, 80),
            ),
        };
        // An answer fault names its first line; the lines repeating it follow.
        let message = match self {
            FrameFault::RequestInsteadOfResponse { .. }
            | FrameFault::DuplicateResponse { .. }
            | FrameFault::NotificationReply { .. }
                if n > 1 =>
            {
                format!("{message}{}", also_on(&lines[1..]))
            }
            _ => message,
        };
        let mut f = Finding::new(self.code(), message).at(Location::stdout_line(first));
        if let Some(detail) = self.detail_code() {
            f = f.detail(detail);
        }
        if let FrameFault::NonJson { text, .. } = self {
            f = f.evidence(text);
        }
        f
    }
}

/// A fault seen on a line of a stream, with the session's phase at that line.
pub struct SeenFault {
    pub line: u64,
    pub phase: Phase,
    pub fault: FrameFault,
}

/// The findings for a whole stream: one per fault group listing its lines, in the order
/// first seen.
pub fn grouped(seen: impl IntoIterator<Item = SeenFault>) -> Vec<Finding> {
    let mut groups: Vec<(SeenFault, Vec<u64>)> = Vec::new();
    let mut by_group: HashMap<(Code, Option<&'static str>, Option<String>), usize> = HashMap::new();
    for s in seen {
        match by_group.entry(s.fault.group()) {
            Entry::Occupied(i) => groups[*i.get()].1.push(s.line),
            Entry::Vacant(v) => {
                v.insert(groups.len());
                let line = s.line;
                groups.push((s, vec![line]));
            }
        }
    }
    groups
        .into_iter()
        .map(|(first, lines)| first.fault.finding(&lines, first.phase))
        .collect()
}

/// Bytes left after the last newline when the stream ended.
pub fn without_newline(line: u64, bytes: usize, is_json: bool) -> Finding {
    let (what, detail) = if is_json {
        ("a complete JSON message", "json-without-newline")
    } else {
        ("output", "partial-line")
    };
    Finding::new(
        Code::StdoutWithoutNewline,
        format!(
            "The server wrote {what} ({bytes} bytes) on stdout line {line} without the terminating newline; a client waits for it forever."
        ),
    )
    .detail(detail)
    .at(Location::stdout_line(line))
}

/// Requests answered with an id of another JSON type ("1" for 1), as (method, the id the
/// client sent, the line of the answer): one finding, located at the first.
pub fn id_type_mismatch(answered: &[(&str, &RequestId, Option<u64>)]) -> Option<Finding> {
    let (method, _, line) = answered.first()?;
    let requests: Vec<String> = answered
        .iter()
        .take(5)
        .map(|(m, id, _)| format!("`{}` (id {})", excerpt(m, 80), excerpt(&id.to_string(), 40)))
        .collect();
    let mut location = Location::request(method);
    location.stdout_line = *line;
    Some(
        Finding::new(
            Code::ResponseIdTypeMismatch,
            format!(
                "{} answered with an id of another JSON type ({}); strict clients never match them.",
                plural(answered.len(), "request was", "requests were"),
                requests.join(", ")
            ),
        )
        .at(location),
    )
}

/// What became of a line that grew past the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OversizedLine {
    /// The guard stopped the run (`--max-stdout-line-bytes`).
    RunStopped,
    /// The proxy forwarded it without checking it.
    ForwardedUnchecked,
}

/// A line that grew past `bytes_seen` bytes without a newline.
pub fn line_too_large(line: u64, bytes_seen: usize, outcome: OversizedLine) -> Finding {
    let message = match outcome {
        OversizedLine::RunStopped => format!(
            "Stdout line {line} grew past {bytes_seen} bytes without a newline, over the limit (--max-stdout-line-bytes); the run was stopped."
        ),
        OversizedLine::ForwardedUnchecked => format!(
            "Stdout line {line} grew past {bytes_seen} bytes without a newline, over the limit of the proxy's checks; it was forwarded but not checked."
        ),
    };
    Finding::new(Code::StdoutLineTooLarge, message).at(Location::stdout_line(line))
}

/// Joins the lines of a JSON value a server pretty-printed across lines, as they come.
///
/// It tracks the bracket depth outside strings, so the joined text is parsed once, when the
/// first value closes: a valid value first reaches depth 0 at its last bracket, and a closed
/// value that does not parse never will.
#[derive(Debug, Default)]
pub struct MultiLineJson {
    joined: String,
    lines: usize,
    depth: i64,
    in_string: bool,
    escaped: bool,
}

/// Where joining stands after one more line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Joined {
    Pending,
    /// The lines so far form one JSON value.
    Complete,
    NotJson,
}

impl MultiLineJson {
    const MAX_LINES: usize = 2000;
    /// Bounds what a stream judged as it flows holds while it waits for the value to close.
    const MAX_BYTES: usize = 16 * 1024 * 1024;

    /// Adds the next line that is not JSON on its own.
    pub fn push(&mut self, text: &str) -> Joined {
        if self.lines == 0 && !text.trim_start().starts_with(['{', '[']) {
            return Joined::NotJson;
        }
        self.lines += 1;
        if self.lines > Self::MAX_LINES || self.joined.len() + text.len() > Self::MAX_BYTES {
            return Joined::NotJson;
        }
        self.joined.push_str(text);
        self.joined.push('\n');
        for b in text.bytes() {
            self.scan(b);
        }
        if self.depth > 0 {
            return Joined::Pending;
        }
        if text.trim_end().ends_with(['}', ']'])
            && serde_json::from_str::<serde_json::Value>(&self.joined).is_ok()
        {
            return Joined::Complete;
        }
        Joined::NotJson
    }

    fn scan(&mut self, b: u8) {
        match b {
            _ if self.escaped => self.escaped = false,
            b'\\' if self.in_string => self.escaped = true,
            b'"' => self.in_string = !self.in_string,
            _ if self.in_string => {}
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => self.depth -= 1,
            _ => {}
        }
    }
}

/// Lists stdout line numbers for a message: "1, 4, 9 and 3 more".
pub fn line_list(lines: &[u64]) -> String {
    const SHOWN: usize = 8;
    let shown: Vec<String> = lines.iter().take(SHOWN).map(u64::to_string).collect();
    let mut text = shown.join(", ");
    if lines.len() > SHOWN {
        text.push_str(&format!(" and {} more", lines.len() - SHOWN));
    }
    text
}

/// " The same fault is on 2 more stdout lines (5, 9).": the lines that repeat a fault whose
/// finding names its first, for every check that groups repeats into one finding.
pub fn also_on(more: &[u64]) -> String {
    format!(
        " The same fault is on {} ({}).",
        plural(more.len(), "more stdout line", "more stdout lines"),
        line_list(more)
    )
}

pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests;
