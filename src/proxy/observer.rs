//! Watches a copy of the proxied traffic: frames it, records every message, and checks it
//! live with the guard's codes. It never touches the bytes that are forwarded.

use super::tap::Gap;
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location};
use crate::protocol::jsonrpc::{self, LineContent, Message, RequestId, ResponseId};
use crate::session::transcript::ListKind;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    ClientToServer,
    ServerToClient,
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::ClientToServer => "client-to-server",
            Direction::ServerToClient => "server-to-client",
        }
    }
}

/// Largest line the observer parses; longer ones are forwarded all the same, and reported.
const MAX_OBSERVED_LINE: usize = 4 * 1024 * 1024;
/// Latency samples kept for percentiles.
const MAX_SAMPLES: usize = 100_000;
/// Requests awaiting an answer that are tracked per direction; a peer that never answers
/// cannot make the observer grow without bound.
const MAX_PENDING: usize = 10_000;
/// Distinct method names counted; the rest are counted together.
const MAX_METHODS: usize = 1_000;
const OTHER_METHODS: &str = "(other methods)";

/// Splits one direction into lines, recovering after an oversized one.
#[derive(Default)]
struct Splitter {
    pending: Vec<u8>,
    skipping: bool,
    line: u64,
}

struct PendingRequest {
    method: String,
    /// Whether the request asked for a later page (it had a cursor).
    next_page: bool,
    sent: Instant,
    /// Already reported as late, or no longer judged (its answer may have been missed).
    settled: bool,
}

impl Direction {
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

/// One observed message, for the log and the stderr line.
pub struct Record {
    /// Milliseconds since the session started, when the message was read.
    pub time_ms: f64,
    pub direction: Direction,
    pub kind: &'static str,
    pub method: Option<String>,
    pub id: Option<RequestId>,
    pub size: usize,
    pub latency_ms: Option<f64>,
    pub body: Body,
}

/// The message itself, as the log shows it.
pub enum Body {
    /// Not a JSON value (shown as null).
    None,
    /// The line as it came, known to be one valid JSON value.
    Raw(Vec<u8>),
    /// One message of a batch.
    Value(Value),
}

impl Record {
    /// The one-line form for stderr, built only when it is printed.
    pub fn compact(&self) -> String {
        let arrow = match self.direction {
            Direction::ClientToServer => "→",
            Direction::ServerToClient => "←",
        };
        format!(
            "mcpcheck: {arrow} {}{}{} {}B{}",
            self.kind,
            self.method
                .as_deref()
                .map(|m| format!(" {}", excerpt(m, 60)))
                .unwrap_or_default(),
            match &self.id {
                None => String::new(),
                Some(RequestId::Number(n)) => format!(" #{}", excerpt(&n.to_string(), 40)),
                Some(RequestId::String(id)) => format!(" #{}", excerpt(id, 40)),
            },
            self.size,
            self.latency_ms
                .map(|l| format!(" {l:.1}ms"))
                .unwrap_or_default(),
        )
    }
}

pub struct Observer {
    started: Instant,
    timeout: Duration,
    splitters: HashMap<Direction, Splitter>,
    /// Requests waiting for an answer, indexed by the direction they were sent in.
    pending: [HashMap<RequestId, PendingRequest>; 2],
    /// Per direction: requests not tracked because too many were already pending.
    untracked: [u64; 2],
    /// Per direction: some of its messages were missed, so an answer in the other
    /// direction to an unknown id proves nothing.
    blind: [bool; 2],
    /// Per direction: bytes forwarded that the observer never saw (it was behind).
    unobserved_bytes: [u64; 2],
    counts: BTreeMap<String, u64>,
    latencies: Vec<f64>,
    negotiated: Option<String>,
    /// The server's initialize result: its instructions and capabilities are judged too.
    initialize: Option<Value>,
    /// Items of the listing being paged, and the first complete listing, per list.
    paging: HashMap<ListKind, Vec<Value>>,
    first_listing: HashMap<ListKind, Vec<Value>>,
    latest_listing: HashMap<ListKind, Vec<Value>>,
    /// Name for the server in surface findings.
    server_name: String,
    findings: Vec<Finding>,
    client_sent_malformed: bool,
    pub messages: u64,
    pub invalid: u64,
}

impl Observer {
    pub fn new(timeout: Duration) -> Self {
        Self {
            started: Instant::now(),
            timeout,
            splitters: HashMap::new(),
            pending: [HashMap::new(), HashMap::new()],
            untracked: [0; 2],
            blind: [false; 2],
            unobserved_bytes: [0; 2],
            counts: BTreeMap::new(),
            latencies: Vec::new(),
            negotiated: None,
            initialize: None,
            paging: HashMap::new(),
            first_listing: HashMap::new(),
            latest_listing: HashMap::new(),
            server_name: "server".into(),
            findings: Vec::new(),
            client_sent_malformed: false,
            messages: 0,
            invalid: 0,
        }
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
        let s = self.splitters.entry(dir).or_default();
        s.pending.clear();
        s.line += gap.newlines;
        s.skipping = !(gap.newlines > 0 && gap.ends_line);
        // A missed request makes its answer look unsolicited; a missed answer makes the
        // request look unanswered.
        self.blind[dir.index()] = true;
        for req in self.pending[dir.other().index()].values_mut() {
            req.settled = true;
        }
        out
    }

