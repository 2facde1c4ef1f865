//! The one finding model every engine produces and every renderer reads.

use crate::catalog::Code;
use schemars::JsonSchema;
use serde::Serialize;

/// How bad a finding is. Ordered: `Error` is the most severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// The risk of a security finding, on the scale security reviewers use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    Info,
    Low,
    Medium,
    High,
    Critical,
}

impl Risk {
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Info => "info",
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
            Risk::Critical => "critical",
        }
    }

    /// The severity a risk maps to in the one finding model.
    pub fn severity(self) -> Severity {
        match self {
            Risk::Info => Severity::Note,
            Risk::Low | Risk::Medium => Severity::Warning,
            Risk::High | Risk::Critical => Severity::Error,
        }
    }

    /// GitHub's `security-severity` score (0.0–10.0) for SARIF.
    pub fn score(self) -> f64 {
        match self {
            Risk::Info => 1.0,
            Risk::Low => 3.0,
            Risk::Medium => 5.5,
            Risk::High => 8.0,
            Risk::Critical => 9.5,
        }
    }
}

/// The family a finding belongs to; it decides the verdict's wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum IssueClass {
    /// The server could not be installed, started or kept running.
    InstallRuntime,
    /// The bytes on stdout break the stdio transport.
    StdioTransport,
    /// The messages break JSON-RPC or the MCP lifecycle.
    McpProtocol,
    /// Source code that would break the stdio channel (found without running it).
    StaticSource,
    /// A configuration or advertised surface that puts users at risk.
    Security,
    /// Not the server's fault as far as can be told here: an upstream it needs (a network
    /// service, a credential it names) was missing where it ran, so it could not be judged.
    Environment,
}

impl IssueClass {
    /// An error of this class makes a verdict "needs inspection", not "fail": the server
    /// could not be installed, kept running, or reach what it needs here, which a person
    /// must look at before calling it broken.
    pub fn needs_inspection(self) -> bool {
        matches!(self, IssueClass::InstallRuntime | IssueClass::Environment)
    }

    pub const ALL: [IssueClass; 6] = [
        IssueClass::InstallRuntime,
        IssueClass::StdioTransport,
        IssueClass::McpProtocol,
        IssueClass::StaticSource,
        IssueClass::Security,
        IssueClass::Environment,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            IssueClass::InstallRuntime => "installRuntime",
            IssueClass::StdioTransport => "stdioTransport",
            IssueClass::McpProtocol => "mcpProtocol",
            IssueClass::StaticSource => "staticSource",
            IssueClass::Security => "security",
            IssueClass::Environment => "environment",
        }
    }
}

/// Where a finding is: a place in a file, a place in the protocol, or both.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
    /// Where the region ends (inclusive line, exclusive column), 1-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_column: Option<u64>,
    /// 1-based line of the server's stdout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stdout_line: Option<u64>,
    /// The request involved, as `METHOD` or `METHOD#ID`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    /// A logical path such as `tools/echo/inputSchema`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logical: Option<String>,
}

impl Location {
    pub fn stdout_line(line: u64) -> Self {
        Self {
            stdout_line: Some(line),
            ..Self::default()
        }
    }

    pub fn request(method: &str) -> Self {
        Self {
            request: Some(method.to_string()),
            ..Self::default()
        }
    }

    pub fn logical(path: impl Into<String>) -> Self {
        Self {
            logical: Some(path.into()),
            ..Self::default()
        }
    }

    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// A short human rendering: `stdout line 3`, `tools/list`, `tools/echo/inputSchema`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(f) = &self.file {
            parts.push(match (self.line, self.column) {
                (Some(l), Some(c)) => format!("{f}:{l}:{c}"),
                (Some(l), None) => format!("{f}:{l}"),
                _ => f.clone(),
            });
        }
        if let Some(r) = &self.request {
            parts.push(r.clone());
        }
        if let Some(p) = &self.logical {
            parts.push(p.clone());
        }
        if let Some(l) = self.stdout_line {
            parts.push(format!("stdout line {l}"));
        }
        parts.join(", ")
    }
}

/// Where a server's session was when something happened to its process, in the
/// mcp-stdio-guard contract's names (`process.phase`, and an issue's own `phase`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ProcessPhase {
    Startup,
    Initialize,
    Operation,
    Adversarial,
    PostInitialize,
}

