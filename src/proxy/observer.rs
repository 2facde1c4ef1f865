//! Watches a copy of the proxied traffic: frames it, records every message, and checks it
//! live with the guard's codes. It never touches the bytes that are forwarded.

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
    fn name(self) -> &'static str {
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

/// Splits one direction into lines, recovering after an oversized one.
#[derive(Default)]
struct Splitter {
    pending: Vec<u8>,
    skipping: bool,
    line: u64,
}

struct PendingRequest {
    method: String,
    params: Option<Value>,
    sent: Instant,
    timed_out: bool,
}

/// One observed message, for the log and the stderr line.
pub struct Record {
    pub value: Value,
}

impl Record {
    /// The one-line form for stderr, built only when it is printed.
    pub fn compact(&self) -> String {
        let v = &self.value;
        let arrow = if v["direction"] == "client-to-server" {
            "→"
        } else {
            "←"
        };
        format!(
            "mcpcheck: {arrow} {}{}{} {}B{}",
            v["kind"].as_str().unwrap_or("?"),
            v["method"]
                .as_str()
                .map(|m| format!(" {}", excerpt(m, 60)))
                .unwrap_or_default(),
            match &v["id"] {
                Value::Null => String::new(),
                id => format!(" #{}", excerpt(id.to_string().trim_matches('"'), 40)),
            },
            v["size"],
            v["latencyMs"]
                .as_f64()
                .map(|l| format!(" {l:.1}ms"))
                .unwrap_or_default(),
        )
    }
}

pub struct Observer {
    started: Instant,
    timeout: Duration,
    splitters: HashMap<Direction, Splitter>,
    /// Requests waiting for an answer, by the direction they were sent in.
    pending: HashMap<(Direction, RequestId), PendingRequest>,
    counts: BTreeMap<String, u64>,
    latencies: Vec<f64>,
    negotiated: Option<String>,
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
            pending: HashMap::new(),
            counts: BTreeMap::new(),
            latencies: Vec::new(),
            negotiated: None,
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

    /// Feeds a copy of forwarded bytes; returns the records and the findings they caused.
    pub fn feed(&mut self, dir: Direction, bytes: &[u8]) -> (Vec<Record>, Vec<Finding>) {
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
            self.observe_line(dir, line, raw, &mut records, &mut findings);
        }
        (records, findings)
    }

    fn observe_line(
        &mut self,
        dir: Direction,
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
        let messages: Vec<(Message, Value)> = match content {
            LineContent::Single { message, value } => vec![(message, value)],
            LineContent::Batch { messages } => {
                if from_server && self.negotiated.as_deref() != Some("2025-03-26") {
                    self.report(findings, Finding::new(Code::StdoutInvalidJsonRpc, format!("Stdout line {line} is a JSON array (batch); only the 2025-03-26 revision has batches.")).detail("batch").at(Location::stdout_line(line)));
                }
                messages
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
                records.push(self.record(dir, "invalid", None, None, size, None, Value::Null));
                return;
            }
        };
        for (message, value) in messages {
            self.messages += 1;
            let record = self.observe_message(dir, line, message, value, size, findings);
            records.push(record);
        }
    }

    fn observe_message(
        &mut self,
        dir: Direction,
        line: u64,
        message: Message,
        value: Value,
        size: usize,
        findings: &mut Vec<Finding>,
    ) -> Record {
        let from_server = dir == Direction::ServerToClient;
        let other = match dir {
            Direction::ClientToServer => Direction::ServerToClient,
            Direction::ServerToClient => Direction::ClientToServer,
        };
        match message {
            Message::Request { id, method, params } => {
                *self.counts.entry(method.clone()).or_default() += 1;
                self.pending.insert(
                    (dir, id.clone()),
                    PendingRequest {
                        method: method.clone(),
                        params,
                        sent: Instant::now(),
                        timed_out: false,
                    },
                );
                self.record(dir, "request", Some(&method), Some(&id), size, None, value)
            }
            Message::Notification { method, .. } => {
                *self.counts.entry(method.clone()).or_default() += 1;
                self.record(dir, "notification", Some(&method), None, size, None, value)
            }
            Message::Response {
                id: ResponseId::Id(id),
                outcome,
            } => {
                let kind = if outcome.is_ok() { "response" } else { "error" };
                let Some(req) = self.pending.remove(&(other, id.clone())) else {
                    if from_server {
                        self.report(findings, Finding::new(Code::ResponseIdMismatch, format!("Stdout line {line} answers id {id}, which the client never sent (or already got an answer for).")).detail("unknown-id").at(Location::stdout_line(line)));
                    }
                    return self.record(dir, kind, None, Some(&id), size, None, value);
                };
                let latency = req.sent.elapsed().as_secs_f64() * 1000.0;
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
                self.record(dir, "response", None, None, size, None, value)
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
                self.record(dir, "invalid", None, None, size, None, value)
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
            return;
        }
        let Some(list) = ListKind::ALL
            .iter()
            .copied()
            .find(|l| l.method() == req.method)
        else {
            return;
        };
        let first_page = req.params.as_ref().and_then(|p| p.get("cursor")).is_none();
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
        for f in crate::surface::check(&[surface], &options) {
            self.report(findings, f);
        }
    }

    /// Requests left unanswered past the timeout (each reported once).
    pub fn check_timeouts(&mut self) -> Vec<Finding> {
        let mut out = Vec::new();
        let timeout = self.timeout;
        let mut late = Vec::new();
        for ((dir, id), req) in self.pending.iter_mut() {
            if *dir == Direction::ClientToServer && !req.timed_out && req.sent.elapsed() > timeout {
                req.timed_out = true;
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

    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        dir: Direction,
        kind: &str,
        method: Option<&str>,
        id: Option<&RequestId>,
        size: usize,
        latency: Option<f64>,
        message: Value,
    ) -> Record {
        let at = self.started.elapsed().as_secs_f64() * 1000.0;
        let value = json!({
            "timeMs": (at * 1000.0).round() / 1000.0,
            "direction": dir.name(),
            "kind": kind,
            "method": method,
            "id": id.map(RequestId::to_json),
            "size": size,
            "latencyMs": latency,
            "message": message,
        });
        Record { value }
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
            "unanswered": self.pending.keys().filter(|(d, _)| *d == Direction::ClientToServer).count(),
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