    /// Feeds a copy of forwarded bytes read at `at`; returns the records and the findings
    /// they caused.
    pub fn feed(
        &mut self,
        dir: Direction,
        at: Instant,
        bytes: &[u8],
    ) -> (Vec<Record>, Vec<Finding>) {
        let mut lines = Vec::new();
        let mut oversized = Vec::new();
        let s = self.splitters.entry(dir).or_default();
        let mut rest = bytes;
        while !rest.is_empty() {
            let (head, found) = match rest.iter().position(|&b| b == b'\n') {
                Some(i) => (&rest[..i], true),
                None => (rest, false),
            };
            rest = if found { &rest[head.len() + 1..] } else { &[] };
            if !s.skipping {
                if s.pending.len() + head.len() > MAX_OBSERVED_LINE {
                    s.skipping = true;
                    s.pending.clear();
                    oversized.push(s.line + 1);
                } else {
                    s.pending.extend_from_slice(head);
                }
            }
            if found {
                s.line += 1;
                if s.skipping {
                    s.skipping = false;
                } else {
                    lines.push((s.line, std::mem::take(&mut s.pending)));
                }
            }
        }
        let mut records = Vec::new();
        let mut findings = Vec::new();
        for line in oversized {
            if dir == Direction::ServerToClient {
                self.report(&mut findings, Finding::new(
                    Code::StdoutLineTooLarge,
                    format!("Stdout line {line} is larger than {MAX_OBSERVED_LINE} bytes; it was forwarded but not checked."),
                ).at(Location::stdout_line(line)));
            }
        }
        for (line, raw) in lines {
            self.observe_line(dir, at, line, raw, &mut records, &mut findings);
        }
        (records, findings)
    }

