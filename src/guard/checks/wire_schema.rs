//! Every message the server sent, validated against the official schema of the negotiated revision.

use super::{Check, CheckContext};
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location};
use crate::frame_findings::also_on;
use crate::protocol::jsonrpc::{LineContent, Message};
use crate::protocol::schema::{WireSchemas, WireViolation};
use crate::protocol::versions;
use crate::session::transcript::{Disposition, Transcript};
use serde_json::Value;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

pub struct WireSchema;

impl Check for WireSchema {
    fn name(&self) -> &'static str {
        "wireSchema"
    }

    fn codes(&self) -> &'static [Code] {
        &[Code::WireSchemaInvalid]
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        let t = cx.transcript;
        // Compiled once per run; each definition lazily, on first use.
        let Some(mut schemas) = WireSchemas::for_version(&schema_version(t)) else {
            return;
        };
        let reported = Reported::from(cx);
        // One finding per kind of message and place in the schema; the lines that repeat it
        // are listed in it, so a server repeating a fault on every line makes one finding.
        let mut found: Vec<(Finding, Vec<u64>)> = Vec::new();
        let mut by_fault: HashMap<(String, String), usize> = HashMap::new();
        for frame in &t.frames {
            let messages: Vec<(&Message, &Value)> = match &frame.content {
                LineContent::Single { message, value } => vec![(message, value)],
                LineContent::Batch { messages } => messages.iter().map(|(m, v)| (m, v)).collect(),
                _ => continue,
            };
            for ((message, value), disposition) in messages.into_iter().zip(&frame.dispositions) {
                if reported.covers(cx, frame.line, disposition) {
                    continue;
                }
                let (what, violations) = match (message, disposition) {
                    (
                        Message::Response { outcome: Ok(_), .. },
                        Disposition::Answered { exchange },
                    ) => {
                        let method = &t.exchanges[*exchange].method;
                        (
                            format!("`{method}` result"),
                            schemas.check_result(method, value),
                        )
                    }
                    (
                        Message::Response {
                            outcome: Err(_), ..
                        },
                        Disposition::Answered { exchange },
                    ) => {
                        let method = &t.exchanges[*exchange].method;
                        (format!("`{method}` error"), schemas.check_error(value))
                    }
                    (Message::Notification { method, .. }, _) => (
                        format!("notification `{}`", crate::finding::excerpt(method, 80)),
                        schemas.check_server_message(method, value),
                    ),
                    (Message::Request { method, .. }, _) => (
                        format!("request `{}`", crate::finding::excerpt(method, 80)),
                        schemas.check_server_message(method, value),
                    ),
                    _ => continue,
                };
                if let Some(first) = violations.first() {
                    match by_fault.entry((what.clone(), first.pointer.clone())) {
                        Entry::Occupied(i) => found[*i.get()].1.push(frame.line),
                        Entry::Vacant(v) => {
                            v.insert(found.len());
                            let f =
                                finding(&what, frame.line, schemas.version(), first, &violations);
                            found.push((f, Vec::new()));
                        }
                    }
                }
            }
        }
        out.extend(found.into_iter().map(|(mut f, more)| {
            if !more.is_empty() {
                f.message.push_str(&also_on(&more));
            }
            f
        }));
    }
}

/// A message a specific check already judged (its line, its request, or for tools/list
/// the tool definitions) is left to that check: one fault, one finding.
/// What the earlier checks' findings cover, gathered once: their stdout lines, their
/// requests, and whether any judged the tool definitions.
struct Reported<'a> {
    lines: HashSet<u64>,
    requests: HashSet<&'a str>,
    tools: bool,
}

impl<'a> Reported<'a> {
    fn from(cx: &CheckContext<'a>) -> Self {
        Reported {
            lines: cx
                .prior
                .iter()
                .filter_map(|f| f.location.stdout_line)
                .collect(),
            requests: cx
                .prior
                .iter()
                .filter_map(|f| f.location.request.as_deref())
                .collect(),
            tools: cx
                .prior
                .iter()
                .any(|f| f.code.as_str().starts_with("tool-")),
        }
    }

    fn covers(&self, cx: &CheckContext<'_>, line: u64, disposition: &Disposition) -> bool {
        let method = match disposition {
            Disposition::Answered { exchange } => {
                Some(cx.transcript.exchanges[*exchange].method.as_str())
            }
            _ => None,
        };
        self.lines.contains(&line)
            || method.is_some_and(|m| self.requests.contains(m))
            || (method == Some("tools/list") && self.tools)
    }
}

/// The revision to validate against: the one the session ran under when it is real,
/// else the requested one, else the default.
fn schema_version(t: &Transcript) -> String {
    t.session_version()
        .filter(|v| versions::is_known(v))
        .or_else(|| Some(t.protocol_requested.clone()).filter(|v| versions::is_known(v)))
        .unwrap_or_else(|| versions::DEFAULT_VERSION.to_string())
}

fn finding(
    what: &str,
    line: u64,
    version: &str,
    first: &WireViolation,
    all: &[WireViolation],
) -> Finding {
    // The validator quotes the server's values: shown as an excerpt, cleaned before it is cut.
    let shown = |v: &WireViolation| WireViolation {
        message: excerpt(&v.message, 200),
        ..v.clone()
    };
    let first = &shown(first);
    let all: Vec<WireViolation> = all.iter().map(shown).collect();
    let more = if all.len() > 1 {
        format!(
            " Also: {}.",
            all[1..]
                .iter()
                .map(WireViolation::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        )
    } else {
        String::new()
    };
    let mut location = Location::stdout_line(line);
    location.logical = Some(first.pointer.clone());
    Finding::new(
        Code::WireSchemaInvalid,
        format!(
            "The {what} on stdout line {line} does not match the {version} schema: {first}.{more}"
        ),
    )
    .at(location)
}
