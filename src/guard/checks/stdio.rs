//! The stdio transport: is stdout exactly one JSON message per `\n`-terminated line?

use super::{Check, CheckContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::frame_findings::{
    self, line_faults, FrameFault, Joined, LineContext, MultiLineJson, NonJsonCause, OversizedLine,
    SeenFault,
};
use crate::protocol::jsonrpc::LineContent;
use crate::session::transcript::{Phase, StreamEnd, Transcript};

pub struct StdioTransport;

impl Check for StdioTransport {
    fn name(&self) -> &'static str {
        "stdioTransport"
    }

    fn codes(&self) -> &'static [Code] {
        &[
            Code::StdoutNonJson,
            Code::StdoutJsonBeyondParserLimits,
            Code::StdoutEmptyLine,
            Code::StdoutContentLengthFraming,
            Code::StdoutWithoutNewline,
            Code::StdoutLineTooLarge,
            Code::StdoutLineLarge,
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
        let line_cx = LineContext {
            lsp_framed,
            ..LineContext::default()
        };
        let mut seen: Vec<SeenFault> = t
            .frames
            .iter()
            .flat_map(|frame| {
                line_faults(&frame.content, frame.had_carriage_return, line_cx)
                    .into_iter()
                    .filter(|f| self.codes().contains(&f.code()))
                    .map(|fault| SeenFault {
                        line: frame.line,
                        phase: frame.phase,
                        fault,
                    })
            })
            .collect();
        // The first non-JSON line names the cause; a message split across lines shows only
        // in the lines after it.
        if let Some(first) = seen
            .iter_mut()
            .find(|s| matches!(s.fault, FrameFault::NonJson { .. }))
        {
            if let FrameFault::NonJson { cause, .. } = &mut first.fault {
                if *cause == NonJsonCause::PlainText && is_pretty_printed(t, first.line) {
                    *cause = NonJsonCause::MultiLineJson;
                }
            }
        }
        let written_at_exit = seen
            .iter()
            .find(|s| matches!(s.fault, FrameFault::NonJson { .. }))
            .filter(|s| s.phase == Phase::Shutdown)
            .map(|s| s.line);
        let mut found = frame_findings::grouped(seen);
        if let Some(line) = written_at_exit {
            for f in found
                .iter_mut()
                .filter(|f| f.code == Code::StdoutNonJson && f.location.stdout_line == Some(line))
            {
                written_at_exit_note(f, cx.python_buffered);
            }
        }
        out.extend(found);
        if !lsp_framed {
            without_newline(t, out);
        }
        large_lines(t, out);
        limits(t, out);
    }
}

/// Stray stdout that first came after stdin closed: a buffer flushed at exit. Launched
/// unbuffered, as many clients launch a server, the same write arrives mid-session.
fn written_at_exit_note(f: &mut Finding, python_buffered: bool) {
    if python_buffered {
        f.message.push_str(" It came after stdin closed, as the server exited: Python buffers stdout on a pipe (no -u, no PYTHONUNBUFFERED), so the write waited in the buffer until exit. Launched unbuffered (python -u or PYTHONUNBUFFERED=1, which many client configs set), or once 8 KB of output fill the buffer, it is written when printed, in the middle of the session.");
        f.fix = Some(format!(
            "{} In Python: print(..., file=sys.stderr), or logging (which writes to stderr by default).",
            f.code.meta().help
        ));
    } else {
        f.message.push_str(" It came after stdin closed, as the server exited: a write held in a stdout buffer until exit arrives mid-session whenever that buffer is flushed sooner.");
    }
}

/// Lines past the soft limit: read and judged, but some clients refuse them.
fn large_lines(t: &Transcript, out: &mut Vec<Finding>) {
    let soft = t.limits.soft_stdout_line_bytes;
    let large: Vec<&crate::session::transcript::Frame> =
        t.frames.iter().filter(|f| f.bytes > soft).collect();
    let Some(biggest) = large.iter().max_by_key(|f| f.bytes) else {
        return;
    };
    let lines: Vec<u64> = large.iter().map(|f| f.line).collect();
    out.push(
        Finding::new(
            Code::StdoutLineLarge,
            format!(
                "{} on stdout longer than {soft} bytes (line {}), the largest {} bytes (line {}): the official TypeScript and Python SDK clients read it, but clients that read lines into a fixed buffer (Go's bufio.Scanner: 64 KiB unless raised; others 256 KiB or 1 MiB) refuse it.",
                frame_findings::plural(lines.len(), "line is", "lines are"),
                frame_findings::line_list(&lines),
                biggest.bytes,
                biggest.line,
            ),
        )
        .at(crate::finding::Location::stdout_line(lines[0])),
    );
}

/// Whether the lines from `start` on, joined, form one JSON value: a message split across lines.
fn is_pretty_printed(t: &Transcript, start: u64) -> bool {
    let mut joined = MultiLineJson::default();
    for frame in t.frames.iter().skip_while(|f| f.line < start) {
        let LineContent::NonJson { text } = &frame.content else {
            return false;
        };
        match joined.push(text) {
            Joined::Pending => {}
            Joined::Complete => return true,
            Joined::NotJson => return false,
        }
    }
    false
}

fn without_newline(t: &Transcript, out: &mut Vec<Finding>) {
    let Some(tail) = &t.unterminated else { return };
    if matches!(t.stream_end, Some(StreamEnd::OutputLimit { .. })) {
        // The guard cut the stream mid-line; the missing newline is its own doing.
        return;
    }
    out.push(frame_findings::without_newline(
        tail.line,
        tail.bytes,
        tail.is_json,
    ));
}

fn limits(t: &Transcript, out: &mut Vec<Finding>) {
    match t.stream_end {
        Some(StreamEnd::LineTooLarge { line, bytes_seen }) => out.push(
            frame_findings::line_too_large(line, bytes_seen, OversizedLine::RunStopped),
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
