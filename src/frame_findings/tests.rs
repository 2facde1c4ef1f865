//! Unit tests of `frame_findings`: how lines map to faults and faults to findings.

use super::*;
use crate::protocol::jsonrpc::{parse_line, RequestId};

fn faults(line: &[u8], cx: LineContext) -> Vec<FrameFault> {
    line_faults(&parse_line(line), false, cx)
}

#[test]
fn a_line_maps_to_its_faults() {
    let cx = LineContext::default();
    assert_eq!(faults(b"", cx), [FrameFault::Empty]);
    assert_eq!(
        faults(b"\xef\xbb\xbf{}", cx),
        [FrameFault::NonJson {
            text: "\u{feff}{}".into(),
            cause: NonJsonCause::ByteOrderMark
        }]
    );
    assert_eq!(
        faults(br#"[{"jsonrpc":"1.0","id":1,"result":{}}]"#, cx),
        [
            FrameFault::Batch,
            FrameFault::Envelope(EnvelopeProblem::WrongVersion)
        ]
    );
    let batches = LineContext {
        batches_allowed: true,
        ..cx
    };
    assert!(faults(br#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#, batches).is_empty());
    assert_eq!(
        faults(br#"{"jsonrpc":"2.0","id":1e400,"result":{}}"#, cx),
        [FrameFault::BeyondParserLimits(JsonLimit::NumberRange)]
    );
}

#[test]
fn under_lsp_framing_only_the_headers_are_a_fault() {
    let cx = LineContext {
        lsp_framed: true,
        ..LineContext::default()
    };
    assert!(faults(b"", cx).is_empty());
    assert!(faults(b"{}Content-Length: 40", cx).is_empty());
    assert!(line_faults(&parse_line(b"Content-Length: 40"), true, cx)
        .iter()
        .all(|f| *f == FrameFault::ContentLengthHeader));
}

/// A repeated answer fault is one finding per request it names, listing the lines that
/// repeat it; unknown ids are one finding whatever the ids.
#[test]
fn a_repeated_answer_fault_is_one_finding_per_request() {
    let seen = |line: u64, fault: FrameFault| SeenFault {
        line,
        phase: Phase::Operations,
        fault,
    };
    let dup = |id: i64| FrameFault::DuplicateResponse {
        method: "tools/list".into(),
        id: RequestId::Number(id),
    };
    let mut all = vec![seen(4, dup(2)), seen(5, dup(3))];
    all.extend((6..20).map(|line| seen(line, dup(2))));
    all.extend((20..1020).map(|line| seen(line, FrameFault::UnknownId)));
    let found = grouped(all);
    let messages: Vec<&str> = found.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "Stdout line 4 answers `tools/list` (id 2) a second time. The same fault is on 14 more stdout lines (6, 7, 8, 9, 10, 11, 12, 13 and 6 more).",
            "Stdout line 5 answers `tools/list` (id 3) a second time.",
            "1000 stdout lines are responses to ids the client never sent (lines 20, 21, 22, 23, 24, 25, 26, 27 and 992 more).",
        ]
    );
    assert_eq!(found[2].location.stdout_line, Some(20));
}

#[test]
fn one_line_and_many_lines_read_the_same_way() {
    let f = FrameFault::Empty.finding(&[3], Phase::Operations);
    assert_eq!(f.message, "1 empty line on stdout (line 3).");
    assert_eq!(f.location.stdout_line, Some(3));
    let lines: Vec<u64> = (1..=10).collect();
    let f =
        FrameFault::Envelope(EnvelopeProblem::MissingVersion).finding(&lines, Phase::Operations);
    assert_eq!(
        f.message,
        "Invalid JSON-RPC on stdout: `jsonrpc` is missing (lines 1, 2, 3, 4, 5, 6, 7, 8 and 2 more)."
    );
    assert_eq!(f.detail_code, Some("missing-jsonrpc"));
    let non_json = FrameFault::NonJson {
        text: "banner".into(),
        cause: NonJsonCause::PlainText,
    };
    assert_eq!(
        non_json.finding(&[1], Phase::Operations).message,
        format!(
            "1 line on stdout is not JSON (line 1), first {}: a client fails to parse it.",
            Phase::Operations.describe()
        )
    );
    assert_eq!(
        non_json.finding(&[1, 4], Phase::Operations).message,
        format!(
            "2 lines on stdout are not JSON (lines 1, 4), first {}: a client fails to parse them.",
            Phase::Operations.describe()
        )
    );
    assert_eq!(
        FrameFault::CarriageReturn
            .finding(&[2], Phase::Operations)
            .message,
        "1 line on stdout ends in \\r\\n instead of \\n (line 2)."
    );
}

#[test]
fn joins_a_pretty_printed_value_and_gives_up_on_text() {
    let mut j = MultiLineJson::default();
    assert_eq!(j.push("{"), Joined::Pending);
    assert_eq!(j.push("  \"a\": 1"), Joined::Pending);
    assert_eq!(j.push("}"), Joined::Complete);
    assert_eq!(MultiLineJson::default().push("hello"), Joined::NotJson);
    // Brackets inside strings do not count; a closed value that does not parse is over.
    let mut j = MultiLineJson::default();
    assert_eq!(j.push("{\"a\": \"}\\\"]\","), Joined::Pending);
    assert_eq!(j.push("\"b\": [1]}"), Joined::Complete);
    let mut j = MultiLineJson::default();
    assert_eq!(j.push("{"), Joined::Pending);
    assert_eq!(j.push("bad}"), Joined::NotJson);
}
