//! JSON-RPC 2.0 messages: parsing a stdout line and classifying its envelope.

use super::limits::{is_out_of_range, parser_limit};
pub use super::limits::{JsonLimit, MAX_JSON_DEPTH};
use serde_json::{json, Map, Value};
use std::fmt;

/// A request id as JSON-RPC allows it: a string or an integer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RequestId {
    Number(i64),
    String(String),
}

impl RequestId {
    pub fn to_json(&self) -> Value {
        match self {
            RequestId::Number(n) => json!(n),
            RequestId::String(s) => json!(s),
        }
    }

    fn from_json(value: &Value) -> Option<Self> {
        match value {
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Number),
            _ => None,
        }
    }

    /// The id a lenient peer would match this one to ("1" for 1).
    pub fn loosely_equals(&self, other: &RequestId) -> bool {
        match (self, other) {
            (RequestId::Number(n), RequestId::String(s))
            | (RequestId::String(s), RequestId::Number(n)) => s.trim() == n.to_string(),
            _ => self == other,
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// The `error` member of an error response.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

pub const METHOD_NOT_FOUND: i64 = -32601;
/// 2026-07-28: the request's protocol version is not supported (`data.supported` lists them).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// Why a JSON value is not a valid JSON-RPC 2.0 message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvelopeProblem {
    NotAnObject,
    EmptyBatch,
    MissingVersion,
    WrongVersion,
    MethodNotString,
    InvalidRequestId,
    InvalidParams,
    ResultAndError,
    /// A frame carrying both `method` and `result`/`error` is neither a request nor a response.
    MethodAndResult,
    NeitherResultNorError,
    InvalidResponseId,
    ErrorNotObject,
    ErrorCodeNotInteger,
    ErrorMessageNotString,
    /// An integer id beyond the 64-bit range: no client holds it exactly.
    IdOutOfRange,
}

impl EnvelopeProblem {
    /// Stable detail code carried by the finding.
    pub fn detail_code(self) -> &'static str {
        match self {
            EnvelopeProblem::NotAnObject => "not-an-object",
            EnvelopeProblem::EmptyBatch => "empty-batch",
            EnvelopeProblem::MissingVersion => "missing-jsonrpc",
            EnvelopeProblem::WrongVersion => "wrong-jsonrpc-version",
            EnvelopeProblem::MethodNotString => "method-not-string",
            EnvelopeProblem::InvalidRequestId => "invalid-request-id",
            EnvelopeProblem::InvalidParams => "invalid-params",
            EnvelopeProblem::ResultAndError => "result-and-error",
            EnvelopeProblem::MethodAndResult => "method-and-result",
            EnvelopeProblem::NeitherResultNorError => "neither-result-nor-error",
            EnvelopeProblem::InvalidResponseId => "invalid-response-id",
            EnvelopeProblem::ErrorNotObject => "error-not-object",
            EnvelopeProblem::ErrorCodeNotInteger => "error-code-not-integer",
            EnvelopeProblem::ErrorMessageNotString => "error-message-not-string",
            EnvelopeProblem::IdOutOfRange => "id-out-of-range",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            EnvelopeProblem::NotAnObject => "the JSON value is not an object",
            EnvelopeProblem::EmptyBatch => "an empty array is not a message",
            EnvelopeProblem::MissingVersion => "`jsonrpc` is missing",
            EnvelopeProblem::WrongVersion => "`jsonrpc` is not the string \"2.0\"",
            EnvelopeProblem::MethodNotString => "`method` is not a string",
            EnvelopeProblem::InvalidRequestId => {
                "a request's `id` must be a string or an integer (not null, not a fraction)"
            }
            EnvelopeProblem::InvalidParams => "`params` must be an object or an array",
            EnvelopeProblem::ResultAndError => "a response carries both `result` and `error`",
            EnvelopeProblem::MethodAndResult => {
                "a message carries both `method` and `result` or `error`, so it is neither a request nor a response"
            }
            EnvelopeProblem::NeitherResultNorError => {
                "a response carries neither `result` nor `error`"
            }
            EnvelopeProblem::InvalidResponseId => {
                "a response's `id` must be a string, an integer or null"
            }
            EnvelopeProblem::ErrorNotObject => "`error` is not an object",
            EnvelopeProblem::ErrorCodeNotInteger => "`error.code` is not an integer",
            EnvelopeProblem::ErrorMessageNotString => "`error.message` is not a string",
            EnvelopeProblem::IdOutOfRange => {
                "the `id` is an integer outside the 64-bit range, which clients cannot hold exactly (so they never match it); use a smaller integer or a string"
            }
        }
    }
}

