//! The contract's facts across runs and sessions: adversarial probes, tool schemas, drift.

use super::{adversarial_enabled, check_codes, codes_of, declared_capabilities, status_of};
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Severity};
use crate::guard::{GuardRun, SessionResult};
use crate::session::transcript::{ListKind, Transcript};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

pub fn adversarial(run: &GuardRun) -> Value {
    let probes: Vec<Value> = run
        .probes
        .iter()
        .enumerate()
        .map(|(index, p)| {
            let status = match p.status {
                "not-applicable" => "skipped",
                _ => status_of(&p.findings),
            };
            let builtin = run.settings.probes.iter().any(|b| b.name() == p.probe);
            json!({
                "index": index,
                "name": p.probe,
                "source": if builtin { "builtin" } else { "config-tool-call" },
                "status": status,
                "issueCodes": codes_of(&p.findings),
                "observed": p.observed,
            })
        })
        .collect();
    json!({"enabled": adversarial_enabled(run), "probes": probes})
}

/// The contract's `toolSchema` fields, added to mcpcheck's `total`/`valid`/`invalid`.
pub fn tool_schema(session: &SessionResult, findings: &[Finding]) -> Value {
    let t = &session.transcript;
    let names = tool_names(t);
    let mut seen = BTreeMap::<&str, usize>::new();
    for n in &names {
        *seen.entry(n.as_str()).or_default() += 1;
    }
    let own = check_codes(session, "toolSchemas");
    let count = |s: Severity| {
        findings
            .iter()
            .filter(|f| own.contains(&f.code) && f.severity == s)
            .count()
    };
    let mut v = json!(session.tool_schema);
    v["checked"] = json!(t.list(ListKind::Tools).is_some());
    v["toolCount"] = json!(session.tool_schema.total);
    v["toolNames"] = json!(names);
    v["validToolCount"] = json!(session.tool_schema.valid);
    v["warningCount"] = json!(count(Severity::Warning));
    v["errorCount"] = json!(count(Severity::Error));
    v["duplicateNames"] = json!(seen
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(k, _)| k)
        .collect::<Vec<_>>());
    v
}

fn tool_names(t: &Transcript) -> Vec<String> {
    t.list(ListKind::Tools)
        .map(|p| {
            p.items
                .iter()
                .filter_map(|i| i.get("name")?.as_str())
                // The server's own words: a credential in a tool name must not reach the report.
                .map(|n| excerpt(&crate::secrets::redact(n), 128))
                .collect()
        })
        .unwrap_or_default()
}

/// Capability names, and `name.member` for each member a capability declares (so a
/// `listChanged` that appears is drift too, as the guard's drift check sees it).
fn capability_names(t: &Transcript) -> Vec<String> {
    let capabilities = declared_capabilities(t);
    let Some(o) = capabilities.as_object() else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for (k, v) in o {
        let name = excerpt(&crate::secrets::redact(k), 64);
        names.push(name.clone());
        for member in v.as_object().into_iter().flat_map(|m| m.keys()) {
            names.push(format!(
                "{name}.{}",
                excerpt(&crate::secrets::redact(member), 64)
            ));
        }
    }
    names
}

/// One aspect of drift across runs: the baseline's values, each run's, and what changed.
fn drift_aspect(
    runs: &[(usize, &Transcript)],
    values: impl Fn(&Transcript) -> Option<Vec<String>>,
    code: Code,
    findings: &[Finding],
) -> Value {
    let Some(((_, first), rest)) = runs.split_first() else {
        return json!({"status": "skipped", "issueCodes": [], "baseline": null, "changedRuns": [], "values": []});
    };
    let baseline = values(first);
    let mut changed = Vec::new();
    let mut all = Vec::new();
    for (run, t) in runs {
        let v = values(t).unwrap_or_default();
        all.push(json!({"run": run, "values": v, "count": v.len()}));
    }
    let base: BTreeSet<String> = baseline.clone().unwrap_or_default().into_iter().collect();
    for (run, t) in rest {
        let now: BTreeSet<String> = values(t).unwrap_or_default().into_iter().collect();
        let added: Vec<&String> = now.difference(&base).collect();
        let removed: Vec<&String> = base.difference(&now).collect();
        if !added.is_empty() || !removed.is_empty() {
            changed.push(json!({"run": run, "added": added, "removed": removed}));
        }
    }
    let drifted: Vec<&Finding> = findings.iter().filter(|f| f.code == code).collect();
    json!({
        "status": if drifted.is_empty() { "pass" } else { status_of(drifted.iter().copied()) },
        "issueCodes": codes_of(drifted.iter().copied()),
        "baseline": baseline,
        "changedRuns": changed,
        "values": all,
    })
}

/// The negotiated version per run: one value each, so `baseline` and `value` are strings.
fn protocol_drift(runs: &[(usize, &Transcript)], findings: &[Finding]) -> Value {
    let version = |t: &Transcript| t.session_version().map(|v| excerpt(&v, 40));
    let baseline = runs.first().and_then(|(_, t)| version(t));
    let values: Vec<Value> = runs
        .iter()
        .map(|(run, t)| json!({"run": run, "value": version(t)}))
        .collect();
    let changed: Vec<Value> = runs
        .iter()
        .skip(1)
        .filter(|(_, t)| version(t) != baseline)
        .map(|(run, t)| json!({"run": run, "from": baseline, "to": version(t)}))
        .collect();
    let drifted: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.code == Code::RepeatProtocolDrift)
        .collect();
    json!({
        "status": if runs.is_empty() { "skipped" } else { status_of(drifted.iter().copied()) },
        "issueCodes": codes_of(drifted.iter().copied()),
        "baseline": baseline,
        "changedRuns": changed,
        "values": values,
    })
}

/// The contract's `drift` object (repeat mode).
pub fn drift(run: &GuardRun) -> Value {
    let compared: Vec<(usize, &Transcript)> = run
        .runs
        .iter()
        .enumerate()
        .filter(|(_, s)| s.transcript.initialize_result().is_some())
        .map(|(i, s)| (i + 1, &s.transcript))
        .collect();
    let checked = compared.first().is_some_and(|(i, _)| *i == 1);
    let drift_findings: Vec<Finding> = run
        .drift
        .iter()
        .flat_map(|d| d.findings.iter().cloned())
        .collect();
    let tools = drift_aspect(
        &compared,
        |t| Some(tool_names(t)),
        Code::RepeatToolDrift,
        &drift_findings,
    );
    let capabilities = drift_aspect(
        &compared,
        |t| Some(capability_names(t)),
        Code::RepeatCapabilityDrift,
        &drift_findings,
    );
    let protocol = protocol_drift(&compared, &drift_findings);
    let mut tools = tools;
    tools["baselineCount"] = json!(tools["baseline"].as_array().map_or(0, Vec::len));
    let status = if !checked {
        "skipped"
    } else if drift_findings.is_empty() {
        "pass"
    } else {
        status_of(&drift_findings)
    };
    json!({
        "checked": checked,
        "status": status,
        "issueCodes": codes_of(&drift_findings),
        "baselineRun": checked.then_some(1),
        "comparedRuns": compared.iter().map(|(i, _)| i).collect::<Vec<_>>(),
        "changedRuns": run.drift.iter().map(|d| d.run).collect::<Vec<_>>(),
        "tools": tools,
        "capabilities": capabilities,
        "negotiatedProtocol": protocol,
    })
}
