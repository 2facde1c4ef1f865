//! One line of `proxy --log`, as a type: its schema is generated from it. The log's writer
//! (`log::line::write_record`) puts the bytes together itself, to copy a message that holds
//! nothing to mask as it came instead of parsing and writing it again; the test below reads
//! each kind of line it writes back into this type and writes it again byte for byte, so
//! the two cannot drift.

use super::observer::{Direction, RecordKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One message the proxy saw, in either direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "one line of mcpcheck proxy --log")]
pub struct LogRecord {
    /// Milliseconds since the session started, when the message was read (to the
    /// microsecond).
    pub time_ms: f64,
    pub direction: Direction,
    pub kind: RecordKind,
    /// A request's or notification's method, or for a response the method of the request
    /// it answers; null when there is none.
    pub method: Option<String>,
    /// The message's id; null for a notification and a message without one.
    pub id: Option<LogId>,
    /// The line's size in bytes.
    pub size: u64,
    /// A response to a known request: milliseconds since that request.
    pub latency_ms: Option<f64>,
    /// The message, credential values masked; null when the line was not JSON.
    pub message: Value,
}

/// A JSON-RPC id: an integer or a string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum LogId {
    Number(i64),
    String(String),
}

#[cfg(test)]
mod tests {
    use super::super::log::Line;
    use super::super::observer::{Batch, Body, Record};
    use super::*;
    use crate::protocol::jsonrpc::RequestId;
    use serde_json::json;

    #[test]
    fn every_kind_of_line_the_log_writes_is_a_log_record_byte_for_byte() {
        let clean = br#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#;
        let secret = br#"{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"m","data":{"apiKey":"k-123456"}}}"#;
        let mut notification = Record::for_test(RecordKind::Notification, None, false);
        notification.body =
            Body::Value(json!({"jsonrpc": "2.0", "method": "notifications/progress"}));
        notification.direction = Direction::ClientToServer;
        notification.latency_ms = None;
        let mut invalid = Record::for_test(RecordKind::Invalid, None, false);
        invalid.latency_ms = None;
        let method = Some("tools/call");
        let batches = [
            Batch::single(
                Record::for_test(RecordKind::Response, Some(RequestId::Number(3)), true),
                method,
                clean,
            ),
            Batch::single(
                Record::for_test(RecordKind::Error, Some(RequestId::String("a".into())), true),
                method,
                secret,
            ),
            Batch::single(
                Record::for_test(RecordKind::Request, Some(RequestId::Number(-1)), true),
                method,
                br#"{"jsonrpc":"2.0","id":-1,"method":"tools/call"}"#,
            ),
            Batch::single(notification, method, b""),
            Batch::single(invalid, None, b""),
        ];
        for batch in batches {
            let mut out = Vec::new();
            batch.write(&mut out);
            let text = String::from_utf8(out).expect("utf-8");
            let line = text.strip_suffix('\n').expect("one line");
            let read: LogRecord = serde_json::from_str(line).expect("a log record");
            assert_eq!(serde_json::to_string(&read).expect("json"), line);
        }
    }

    #[test]
    fn directions_and_kinds_are_spelt_as_the_log_spells_them() {
        for d in [Direction::ClientToServer, Direction::ServerToClient] {
            assert_eq!(serde_json::to_value(d).expect("json"), d.name());
        }
        use RecordKind::*;
        for k in [Error, Invalid, Notification, Request, Response] {
            assert_eq!(serde_json::to_value(k).expect("json"), k.as_str());
        }
    }
}