/// The id of a response. Null is allowed only for an error about unparseable input;
/// a missing id is never valid, but both are what a reply to a notification tends to carry.
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseId {
    Id(RequestId),
    Null,
    Missing,
}

/// One classified JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: RequestId,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    Response {
        id: ResponseId,
        outcome: Result<Value, ErrorObject>,
    },
    /// Not a valid message; `id` is kept when present so a session can still match it.
    Invalid {
        problem: EnvelopeProblem,
        id: Option<RequestId>,
    },
}

/// What one line of stdout turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum LineContent {
    Empty,
    InvalidUtf8 {
        valid_up_to: usize,
    },
    ContentLengthHeader,
    NonJson {
        text: String,
    },
    /// A complete JSON text that a parser limit refuses: not "not JSON", but no message either.
    BeyondParserLimits {
        limit: JsonLimit,
    },
    Single {
        message: Message,
        value: Value,
    },
    /// A JSON array: each element classified on its own.
    Batch {
        messages: Vec<(Message, Value)>,
    },
}

/// Decodes and classifies one line (terminator already removed).
pub fn parse_line(bytes: &[u8]) -> LineContent {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            return LineContent::InvalidUtf8 {
                valid_up_to: e.valid_up_to(),
            }
        }
    };
    if text.trim().is_empty() {
        return LineContent::Empty;
    }
    if is_content_length_header(text) {
        return LineContent::ContentLengthHeader;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => {
            if items.is_empty() {
                let message = Message::Invalid {
                    problem: EnvelopeProblem::EmptyBatch,
                    id: None,
                };
                return LineContent::Single {
                    message,
                    value: Value::Array(items),
                };
            }
            let messages = items.into_iter().map(|v| (classify(&v), v)).collect();
            LineContent::Batch { messages }
        }
        Ok(value) => LineContent::Single {
            message: classify(&value),
            value,
        },
        Err(e) => match parser_limit(&e, text) {
            Some(limit) => LineContent::BeyondParserLimits { limit },
            None => LineContent::NonJson {
                text: text.to_string(),
            },
        },
    }
}

fn is_content_length_header(text: &str) -> bool {
    text.len() >= 15 && text.as_bytes()[..15].eq_ignore_ascii_case(b"content-length:")
}

/// Classifies a JSON value as a JSON-RPC 2.0 message.
pub fn classify(value: &Value) -> Message {
    let Some(obj) = value.as_object() else {
        return invalid(EnvelopeProblem::NotAnObject, None);
    };
    let raw_id = obj.get("id");
    let loose_id = raw_id.and_then(RequestId::from_json);
    match obj.get("jsonrpc") {
        None => return invalid(EnvelopeProblem::MissingVersion, loose_id),
        Some(v) if v != "2.0" => return invalid(EnvelopeProblem::WrongVersion, loose_id),
        _ => {}
    }
    if let Some(method) = obj.get("method") {
        if obj.contains_key("result") || obj.contains_key("error") {
            // No id is kept: a client reads it as a request, so it answers nothing.
            return invalid(EnvelopeProblem::MethodAndResult, None);
        }
        return classify_call(obj, method, raw_id);
    }
    classify_response(obj, raw_id, loose_id)
}

fn invalid(problem: EnvelopeProblem, id: Option<RequestId>) -> Message {
    Message::Invalid { problem, id }
}