    fn observe_line(
        &mut self,
        dir: Direction,
        at: Instant,
        line: u64,
        mut raw: Vec<u8>,
        records: &mut Vec<Record>,
        findings: &mut Vec<Finding>,
    ) {
        let had_cr = raw.last() == Some(&b'\r');
        if had_cr {
            raw.pop();
        }
        let size = raw.len();
        let content = jsonrpc::parse_line(&raw);
        let from_server = dir == Direction::ServerToClient;
        if from_server && had_cr {
            self.report(
                findings,
                Finding::new(
                    Code::StdoutCarriageReturn,
                    format!("Stdout line {line} ends in \\r\\n."),
                )
                .at(Location::stdout_line(line)),
            );
        }
        let messages: Vec<(Message, Body)> = match content {
            // The log shows the line as it came: no need to keep the parsed value.
            LineContent::Single { message, .. } => vec![(message, Body::Raw(raw))],
            LineContent::Batch { messages } => {
                if from_server && self.negotiated.as_deref() != Some("2025-03-26") {
                    self.report(findings, Finding::new(Code::StdoutInvalidJsonRpc, format!("Stdout line {line} is a JSON array (batch); only the 2025-03-26 revision has batches.")).detail("batch").at(Location::stdout_line(line)));
                }
                messages
                    .into_iter()
                    .map(|(m, v)| (m, Body::Value(v)))
                    .collect()
            }
            other => {
                self.invalid += 1;
                if dir == Direction::ClientToServer {
                    self.client_sent_malformed = true;
                } else {
                    let (code, what) = match &other {
                        LineContent::Empty => (Code::StdoutEmptyLine, "is empty".to_string()),
                        LineContent::InvalidUtf8 { .. } => {
                            (Code::StdoutInvalidUtf8, "is not valid UTF-8".to_string())
                        }
                        LineContent::ContentLengthHeader => (
                            Code::StdoutContentLengthFraming,
                            "is an LSP-style Content-Length header".to_string(),
                        ),
                        _ => (Code::StdoutNonJson, "is not JSON".to_string()),
                    };
                    let mut f = Finding::new(
                        code,
                        format!("Stdout line {line} {what}; the client cannot parse it."),
                    )
                    .at(Location::stdout_line(line));
                    if let LineContent::NonJson { text } = &other {
                        f = f.evidence(text);
                    }
                    self.report(findings, f);
                }
                records.push(self.record(dir, at, "invalid", None, None, size, None, Body::None));
                return;
            }
        };
        for (message, body) in messages {
            self.messages += 1;
            let record = self.observe_message(dir, at, line, message, body, size, findings);
            records.push(record);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn observe_message(
        &mut self,
        dir: Direction,
        at: Instant,
        line: u64,
        message: Message,
        value: Body,
        size: usize,
        findings: &mut Vec<Finding>,
    ) -> Record {
        let from_server = dir == Direction::ServerToClient;
        let other = dir.other();
        match message {
            Message::Request { id, method, params } => {
                self.count(&method);
                let pending = &mut self.pending[dir.index()];
                if pending.len() < MAX_PENDING || pending.contains_key(&id) {
                    let next_page = params.as_ref().and_then(|p| p.get("cursor")).is_some();
                    let req = PendingRequest {
                        method: method.clone(),
                        next_page,
                        sent: at,
                        settled: false,
                    };
                    pending.insert(id.clone(), req);
                } else {
                    // Its answer will look unsolicited: stop judging those.
                    self.untracked[dir.index()] += 1;
                    self.blind[dir.index()] = true;
                }
                self.record(
                    dir,
                    at,
                    "request",
                    Some(&method),
                    Some(&id),
                    size,
                    None,
                    value,
                )
            }
            Message::Notification { method, .. } => {
                self.count(&method);
                self.record(
                    dir,
                    at,
                    "notification",
                    Some(&method),
                    None,
                    size,
                    None,
                    value,
                )
            }
            Message::Response {
                id: ResponseId::Id(id),
                outcome,
            } => {
                let kind = if outcome.is_ok() { "response" } else { "error" };
                let Some(req) = self.pending[other.index()].remove(&id) else {
                    if from_server && !self.blind[other.index()] {
                        self.report(findings, Finding::new(Code::ResponseIdMismatch, format!("Stdout line {line} answers id {id}, which the client never sent (or already got an answer for).")).detail("unknown-id").at(Location::stdout_line(line)));
                    }
                    return self.record(dir, at, kind, None, Some(&id), size, None, value);
                };
                let latency = at.saturating_duration_since(req.sent).as_secs_f64() * 1000.0;
                if self.latencies.len() < MAX_SAMPLES {
                    self.latencies.push(latency);
                }
                if from_server {
                    if let Ok(result) = &outcome {
                        self.after_result(&req, result, findings);
                    }
                }
                self.record(
                    dir,
                    at,
                    kind,
                    Some(&req.method),
                    Some(&id),
                    size,
                    Some(latency),
                    value,
                )
            }
            Message::Response { .. } => {
                if from_server && !self.client_sent_malformed {
                    self.report(findings, Finding::new(Code::NotificationResponse, format!("Stdout line {line} is a reply with a null or missing id; notifications must never be answered.")).at(Location::stdout_line(line)));
                }
                self.record(dir, at, "response", None, None, size, None, value)
            }
            Message::Invalid { problem, .. } => {
                self.invalid += 1;
                if from_server {
                    self.report(
                        findings,
                        Finding::new(
                            Code::StdoutInvalidJsonRpc,
                            format!(
                                "Invalid JSON-RPC on stdout line {line}: {}.",
                                problem.describe()
                            ),
                        )
                        .detail(problem.detail_code())
                        .at(Location::stdout_line(line)),
                    );
                }
                self.record(dir, at, "invalid", None, None, size, None, value)
            }
        }
    }

    /// What a successful answer to one of the client's requests tells: the negotiated
    /// version, and listings to compare with the first (a mid-session rug pull).
    fn after_result(&mut self, req: &PendingRequest, result: &Value, findings: &mut Vec<Finding>) {
        if req.method == "initialize" {
            self.negotiated = result
                .get("protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_string);
            if let Some(name) = result.pointer("/serverInfo/name").and_then(Value::as_str) {
                if self.server_name == "server" {
                    self.set_server_name(name);
                }
            }
            // Its instructions reach the model before any listing does.
            self.initialize = Some(result.clone());
            self.check_surface(findings);
            return;
        }
        let Some(list) = ListKind::ALL
            .iter()
            .copied()
            .find(|l| l.method() == req.method)
        else {
            return;
        };
        let first_page = !req.next_page;
        let page = self.paging.entry(list).or_default();
        if first_page {
            page.clear();
        }
        if let Some(items) = result.get(list.items_key()).and_then(Value::as_array) {
            page.extend(items.iter().take(10_000).cloned());
        }
        if result
            .get("nextCursor")
            .is_some_and(|c| !c.is_null() && c != "")
        {
            return;
        }
        let listing = std::mem::take(page);
        self.latest_listing.insert(list, listing.clone());
        self.check_surface(findings);
        match self.first_listing.get(&list) {
            None => {
                self.first_listing.insert(list, listing);
            }
            Some(first) => {
                if let Some(change) = describe_change(first, &listing) {
                    self.report(
                        findings,
                        Finding::new(
                            Code::SessionSurfaceDrift,
                            format!(
                                "`{}` changed since the first listing of the session: {change}.",
                                list.method()
                            ),
                        )
                        .at(Location::request(list.method())),
                    );
                }
            }
        }
    }

    pub fn set_server_name(&mut self, name: &str) {
        self.server_name = excerpt(name, 128);
    }

    /// The live security rules over the latest complete listings (rescanned on every
    /// listing, so a list_changed that brings poisoned text is caught when it arrives).
    fn check_surface(&mut self, findings: &mut Vec<Finding>) {
        let get = |k: ListKind| self.latest_listing.get(&k).cloned().unwrap_or_default();
        let surface = crate::surface::ServerSurface {
            server: self.server_name.clone(),
            tools: get(ListKind::Tools),
            prompts: get(ListKind::Prompts),
            resources: get(ListKind::Resources),
            resource_templates: get(ListKind::ResourceTemplates),
        };
        let options = crate::surface::SurfaceOptions {
            only_guard_rules: false,
        };
        let initialize = [self.initialize.clone()];
        for f in crate::surface::check_with_initialize(&[surface], &initialize, &options) {
            self.report(findings, f);
        }
    }

    /// Requests of the client left unanswered past the timeout at `now` (each reported once).
    pub fn check_timeouts(&mut self, now: Instant) -> Vec<Finding> {
        let mut out = Vec::new();
        let timeout = self.timeout;
        let mut late = Vec::new();
        for (id, req) in self.pending[Direction::ClientToServer.index()].iter_mut() {
            if !req.settled && now.saturating_duration_since(req.sent) > timeout {
                req.settled = true;
                late.push((id.clone(), req.method.clone()));
            }
        }
        for (id, method) in late {
            self.report(
                &mut out,
                Finding::new(
                    Code::OperationTimeout,
                    format!(
                        "`{}` (id {id}) has not been answered after {} ms.",
                        excerpt(&method, 80),
                        timeout.as_millis()
                    ),
                )
                .at(Location::request(&method)),
            );
        }
        out
    }

    /// Adds a finding unless the same one (code and place) was already reported.
    fn report(&mut self, out: &mut Vec<Finding>, f: Finding) {
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

    fn count(&mut self, method: &str) {
        if let Some(n) = self.counts.get_mut(method) {
            *n += 1;
            return;
        }
        // Distinct method names are bounded: a peer inventing names cannot grow this.
        let key = excerpt(method, 128);
        let key = if self.counts.len() < MAX_METHODS || self.counts.contains_key(&key) {
            key
        } else {
            OTHER_METHODS.to_string()
        };
        *self.counts.entry(key).or_default() += 1;
    }

    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        dir: Direction,
        at: Instant,
        kind: &'static str,
        method: Option<&str>,
        id: Option<&RequestId>,
        size: usize,
        latency: Option<f64>,
        body: Body,
    ) -> Record {
        Record {
            time_ms: at.saturating_duration_since(self.started).as_secs_f64() * 1000.0,
            direction: dir,
            kind,
            method: method.map(str::to_string),
            id: id.cloned(),
            size,
            latency_ms: latency,
            body,
        }
    }

    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Message counts per method and latency percentiles, for the JSON report.
    pub fn summary(&self) -> Value {
        let mut sorted = self.latencies.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let pct = |p: f64| -> Option<f64> {
            if sorted.is_empty() {
                return None;
            }
            let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
            Some((sorted[i] * 1000.0).round() / 1000.0)
        };
        json!({
            "messages": self.messages,
            "invalid": self.invalid,
            "perMethod": self.counts,
            "latencyMs": {"p50": pct(0.5), "p90": pct(0.9), "p99": pct(0.99), "max": pct(1.0), "samples": sorted.len()},
            "unanswered": self.pending[Direction::ClientToServer.index()].len(),
            "untrackedRequests": self.untracked.iter().sum::<u64>(),
            "unobservedBytes": self.unobserved_bytes.iter().sum::<u64>(),
        })
    }

    /// Bytes the server left without a newline when its stdout closed.
    pub fn finish(&mut self) -> Vec<Finding> {
        let mut out = Vec::new();
        let tail = self
            .splitters
            .get(&Direction::ServerToClient)
            .map(|s| (s.pending.len(), s.line + 1));
        if let Some((len, line)) = tail.filter(|(len, _)| *len > 0) {
            self.report(&mut out, Finding::new(Code::StdoutWithoutNewline, format!("The server wrote {len} bytes on stdout line {line} without the terminating newline; the client never received them as a message.")).at(Location::stdout_line(line)));
        }
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

/// "added x; removed y; changed z" between two listings, by name; order alone is no change.
fn describe_change(first: &[Value], now: &[Value]) -> Option<String> {
    let by_name = |items: &[Value]| -> BTreeMap<String, Value> {
        items
            .iter()
            .map(|i| {
                let name = i
                    .get("name")
                    .or_else(|| i.get("uri"))
                    .or_else(|| i.get("uriTemplate"));
                (name.map(|n| n.to_string()).unwrap_or_default(), i.clone())
            })
            .collect()
    };
    let (a, b) = (by_name(first), by_name(now));
    let names = |keys: Vec<&String>| {
        keys.into_iter()
            .map(|k| excerpt(k.trim_matches('"'), 64))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let added: Vec<&String> = b.keys().filter(|k| !a.contains_key(*k)).collect();
    let removed: Vec<&String> = a.keys().filter(|k| !b.contains_key(*k)).collect();
    let changed: Vec<&String> = a
        .iter()
        .filter(|(k, v)| b.get(*k).is_some_and(|w| w != *v))
        .map(|(k, _)| k)
        .collect();
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!("added {}", names(added)));
    }
    if !removed.is_empty() {
        parts.push(format!("removed {}", names(removed)));
    }
    if !changed.is_empty() {
        parts.push(format!("changed {}", names(changed)));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
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
}
