//! One record as one line of the log: its fields written in place and its message
//! redacted, or copied as it came when nothing in it could be masked.

use super::super::observer::{Batch, Body, Record};
use crate::protocol::jsonrpc::RequestId;
use serde_json::Value;

/// What the records of one batch share as the log writes them: the batch (their lines and
/// names) and each name's JSON text, escaped once a batch instead of once a record.
pub(super) struct Shared<'a> {
    batch: &'a Batch,
    names: Vec<Vec<u8>>,
}

impl<'a> Shared<'a> {
    pub(super) fn new(batch: &'a Batch) -> Self {
        let names = batch
            .names()
            .iter()
            .map(|name| {
                let mut text = Vec::new();
                json(&mut text, &**name);
                text
            })
            .collect();
        Shared { batch, names }
    }
}

/// A record of a batch as one JSON line, its message redacted. A raw line that cannot hold
/// anything to redact (`clean`: its bytes, as [`crate::secrets::json_might_hold_credentials`]
/// found) is copied as it came instead of being parsed and written again.
pub(super) fn write_record(
    record: Record,
    shared: &Shared,
    clean: Option<&[u8]>,
    out: &mut Vec<u8>,
) {
    out.extend_from_slice(b"{\"timeMs\":");
    milliseconds(out, record.time_ms);
    out.extend_from_slice(b",\"direction\":\"");
    out.extend_from_slice(record.direction.name().as_bytes());
    out.extend_from_slice(b"\",\"kind\":\"");
    out.extend_from_slice(record.kind.as_str().as_bytes());
    out.extend_from_slice(b"\",\"method\":");
    match shared
        .batch
        .name_of(&record)
        .and_then(|i| shared.names.get(i))
    {
        Some(text) => out.extend_from_slice(text),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"id\":");
    match &record.id {
        None => out.extend_from_slice(b"null"),
        Some(RequestId::Number(n)) => {
            if *n < 0 {
                out.push(b'-');
            }
            decimal(out, n.unsigned_abs());
        }
        Some(RequestId::String(s)) => json(out, s),
    }
    out.extend_from_slice(b",\"size\":");
    decimal(out, record.size as u64);
    out.extend_from_slice(b",\"latencyMs\":");
    json(out, &record.latency_ms);
    out.extend_from_slice(b",\"message\":");
    match record.body {
        Body::None => out.extend_from_slice(b"null"),
        Body::Raw(line) => match clean {
            Some(text) => out.extend_from_slice(trim(text)),
            None => match serde_json::from_slice::<Value>(shared.batch.raw(line)) {
                Ok(mut v) => {
                    redact(&mut v);
                    json(out, &v);
                }
                Err(_) => out.extend_from_slice(b"null"),
            },
        },
        Body::Value(mut v) => {
            redact(&mut v);
            json(out, &v);
        }
    }
    out.push(b'}');
}

/// Appends a time in milliseconds rounded to the microsecond, as serde_json writes the
/// rounded float, without formatting a float: below 10^12 microseconds (11 days) the
/// shortest text that reads back as the float is the decimal itself, trailing zeros cut (a
/// decimal of at most 15 digits is the only one that short to read as its float).
fn milliseconds(out: &mut Vec<u8>, ms: f64) {
    let rounded = (ms * 1000.0).round() / 1000.0;
    let micros = (ms * 1000.0).round();
    if !(0.0..1e12).contains(&micros) {
        return json(out, &rounded);
    }
    let micros = micros as u64;
    decimal(out, micros / 1000);
    out.push(b'.');
    let fraction = micros % 1000;
    if fraction == 0 {
        out.push(b'0');
        return;
    }
    let text = [
        b'0' + (fraction / 100) as u8,
        b'0' + (fraction / 10 % 10) as u8,
        b'0' + (fraction % 10) as u8,
    ];
    let kept = if fraction.is_multiple_of(100) {
        1
    } else if fraction.is_multiple_of(10) {
        2
    } else {
        3
    };
    out.extend_from_slice(&text[..kept]);
}

/// Appends `n` in decimal, as serde_json writes an integer.
fn decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// ASCII text less the whitespace `str::trim` takes from its ends (in ASCII: tab, line
/// feed, vertical tab, form feed, carriage return, space).
fn trim(text: &[u8]) -> &[u8] {
    let white = |b: &u8| matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ');
    let start = text.iter().position(|b| !white(b)).unwrap_or(text.len());
    let end = text
        .iter()
        .rposition(|b| !white(b))
        .map_or(start, |i| i + 1);
    &text[start..end]
}