fn classify_call(obj: &Map<String, Value>, method: &Value, raw_id: Option<&Value>) -> Message {
    let Some(method) = method.as_str() else {
        return invalid(EnvelopeProblem::MethodNotString, None);
    };
    let params = obj.get("params").cloned();
    if matches!(&params, Some(p) if !p.is_object() && !p.is_array()) {
        return invalid(
            EnvelopeProblem::InvalidParams,
            raw_id.and_then(RequestId::from_json),
        );
    }
    match raw_id {
        None => Message::Notification {
            method: method.to_string(),
            params,
        },
        Some(raw) => match RequestId::from_json(raw) {
            Some(id) if !is_fractional(raw) => Message::Request {
                id,
                method: method.to_string(),
                params,
            },
            _ if is_out_of_range(raw) => invalid(EnvelopeProblem::IdOutOfRange, None),
            _ => invalid(EnvelopeProblem::InvalidRequestId, None),
        },
    }
}

fn is_fractional(v: &Value) -> bool {
    matches!(v, Value::Number(n) if n.as_i64().is_none())
}

fn classify_response(
    obj: &Map<String, Value>,
    raw_id: Option<&Value>,
    loose_id: Option<RequestId>,
) -> Message {
    let id = match raw_id {
        None => ResponseId::Missing,
        Some(Value::Null) => ResponseId::Null,
        Some(raw) => match RequestId::from_json(raw) {
            Some(id) if !is_fractional(raw) => ResponseId::Id(id),
            _ if is_out_of_range(raw) => return invalid(EnvelopeProblem::IdOutOfRange, None),
            _ => return invalid(EnvelopeProblem::InvalidResponseId, None),
        },
    };
    let outcome = match (obj.get("result"), obj.get("error")) {
        (Some(_), Some(_)) => return invalid(EnvelopeProblem::ResultAndError, loose_id),
        (None, None) => return invalid(EnvelopeProblem::NeitherResultNorError, loose_id),
        (Some(result), None) => Ok(result.clone()),
        (None, Some(error)) => match parse_error_object(error) {
            Ok(e) => Err(e),
            Err(problem) => return invalid(problem, loose_id),
        },
    };
    // Null and missing ids are kept as responses: whether they are a reply to a
    // notification or a broken envelope depends on what the peer sent, which the session knows.
    Message::Response { id, outcome }
}

fn parse_error_object(error: &Value) -> Result<ErrorObject, EnvelopeProblem> {
    let obj = error.as_object().ok_or(EnvelopeProblem::ErrorNotObject)?;
    let code = obj
        .get("code")
        .and_then(Value::as_i64)
        .ok_or(EnvelopeProblem::ErrorCodeNotInteger)?;
    let message = obj
        .get("message")
        .and_then(Value::as_str)
        .ok_or(EnvelopeProblem::ErrorMessageNotString)?;
    Ok(ErrorObject {
        code,
        message: message.to_string(),
        data: obj.get("data").cloned(),
    })
}

/// Serialises a request for the wire: one line, terminated by `\n`.
pub fn encode_request(id: &RequestId, method: &str, params: Option<&Value>) -> Vec<u8> {
    let mut msg = json!({"jsonrpc": "2.0", "id": id.to_json(), "method": method});
    if let Some(p) = params {
        msg["params"] = p.clone();
    }
    encode(&msg)
}

pub fn encode_notification(method: &str, params: Option<&Value>) -> Vec<u8> {
    let mut msg = json!({"jsonrpc": "2.0", "method": method});
    if let Some(p) = params {
        msg["params"] = p.clone();
    }
    encode(&msg)
}

pub fn encode_result(id: &RequestId, result: Value) -> Vec<u8> {
    encode(&json!({"jsonrpc": "2.0", "id": id.to_json(), "result": result}))
}

pub fn encode_error(id: &RequestId, code: i64, message: &str) -> Vec<u8> {
    encode(
        &json!({"jsonrpc": "2.0", "id": id.to_json(), "error": {"code": code, "message": message}}),
    )
}

