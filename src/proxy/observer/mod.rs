//! Watches a copy of the proxied traffic: frames it, records every message, and checks it
//! live with the guard's codes and messages. It never touches the bytes that are forwarded.
//!
//! `frames` splits lines and judges what a line shows on its own (with the frame → finding
//! mapping the guard uses), `requests` matches answers to requests, `methods` names and
//! counts methods, `surface` collects and judges what the server advertises; `record` is
//! what the observer hands on, a record per message in batches.

mod frames;
mod methods;
mod record;
mod requests;
mod surface;

use super::tap::Gap;
use crate::catalog::Code;
use crate::finding::Finding;
use crate::frame_findings;
use crate::protocol::jsonrpc::RequestId;
use crate::session::transcript::Phase;
use frames::{LineJudge, Splitter};
use methods::MethodNames;
pub use record::{Batch, Body, RawLine, Record};
use requests::{PendingRequest, RecentAnswers};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use surface::Listings;

/// Request ids to what the observer keeps of them; every message looks one up.
type IdMap<V> = HashMap<RequestId, V, foldhash::fast::RandomState>;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    ClientToServer,
    ServerToClient,
}

impl Direction {
    /// As the log spells it (serde's name).
    pub fn name(self) -> &'static str {
        match self {
            Direction::ClientToServer => "client-to-server",
            Direction::ServerToClient => "server-to-client",
        }
    }

    fn index(self) -> usize {
        match self {
            Direction::ClientToServer => 0,
            Direction::ServerToClient => 1,
        }
    }

    fn other(self) -> Direction {
        match self {
            Direction::ClientToServer => Direction::ServerToClient,
            Direction::ServerToClient => Direction::ClientToServer,
        }
    }
}

/// What a message was, as the log and the stderr line name it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RecordKind {
    /// A response carrying an error.
    Error,
    /// Not a JSON-RPC message.
    Invalid,
    Notification,
    Request,
    /// A response carrying a result, or one whose id matches no request.
    Response,
}

impl RecordKind {
    /// As the log spells it (serde's name).
    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::Error => "error",
            RecordKind::Invalid => "invalid",
            RecordKind::Notification => "notification",
            RecordKind::Request => "request",
            RecordKind::Response => "response",
        }
    }
}

impl std::fmt::Display for RecordKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// Where a message was read: its direction, when, its stdout line and the line's size.
struct LineSeen {
    dir: Direction,
    at: Instant,
    /// `at` in milliseconds since the session started.
    time_ms: f64,
    line: u64,
    size: usize,
}

/// What the record of one message says besides where it was read.
struct Entry<'a> {
    kind: RecordKind,
    method: Option<&'a Arc<str>>,
    id: Option<&'a RequestId>,
    latency_ms: Option<f64>,
    body: Body,
}

impl<'a> Entry<'a> {
    fn new(kind: RecordKind, body: Body) -> Self {
        Entry {
            kind,
            method: None,
            id: None,
            latency_ms: None,
            body,
        }
    }

    /// Adds the record of the message read at `seen` to `batch`.
    fn add_to(self, seen: &LineSeen, batch: &mut Batch) {
        // Made where it is kept: a record is large, and each move of one is a copy.
        let method = self.method.map(|name| batch.name_index(name));
        batch.records.push(Record {
            time_ms: seen.time_ms,
            direction: seen.dir,
            kind: self.kind,
            method,
            id: self.id.cloned(),
            size: seen.size,
            latency_ms: self.latency_ms,
            body: self.body,
        });
    }
}

pub struct Observer {
    started: Instant,
    timeout: Duration,
    /// Where the session is, as the client's handshake shows it.
    phase: Phase,
    splitters: HashMap<Direction, Splitter>,
    lines: LineJudge,
    /// Requests waiting for an answer, indexed by the direction they were sent in.
    pending: [IdMap<PendingRequest>; 2],
    answered: RecentAnswers,
    /// Per direction: requests not tracked because too many were already pending.
    untracked: [u64; 2],
    /// Per direction: some of its messages were missed, so an answer in the other
    /// direction to an unknown id proves nothing.
    blind: [bool; 2],
    /// Per direction: bytes forwarded that the observer never saw (it was behind).
    unobserved_bytes: [u64; 2],
    /// Messages per method, and one shared copy of each method name.
    names: MethodNames,
    latencies: Vec<f64>,
    listings: Listings,
    findings: Vec<Finding>,
    client_sent_malformed: bool,
    last_notification: Option<String>,
    /// What the client declared in its initialize, once seen.
    client_capabilities: Option<Value>,
    /// Server requests for undeclared client capabilities: (capability, count, first line)
    /// per method (only the few methods the spec gates, so bounded).
    undeclared: std::collections::BTreeMap<String, (&'static str, u64, u64)>,
    floods: crate::server_traffic::FloodMeter,
    pub messages: u64,
    pub invalid: u64,
    /// Whether common lines are read lean (off only in tests, to compare with the full parse).
    lean: bool,
}

impl Observer {
    pub fn new(timeout: Duration) -> Self {
        Self {
            started: Instant::now(),
            timeout,
            phase: Phase::Spawn,
            splitters: HashMap::new(),
            lines: LineJudge::default(),
            pending: [IdMap::default(), IdMap::default()],
            answered: RecentAnswers::default(),
            untracked: [0; 2],
            blind: [false; 2],
            unobserved_bytes: [0; 2],
            names: MethodNames::default(),
            latencies: Vec::new(),
            listings: Listings::new(),
            findings: Vec::new(),
            client_sent_malformed: false,
            last_notification: None,
            client_capabilities: None,
            undeclared: std::collections::BTreeMap::new(),
            floods: crate::server_traffic::FloodMeter::default(),
            messages: 0,
            invalid: 0,
            lean: true,
        }
    }

