//! The source scan's JSON report (`schemaVersion: 1`), documented in the README.

use crate::report::issue::{Issue, SchemaVersion, Summary};
use crate::source::SourceScan;
use crate::verdict::Verdict;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The source scan report contract (v1).
pub const SCHEMA_VERSION: u32 = 1;

/// The source scan's JSON report: the roots walked, what was parsed and skipped, and every
/// finding.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "mcpcheck source --format json")]
pub struct SourceReport<'a> {
    pub schema_version: SchemaVersion,
    /// True when no finding has severity `error`.
    pub ok: bool,
    pub summary: Summary,
    /// The paths scanned, as given.
    pub roots: &'a [String],
    pub stats: SourceStats<'a>,
    pub issues: Vec<Issue<'a>>,
}

/// What the scan looked at.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceStats<'a> {
    /// Source files read and checked (parsed, or ruled out by a quick text test).
    pub files_scanned: usize,
    /// Of those, files that were parsed.
    pub files_parsed: usize,
    /// Bytes given to the parser (less than the files' size when parsed in part).
    pub bytes_parsed: u64,
    /// Large files parsed in part: blocks that mention nothing the scan looks for left out.
    pub files_parsed_in_part: usize,
    /// Parsed files with syntax errors (scanned anyway; tree-sitter recovers).
    pub files_with_syntax_errors: usize,
    pub bytes_scanned: u64,
    /// Files in no supported language.
    pub other_files: usize,
    /// Files not scanned, by reason (`test`, `minified`, `tooLarge`, ...).
    #[schemars(with = "BTreeMap<String, usize>")]
    pub skipped_files: &'a BTreeMap<crate::source::walk::FileSkip, usize>,
    /// Directories not entered, by reason (`dependency`, `test`, ...).
    #[schemars(with = "BTreeMap<String, usize>")]
    pub skipped_dirs: &'a BTreeMap<crate::source::walk::DirSkip, usize>,
    /// Findings suppressed by a comment in the source.
    pub suppressed: usize,
    /// Files scanned per language.
    pub languages: &'a BTreeMap<&'static str, usize>,
}

pub fn report(scan: &SourceScan) -> SourceReport<'_> {
    let verdict = Verdict::of(&scan.findings);
    let s = &scan.stats;
    SourceReport {
        schema_version: SchemaVersion,
        ok: verdict.ok(),
        summary: Summary::of(&verdict),
        roots: &scan.roots,
        stats: SourceStats {
            files_scanned: s.files_scanned,
            files_parsed: s.files_parsed,
            bytes_parsed: s.bytes_parsed,
            files_parsed_in_part: s.files_parsed_in_part,
            files_with_syntax_errors: s.files_with_syntax_errors,
            bytes_scanned: s.bytes_scanned,
            other_files: s.other_files,
            skipped_files: &s.skipped_files,
            skipped_dirs: &s.skipped_dirs,
            suppressed: s.suppressed,
            languages: &s.languages,
        },
        issues: scan.findings.iter().map(Issue::of).collect(),
    }
}

pub fn render(scan: &SourceScan) -> Value {
    serde_json::to_value(report(scan)).unwrap_or(Value::Null)
}
