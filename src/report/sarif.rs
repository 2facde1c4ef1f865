//! SARIF 2.1.0 for GitHub Code Scanning, built with `serde-sarif` from a `Report`.
//!
//! A file inside the repository is a URI relative to `%SRCROOT%`. A file outside it (a
//! scanned tree elsewhere, a user-level config) keeps its region with an absolute `file://`
//! URI, except in a SARIF the Action uploads, where it is anchored like a runtime finding:
//! Code Scanning rejects a file that is not in the repository. Findings without a file (the
//! guard's runtime findings) are anchored to line 1 of the report's anchor file, with their
//! protocol location in `logicalLocations` and the message.

use super::document::{Report, REPOSITORY_URL, TOOL_NAME, TOOL_VERSION};
use super::printed::Printed;
use super::repo::{file_uri, uri_path};
use super::sarif_pretty::{self, Slot};
use super::sarif_rules::{self, catalog_metas, level, taxon_reference};
use crate::catalog::CodeMeta;
use crate::finding::{excerpt, Finding};
use serde_json::{json, Value};
use serde_sarif::sarif::{
    ArtifactChange, ArtifactContent, ArtifactLocation, Fix, Invocation, Location, LogicalLocation,
    Message, Notification, PhysicalLocation, PropertyBag, Region, Replacement,
    Result as SarifResult, Run, RunAutomationDetails, Sarif, Tool, ToolComponent,
    ToolComponentReference, VersionControlDetails,
};
use std::collections::BTreeMap;

pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// GitHub ingests at most 25,000 results per run.
pub const MAX_RESULTS: usize = 25_000;
/// GitHub refuses SARIF files over 10 MB gzipped.
pub const MAX_GZIPPED_BYTES: usize = 10_000_000;
/// Our key in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "mcpcheck/v1";
const SRCROOT: &str = "%SRCROOT%";
const MESSAGE_CHARS: usize = 2_000;
const SNIPPET_CHARS: usize = 500;

/// The SARIF document of a report, as pretty-printed JSON within GitHub's limits.
pub fn render(report: &Report) -> String {
    printed(report).into_string()
}

/// As `render`, in the pieces it was printed in, to be written without joining them.
pub fn printed(report: &Report) -> Printed {
    render_limited(report, &catalog_metas(), MAX_GZIPPED_BYTES)
}

/// As `render`, with an explicit rule table (tests add rules the catalog lacks yet).
pub fn render_with_rules(report: &Report, metas: &[(&CodeMeta, String)]) -> String {
    render_limited(report, metas, MAX_GZIPPED_BYTES).into_string()
}

/// As `printed`, halving the results until the gzipped size fits `max_gzipped`.
pub fn render_limited(
    report: &Report,
    metas: &[(&CodeMeta, String)],
    max_gzipped: usize,
) -> Printed {
    let mut limit = report.findings.len().min(MAX_RESULTS);
    loop {
        let mut pretty = pretty_document(report, metas, limit);
        // Anything under the limit uncompressed is under it gzipped too.
        if pretty.len() <= max_gzipped {
            pretty.push_str("\n");
            return pretty;
        }
        let doc = document(report, metas, limit);
        let compact = serde_json::to_string(&doc).unwrap_or_default();
        if limit == 0 || gzipped_len(&compact) <= max_gzipped {
            return Printed::from(compact + "\n");
        }
        limit /= 2;
    }
}

/// Where the results are: a key of the run object, itself in the document's list of runs.
pub(super) const RESULTS: Slot = Slot {
    key: "results",
    depth: 3,
};

/// The document with the first `limit` findings as results, as `serde_json::to_string_pretty`
/// prints it; a large document's results are built and printed on several threads.
pub(super) fn pretty_document(
    report: &Report,
    metas: &[(&CodeMeta, String)],
    limit: usize,
) -> Printed {
    let findings = &report.findings[..limit.min(report.findings.len())];
    let skeleton = || sarif_pretty::pretty(&document_with(report, metas, limit, Vec::new()));
    let builder = || {
        let mut paths = RepoPaths::default();
        move |f: &Finding| result(report, f, metas, &mut paths)
    };
    sarif_pretty::set_in(skeleton, &RESULTS, findings, builder)
        .unwrap_or_else(|| Printed::from(sarif_pretty::pretty(&document(report, metas, limit))))
}

/// The size of `text` gzipped, as GitHub measures the upload.
pub(crate) fn gzipped_len(text: &str) -> usize {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    match encoder
        .write_all(text.as_bytes())
        .and_then(|()| encoder.finish())
    {
        Ok(bytes) => bytes.len(),
        // Cannot measure: assume the worst, so results are cut rather than the upload refused.
        Err(_) => usize::MAX,
    }
}