/// What the server's process did, on a finding about an exit, a crash or a timeout:
/// the issue's own facts, where `process.*` describes only the primary session's end.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProcessFacts {
    /// Where the session was when it happened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<ProcessPhase>,
    /// On a finding about an exit: the code the process exited with, null when a signal
    /// ended it (or its status was not seen). Absent on other findings.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-absent-or-null" = true))]
    pub exit_code: Option<Option<i32>>,
    /// On a finding about an exit: the signal that ended the process (`SIGSEGV`), null when
    /// it exited by itself. Both keys are written, as mcp-stdio-guard writes them.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-absent-or-null" = true))]
    pub signal: Option<Option<&'static str>>,
    /// How long the guard waited for the answer that never came.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl ProcessFacts {
    pub fn phase(phase: ProcessPhase) -> Self {
        Self {
            phase: Some(phase),
            ..Self::default()
        }
    }

    /// A wait of `timeout_ms` that ran out in `phase`.
    pub fn timeout(phase: ProcessPhase, timeout_ms: u64) -> Self {
        Self {
            timeout_ms: Some(timeout_ms),
            ..Self::phase(phase)
        }
    }

    /// An exit in `phase`, with its code or signal when the process's status was seen.
    pub fn exit(phase: ProcessPhase, exit: Option<crate::process::ExitKind>) -> Self {
        use crate::process::ExitKind;
        Self {
            exit_code: Some(match exit {
                Some(ExitKind::Code(c)) => Some(c),
                _ => None,
            }),
            signal: Some(match exit {
                Some(ExitKind::Signal(s)) => Some(crate::process::signal_name(s)),
                _ => None,
            }),
            ..Self::phase(phase)
        }
    }
}

/// One thing wrong, as an engine saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub code: Code,
    pub severity: Severity,
    /// What happened and where, for a person.
    pub message: String,
    /// A finer-grained reason within the code, where one exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail_code: Option<&'static str>,
    #[serde(skip_serializing_if = "Location::is_empty")]
    pub location: Location,
    /// A bounded, escaped excerpt of the offending input (secrets redacted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    /// How to fix this instance; the catalog's help covers the general case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// A safe textual fix that a tool may apply (carried into SARIF `fixes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacement: Option<Replacement>,
    /// An import the replacement needs (`import sys`, Go's `"os"`), inserted elsewhere in
    /// the same file; applied together with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub import: Option<Replacement>,
    /// Stray stdout traced to the source (`guard --scan`): for each of the finding's stdout
    /// lines, the writes that could have printed it, best first (none: no write matches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub printed_by: Option<Vec<TracedLine>>,
    /// Security findings: their risk (the severity follows from it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
    /// The class when it is not the code's own: a fault the environment caused (an
    /// unreachable upstream) keeps its code but is filed under `environment`.
    #[serde(skip)]
    pub class_override: Option<IssueClass>,
    /// The language of the source a finding points into (source scan).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<&'static str>,
    /// A server that stopped or hung: the lines of its stderr that say why (the first line
    /// that names an error, with the lines after it, then the last lines), each bounded,
    /// credentials masked; `…` marks lines left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_excerpt: Option<Vec<String>>,
    /// A finding about the server's process: its phase, exit code, signal and timeout.
    #[serde(flatten)]
    pub process: ProcessFacts,
}

/// One stray stdout line and the writes that could have printed it, best first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TracedLine {
    pub stdout_line: u64,
    pub writes: Vec<SourceWrite>,
}

/// A write in the source that prints to stdout, where it is and how it reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceWrite {
    pub file: String,
    pub line: u64,
    pub column: u64,
    /// The write's first line as written, bounded and escaped.
    pub code: String,
}

/// A machine-applicable edit in the file of the finding's location.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Replacement {
    pub description: String,
    /// 1-based start line and column, end line and exclusive end column of the replaced text.
    pub start_line: u64,
    pub start_column: u64,
    pub end_line: u64,
    pub end_column: u64,
    pub text: String,
}

impl Finding {
    /// Masks every credential the secrets module recognises in what a report shows of this
    /// finding: its message, evidence and fix.
    pub fn mask_secrets(&mut self) {
        self.message = crate::secrets::redact(&self.message);
        if let Some(evidence) = &self.evidence {
            self.evidence = Some(crate::secrets::redact(evidence));
        }
        if let Some(fix) = &self.fix {
            self.fix = Some(crate::secrets::redact(fix));
        }
        if let Some(lines) = &mut self.stderr_excerpt {
            lines
                .iter_mut()
                .for_each(|l| *l = crate::secrets::redact(l));
        }
    }

