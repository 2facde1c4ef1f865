//! Repeat runs: what a later run advertised differently from the first.

use super::SessionResult;
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location};
use crate::session::transcript::ListKind;
use serde_json::Value;
use std::collections::BTreeMap;

/// How run `run` (1-based) differs from run 1.
#[derive(Debug, Clone)]
pub struct RunDrift {
    pub run: usize,
    pub protocol: Option<[Option<String>; 2]>,
    pub capabilities_changed: bool,
    pub tools_added: Vec<String>,
    pub tools_removed: Vec<String>,
    pub tools_changed: Vec<String>,
    /// List name → [count in run 1, count in this run], where they differ.
    pub list_counts: BTreeMap<&'static str, [usize; 2]>,
    pub findings: Vec<Finding>,
}

/// Compares every run that initialized against the first; runs that failed are not drift.
pub fn compare(runs: &[SessionResult]) -> Vec<RunDrift> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    if first.transcript.initialize_result().is_none() {
        return Vec::new();
    }
    runs.iter()
        .enumerate()
        .skip(1)
        .filter(|(_, r)| r.transcript.initialize_result().is_some())
        .map(|(i, r)| diff(first, r, i + 1))
        .filter(|d| !d.findings.is_empty())
        .collect()
}

fn init_field<'a>(r: &'a SessionResult, key: &str) -> Option<&'a Value> {
    r.transcript.initialize_result().and_then(|i| i.get(key))
}

/// Tools by name, so order alone is never drift.
fn tools_by_name(r: &SessionResult) -> BTreeMap<String, &Value> {
    r.transcript
        .list(ListKind::Tools)
        .map(|p| {
            p.items
                .iter()
                .filter_map(|t| Some((t.get("name")?.as_str()?.to_string(), t)))
                .collect()
        })
        .unwrap_or_default()
}

fn diff(first: &SessionResult, later: &SessionResult, run: usize) -> RunDrift {
    let mut d = RunDrift {
        run,
        protocol: None,
        capabilities_changed: false,
        tools_added: Vec::new(),
        tools_removed: Vec::new(),
        tools_changed: Vec::new(),
        list_counts: BTreeMap::new(),
        findings: Vec::new(),
    };
    let version = |r: &SessionResult| {
        init_field(r, "protocolVersion")
            .and_then(Value::as_str)
            .map(|v| excerpt(v, 40))
    };
    let (v1, vn) = (version(first), version(later));
    if v1 != vn {
        d.findings.push(
            Finding::new(
                Code::RepeatProtocolDrift,
                format!(
                    "Run {run} negotiated protocol {} where run 1 negotiated {}.",
                    vn.as_deref().unwrap_or("nothing"),
                    v1.as_deref().unwrap_or("nothing")
                ),
            )
            .at(Location::request("initialize")),
        );
        d.protocol = Some([v1, vn]);
    }
    if init_field(first, "capabilities") != init_field(later, "capabilities") {
        d.capabilities_changed = true;
        d.findings.push(
            Finding::new(
                Code::RepeatCapabilityDrift,
                format!("Run {run} advertised other capabilities than run 1."),
            )
            .at(Location::request("initialize")),
        );
    }
    let (t1, tn) = (tools_by_name(first), tools_by_name(later));
    d.tools_added = tn
        .keys()
        .filter(|k| !t1.contains_key(*k))
        .map(|k| excerpt(k, 128))
        .collect();
    d.tools_removed = t1
        .keys()
        .filter(|k| !tn.contains_key(*k))
        .map(|k| excerpt(k, 128))
        .collect();
    d.tools_changed = t1
        .iter()
        .filter(|(k, v)| tn.get(*k).is_some_and(|w| w != *v))
        .map(|(k, _)| excerpt(k, 128))
        .collect();
    if !(d.tools_added.is_empty() && d.tools_removed.is_empty() && d.tools_changed.is_empty()) {
        let part = |label: &str, names: &[String]| {
            (!names.is_empty()).then(|| format!("{label} {}", names.join(", ")))
        };
        let parts: Vec<String> = [
            part("added", &d.tools_added),
            part("removed", &d.tools_removed),
            part("changed", &d.tools_changed),
        ]
        .into_iter()
        .flatten()
        .collect();
        d.findings.push(
            Finding::new(
                Code::RepeatToolDrift,
                format!(
                    "Run {run} listed other tools than run 1: {}.",
                    parts.join("; ")
                ),
            )
            .at(Location::request("tools/list")),
        );
    }
    for list in [
        ListKind::Prompts,
        ListKind::Resources,
        ListKind::ResourceTemplates,
    ] {
        let count = |r: &SessionResult| r.transcript.list(list).map_or(0, |p| p.items.len());
        let (c1, cn) = (count(first), count(later));
        if c1 != cn {
            d.list_counts.insert(list.method(), [c1, cn]);
            d.findings.push(
                Finding::new(
                    Code::RepeatListShapeDrift,
                    format!(
                        "Run {run} listed {} from `{}` where run 1 listed {c1}.",
                        crate::finding::plural(cn, "item"),
                        list.method()
                    ),
                )
                .at(Location::request(list.method())),
            );
        }
    }
    d
}