    pub fn set_server_name(&mut self, name: &str) {
        self.listings.set_server_name(name);
    }

    /// Accounts for bytes of one direction that were forwarded but never observed: the line
    /// count stays right, the line they interrupted is not judged, and checks that a missed
    /// message could fool are stood down.
    pub fn missed(&mut self, dir: Direction, gap: Gap) -> Vec<Finding> {
        let mut out = Vec::new();
        if self.unobserved_bytes == [0; 2] {
            self.report(&mut out, Finding::new(
                Code::ProxyChecksIncomplete,
                format!("The checks fell behind the traffic ({}): messages were forwarded unchecked from here on, so findings about them may be missing.", dir.name()),
            ));
        }
        self.unobserved_bytes[dir.index()] += gap.bytes;
        self.splitters
            .entry(dir)
            .or_default()
            .skip(gap.newlines, gap.ends_line);
        // A missed request makes its answer look unsolicited; a missed answer makes the
        // request look unanswered.
        self.blind[dir.index()] = true;
        for req in self.pending[dir.other().index()].values_mut() {
            req.settled = true;
        }
        out
    }

    /// Adds a finding unless the same one (code and place) was already reported.
    fn report(&mut self, out: &mut Vec<Finding>, mut f: Finding) {
        // Every output of the proxy (stderr, --report, --sarif) reads findings from here, so a
        // credential the server printed is masked once; the forwarded bytes are not touched.
        f.mask_secrets();
        // Distinct per code, reason and place; the first occurrence is the one reported.
        let seen = self.findings.iter().any(|g| {
            g.code == f.code
                && g.detail_code == f.detail_code
                && g.location.request == f.location.request
                && g.location.logical == f.location.logical
        });
        if !seen {
            self.findings.push(f.clone());
            out.push(f);
        }
    }

    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Message counts per method and latency percentiles, for the report.
    pub fn counts(&self) -> super::SessionCounts {
        let mut sorted = self.latencies.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let pct = |p: f64| -> Option<f64> {
            if sorted.is_empty() {
                return None;
            }
            let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
            Some((sorted[i] * 1000.0).round() / 1000.0)
        };
        super::SessionCounts {
            messages: self.messages,
            invalid: self.invalid,
            per_method: self.names.counts(),
            latency: super::Latency {
                p50: pct(0.5),
                p90: pct(0.9),
                p99: pct(0.99),
                max: pct(1.0),
                samples: sorted.len(),
            },
            unanswered: self.pending[Direction::ClientToServer.index()].len(),
            untracked_requests: self.untracked.iter().sum::<u64>(),
            unobserved_bytes: self.unobserved_bytes.iter().sum::<u64>(),
            ..super::SessionCounts::default()
        }
    }