/// The document with at most `limit` results; the rest are summarised in a notification.
pub fn document(report: &Report, metas: &[(&CodeMeta, String)], limit: usize) -> Sarif {
    let mut paths = RepoPaths::default();
    let results: Vec<SarifResult> = report
        .findings
        .iter()
        .take(limit)
        .map(|f| result(report, f, metas, &mut paths))
        .collect();
    document_with(report, metas, limit, results)
}

/// The document with `results`, the first `limit` findings' (the rest are summarised).
fn document_with(
    report: &Report,
    metas: &[(&CodeMeta, String)],
    limit: usize,
    results: Vec<SarifResult>,
) -> Sarif {
    let omitted = report.findings.len().saturating_sub(limit);
    let mut notifications: Vec<Notification> = report
        .notices
        .iter()
        .map(|n| notification(n, "warning"))
        .collect();
    if omitted > 0 {
        notifications.push(notification(
            &format!(
                "{omitted} of {} findings are not in this file: GitHub accepts at most {MAX_RESULTS} results per run and 10 MB gzipped per file. The JSON report has them all.",
                report.findings.len()
            ),
            "warning",
        ));
    }
    let mut driver = ToolComponent::builder()
        .name(TOOL_NAME)
        .version(TOOL_VERSION)
        .semantic_version(TOOL_VERSION)
        .information_uri(REPOSITORY_URL)
        .rules(sarif_rules::rules(metas))
        .build();
    let taxonomy = sarif_rules::taxonomy(metas);
    if let Some(t) = &taxonomy {
        driver.supported_taxonomies = Some(vec![ToolComponentReference::builder()
            .name(t.name.clone())
            .build()]);
    }
    let mut invocation = Invocation::builder()
        .execution_successful(true)
        .exit_code(i64::from(report.exit_code))
        .build();
    if !report.invocation.is_empty() {
        invocation.command_line = Some(excerpt(&shell_words::join(&report.invocation), 4_000));
    }
    if !notifications.is_empty() {
        invocation.tool_execution_notifications = Some(notifications);
    }
    let mut properties = BTreeMap::new();
    properties.insert("engine".to_string(), json!(report.engine));
    properties.insert(
        "status".to_string(),
        json!(report.verdict().status.as_str()),
    );
    if omitted > 0 {
        properties.insert("omittedResults".to_string(), json!(omitted));
    }
    let mut run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .results(results)
        .invocations(vec![invocation])
        .column_kind(json!("unicodeCodePoints"))
        .properties(
            PropertyBag::builder()
                .additional_properties(properties)
                .build(),
        )
        .build();
    if let Some(t) = taxonomy {
        run.taxonomies = Some(vec![t]);
    }
    if let Some(category) = report.category.as_deref().filter(|c| !c.is_empty()) {
        // Code Scanning takes everything up to the last `/` as the category.
        let id = if category.ends_with('/') {
            category.to_string()
        } else {
            format!("{category}/")
        };
        run.automation_details = Some(RunAutomationDetails::builder().id(id).build());
    }
    if let Some(link) = &report.repo.link {
        run.version_control_provenance = Some(vec![VersionControlDetails::builder()
            .repository_uri(format!("{}/{}", link.server, link.repository))
            .revision_id(link.sha.clone())
            .build()]);
    }
    Sarif::builder()
        .schema(SCHEMA_URI)
        .version(json!("2.1.0"))
        .runs(vec![run])
        .build()
}

fn notification(text: &str, level: &str) -> Notification {
    Notification::builder()
        .message(
            Message::builder()
                .text(excerpt(text, MESSAGE_CHARS))
                .build(),
        )
        .level(json!(level))
        .build()
}

/// Repository-relative paths and absolute URIs by file as findings name it, each file looked
/// up once (many findings share a file, and each look-up asks the file system).
#[derive(Default)]
struct RepoPaths {
    relative: std::collections::HashMap<String, Option<String>>,
    uris: std::collections::HashMap<String, Option<String>>,
    artifacts: std::collections::HashMap<String, ArtifactLocation>,
}

impl RepoPaths {
    fn relative(&mut self, report: &Report, file: &str) -> Option<String> {
        if let Some(known) = self.relative.get(file) {
            return known.clone();
        }
        let found = report.repo.relative(std::path::Path::new(file));
        self.relative.insert(file.to_string(), found.clone());
        found
    }

    /// A file's location in the repository (`artifact`), its URI encoded once per file.
    fn artifact(&mut self, rel: &str) -> ArtifactLocation {
        if let Some(known) = self.artifacts.get(rel) {
            return known.clone();
        }
        let at = artifact(rel);
        self.artifacts.insert(rel.to_string(), at.clone());
        at
    }

