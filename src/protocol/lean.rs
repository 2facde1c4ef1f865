//! A fast reading of the common line: one JSON object holding a valid request, notification
//! or successful response, classified from the raw text of its members without building a
//! JSON value. Anything else (batches, invalid envelopes, error responses, escapes, text
//! near a parser limit, duplicate members) gets `None`, and is left to
//! [`super::jsonrpc::parse_line`], whose classification this one equals where it answers.

use super::jsonrpc::RequestId;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

/// One valid message, its members as raw JSON text.
#[derive(Debug, Clone)]
pub enum LeanMessage<'a> {
    Request {
        id: RequestId,
        method: &'a str,
        params: Option<&'a RawValue>,
    },
    Notification {
        method: &'a str,
        params: Option<&'a RawValue>,
    },
    /// A response carrying `result` and an id that is a string or an integer.
    Result { id: RequestId, result: &'a RawValue },
}

/// The members classification reads; a member given twice makes the derive fail (and the
/// line goes to the full parse, where the last one counts).
#[derive(Deserialize)]
struct Members<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// A member that is there, `null` included (`Option` alone would read `null` as absent).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// The line (terminator removed) as one valid message, when it is the common kind.
pub fn read(text: &str) -> Option<LeanMessage<'_>> {
    if !plain(text.as_bytes()) {
        return None;
    }
    let m: Members = serde_json::from_str(text).ok()?;
    if m.jsonrpc?.get() != "\"2.0\"" {
        return None;
    }
    if let Some(method) = m.method {
        if m.result.is_some() || m.error.is_some() {
            return None;
        }
        let method = string(method)?;
        if m.params.is_some_and(|p| !p.get().starts_with(['{', '['])) {
            return None;
        }
        return Some(match m.id {
            None => LeanMessage::Notification {
                method,
                params: m.params,
            },
            Some(id) => LeanMessage::Request {
                id: request_id(id)?,
                method,
                params: m.params,
            },
        });
    }
    if m.error.is_some() {
        return None;
    }
    Some(LeanMessage::Result {
        id: request_id(m.id?)?,
        result: m.result?,
    })
}

/// Text that the full parse reads exactly as the lean one does: no escapes (a string is its
/// text, and every `"` opens or closes one), no control bytes, and outside strings no
/// exponent and no run of digits long enough to overflow a float (the full parse refuses
/// those numbers) and too few brackets to reach its depth limit (the lean parse has none).
fn plain(bytes: &[u8]) -> bool {
    let mut in_string = false;
    let mut brackets = 0usize;
    let mut digits = 0usize;
    for &b in bytes {
        match b {
            b'\\' | 0..=0x1f => return false,
            b'"' => in_string = !in_string,
            _ if in_string => {}
            b'{' | b'[' => brackets += 1,
            b'e' | b'E' if digits > 0 => return false,
            _ => {}
        }
        digits = if !in_string && b.is_ascii_digit() {
            digits + 1
        } else {
            0
        };
        if digits >= 300 {
            return false;
        }
    }
    brackets <= 64
}

/// The text of a JSON string without escapes.
fn string(raw: &RawValue) -> Option<&str> {
    raw.get().strip_prefix('"')?.strip_suffix('"')
}

/// A request id as the full parse reads it: a string, or an integer within i64 (`-0` is a
/// float to serde_json, so an invalid id).
fn request_id(raw: &RawValue) -> Option<RequestId> {
    let text = raw.get();
    if let Some(s) = string(raw) {
        return Some(RequestId::String(s.to_string()));
    }
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || text == "-0" {
        return None;
    }
    text.parse().ok().map(RequestId::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::jsonrpc::{parse_line, LineContent, Message, ResponseId};

    /// What the full parse makes of a line the lean one read, in the lean one's terms.
    fn agrees(line: &str) {
        let lean = read(line).expect("lean reads it");
        let LineContent::Single { message, .. } = parse_line(line.as_bytes()) else {
            panic!("the full parse does not see one message in {line}")
        };
        let params_of = |p: Option<&RawValue>| {
            p.map(|p| serde_json::from_str::<serde_json::Value>(p.get()).expect("json"))
        };
        match (lean, message) {
            (
                LeanMessage::Request { id, method, params },
                Message::Request {
                    id: full_id,
                    method: full_method,
                    params: full_params,
                },
            ) => {
                assert_eq!(id, full_id, "{line}");
                assert_eq!(method, full_method, "{line}");
                assert_eq!(params_of(params), full_params, "{line}");
            }
            (
                LeanMessage::Notification { method, params },
                Message::Notification {
                    method: full_method,
                    params: full_params,
                },
            ) => {
                assert_eq!(method, full_method, "{line}");
                assert_eq!(params_of(params), full_params, "{line}");
            }
            (
                LeanMessage::Result { id, result },
                Message::Response {
                    id: ResponseId::Id(full_id),
                    outcome: Ok(full_result),
                },
            ) => {
                assert_eq!(id, full_id, "{line}");
                assert_eq!(params_of(Some(result)), Some(full_result), "{line}");
            }
            (lean, full) => panic!("{line}: lean {lean:?}, full {full:?}"),
        }
    }

    #[test]
    fn the_common_messages_read_as_the_full_parse_reads_them() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
            r#"  {"method":"ping","id":"a b","jsonrpc":"2.0"}  "#,
            r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"x","params":[1,2.5,null]}"#,
            r#"{"jsonrpc":"2.0","id":9223372036854775807,"result":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":0,"result":null,"extra":{"deep":[[{}]]}}"#,
            r#"{"jsonrpc":"2.0","id":"ü","result":{"text":"héllo 1.5"}}"#,
            r#"{"jsonrpc":"2.0","id":"1e5","result":{"uuid":"3e4f-12E9","s":"[[[[{{{{"}}"#,
        ] {
            agrees(line);
        }
    }

    #[test]
    fn anything_unusual_is_left_to_the_full_parse() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let long_number = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{}}}"#, "9".repeat(400));
        for line in [
            // Invalid envelopes, each of which the full parse names.
            r#"{"id":1,"method":"x"}"#,
            r#"{"jsonrpc":"2.1","id":1,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":-0,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":9223372036854775808,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            // Valid, but not the common kind.
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
            r#"[{"jsonrpc":"2.0","method":"x"}]"#,
            // What the full parse reads differently or refuses.
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x\u0041"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"n":1e400}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"n":1E4}}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"a\tb\"}",
            &deep,
            &long_number,
            r#"{"jsonrpc":"2.0","id":1,"result":{}} x"#,
            "not json",
        ] {
            assert!(read(line).is_none(), "{line}");
        }
    }
}