fn encode(msg: &Value) -> Vec<u8> {
    let mut line = msg.to_string().into_bytes();
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn single(line: &str) -> Message {
        match parse_line(line.as_bytes()) {
            LineContent::Single { message, .. } => message,
            other => panic!("expected a single message, got {other:?}"),
        }
    }

    fn problem(line: &str) -> EnvelopeProblem {
        match single(line) {
            Message::Invalid { problem, .. } => problem,
            other => panic!("expected an invalid message, got {other:?}"),
        }
    }

    #[test]
    fn classifies_valid_messages() {
        assert_eq!(
            single(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Message::Response {
                id: ResponseId::Id(RequestId::Number(1)),
                outcome: Ok(json!({}))
            }
        );
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#),
            Message::Request {
                id: RequestId::String(_),
                ..
            }
        ));
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#),
            Message::Notification { .. }
        ));
        assert!(matches!(
            single(
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
            ),
            Message::Response {
                id: ResponseId::Null,
                outcome: Err(_)
            }
        ));
    }

    #[test]
    fn names_each_envelope_problem() {
        assert_eq!(problem("42"), EnvelopeProblem::NotAnObject);
        assert_eq!(problem("[]"), EnvelopeProblem::EmptyBatch);
        assert_eq!(
            problem(r#"{"id":1,"result":{}}"#),
            EnvelopeProblem::MissingVersion
        );
        assert_eq!(
            problem(r#"{"jsonrpc":"1.0","id":1,"result":{}}"#),
            EnvelopeProblem::WrongVersion
        );
        assert_eq!(
            problem(r#"{"jsonrpc":"2.0","id":1,"method":7}"#),
            EnvelopeProblem::MethodNotString
        );
        assert_eq!(
            problem(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            EnvelopeProblem::InvalidRequestId
        );
        assert_eq!(
            problem(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            EnvelopeProblem::InvalidRequestId
        );
        assert_eq!(
            problem(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}"#),
            EnvelopeProblem::ResultAndError
        );
        assert_eq!(
            problem(r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#),
            EnvelopeProblem::MethodAndResult
        );
        assert_eq!(
            problem(r#"{"jsonrpc":"2.0","method":"ping","error":{"code":1,"message":"x"}}"#),
            EnvelopeProblem::MethodAndResult
        );
        assert_eq!(
            problem(r#"{"jsonrpc":"2.0","id":1}"#),
            EnvelopeProblem::NeitherResultNorError
        );
        assert_eq!(
            problem(r#"{"jsonrpc":"2.0","id":1,"error":{"code":"-32601","message":"x"}}"#),
            EnvelopeProblem::ErrorCodeNotInteger
        );
        assert_eq!(
            problem(r#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"#),
            EnvelopeProblem::ErrorMessageNotString
        );
        assert_eq!(
            problem(r#"{"jsonrpc":"2.0","id":true,"result":{}}"#),
            EnvelopeProblem::InvalidResponseId
        );
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","result":{}}"#),
            Message::Response {
                id: ResponseId::Missing,
                ..
            }
        ));
    }

    #[test]
    fn keeps_the_id_of_an_invalid_response_for_matching() {
        assert_eq!(
            single(r#"{"jsonrpc":"1.0","id":3,"result":{}}"#),
            Message::Invalid {
                problem: EnvelopeProblem::WrongVersion,
                id: Some(RequestId::Number(3))
            }
        );
    }

    #[test]
    fn recognises_non_json_lines() {
        assert_eq!(parse_line(b""), LineContent::Empty);
        assert_eq!(
            parse_line(b"Content-Length: 52"),
            LineContent::ContentLengthHeader
        );
        assert!(matches!(
            parse_line(b"Server started"),
            LineContent::NonJson { .. }
        ));
        assert_eq!(
            parse_line(b"ok \xff"),
            LineContent::InvalidUtf8 { valid_up_to: 3 }
        );
        assert!(matches!(
            parse_line(br#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#),
            LineContent::Batch { .. }
        ));
    }

    #[test]
    fn ids_match_loosely_across_types() {
        assert!(RequestId::Number(1).loosely_equals(&RequestId::String("1".into())));
        assert!(!RequestId::Number(1).loosely_equals(&RequestId::String("2".into())));
    }
}
