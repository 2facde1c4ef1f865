//! JSON-RPC 2.0: envelopes, ids, and replies that should not exist.

use super::{line_list, plural, Check, CheckContext};
use crate::catalog::Code;
use crate::finding::{Finding, Location};
use crate::protocol::jsonrpc::{LineContent, Message};
use crate::session::transcript::Disposition;
use std::collections::BTreeMap;

pub struct JsonRpc;

impl Check for JsonRpc {
    fn name(&self) -> &'static str {
        "jsonRpc"
    }

    fn codes(&self) -> &'static [Code] {
        &[
            Code::StdoutInvalidJsonRpc,
            Code::ResponseIdMismatch,
            Code::ResponseIdTypeMismatch,
            Code::NotificationResponse,
        ]
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        let t = cx.transcript;
        // Grouped by detail so a server repeating one mistake gets one finding.
        let mut envelope: BTreeMap<&'static str, (String, Vec<u64>)> = BTreeMap::new();
        let mut note = |detail: &'static str, what: String, line: u64| {
            envelope
                .entry(detail)
                .or_insert((what, Vec::new()))
                .1
                .push(line);
        };
        for frame in &t.frames {
            match &frame.content {
                LineContent::Single {
                    message: Message::Invalid { problem, .. },
                    ..
                } => note(
                    problem.detail_code(),
                    problem.describe().to_string(),
                    frame.line,
                ),
                // Only 2025-03-26 had batches, and only as answers to a client's batch.
                LineContent::Batch { messages }
                    if t.session_version().as_deref() == Some("2025-03-26") =>
                {
                    for (m, _) in messages {
                        if let Message::Invalid { problem, .. } = m {
                            note(
                                problem.detail_code(),
                                problem.describe().to_string(),
                                frame.line,
                            );
                        }
                    }
                }
                LineContent::Batch { messages } => {
                    note(
                        "batch",
                        "a JSON array (batch) was sent; only the 2025-03-26 revision has batches"
                            .into(),
                        frame.line,
                    );
                    for (m, _) in messages {
                        if let Message::Invalid { problem, .. } = m {
                            note(
                                problem.detail_code(),
                                problem.describe().to_string(),
                                frame.line,
                            );
                        }
                    }
                }
                _ => {}
            }
            for d in &frame.dispositions {
                if matches!(d, Disposition::Unattributed) {
                    note(
                        "response-without-id",
                        "a response with a null or missing id answers nothing the client sent"
                            .into(),
                        frame.line,
                    );
                }
            }
        }
        for (detail, (what, lines)) in envelope {
            out.push(
                Finding::new(
                    Code::StdoutInvalidJsonRpc,
                    format!(
                        "Invalid JSON-RPC on stdout: {what} ({} {}).",
                        plural(lines.len(), "line", "lines"),
                        line_list(&lines)
                    ),
                )
                .detail(detail)
                .at(Location::stdout_line(lines[0])),
            );
        }
        ids(cx, out);
    }
}

fn ids(cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
    let t = cx.transcript;
    for frame in &t.frames {
        for d in &frame.dispositions {
            let location = Location::stdout_line(frame.line);
            match d {
                Disposition::UnknownId => out.push(
                    Finding::new(
                        Code::ResponseIdMismatch,
                        format!(
                            "Stdout line {} is a response to an id the client never sent.",
                            frame.line
                        ),
                    )
                    .detail("unknown-id")
                    .at(location),
                ),
                Disposition::Duplicate { exchange } => {
                    let e = &t.exchanges[*exchange];
                    out.push(
                        Finding::new(
                            Code::ResponseIdMismatch,
                            format!(
                                "Stdout line {} answers `{}` (id {}) a second time.",
                                frame.line, e.method, e.id
                            ),
                        )
                        .detail("duplicate-response")
                        .at(location),
                    );
                }
                Disposition::NotificationReply { notification } => out.push(
                    Finding::new(
                        Code::NotificationResponse,
                        format!(
                            "Stdout line {} is a reply (with a null or missing id) after the notification `{notification}`; notifications must never be answered.",
                            frame.line
                        ),
                    )
                    .at(location),
                ),
                _ => {}
            }
        }
    }
    let mismatched: Vec<_> = t.exchanges.iter().filter(|e| e.id_type_mismatch).collect();
    if let Some(first) = mismatched.first() {
        let requests: Vec<String> = mismatched
            .iter()
            .take(5)
            .map(|e| format!("`{}` (id {})", e.method, e.id))
            .collect();
        let mut location = Location::request(&first.method);
        location.stdout_line = first.answer_line;
        out.push(
            Finding::new(
                Code::ResponseIdTypeMismatch,
                format!(
                    "{} answered with an id of another JSON type ({}); strict clients never match them.",
                    plural(mismatched.len(), "request was", "requests were"),
                    requests.join(", ")
                ),
            )
            .at(location),
        );
    }
}
