//! The contract's facts across runs and sessions: adversarial probes, tool schemas, drift.

use super::CheckStatus;
use super::{adversarial_enabled, check_codes, codes_of, declared_capabilities, status_of};
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Severity};
use crate::guard::{GuardRun, SessionResult};
use crate::session::transcript::{ListKind, Transcript};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The adversarial probes that ran.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Adversarial {
    pub enabled: bool,
    pub probes: Vec<Probe>,
}

/// Where a probe came from: mcpcheck's own, or a tool call of the config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ProbeSource {
    Builtin,
    ConfigToolCall,
}

/// One adversarial probe.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    pub index: usize,
    pub name: String,
    pub source: ProbeSource,
    pub status: CheckStatus,
    pub issue_codes: Vec<&'static str>,
    pub observed: String,
}

pub fn adversarial(run: &GuardRun) -> Adversarial {
    let probes = run
        .probes
        .iter()
        .enumerate()
        .map(|(index, p)| {
            let status = match p.status {
                "not-applicable" => CheckStatus::Skipped,
                _ => status_of(&p.findings),
            };
            let builtin = run.settings.probes.iter().any(|b| b.name() == p.probe);
            Probe {
                index,
                name: p.probe.clone(),
                source: if builtin {
                    ProbeSource::Builtin
                } else {
                    ProbeSource::ConfigToolCall
                },
                status,
                issue_codes: codes_of(&p.findings),
                observed: p.observed.clone(),
            }
        })
        .collect();
    Adversarial {
        enabled: adversarial_enabled(run),
        probes,
    }
}

/// The advertised tools' schemas: mcpcheck's `total`/`valid`/`invalid`, then the contract's.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolSchema {
    pub total: usize,
    pub valid: usize,
    pub invalid: usize,
    pub checked: bool,
    pub tool_count: usize,
    pub tool_names: Vec<String>,
    pub valid_tool_count: usize,
    pub warning_count: usize,
    pub error_count: usize,
    pub duplicate_names: Vec<String>,
    /// With `--repeat`: the number of runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<usize>,
}

/// The contract's `toolSchema` fields, added to mcpcheck's `total`/`valid`/`invalid`.
pub fn tool_schema(session: &SessionResult, findings: &[Finding]) -> ToolSchema {
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
    let summary = &session.tool_schema;
    let duplicate_names = seen
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(k, _)| k.to_string())
        .collect();
    ToolSchema {
        total: summary.total,
        valid: summary.valid,
        invalid: summary.invalid,
        checked: t.list(ListKind::Tools).is_some(),
        tool_count: summary.total,
        tool_names: names,
        valid_tool_count: summary.valid,
        warning_count: count(Severity::Warning),
        error_count: count(Severity::Error),
        duplicate_names,
        runs: None,
    }
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

/// The contract's `drift` (`--repeat`): what changed between the runs.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Drift {
    pub checked: bool,
    pub status: CheckStatus,
    pub issue_codes: Vec<&'static str>,
    #[schemars(range(min = 1))]
    pub baseline_run: Option<usize>,
    pub compared_runs: Vec<usize>,
    pub changed_runs: Vec<usize>,
    pub tools: DriftAspect,
    pub capabilities: DriftAspect,
    pub negotiated_protocol: ProtocolDrift,
}

/// One aspect of drift across runs: the baseline's values, each run's, and what changed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DriftAspect {
    pub status: CheckStatus,
    pub issue_codes: Vec<&'static str>,
    pub baseline: Option<Vec<String>>,
    pub changed_runs: Vec<ChangedValues>,
    pub values: Vec<RunValues>,
    /// Tools only: how many the baseline run listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_count: Option<usize>,
}

/// What a run added to and removed from the baseline.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangedValues {
    pub run: usize,
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

/// One run's values.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunValues {
    pub run: usize,
    pub values: Vec<String>,
    pub count: usize,
}

