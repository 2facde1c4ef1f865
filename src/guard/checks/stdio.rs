//! The stdio transport: is stdout exactly one JSON message per `\n`-terminated line?

use super::{line_list, plural, Check, CheckContext};
use crate::catalog::Code;
use crate::finding::{Finding, Location};
use crate::protocol::jsonrpc::LineContent;
use crate::session::transcript::{Frame, StreamEnd, Transcript};

pub struct StdioTransport;

impl Check for StdioTransport {
    fn name(&self) -> &'static str {
        "stdioTransport"
    }

    fn codes(&self) -> &'static [Code] {
        &[
            Code::StdoutNonJson,
            Code::StdoutEmptyLine,
            Code::StdoutContentLengthFraming,
            Code::StdoutWithoutNewline,
            Code::StdoutLineTooLarge,
            Code::StdoutOutputLimitExceeded,
            Code::StdoutInvalidUtf8,
            Code::StdoutCarriageReturn,
        ]
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        let t = cx.transcript;
        let lsp_framed = t
            .frames
            .iter()
            .any(|f| f.content == LineContent::ContentLengthHeader);
        if lsp_framed {
            // One root cause: the blank separators, \r\n and glued bodies are all part of it.
            let headers = lines_where(t, |f| f.content == LineContent::ContentLengthHeader);
            out.push(
                Finding::new(
                    Code::StdoutContentLengthFraming,
                    format!(
                        "The server framed its output with LSP-style Content-Length headers ({} at stdout line {}); MCP stdio is newline-delimited JSON.",
                        plural(headers.len(), "header", "headers"),
                        line_list(&headers)
                    ),
                )
                .at(Location::stdout_line(headers[0])),
            );
        }
        non_json(t, lsp_framed, out);
        let invalid_utf8 = lines_where(t, |f| matches!(f.content, LineContent::InvalidUtf8 { .. }));
        if let Some(&first) = invalid_utf8.first() {
            out.push(
                Finding::new(
                    Code::StdoutInvalidUtf8,
                    format!(
                        "{} on stdout not valid UTF-8 (line {}).",
                        plural(invalid_utf8.len(), "line is", "lines are"),
                        line_list(&invalid_utf8)
                    ),
                )
                .at(Location::stdout_line(first)),
            );
        }
        if !lsp_framed {
            empty_and_cr(t, out);
            without_newline(t, out);
        }
        limits(t, out);
    }
}

fn lines_where(t: &Transcript, pred: impl Fn(&Frame) -> bool) -> Vec<u64> {
    t.frames
        .iter()
        .filter(|f| pred(f))
        .map(|f| f.line)
        .collect()
}

fn non_json(t: &Transcript, lsp_framed: bool, out: &mut Vec<Finding>) {
    let offending: Vec<&Frame> = t
        .frames
        .iter()
        .filter(|f| match &f.content {
            LineContent::NonJson { text } => !(lsp_framed && contains_header(text)),
            _ => false,
        })
        .collect();
    let Some(first) = offending.first() else {
        return;
    };
    let LineContent::NonJson { text } = &first.content else {
        return;
    };
    let lines: Vec<u64> = offending.iter().map(|f| f.line).collect();
    let (detail, cause) = if text.starts_with('\u{feff}') {
        (
            "byte-order-mark",
            " The line starts with a UTF-8 byte-order mark.",
        )
    } else if is_pretty_printed(t, first.line) {
        (
            "multi-line-json",
            " The server pretty-prints JSON across lines; write each message on one line.",
        )
    } else {
        ("plain-text", "")
    };
    out.push(
        Finding::new(
            Code::StdoutNonJson,
            format!(
                "{} on stdout not JSON (line {}), first {}: a client fails to parse them.{cause}",
                plural(lines.len(), "line is", "lines are"),
                line_list(&lines),
                first.phase.describe()
            ),
        )
        .detail(detail)
        .at(Location::stdout_line(first.line))
        .evidence(text),
    );
}

/// Whether the lines from `start` on, joined, form one JSON value: a message split across lines.
fn is_pretty_printed(t: &Transcript, start: u64) -> bool {
    const MAX_LINES: usize = 2000;
    let mut joined = String::new();
    let frames = t
        .frames
        .iter()
        .skip_while(|f| f.line < start)
        .take(MAX_LINES);
    for (i, frame) in frames.enumerate() {
        let LineContent::NonJson { text } = &frame.content else {
            return false;
        };
        if i == 0 && !text.trim_start().starts_with(['{', '[']) {
            return false;
        }
        joined.push_str(text);
        joined.push('\n');
        if text.trim_end().ends_with(['}', ']'])
            && serde_json::from_str::<serde_json::Value>(&joined).is_ok()
        {
            return true;
        }
    }
    false
}

fn contains_header(text: &str) -> bool {
    text.to_ascii_lowercase().contains("content-length:")
}

fn empty_and_cr(t: &Transcript, out: &mut Vec<Finding>) {
    let empty = lines_where(t, |f| f.content == LineContent::Empty);
    if let Some(&first) = empty.first() {
        out.push(
            Finding::new(
                Code::StdoutEmptyLine,
                format!(
                    "{} on stdout (line {}).",
                    plural(empty.len(), "empty line", "empty lines"),
                    line_list(&empty)
                ),
            )
            .at(Location::stdout_line(first)),
        );
    }
    let cr = lines_where(t, |f| f.had_carriage_return);
    if let Some(&first) = cr.first() {
        out.push(
            Finding::new(
                Code::StdoutCarriageReturn,
                format!(
                    "{} on stdout end in \\r\\n instead of \\n (line {}).",
                    plural(cr.len(), "line", "lines"),
                    line_list(&cr)
                ),
            )
            .at(Location::stdout_line(first)),
        );
    }
}

fn without_newline(t: &Transcript, out: &mut Vec<Finding>) {
    let Some(tail) = &t.unterminated else { return };
    if matches!(t.stream_end, Some(StreamEnd::OutputLimit { .. })) {
        // The guard cut the stream mid-line; the missing newline is its own doing.
        return;
    }
    let what = if tail.is_json {
        "a complete JSON message"
    } else {
        "output"
    };
    out.push(
        Finding::new(
            Code::StdoutWithoutNewline,
            format!(
                "The server wrote {what} ({} bytes) on stdout line {} without the terminating newline; a client waits for it forever.",
                tail.bytes, tail.line
            ),
        )
        .detail(if tail.is_json { "json-without-newline" } else { "partial-line" })
        .at(Location::stdout_line(tail.line)),
    );
}

fn limits(t: &Transcript, out: &mut Vec<Finding>) {
    match t.stream_end {
        Some(StreamEnd::LineTooLarge { line, bytes_seen }) => out.push(
            Finding::new(
                Code::StdoutLineTooLarge,
                format!(
                    "Stdout line {line} grew past {bytes_seen} bytes without a newline, over the limit (--max-stdout-line-bytes); the run was stopped."
                ),
            )
            .at(Location::stdout_line(line)),
        ),
        Some(StreamEnd::OutputLimit { limit }) => out.push(Finding::new(
            Code::StdoutOutputLimitExceeded,
            format!(
                "The server wrote more than {limit} bytes to stdout (--max-stdout-bytes); the run was stopped and the server killed."
            ),
        )),
        _ => {}
    }
}