    /// A finding at the code's default severity.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        let meta = code.meta();
        Self {
            code,
            severity: code.severity(),
            message: message.into(),
            detail_code: None,
            location: Location::default(),
            evidence: None,
            fix: None,
            replacement: None,
            import: None,
            printed_by: None,
            risk: meta.risk,
            language: None,
            class_override: None,
            stderr_excerpt: None,
            process: ProcessFacts::default(),
        }
    }

    /// Sets the risk of a security finding, and the severity that follows from it.
    pub fn risk(mut self, risk: Risk) -> Self {
        self.risk = Some(risk);
        self.severity = risk.severity();
        self
    }

    pub fn replacement(mut self, replacement: Replacement) -> Self {
        self.replacement = Some(replacement);
        self
    }

    pub fn class(&self) -> IssueClass {
        self.class_override.unwrap_or(self.code.meta().class)
    }

    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    pub fn detail(mut self, detail: &'static str) -> Self {
        self.detail_code = Some(detail);
        self
    }

    /// The process's facts: where the session was, how the process ended, the wait.
    pub fn process(mut self, facts: ProcessFacts) -> Self {
        self.process = facts;
        self
    }

    pub fn at(mut self, location: Location) -> Self {
        self.location = location;
        self
    }

    pub fn evidence(mut self, text: &str) -> Self {
        self.evidence = Some(excerpt(text, EVIDENCE_CHARS));
        self
    }

    pub fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }
}

impl Finding {
    /// A stable identity: code + file + logical path + (redacted) evidence, never line
    /// numbers, so reformatting a file does not make a known finding new again.
    pub fn fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        for part in [
            self.code.as_str(),
            self.location.file.as_deref().unwrap_or(""),
            self.location.logical.as_deref().unwrap_or(""),
            self.location.request.as_deref().unwrap_or(""),
            self.evidence.as_deref().unwrap_or(""),
        ] {
            hasher.update(part.as_bytes());
            hasher.update([0u8]);
        }
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(32);
        for b in hasher.finalize().iter().take(16) {
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        }
        out
    }
}

/// Characters of untrusted input kept as evidence.
pub const EVIDENCE_CHARS: usize = 200;

/// Bounds untrusted text and makes control characters visible, so it cannot
/// forge lines, colours or terminal commands wherever it is printed.
///
/// Inside a guard run ([`crate::secrets::known::in_force`]) the text is first cleaned of
/// the run's secrets and of credentials by their shape, so no cut leaves part of one.
pub fn excerpt(text: &str, max_chars: usize) -> String {
    // Only what can reach the cut is cleaned: the kept part and a margin longer than any
    // secret that could start inside it, so a 16 MB line costs no more than a short one.
    let reach = max_chars.saturating_add(CLEAN_MARGIN);
    // No more bytes than that, so no more characters: all of it is within reach.
    let window = if text.len() <= reach {
        text
    } else {
        text.char_indices()
            .nth(reach)
            .map_or(text, |(end, _)| &text[..end])
    };
    let cleaned = crate::secrets::known::clean_in_force(window);
    crate::text::bounded(cleaned.as_deref().unwrap_or(window), max_chars)
}

/// Characters past an excerpt's cut that are cleaned with it: longer than a PEM private
/// key, the longest credential the project knows by its shape.
const CLEAN_MARGIN: usize = 8 * 1024;

/// Findings in a stable order: most severe first, then by code name, then by place.
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.code.as_str().cmp(b.code.as_str()))
            .then_with(|| a.location.stdout_line.cmp(&b.location.stdout_line))
            // Source places by number: line 9 before line 10.
            .then_with(|| a.location.file.cmp(&b.location.file))
            .then_with(|| a.location.line.cmp(&b.location.line))
            .then_with(|| a.location.column.cmp(&b.location.column))
            .then_with(|| a.location.describe().cmp(&b.location.describe()))
    });
}

/// "1 error", "2 errors".
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_bounds_and_neutralises_control_characters() {
        assert_eq!(excerpt("a\nb\x1b[31m", 100), "a\\nb\\u{1b}[31m");
        assert_eq!(excerpt("abcdef", 3), "abc…");
        assert_eq!(excerpt("x\u{202e}y", 10), "x\\u{202e}y");
        assert_eq!(excerpt("\u{feff}{", 10), "\\u{feff}{");
    }

    #[test]
    fn locations_describe_themselves() {
        let mut l = Location::request("tools/list");
        l.stdout_line = Some(4);
        assert_eq!(l.describe(), "tools/list, stdout line 4");
        assert!(Location::default().is_empty());
    }
}
