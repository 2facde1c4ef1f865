//! What the server sent unasked: requests for client capabilities the guard never declared,
//! and floods of notifications or requests.

use super::{Check, CheckContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::protocol::jsonrpc::{LineContent, Message};
use crate::server_traffic::{
    undeclared_capability, undeclared_capability_finding, FloodMeter, MessageAt, Unasked,
};
use crate::session::transcript::Transcript;
use serde_json::json;

pub struct ServerTraffic;

impl Check for ServerTraffic {
    fn name(&self) -> &'static str {
        "serverTraffic"
    }

    fn codes(&self) -> &'static [Code] {
        &[
            Code::ServerRequestUndeclaredCapability,
            Code::ServerMessageFlood,
        ]
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        let t = cx.transcript;
        // The guard's initialize declares no client capabilities (`"capabilities": {}`).
        let declared = json!({});
        for (method, seen) in &t.server_requests.by_method {
            if let Some(capability) = undeclared_capability(method, &declared) {
                out.push(undeclared_capability_finding(
                    method,
                    capability,
                    seen.count,
                    MessageAt {
                        line: seen.first_line,
                        over_http: t.http.is_some(),
                    },
                ));
            }
        }
        out.extend(floods(t));
    }
}

/// Every notification and request of the server, metered per method by arrival time.
fn floods(t: &Transcript) -> Vec<Finding> {
    let mut meter = FloodMeter::default();
    meter.over_http = t.http.is_some();
    for frame in &t.frames {
        let messages: Box<dyn Iterator<Item = &Message>> = match &frame.content {
            LineContent::Single { message, .. } => Box::new(std::iter::once(message)),
            LineContent::Batch { messages } => Box::new(messages.iter().map(|(m, _)| m)),
            _ => continue,
        };
        for message in messages {
            let (kind, method) = match message {
                Message::Notification { method, .. } => (Unasked::Notification, method),
                Message::Request { method, .. } => (Unasked::Request, method),
                _ => continue,
            };
            meter.record(kind, method, frame.at_ms, frame.line);
        }
    }
    meter.findings()
}
