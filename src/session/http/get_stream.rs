//! The standalone GET stream, open from `notifications/initialized` to the end of the
//! session: a thread reads its events within the bounds and hands every JSON-RPC message to
//! the session as a frame, as a POST stream's messages are. What only this stream can get
//! wrong (a response on it, broken events) is recorded for the checks.

use super::post::{self, media_type, BodyProblem, Outgoing};
use super::sse::{SseProblem, SseReader};
use serde_json::Value;
use std::io::{BufReader, Read};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

/// What the GET stream did, for the checks and the report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GetStreamRecord {
    /// `None` when the GET got no HTTP answer before the session ended.
    pub status: Option<u16>,
    pub event_stream: bool,
    /// `event:` of the first event (a legacy server's `endpoint`).
    pub first_event: Option<String>,
    pub events: usize,
    /// JSON-RPC messages handed to the session (requests and notifications).
    pub messages: usize,
    /// Messages that came after the session stopped reading (not checked).
    pub unread: usize,
    pub bytes: u64,
    /// Ids (JSON text, cut) of responses on the stream: never handed to the session.
    pub responses: Vec<String>,
    pub problems: Vec<BodyProblem>,
    pub last_event_id: Option<String>,
    pub retry_ms: Option<u64>,
    /// The server closed the stream (or it broke) before the session ended.
    pub ended_by_server: bool,
    /// Why the GET got no answer, when it got none.
    pub unreachable: Option<String>,
    /// The guard is closing the stream: a read error from now on is ours.
    closing: bool,
}

/// The open stream: its own agent (so shutting it down drops only this connection), the
/// reading thread and the messages it read.
pub struct GetStream {
    agent: ureq::Agent,
    thread: Option<JoinHandle<()>>,
    rx: UnboundedReceiver<Vec<u8>>,
    record: Arc<Mutex<GetStreamRecord>>,
}

impl GetStream {
    /// Opens the stream in the background; `out` is a GET with the session's headers.
    pub fn open(agent: ureq::Agent, out: Outgoing) -> Self {
        let (tx, rx) = unbounded_channel();
        let record = Arc::new(Mutex::new(GetStreamRecord::default()));
        let thread = {
            let (agent, record) = (agent.clone(), record.clone());
            std::thread::Builder::new()
                .name("mcpcheck-get-stream".into())
                .spawn(move || read(&agent, &out, &tx, &record))
                .ok()
        };
        Self {
            agent,
            thread,
            rx,
            record,
        }
    }

    /// The next message the stream carried; `None` once it ended. Cancel-safe.
    pub async fn next_message(&mut self) -> Option<Vec<u8>> {
        self.rx.recv().await
    }

    /// Drops the connection, waits for the thread and hands back what the stream did.
    pub async fn close(mut self) -> GetStreamRecord {
        lock(&self.record).closing = true;
        self.agent.clone().shutdown();
        if let Some(thread) = self.thread.take() {
            // A connect in progress is bounded by the connect timeout, not by the shutdown.
            let _ = tokio::task::spawn_blocking(move || thread.join()).await;
        }
        self.rx.close();
        let mut unread = 0;
        while self.rx.try_recv().is_ok() {
            unread += 1;
        }
        let mut record = lock(&self.record).clone();
        record.unread = unread;
        record.messages -= unread.min(record.messages);
        record
    }
}

impl Drop for GetStream {
    /// A session dropped without `close` still leaves no reader behind.
    fn drop(&mut self) {
        self.agent.clone().shutdown();
    }
}

fn lock(record: &Mutex<GetStreamRecord>) -> std::sync::MutexGuard<'_, GetStreamRecord> {
    record.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The body reader, cut at the byte limit with a flag saying so.
struct Limited<R> {
    inner: R,
    left: u64,
    hit: Arc<Mutex<bool>>,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            *self.hit.lock().unwrap_or_else(PoisonError::into_inner) = true;
            return Ok(0);
        }
        let max = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..max])?;
        self.left -= n as u64;
        Ok(n)
    }
}

