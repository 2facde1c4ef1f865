//! Capability honesty: does every advertised list answer, and with a well-formed result?

use super::initialize::json_kind;
use super::{Check, CheckContext};
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location, ProcessFacts, ProcessPhase};
use crate::protocol::jsonrpc::METHOD_NOT_FOUND;
use crate::session::transcript::{ListKind, Outcome, PagingProblem};
use serde_json::Value;

pub struct Capabilities;

impl Check for Capabilities {
    fn name(&self) -> &'static str {
        "capabilities"
    }

    fn codes(&self) -> &'static [Code] {
        &[
            Code::CapabilityListUnsupported,
            Code::CapabilityListError,
            Code::CapabilityListTimeout,
            Code::CapabilityListMissingResponse,
            Code::CapabilityListInvalidResult,
        ]
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        let t = cx.transcript;
        for probe in &t.lists {
            let list = probe.list;
            let method = list.method();
            for &index in &probe.exchanges {
                let e = &t.exchanges[index];
                let mut location = Location::request(method);
                location.stdout_line = e.answer_line;
                let page = match e.params.as_ref().and_then(|p| p.get("cursor")) {
                    Some(c) => format!(" (page with cursor {})", excerpt(&c.to_string(), 60)),
                    None => String::new(),
                };
                let finding = match &e.outcome {
                    Outcome::Error(err) if err.code == METHOD_NOT_FOUND => {
                        if list == ListKind::ResourceTemplates {
                            // Optional even when resources is advertised.
                            continue;
                        }
                        Finding::new(
                            Code::CapabilityListUnsupported,
                            format!(
                                "The server advertises `{}` but `{method}`{page} answers method-not-found.",
                                list.capability()
                            ),
                        )
                    }
                    Outcome::Error(err) => Finding::new(
                        Code::CapabilityListError,
                        format!(
                            "`{method}`{page} failed with error {}: {}",
                            err.code,
                            excerpt(&err.message, 200)
                        ),
                    ),
                    Outcome::Timeout => Finding::new(
                        Code::CapabilityListTimeout,
                        format!(
                            "`{method}`{page} was not answered within {} ms although `{}` is advertised.",
                            t.timeout_ms,
                            list.capability()
                        ),
                    )
                    .process(ProcessFacts::timeout(ProcessPhase::Operation, t.timeout_ms)),
                    Outcome::NoResponse | Outcome::SendFailed(_) => {
                        if t.stream_cut() {
                            continue;
                        }
                        Finding::new(
                            Code::CapabilityListMissingResponse,
                            format!("The server's stdout closed before `{method}`{page} was answered."),
                        )
                        .process(ProcessFacts::exit(ProcessPhase::Operation, t.process.exit))
                    }
                    Outcome::Result(result) => match result_problem(list, result) {
                        Some(problem) => Finding::new(
                            Code::CapabilityListInvalidResult,
                            format!("The `{method}` result{page} is malformed: {problem}."),
                        )
                        .detail("items-not-array"),
                        None => continue,
                    },
                    // Reported where the request came (jsonRpc's request-instead-of-response).
                    Outcome::Malformed(_)
                    | Outcome::Pending
                    | Outcome::RequestInstead { .. }
                    | Outcome::NotSent { .. } => continue,
                };
                out.push(finding.at(location));
            }
            if let Some(problem) = &probe.paging_problem {
                let (detail, what) = match problem {
                    PagingProblem::CursorLoop { cursor } => (
                        "cursor-loop",
                        format!(
                            "nextCursor {:?} repeats a cursor already followed, so paging never ends",
                            excerpt(cursor, 60)
                        ),
                    ),
                    PagingProblem::PageCap { pages } => (
                        "page-cap",
                        format!(
                            "paging did not end within {}",
                            crate::finding::plural(*pages, "page")
                        ),
                    ),
                    PagingProblem::CursorNotString => {
                        ("cursor-not-string", "nextCursor is not a string".to_string())
                    }
                };
                out.push(
                    Finding::new(
                        Code::CapabilityListInvalidResult,
                        format!("`{method}` pagination is broken: {what}."),
                    )
                    .detail(detail)
                    .at(Location::request(method)),
                );
            }
        }
    }
}

fn result_problem(list: ListKind, result: &Value) -> Option<String> {
    let Some(obj) = result.as_object() else {
        return Some(format!(
            "the result is {}, not an object",
            json_kind(result)
        ));
    };
    let key = list.items_key();
    match obj.get(key) {
        Some(Value::Array(_)) => None,
        None => Some(format!("`{key}` is missing")),
        Some(other) => Some(format!("`{key}` is {}, not an array", json_kind(other))),
    }
}