/// The negotiated version per run: one value each, so `baseline` and `value` are strings.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProtocolDrift {
    pub status: CheckStatus,
    pub issue_codes: Vec<&'static str>,
    pub baseline: Option<String>,
    pub changed_runs: Vec<ChangedVersion>,
    pub values: Vec<RunVersion>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangedVersion {
    pub run: usize,
    pub from: Option<String>,
    pub to: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunVersion {
    pub run: usize,
    pub value: Option<String>,
}

fn drift_aspect(
    runs: &[(usize, &Transcript)],
    values: impl Fn(&Transcript) -> Option<Vec<String>>,
    code: Code,
    findings: &[Finding],
) -> DriftAspect {
    let Some(((_, first), rest)) = runs.split_first() else {
        return DriftAspect {
            status: CheckStatus::Skipped,
            issue_codes: Vec::new(),
            baseline: None,
            changed_runs: Vec::new(),
            values: Vec::new(),
            baseline_count: None,
        };
    };
    let baseline = values(first);
    let mut changed = Vec::new();
    let mut all = Vec::new();
    for (run, t) in runs {
        let v = values(t).unwrap_or_default();
        let count = v.len();
        all.push(RunValues {
            run: *run,
            values: v,
            count,
        });
    }
    let base: BTreeSet<String> = baseline.clone().unwrap_or_default().into_iter().collect();
    for (run, t) in rest {
        let now: BTreeSet<String> = values(t).unwrap_or_default().into_iter().collect();
        let added: Vec<String> = now.difference(&base).cloned().collect();
        let removed: Vec<String> = base.difference(&now).cloned().collect();
        if !added.is_empty() || !removed.is_empty() {
            changed.push(ChangedValues {
                run: *run,
                added,
                removed,
            });
        }
    }
    let drifted: Vec<&Finding> = findings.iter().filter(|f| f.code == code).collect();
    DriftAspect {
        status: if drifted.is_empty() {
            CheckStatus::Pass
        } else {
            status_of(drifted.iter().copied())
        },
        issue_codes: codes_of(drifted.iter().copied()),
        baseline,
        changed_runs: changed,
        values: all,
        baseline_count: None,
    }
}

fn protocol_drift(runs: &[(usize, &Transcript)], findings: &[Finding]) -> ProtocolDrift {
    let version = |t: &Transcript| t.session_version().map(|v| excerpt(&v, 40));
    let baseline = runs.first().and_then(|(_, t)| version(t));
    let values = runs
        .iter()
        .map(|(run, t)| RunVersion {
            run: *run,
            value: version(t),
        })
        .collect();
    let changed = runs
        .iter()
        .skip(1)
        .filter(|(_, t)| version(t) != baseline)
        .map(|(run, t)| ChangedVersion {
            run: *run,
            from: baseline.clone(),
            to: version(t),
        })
        .collect();
    let drifted: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.code == Code::RepeatProtocolDrift)
        .collect();
    ProtocolDrift {
        status: if runs.is_empty() {
            CheckStatus::Skipped
        } else {
            status_of(drifted.iter().copied())
        },
        issue_codes: codes_of(drifted.iter().copied()),
        baseline,
        changed_runs: changed,
        values,
    }
}

/// The contract's `drift` object (repeat mode).
pub fn drift(run: &GuardRun) -> Drift {
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
    let mut tools = drift_aspect(
        &compared,
        |t| Some(tool_names(t)),
        Code::RepeatToolDrift,
        &drift_findings,
    );
    tools.baseline_count = Some(tools.baseline.as_ref().map_or(0, Vec::len));
    let capabilities = drift_aspect(
        &compared,
        |t| Some(capability_names(t)),
        Code::RepeatCapabilityDrift,
        &drift_findings,
    );
    let status = if !checked {
        CheckStatus::Skipped
    } else if drift_findings.is_empty() {
        CheckStatus::Pass
    } else {
        status_of(&drift_findings)
    };
    Drift {
        checked,
        status,
        issue_codes: codes_of(&drift_findings),
        baseline_run: checked.then_some(1),
        compared_runs: compared.iter().map(|(i, _)| *i).collect(),
        changed_runs: run.drift.iter().map(|d| d.run).collect(),
        tools,
        capabilities,
        negotiated_protocol: protocol_drift(&compared, &drift_findings),
    }
}
