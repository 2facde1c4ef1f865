//! Benchmark-only stdio MCP server: std only, no allocation-heavy JSON, starts in about a
//! millisecond, so that `bench/run` measures the client side rather than interpreter start-up.
//!
//! One JSON-RPC 2.0 message per line on stdin; one answer per request line on stdout.
//! `initialize`, `ping` and `tools/list` are answered; other requests get -32601;
//! notifications (no `id`) are ignored; the process exits when stdin reaches EOF.
//!
//! The JSON handling is hand-rolled and minimal: it splits the top-level object into
//! `key -> raw value` pairs (strings and nesting are respected) and echoes the `id` verbatim.
//! It is enough for a benchmark, not a general JSON parser.

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]

use std::io::{self, BufRead, Write};

const PROTOCOL_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const LATEST: &str = "2025-11-25";

const TOOLS_RESULT: &str = r#"{"tools":[{"name":"hello","description":"Greets someone by name.","inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"Who to greet."}},"required":["name"]}}]}"#;

fn main() {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut input = stdin.lock();
    let mut out = stdout.lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break, // EOF: the client closed stdin.
            Ok(_) => {}
        }
        let Ok(text) = std::str::from_utf8(&line) else {
            reply_error(&mut out, "null", -32700, "Parse error");
            continue;
        };
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let Some(fields) = object_fields(text) else {
            reply_error(&mut out, "null", -32700, "Parse error");
            continue;
        };
        let field = |name: &str| fields.iter().find(|(k, _)| *k == name).map(|(_, v)| *v);
        let (Some(id), Some(method)) = (field("id"), field("method")) else {
            continue; // A notification, or an answer to us: no reply.
        };
        let result = match string_value(method) {
            Some("initialize") => {
                let requested = field("params")
                    .and_then(object_fields)
                    .and_then(|p| {
                        p.iter()
                            .find(|(k, _)| *k == "protocolVersion")
                            .and_then(|(_, v)| string_value(v))
                    })
                    .filter(|v| PROTOCOL_VERSIONS.contains(v))
                    .unwrap_or(LATEST);
                format!(
                    r#"{{"protocolVersion":"{requested}","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"bench-fast-server","version":"1.0.0"}}}}"#
                )
            }
            Some("ping") => "{}".to_string(),
            Some("tools/list") => TOOLS_RESULT.to_string(),
            _ => {
                reply_error(&mut out, id, -32601, "Method not found");
                continue;
            }
        };
        send(
            &mut out,
            &format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#),
        );
    }
}

fn reply_error(out: &mut impl Write, id: &str, code: i32, message: &str) {
    send(
        out,
        &format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{message}"}}}}"#
        ),
    );
}

/// Writes one line and flushes at once: the client waits for each whole line.
fn send(out: &mut impl Write, line: &str) {
    let ok = out
        .write_all(line.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    if ok.is_err() {
        std::process::exit(0); // The client went away.
    }
}

/// The contents of a JSON string literal, if `raw` is one without escapes (enough for method
/// names and protocol versions).
fn string_value(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['"', '\\'])).then_some(inner)
}

/// Splits a JSON object into `(key, raw value)` pairs at the top level. Keys with escapes are
/// returned raw (without quotes). Returns `None` if `text` is not a well-bracketed object.
fn object_fields(text: &str) -> Option<Vec<(&str, &str)>> {
    let bytes = text.as_bytes();
    let mut i = skip_ws(bytes, 0);
    if bytes.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(bytes, i + 1);
    let mut fields = Vec::new();
    if bytes.get(i) == Some(&b'}') {
        return (skip_ws(bytes, i + 1) == bytes.len()).then_some(fields);
    }
    loop {
        // Key.
        if bytes.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(bytes, i)?;
        let key = &text[i + 1..key_end - 1];
        i = skip_ws(bytes, key_end);
        if bytes.get(i) != Some(&b':') {
            return None;
        }
        // Value: everything up to the next top-level ',' or '}'.
        let start = skip_ws(bytes, i + 1);
        let mut j = start;
        let mut depth = 0usize;
        loop {
            match *bytes.get(j)? {
                b'"' => {
                    j = string_end(bytes, j)?;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth > 0 => depth -= 1,
                b',' | b'}' if depth == 0 => break,
                b']' => return None,
                _ => {}
            }
            j += 1;
        }
        let value = text[start..j].trim_end();
        if value.is_empty() {
            return None;
        }
        fields.push((key, value));
        if bytes[j] == b'}' {
            return (skip_ws(bytes, j + 1) == bytes.len()).then_some(fields);
        }
        i = skip_ws(bytes, j + 1);
    }
}

/// Index just past the closing quote of the string literal that opens at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        match *bytes.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
        i += 1;
    }
    i
}
