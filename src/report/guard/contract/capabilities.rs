//! The contract's view of the three capability lists (`tools`, `resources`, `prompts`):
//! the `capabilities` check and the top-level `capabilityChecks`.

use super::{check_codes, codes_of, status_of, CheckStatus, RpcError};
use crate::finding::Finding;
use crate::guard::{GuardRun, SessionResult};
use crate::session::advertises;
use crate::session::transcript::{ListKind, Outcome, Purpose, Transcript};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// Contract capabilities: `tools`, `resources`, `prompts`.
const CAPABILITY_LISTS: [ListKind; 3] = [ListKind::Tools, ListKind::Resources, ListKind::Prompts];

/// The `capabilities` check: one entry per capability, then the check's own status.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CapabilitiesCheck {
    pub tools: CapabilityEntry,
    pub resources: CapabilityEntry,
    pub prompts: CapabilityEntry,
    pub status: CheckStatus,
    pub issue_codes: Vec<&'static str>,
}

/// One capability's part of the `capabilities` check.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CapabilityEntry {
    pub status: CheckStatus,
    pub issue_codes: Vec<&'static str>,
    pub advertised: bool,
    pub method: &'static str,
    pub responded: bool,
    /// The items of the first page; null when the list did not answer with a result.
    pub item_count: Option<usize>,
}

/// The top-level `capabilityChecks`: what the session learned of each capability's list.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CapabilityChecks {
    pub tools: CapabilityAnswer,
    pub resources: CapabilityAnswer,
    pub prompts: CapabilityAnswer,
}

/// Whether a capability was advertised, and how its list answered.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CapabilityAnswer {
    pub advertised: bool,
    pub method: &'static str,
    pub responded: bool,
    pub item_count: Option<usize>,
    pub error: Option<RpcError>,
}

/// What the session learned of one capability's list: (responded, itemCount, error).
fn list_answer(t: &Transcript, list: ListKind) -> (bool, Option<usize>, Option<RpcError>) {
    if let Some(probe) = t.list(list) {
        let first = probe.exchanges.first().map(|&i| &t.exchanges[i].outcome);
        let error = match first {
            Some(Outcome::Error(e)) => Some(RpcError::masked(e)),
            _ => None,
        };
        let responded = matches!(first, Some(Outcome::Result(_) | Outcome::Error(_)));
        let count = matches!(first, Some(Outcome::Result(_))).then_some(probe.items.len());
        return (responded, count, error);
    }
    // An explicit request for the list counts as its probe.
    let explicit = t
        .exchanges
        .iter()
        .find(|e| e.purpose == Purpose::Explicit && e.method == list.method());
    match explicit.map(|e| &e.outcome) {
        Some(Outcome::Result(r)) => (
            true,
            r.get(list.items_key())
                .and_then(Value::as_array)
                .map(Vec::len),
            None,
        ),
        Some(Outcome::Error(e)) => (true, None, Some(RpcError::masked(e))),
        _ => (false, None, None),
    }
}

/// The capabilities the server declared (initialize, or server/discover).
pub fn declared_capabilities(t: &Transcript) -> Value {
    t.initialize_result()
        .or_else(|| t.discover().and_then(|d| d.outcome_result()))
        .and_then(|r| r.get("capabilities"))
        .cloned()
        .unwrap_or(Value::Null)
}

pub fn capabilities_check(
    run: &GuardRun,
    session: &SessionResult,
    findings: &[Finding],
) -> CapabilitiesCheck {
    let t = &session.transcript;
    let capabilities = declared_capabilities(t);
    let own = check_codes(session, "capabilities");
    let entry = |list: ListKind| {
        let advertised = advertises(&capabilities, list.capability());
        let (responded, count, _) = list_answer(t, list);
        // A line standing where the list's answer should be (Content-Length framing, text)
        // is the list's failure too.
        let in_place_of_answer = super::lines_in_place_of_answers(
            t,
            |e| matches!(e.purpose, Purpose::ListProbe { list: l, .. } if l == list),
        );
        let found: Vec<&Finding> = findings
            .iter()
            .filter(|f| {
                (own.contains(&f.code) && f.location.request.as_deref() == Some(list.method()))
                    || f.location
                        .stdout_line
                        .is_some_and(|line| in_place_of_answer.contains(&line))
            })
            .collect();
        let probed = run.plan.probe_lists && t.list(list).is_some();
        let status = if !found.is_empty() {
            status_of(found.iter().copied())
        } else if advertised && probed && responded {
            CheckStatus::Pass
        } else {
            CheckStatus::Skipped
        };
        let entry = CapabilityEntry {
            status,
            issue_codes: codes_of(found.iter().copied()),
            advertised,
            method: list.method(),
            responded,
            item_count: count,
        };
        (entry, found)
    };
    let [(tools, of_tools), (resources, of_resources), (prompts, of_prompts)] =
        CAPABILITY_LISTS.map(entry);
    let mut all: Vec<&Finding> = findings.iter().filter(|f| own.contains(&f.code)).collect();
    for f in [of_tools, of_resources, of_prompts].concat() {
        if !all.iter().any(|a| std::ptr::eq(*a, f)) {
            all.push(f);
        }
    }
    let any_pass = [&tools, &resources, &prompts]
        .iter()
        .any(|e| e.status == CheckStatus::Pass);
    let status = if !all.is_empty() {
        status_of(all.iter().copied())
    } else if any_pass {
        CheckStatus::Pass
    } else {
        CheckStatus::Skipped
    };
    CapabilitiesCheck {
        tools,
        resources,
        prompts,
        status,
        issue_codes: codes_of(all.iter().copied()),
    }
}

/// The contract's top-level `capabilityChecks`, one entry per capability.
pub fn capability_checks(t: &Transcript) -> CapabilityChecks {
    let capabilities = declared_capabilities(t);
    let answer = |list: ListKind| {
        let (responded, count, error) = list_answer(t, list);
        CapabilityAnswer {
            advertised: advertises(&capabilities, list.capability()),
            method: list.method(),
            responded,
            item_count: count,
            error,
        }
    };
    let [tools, resources, prompts] = CAPABILITY_LISTS.map(answer);
    CapabilityChecks {
        tools,
        resources,
        prompts,
    }
}