    /// What the end of the server's stdout settles: a line still waiting to be judged, and
    /// bytes left without a newline.
    pub fn finish(&mut self) -> Vec<Finding> {
        let mut out = Vec::new();
        if let Some(f) = self.lines.finish() {
            self.report(&mut out, f);
        }
        let tail = self
            .splitters
            .get(&Direction::ServerToClient)
            .and_then(Splitter::tail);
        if let Some((line, bytes, is_json)) = tail.filter(|_| !self.lines.lsp_framed()) {
            self.report(
                &mut out,
                frame_findings::without_newline(line, bytes, is_json),
            );
        }
        self.count_undeclared();
        self.count_floods();
        // The verdict states how much went unchecked in all.
        let [from_client, from_server] = self.unobserved_bytes;
        if let Some(f) = self
            .findings
            .iter_mut()
            .find(|f| f.code == Code::ProxyChecksIncomplete)
        {
            f.message = format!("The checks fell behind the traffic: {from_client} bytes from the client and {from_server} bytes from the server were forwarded without being checked, so findings about them may be missing.");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(findings: &[Finding]) -> Vec<(&str, Option<u64>)> {
        findings
            .iter()
            .map(|f| (f.code.as_str(), f.location.stdout_line))
            .collect()
    }

    #[test]
    fn after_missed_bytes_lines_keep_their_numbers_and_the_broken_line_is_skipped() {
        let mut o = Observer::new(Duration::from_secs(30));
        let s2c = Direction::ServerToClient;
        let t = Instant::now();
        o.feed(s2c, t, b"{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n");
        // Lines 2 and 3 were missed, and the start of line 4.
        let gap = Gap {
            bytes: 20,
            newlines: 2,
            ends_line: false,
        };
        assert_eq!(
            codes(&o.missed(s2c, gap)),
            [("proxy-checks-incomplete", None)]
        );
        let (_, found) = o.feed(s2c, t, b"end of line 4\nplain text\n");
        assert_eq!(codes(&found), [("stdout-non-json", Some(5))]);
    }

    #[test]
    fn what_a_missed_message_could_explain_is_not_reported() {
        let mut o = Observer::new(Duration::from_millis(10));
        let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
        let t = Instant::now();
        o.feed(
            c2s,
            t,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
        );
        // The answer to 1 may have been in what was missed: 1 is no longer judged late.
        o.missed(
            s2c,
            Gap {
                bytes: 40,
                newlines: 1,
                ends_line: true,
            },
        );
        assert!(o.check_timeouts(t + Duration::from_secs(5)).is_empty());
        // A request may have been missed too: an answer to an id never seen proves nothing.
        o.missed(
            c2s,
            Gap {
                bytes: 40,
                newlines: 1,
                ends_line: true,
            },
        );
        let (_, found) = o.feed(s2c, t, b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n");
        assert!(found.is_empty(), "{found:?}");
        // Requests sent after the gap are judged as ever.
        o.feed(
            c2s,
            t,
            b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n",
        );
        let late = o.check_timeouts(t + Duration::from_secs(5));
        assert_eq!(codes(&late), [("operation-timeout", None)]);
    }

    #[test]
    fn without_a_gap_an_unknown_id_and_a_late_answer_are_reported() {
        let mut o = Observer::new(Duration::from_millis(10));
        let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
        let t = Instant::now();
        o.feed(
            c2s,
            t,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
        );
        assert_eq!(
            codes(&o.check_timeouts(t + Duration::from_secs(5))),
            [("operation-timeout", None)]
        );
        let (_, found) = o.feed(s2c, t, b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n");
        assert_eq!(codes(&found), [("response-id-mismatch", Some(1))]);
    }

    fn details(findings: &[Finding]) -> Vec<(&str, Option<&str>, Option<u64>)> {
        findings
            .iter()
            .map(|f| (f.code.as_str(), f.detail_code, f.location.stdout_line))
            .collect()
    }

    #[test]
    fn a_second_answer_and_a_reply_to_a_notification_are_named_as_the_guard_names_them() {
        let mut o = Observer::new(Duration::from_secs(30));
        let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
        let t = Instant::now();
        o.feed(
            c2s,
            t,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
        );
        let (_, found) = o.feed(
            s2c,
            t,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32601,\"message\":\"x\"}}\n",
        );
        assert_eq!(
            details(&found),
            [
                ("response-id-mismatch", Some("duplicate-response"), Some(2)),
                ("notification-response", None, Some(3)),
            ]
        );
        assert_eq!(
            found[0].message,
            "Stdout line 2 answers `ping` (id 1) a second time."
        );
        assert!(
            found[1]
                .message
                .contains("after the notification `notifications/initialized`"),
            "{}",
            found[1].message
        );
    }

    #[test]
    fn a_value_printed_across_lines_is_reported_once_it_closes() {
        let mut o = Observer::new(Duration::from_secs(30));
        let s2c = Direction::ServerToClient;
        let t = Instant::now();
        let (_, found) = o.feed(s2c, t, b"{\n  \"jsonrpc\": \"2.0\",\n");
        assert!(found.is_empty(), "{found:?}");
        let (_, found) = o.feed(s2c, t, b"  \"method\": \"x\"\n}\nplain\n");
        assert_eq!(
            details(&found),
            [("stdout-non-json", Some("multi-line-json"), Some(1))]
        );
        // A text line still waiting when the stream ends is plain text.
        let mut o = Observer::new(Duration::from_secs(30));
        o.feed(s2c, t, b"{ not json\n");
        assert_eq!(
            details(&o.finish()),
            [("stdout-non-json", Some("plain-text"), Some(1))]
        );
    }

    #[test]
    fn under_content_length_framing_the_separators_are_not_faults_of_their_own() {
        let mut o = Observer::new(Duration::from_secs(30));
        let s2c = Direction::ServerToClient;
        let (_, found) = o.feed(
            s2c,
            Instant::now(),
            b"Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}Content-Length: 40\r\n\r\n",
        );
        assert_eq!(
            details(&found),
            [("stdout-content-length-framing", None, Some(1))]
        );
    }
}