    /// A file's absolute `file://` URI, found once per file (it resolves the path on disk).
    fn uri(&mut self, file: &str) -> Option<String> {
        if let Some(known) = self.uris.get(file) {
            return known.clone();
        }
        let uri = file_uri(std::path::Path::new(file));
        self.uris.insert(file.to_string(), uri.clone());
        uri
    }
}

fn result(
    report: &Report,
    f: &Finding,
    metas: &[(&CodeMeta, String)],
    paths: &mut RepoPaths,
) -> SarifResult {
    let own_file = f
        .location
        .file
        .as_deref()
        .and_then(|p| paths.relative(report, p));
    // Outside the repository a file keeps its place, as an absolute URI (never a blob link),
    // unless the SARIF is for upload.
    let outside = match (&own_file, &f.location.file) {
        (None, Some(p)) if !report.for_upload => paths
            .uri(p)
            .map(|uri| ArtifactLocation::builder().uri(uri).build()),
        _ => None,
    };
    let artifact = own_file
        .as_deref()
        .map(|rel| paths.artifact(rel))
        .or(outside);
    let mut logical = logical_locations(f);
    if artifact.is_none() {
        if let Some(p) = &f.location.file {
            // A file that cannot be found: named, never linked.
            logical.push(
                LogicalLocation::builder()
                    .fully_qualified_name(excerpt(p, 500))
                    .kind("resource")
                    .build(),
            );
        }
    }
    let related = printed_by(report, f, paths);
    // One write that can have printed the line is where the finding is, in the source.
    let first_line = f.printed_by.as_deref().and_then(|lines| lines.first());
    let unambiguous = match (first_line.map(|l| l.writes.len()), related.first()) {
        (Some(1), Some((one, _))) => Some(one.clone()),
        _ => None,
    };
    let physical = match (&artifact, &report.anchor) {
        (Some(at), _) => Some(physical(at.clone(), file_region(f))),
        (None, _) if unambiguous.is_some() => unambiguous,
        (None, Some(anchor)) => Some(physical(
            self::artifact(anchor),
            Region::builder().start_line(1).start_column(1).build(),
        )),
        (None, None) => None,
    };
    let mut location = Location::builder().build();
    location.physical_location = physical;
    if !logical.is_empty() {
        location.logical_locations = Some(logical);
    }
    let has_location = location.physical_location.is_some() || location.logical_locations.is_some();

    let mut text = f.message.clone();
    if own_file.is_none() {
        let place = f.location.describe();
        if !place.is_empty() {
            text.push_str(&format!(" (at {place})"));
        }
    }
    if let Some(ev) = &f.evidence {
        text.push_str(&format!(" Evidence: {ev}"));
    }
    let mut fingerprints = BTreeMap::new();
    fingerprints.insert(FINGERPRINT_KEY.to_string(), f.fingerprint());
    let mut props: BTreeMap<String, Value> = BTreeMap::new();
    props.insert("class".into(), json!(f.class().as_str()));
    if let Some(d) = f.detail_code {
        props.insert("detailCode".into(), json!(d));
    }
    if let Some(r) = f.risk {
        props.insert("risk".into(), json!(r.as_str()));
    }
    let index = metas
        .iter()
        .position(|(m, _)| m.code == f.code.as_str())
        .unwrap_or(f.code as usize);
    let mut r = SarifResult::builder()
        .rule_id(f.code.as_str())
        .rule_index(index as i64)
        .level(level_of(f))
        .message(
            Message::builder()
                .text(excerpt(&text, MESSAGE_CHARS))
                .build(),
        )
        .partial_fingerprints(fingerprints)
        .properties(PropertyBag::builder().additional_properties(props).build())
        .build();
    if has_location {
        r.locations = Some(vec![location]);
    }
    if !related.is_empty() {
        r.related_locations = Some(related.into_iter().map(|(_, l)| l).collect());
    }
    if let (Some(at), Some(rep)) = (artifact, &f.replacement) {
        r.fixes = Some(vec![fix(at, rep, f.import.as_ref())]);
    }
    if let Some(id) = f.code.meta().owasp {
        r.taxa = Some(vec![taxon_reference(id)]);
    }
    r
}