fn read(
    agent: &ureq::Agent,
    out: &Outgoing,
    tx: &UnboundedSender<Vec<u8>>,
    record: &Mutex<GetStreamRecord>,
) {
    let mut req = ureq::http::Request::builder().method("GET").uri(&out.url);
    for (k, v) in &out.headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let response = req.body(()).map_err(|e| e.to_string()).and_then(|r| {
        // The headers must come within the timeout; the stream then lasts the session.
        let r = agent
            .configure_request(r)
            .timeout_global(None)
            .timeout_recv_response(Some(out.timeout))
            .build();
        agent.run(r).map_err(|e| post::describe(&e))
    });
    let response = match response {
        Ok(r) => r,
        Err(message) => {
            lock(record).unreachable = Some(message);
            return;
        }
    };
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let sse = media_type(content_type.as_deref()).as_deref() == Some("text/event-stream");
    {
        let mut r = lock(record);
        r.status = Some(status);
        r.event_stream = sse;
    }
    if status != 200 || !sse {
        return;
    }
    let hit = Arc::new(Mutex::new(false));
    let body = Limited {
        inner: response.into_body().into_reader(),
        left: out.max_body_bytes,
        hit: hit.clone(),
    };
    let mut reader = SseReader::new(BufReader::new(body), out.max_event_bytes);
    while let Some(event) = reader.next_event() {
        let mut r = lock(record);
        r.events += 1;
        if r.events == 1 {
            r.first_event.clone_from(&event.event);
        }
        if r.events > out.max_events {
            r.problems.push(BodyProblem::TooManyEvents(out.max_events));
            break;
        }
        r.bytes += event.data.len() as u64;
        if event.event.as_deref().is_some_and(|e| e != "message") {
            // Another kind of event carries no message; a legacy `endpoint` ends the read.
            if r.events == 1 && event.event.as_deref() == Some("endpoint") {
                break;
            }
            continue;
        }
        match serde_json::from_slice::<Value>(&event.data) {
            Ok(v) if post::is_response(&v) => {
                let id = v.get("id").map(Value::to_string).unwrap_or_default();
                r.responses.push(crate::finding::excerpt(&id, 60));
            }
            Ok(_) => {
                r.messages += 1;
                if tx.send(event.data).is_err() {
                    break;
                }
            }
            Err(_) => r
                .problems
                .push(BodyProblem::SseDataNotJson(post::excerpt_bytes(
                    &event.data,
                ))),
        }
    }
    let mut r = lock(record);
    r.last_event_id = reader
        .last_id
        .as_deref()
        .map(|id| crate::finding::excerpt(id, 60));
    r.retry_ms = reader.retry_ms;
    let over_limit = *hit.lock().unwrap_or_else(PoisonError::into_inner);
    if over_limit && !r.closing {
        r.problems.push(BodyProblem::TooLarge(
            usize::try_from(out.max_body_bytes).unwrap_or(usize::MAX),
        ));
    }
    for p in reader.problems {
        match p {
            SseProblem::MalformedLine(l) => {
                r.problems
                    .push(BodyProblem::SseMalformedLine(crate::finding::excerpt(
                        &l, 120,
                    )))
            }
            SseProblem::TooLarge { limit } => r.problems.push(BodyProblem::TooLarge(limit)),
            // A server may drop the stream at any time; our own shutdown ends it too.
            SseProblem::ReadFailed(_) => {}
        }
    }
    r.ended_by_server = !r.closing;
}

impl super::HttpTransport {
    /// A GET with the session's headers, asking for an event stream.
    pub(super) fn get_request(&self, timeout: std::time::Duration) -> Outgoing {
        let mut get = self.outgoing(None, None, timeout);
        get.method = "GET";
        get.headers.retain(|(n, _)| n != "Content-Type");
        for (name, value) in &mut get.headers {
            if name == "Accept" {
                *value = "text/event-stream".into();
            }
        }
        get
    }

    pub(super) fn open_get_stream(&mut self) {
        let agent = super::client::agent(self.timeout, self.timeout);
        self.get = Some(GetStream::open(agent, self.get_request(self.timeout)));
    }

    /// Closes the stream (before DELETE) and records what it did, as the GET probe would.
    pub(super) async fn close_get_stream(&mut self) {
        let Some(get) = self.get.take() else {
            return;
        };
        let r = get.close().await;
        if let Some(status) = r.status {
            self.record.probes.get = Some((status, r.event_stream, r.first_event.clone()));
        }
        for problem in &r.problems {
            self.record.facts.push(super::HttpFact::Body {
                method: "GET".into(),
                problem: problem.clone(),
            });
        }
        self.record.get_stream = Some(r);
    }
}
