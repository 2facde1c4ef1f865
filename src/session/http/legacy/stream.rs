//! The legacy stream's reader thread: GET the URL and hand over every event, bounded by the
//! body and event limits of Streamable HTTP, until the session shuts its agent down.

use super::super::post::{self, media_type, BodyProblem, Unreachable};
use super::super::sse::{SseEvent, SseProblem, SseReader};
use super::super::MAX_EVENTS;
use std::io::BufReader;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;

/// What the stream's reader thread hands over.
pub(super) enum StreamItem {
    Opened {
        status: u16,
        content_type: Option<String>,
    },
    Failed(Unreachable),
    Event(SseEvent),
    Problem(BodyProblem),
    Ended,
}

/// The reader thread: GET the URL, then hand over every event until the stream ends, the
/// receiver is gone, a bound is hit, or the session shuts the agent down.
pub(super) fn read_stream(
    agent: &ureq::Agent,
    url: &str,
    headers: &[(String, String)],
    ((max_body, max_event), timeout): ((u64, usize), Duration),
    tx: &UnboundedSender<StreamItem>,
) {
    let mut req = ureq::http::Request::builder()
        .method("GET")
        .uri(url)
        .header("Accept", "text/event-stream");
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let response = match req.body(()) {
        Ok(r) => {
            // The headers must come within the timeout; the stream then lasts the session.
            let r = agent
                .configure_request(r)
                .timeout_global(None)
                .timeout_recv_response(Some(timeout))
                .build();
            agent.run(r).map_err(|e| post::describe(&e))
        }
        Err(e) => Err(e.to_string()),
    };
    let response = match response {
        Ok(r) => r,
        Err(message) => {
            let tls = message.starts_with("TLS");
            let _ = tx.send(StreamItem::Failed(Unreachable {
                tls,
                message,
                reached: false,
            }));
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
    if tx
        .send(StreamItem::Opened {
            status,
            content_type,
        })
        .is_err()
        || status != 200
        || !sse
    {
        return;
    }
    let reader = response
        .into_body()
        .into_with_config()
        .limit(max_body)
        .reader();
    let mut sse = SseReader::new(BufReader::new(reader), max_event);
    let mut count = 0;
    while let Some(event) = sse.next_event() {
        count += 1;
        if count > MAX_EVENTS {
            let _ = tx.send(StreamItem::Problem(BodyProblem::TooManyEvents(MAX_EVENTS)));
            return;
        }
        if !forward_problems(&mut sse.problems, tx) || tx.send(StreamItem::Event(event)).is_err() {
            return;
        }
    }
    forward_problems(&mut sse.problems, tx);
    let _ = tx.send(StreamItem::Ended);
}

/// Hands over the reader's format problems; false when the receiver is gone.
fn forward_problems(problems: &mut Vec<SseProblem>, tx: &UnboundedSender<StreamItem>) -> bool {
    problems.drain(..).all(|p| {
        let problem = match p {
            SseProblem::MalformedLine(l) => {
                BodyProblem::SseMalformedLine(crate::finding::excerpt(&l, 120))
            }
            SseProblem::TooLarge { limit } => BodyProblem::TooLarge(limit),
            // A stream cut short is said by the response it lacked.
            SseProblem::ReadFailed(_) => return true,
        };
        tx.send(StreamItem::Problem(problem)).is_ok()
    })
}