/// The writes that could have printed a stray stdout line, ranked, as related locations
/// (with the bare physical location of each, for the unambiguous case).
fn printed_by(
    report: &Report,
    f: &Finding,
    paths: &mut RepoPaths,
) -> Vec<(PhysicalLocation, Location)> {
    let Some(lines) = &f.printed_by else {
        return Vec::new();
    };
    let mut id = 0;
    let mut out = Vec::new();
    for traced in lines {
        let total = traced.writes.len();
        for (i, w) in traced.writes.iter().enumerate() {
            let Some(rel) = paths.relative(report, &w.file) else {
                continue;
            };
            let mut region = Region::builder()
                .start_line(w.line.max(1) as i64)
                .start_column(w.column.max(1) as i64)
                .build();
            region.snippet = Some(
                ArtifactContent::builder()
                    .text(excerpt(&w.code, SNIPPET_CHARS))
                    .build(),
            );
            let at = physical(artifact(&rel), region);
            let line = traced.stdout_line;
            let text = if total == 1 {
                format!("The write that printed stdout line {line}")
            } else {
                format!(
                    "Could have printed stdout line {line} (match {} of {total})",
                    i + 1
                )
            };
            let mut location = Location::builder()
                .id(id)
                .message(Message::builder().text(text).build())
                .build();
            id += 1;
            location.physical_location = Some(at.clone());
            out.push((at, location));
        }
    }
    out
}

fn level_of(f: &Finding) -> serde_sarif::sarif::ResultLevel {
    use crate::finding::Severity;
    use serde_sarif::sarif::ResultLevel;
    debug_assert_eq!(level(f.severity), f.severity.as_str());
    match f.severity {
        Severity::Error => ResultLevel::Error,
        Severity::Warning => ResultLevel::Warning,
        Severity::Note => ResultLevel::Note,
    }
}

fn artifact(rel: &str) -> ArtifactLocation {
    ArtifactLocation::builder()
        .uri(uri_path(rel))
        .uri_base_id(SRCROOT)
        .build()
}

fn physical(at: ArtifactLocation, region: Region) -> PhysicalLocation {
    PhysicalLocation::builder()
        .artifact_location(at)
        .region(region)
        .build()
}

/// The finding's own region: 1-based line and column, its end, and a bounded snippet.
fn file_region(f: &Finding) -> Region {
    let l = &f.location;
    let mut region = Region::builder()
        .start_line(l.line.unwrap_or(1).max(1) as i64)
        .start_column(l.column.unwrap_or(1).max(1) as i64)
        .build();
    region.end_line = l.end_line.map(|e| e.max(1) as i64);
    region.end_column = l.end_column.map(|e| e.max(1) as i64);
    if let Some(ev) = &f.evidence {
        region.snippet = Some(
            ArtifactContent::builder()
                .text(excerpt(ev, SNIPPET_CHARS))
                .build(),
        );
    }
    region
}

/// The protocol side of a location: the request, the logical path, the stdout line.
fn logical_locations(f: &Finding) -> Vec<LogicalLocation> {
    let l = &f.location;
    let mut out = Vec::new();
    if let Some(req) = &l.request {
        out.push(
            LogicalLocation::builder()
                .name(excerpt(req, 200))
                .fully_qualified_name(format!("request:{}", excerpt(req, 200)))
                .kind("function")
                .build(),
        );
    }
    if let Some(path) = &l.logical {
        let name = path.rsplit('/').find(|s| !s.is_empty()).unwrap_or(path);
        out.push(
            LogicalLocation::builder()
                .name(excerpt(name, 200))
                .fully_qualified_name(excerpt(path, 500))
                .kind(if path.starts_with('/') {
                    "property"
                } else {
                    "member"
                })
                .build(),
        );
    }
    if let Some(line) = l.stdout_line {
        out.push(
            LogicalLocation::builder()
                .name(format!("stdout line {line}"))
                .fully_qualified_name(format!("stdout:{line}"))
                .kind("text")
                .build(),
        );
    }
    out
}

fn fix(
    at: ArtifactLocation,
    rep: &crate::finding::Replacement,
    import: Option<&crate::finding::Replacement>,
) -> Fix {
    // The import the rewrite needs goes with it, the replacements in file order.
    let mut edits: Vec<&crate::finding::Replacement> = import.into_iter().chain([rep]).collect();
    edits.sort_by_key(|r| (r.start_line, r.start_column));
    Fix::builder()
        .description(
            Message::builder()
                .text(excerpt(&rep.description, 500))
                .build(),
        )
        .artifact_changes(vec![ArtifactChange::builder()
            .artifact_location(at)
            .replacements(edits.into_iter().map(sarif_replacement).collect::<Vec<_>>())
            .build()])
        .build()
}

fn sarif_replacement(rep: &crate::finding::Replacement) -> Replacement {
    let mut deleted = Region::builder()
        .start_line(rep.start_line.max(1) as i64)
        .start_column(rep.start_column.max(1) as i64)
        .build();
    deleted.end_line = Some(rep.end_line.max(1) as i64);
    deleted.end_column = Some(rep.end_column.max(1) as i64);
    Replacement::builder()
        .deleted_region(deleted)
        .inserted_content(ArtifactContent::builder().text(rep.text.clone()).build())
        .build()
}
