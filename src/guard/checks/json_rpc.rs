//! JSON-RPC 2.0: envelopes, ids, and replies that should not exist.

use super::{Check, CheckContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::frame_findings::{self, line_faults, FrameFault, LineContext, SeenFault};
use crate::protocol::jsonrpc::RequestId;
use crate::session::transcript::{Disposition, Outcome, Transcript};

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
            Code::RequestInsteadOfResponse,
        ]
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        let t = cx.transcript;
        let line_cx = LineContext {
            batches_allowed: t.session_version().as_deref() == Some("2025-03-26"),
            ..LineContext::default()
        };
        let mut seen = Vec::new();
        for frame in &t.frames {
            let faults = line_faults(&frame.content, frame.had_carriage_return, line_cx)
                .into_iter()
                .filter(|f| f.code() == Code::StdoutInvalidJsonRpc);
            let answers = frame.dispositions.iter().filter_map(|d| answer_fault(t, d));
            seen.extend(faults.chain(answers).map(|fault| SeenFault {
                line: frame.line,
                phase: frame.phase,
                fault,
            }));
        }
        let mut found = frame_findings::grouped(seen);
        // Envelope faults by detail, then the answers line by line.
        found.sort_by_key(|f| match f.code {
            Code::StdoutInvalidJsonRpc => (false, f.detail_code),
            _ => (true, None),
        });
        out.extend(found);
        id_types(cx, out);
    }
}

/// What the session's matching of an answer says is wrong with it.
fn answer_fault(t: &Transcript, d: &Disposition) -> Option<FrameFault> {
    match d {
        Disposition::Duplicate { exchange } => {
            let e = &t.exchanges[*exchange];
            Some(FrameFault::DuplicateResponse {
                method: e.method.clone(),
                id: e.id.clone(),
            })
        }
        Disposition::RequestInsteadOfAnswer { exchange } => {
            let e = &t.exchanges[*exchange];
            let Outcome::RequestInstead { method } = &e.outcome else {
                return None;
            };
            Some(FrameFault::RequestInsteadOfResponse {
                method: e.method.clone(),
                id: e.id.clone(),
                request_method: method.clone(),
            })
        }
        _ => FrameFault::of_disposition(d),
    }
}

fn id_types(cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
    let mismatched: Vec<(&str, &RequestId, Option<u64>)> = cx
        .transcript
        .exchanges
        .iter()
        .filter(|e| e.id_type_mismatch)
        .map(|e| (e.method.as_str(), &e.id, e.answer_line))
        .collect();
    out.extend(frame_findings::id_type_mismatch(&mismatched));
}
