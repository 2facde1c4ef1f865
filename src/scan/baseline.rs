//! `.mcpcheck-baseline.json`: a reviewable, sorted list of accepted findings. A scan with
//! `--baseline` reports and fails only on findings whose fingerprint is not in it.

use super::InputError;
use crate::finding::Finding;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::Path;

pub const DEFAULT_FILE: &str = ".mcpcheck-baseline.json";
const SCHEMA_VERSION: u32 = 1;

/// The findings a scan accepts (`mcpcheck baseline` writes it, `scan --baseline` reads it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "mcpcheck baseline file (.mcpcheck-baseline.json)")]
pub struct Baseline {
    /// Always 1 in this version of the file.
    #[schemars(range(min = 1, max = 1))]
    pub schema_version: u32,
    /// `mcpcheck` and its version.
    pub generated_by: String,
    /// Sorted by file, path, code and fingerprint.
    pub findings: Vec<BaselineEntry>,
}

/// One accepted finding: its fingerprint decides; the rest is for a reviewer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BaselineEntry {
    pub fingerprint: String,
    pub code: String,
    pub severity: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The logical path, such as /mcpServers/github/env/GITHUB_TOKEN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub message: String,
}

impl Baseline {
    pub fn of(findings: &[Finding]) -> Self {
        let mut entries: Vec<BaselineEntry> = findings
            .iter()
            .map(|f| BaselineEntry {
                fingerprint: f.fingerprint(),
                code: f.code.as_str().to_string(),
                severity: f.severity.as_str().to_string(),
                risk: f.risk.map(|r| r.as_str().to_string()),
                file: f.location.file.clone(),
                path: f.location.logical.clone(),
                message: f.message.clone(),
            })
            .collect();
        entries.sort_by(|a, b| {
            (&a.file, &a.path, &a.code, &a.fingerprint).cmp(&(
                &b.file,
                &b.path,
                &b.code,
                &b.fingerprint,
            ))
        });
        entries.dedup_by(|a, b| a.fingerprint == b.fingerprint);
        Self {
            schema_version: SCHEMA_VERSION,
            generated_by: format!("mcpcheck {}", env!("CARGO_PKG_VERSION")),
            findings: entries,
        }
    }

    pub fn fingerprints(&self) -> HashSet<&str> {
        self.findings
            .iter()
            .map(|e| e.fingerprint.as_str())
            .collect()
    }

    pub fn read(path: &Path) -> Result<Self, InputError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            InputError(format!(
                "--baseline {}: cannot read ({e}); create it with `mcpcheck baseline`",
                path.display()
            ))
        })?;
        let b: Baseline = serde_json::from_str(&text).map_err(|e| {
            InputError(format!(
                "--baseline {}: not a valid baseline ({e}); regenerate it with `mcpcheck baseline --force`",
                path.display()
            ))
        })?;
        if b.schema_version != SCHEMA_VERSION {
            return Err(InputError(format!(
                "--baseline {}: schemaVersion {} is not supported (expected {SCHEMA_VERSION})",
                path.display(),
                b.schema_version
            )));
        }
        Ok(b)
    }
}

/// Splits findings into new ones and the number the baseline already accepts.
pub fn filter(findings: Vec<Finding>, baseline: &Baseline) -> (Vec<Finding>, usize) {
    let known = baseline.fingerprints();
    let before = findings.len();
    let kept: Vec<Finding> = findings
        .into_iter()
        .filter(|f| !known.contains(f.fingerprint().as_str()))
        .collect();
    let suppressed = before - kept.len();
    (kept, suppressed)
}