/// Appends the JSON text of a value, as serde_json writes it.
fn json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let mark = out.len();
    if serde_json::to_writer(&mut *out, value).is_err() {
        out.truncate(mark);
        out.extend_from_slice(b"null");
    }
}

/// Masks values under credential-named keys and provider tokens anywhere in a record.
pub fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if crate::secrets::might_name_credential(key) && !v.is_object() && !v.is_array() {
                    *v = Value::String("[REDACTED]".into());
                } else {
                    redact(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        Value::String(s) => *s = crate::secrets::mask_tokens(s),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn times_are_written_as_serde_json_writes_the_rounded_float() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut samples = vec![
            0.0, 0.0004, 0.0005, 0.001, 0.01, 0.1, 1.0, 2.5, 999.9995, 1e6,
        ];
        samples.extend([1e9 - 0.0004, 1e9 - 0.0006, 1e9, 1e12, -1.0, f64::NAN]);
        for _ in 0..300_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let scale = [1.0, 1e3, 1e6, 1e9][(state % 4) as usize];
            samples.push((state >> 11) as f64 / (1u64 << 53) as f64 * scale);
        }
        for ms in samples {
            let mut ours = Vec::new();
            milliseconds(&mut ours, ms);
            let mut theirs = Vec::new();
            json(&mut theirs, &((ms * 1000.0).round() / 1000.0));
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs),
                "{ms}"
            );
        }
    }

    /// Integers and ids are written as serde_json writes them; clean text is trimmed as
    /// `str::trim` trims it.
    #[test]
    fn integers_and_trimmed_text_are_written_as_before() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut samples = vec![0, 1, 9, 10, 99, 100, u64::MAX, i64::MAX as u64];
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            samples.push(state >> (state % 64));
        }
        for n in samples {
            let mut ours = Vec::new();
            decimal(&mut ours, n);
            let mut theirs = Vec::new();
            json(&mut theirs, &n);
            assert_eq!(ours, theirs, "{n}");
            let id = n as i64;
            let mut ours = Vec::new();
            if id < 0 {
                ours.push(b'-');
            }
            decimal(&mut ours, id.unsigned_abs());
            let mut theirs = Vec::new();
            json(&mut theirs, &id);
            assert_eq!(ours, theirs, "{id}");
        }
        for text in [
            "",
            " ",
            "{}",
            " \t{\"a\":1}\r\n",
            "\x0b{}\x0c",
            "{ }",
            "\x0e{}",
        ] {
            assert_eq!(trim(text.as_bytes()), text.trim().as_bytes(), "{text:?}");
        }
    }

    #[test]
    fn redacts_credential_keys_and_tokens_anywhere() {
        let mut v = json!({"params": {"arguments": {"apiKey": "abc123", "query": "use ghp_0123456789abcdefghijABCDEFGHIJ0123 now",
            "headers": {"Authorization": "Bearer x"}, "n": 5}}});
        redact(&mut v);
        assert_eq!(v["params"]["arguments"]["apiKey"], "[REDACTED]");
        assert_eq!(
            v["params"]["arguments"]["headers"]["Authorization"],
            "[REDACTED]"
        );
        assert_eq!(v["params"]["arguments"]["query"], "use [REDACTED] now");
        assert_eq!(v["params"]["arguments"]["n"], 5);
    }

    #[test]
    fn clean_lines_are_copied_as_they_came_and_any_line_masking_would_touch_is_parsed() {
        let clean = [
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"42"}]}}"#,
        ];
        for text in clean {
            assert!(!crate::secrets::json_might_hold_credential(text), "{text}");
        }
        // Each of these is changed by masking, so the quick test must send it to parsing.
        let touched = [
            r#"{"params":{"arguments":{"apiKey":"abc"}}}"#,
            r#"{"params":{"api-key":"abc"}}"#,
            r#"{"params":{"X-Pass-Word":"abc"}}"#,
            r#"{"params":{"headers":{"Authorization":"Bearer x"}}}"#,
            r#"{"params":{"sessionCookie":"abc"}}"#,
            r#"{"params":{"key":"abc"}}"#,
            r#"{"result":{"text":"use ghp_Zx8Qm2Lr5Tn7Vb3Kc9Wd1Hy4Jf6Gs0Pa2Xe7 now"}}"#,
            r#"{"result":{"text":"AKIAZ3MQ7RT2VX5LP4WN"}}"#,
            r#"{"params":{"\u0074oken":"abc"}}"#,
        ];
        for text in touched {
            let mut v: Value = serde_json::from_str(text).expect("json");
            let before = v.clone();
            redact(&mut v);
            assert_ne!(v, before, "masking changes {text}");
            assert!(crate::secrets::json_might_hold_credential(text), "{text}");
        }
    }
}
