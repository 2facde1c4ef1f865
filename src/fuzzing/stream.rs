//! The stdout line splitter and the JSON-RPC classification of each line.

use crate::frame_findings::{line_faults, line_too_large, LineContext, OversizedLine};
use crate::protocol::framing::{LineEvent, LineSplitter};
use crate::protocol::grammar;
use crate::protocol::jsonrpc::{parse_line, LineContent};
use crate::session::transcript::Phase;

/// Splits `data` in chunks of fuzzed sizes. Invariants: the lines (with their `\r` and
/// `\n`) and the unterminated tail rebuild the input byte for byte; line numbers count from
/// 1; the chunking changes nothing but how far past the limit an oversized line was seen;
/// an overflow comes only past the limit. Each line is then classified and judged.
pub fn stdout_lines(data: &[u8]) {
    let (control, stream) = super::split_first(data);
    let max_line = match control >> 6 {
        0 => 8,
        1 => 64,
        2 => 1024,
        _ => 16 * 1024 * 1024,
    };
    let chunk = usize::from(control & 0x3f) + 1;

    let (events, tail, overflowed) = split(stream, max_line, chunk);
    let (whole, whole_tail, _) = split(stream, max_line, stream.len().max(1));
    // `bytes_seen` of an oversized line is as much as had arrived: it depends on the reads.
    let unseen = |events: &[LineEvent]| -> Vec<LineEvent> {
        events
            .iter()
            .map(|e| match e {
                LineEvent::TooLarge { number, .. } => LineEvent::TooLarge {
                    number: *number,
                    bytes_seen: 0,
                },
                line => line.clone(),
            })
            .collect()
    };
    assert_eq!(
        unseen(&events),
        unseen(&whole),
        "events depend on how the stream was chunked"
    );
    assert_eq!(
        tail, whole_tail,
        "the unterminated tail depends on the chunking"
    );

    let mut rebuilt = Vec::with_capacity(stream.len());
    let mut expected_number = 1;
    for event in &events {
        match event {
            LineEvent::Line(line) => {
                assert_eq!(line.number, expected_number, "line numbers skip");
                expected_number += 1;
                assert!(line.bytes.len() <= max_line, "a line longer than the limit");
                assert!(!line.bytes.contains(&b'\n'), "a line holds a newline");
                rebuilt.extend_from_slice(&line.bytes);
                if line.had_carriage_return {
                    rebuilt.push(b'\r');
                }
                rebuilt.push(b'\n');
            }
            LineEvent::TooLarge { number, bytes_seen } => {
                assert_eq!(*number, expected_number, "the oversized line's number");
                assert!(*bytes_seen > max_line, "an overflow under the limit");
                let f = line_too_large(*number, *bytes_seen, OversizedLine::RunStopped);
                assert_eq!(f.location.stdout_line, Some(*number));
            }
        }
    }
    if overflowed {
        assert!(tail.is_none(), "an overflowed stream keeps a tail");
        assert!(
            stream.starts_with(&rebuilt),
            "the lines before the overflow are not the stream's start"
        );
        assert!(matches!(events.last(), Some(LineEvent::TooLarge { .. })));
    } else {
        if let Some(t) = &tail {
            assert_eq!(t.number, expected_number, "the tail's line number");
            rebuilt.extend_from_slice(&t.bytes);
        }
        assert_eq!(rebuilt, stream, "the splitter does not rebuild its input");
    }

    for event in &events {
        if let LineEvent::Line(line) = event {
            judge(&line.bytes, line.had_carriage_return, line.number);
        }
    }
    if let Some(t) = tail {
        judge(&t.bytes, false, t.number);
    }
}

/// A line is JSON (a message, a batch, or past a parser limit) exactly when the grammar
/// scanner says so: serde_json and the scanner differ only in the limits serde_json keeps.
fn json_verdicts_agree(bytes: &[u8], content: &LineContent) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let is_json = match content {
        LineContent::Single { .. } | LineContent::Batch { .. } => true,
        LineContent::BeyondParserLimits { .. } => true,
        LineContent::NonJson { .. } => false,
        LineContent::Empty | LineContent::InvalidUtf8 { .. } | LineContent::ContentLengthHeader => {
            return
        }
    };
    if grammar::check(text).is_ok() != is_json {
        let shown: String = format!("{content:?}").chars().take(200).collect();
        panic!("parse_line and the grammar scanner disagree on {shown}");
    }
}

fn split(
    stream: &[u8],
    max_line: usize,
    chunk: usize,
) -> (
    Vec<LineEvent>,
    Option<crate::protocol::framing::RawLine>,
    bool,
) {
    let mut splitter = LineSplitter::new(max_line);
    let mut events = Vec::new();
    for piece in stream.chunks(chunk) {
        splitter.feed(piece, &mut events);
    }
    (events, splitter.unterminated(), splitter.has_overflowed())
}

/// Classifies one line and turns its faults into findings, under every framing context.
fn judge(bytes: &[u8], had_cr: bool, number: u64) {
    let content = parse_line(bytes);
    json_verdicts_agree(bytes, &content);
    for (batches_allowed, lsp_framed) in [(false, false), (true, false), (false, true)] {
        let cx = LineContext {
            batches_allowed,
            lsp_framed,
        };
        for fault in line_faults(&content, had_cr, cx) {
            let finding = fault.finding(&[number], Phase::Operations);
            assert!(!finding.message.is_empty(), "a finding without a message");
            assert_eq!(
                finding.code,
                fault.code(),
                "a fault's finding has another code"
            );
            assert_eq!(
                finding.location.stdout_line,
                Some(number),
                "finding not at its line"
            );
        }
    }
}
