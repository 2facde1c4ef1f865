//! The guard engine: run a live session against a stdio server and judge the transcript.

pub mod checks;

use crate::catalog::Code;
use crate::finding::{self, Finding};
use crate::process::{self, ServerCommand};
use crate::session::{self, transcript::Transcript, SessionPlan};
use checks::{CheckContext, ToolSchemaSummary};

/// The outcome of one check, for the report's `checks` object.
#[derive(Debug, Clone)]
pub struct CheckResult {
    pub name: &'static str,
    pub codes: Vec<Code>,
    pub findings: Vec<Finding>,
}

/// Everything the guard learned about one server.
#[derive(Debug, Clone)]
pub struct GuardRun {
    pub command: ServerCommand,
    pub plan: SessionPlan,
    pub transcript: Transcript,
    pub checks: Vec<CheckResult>,
    pub findings: Vec<Finding>,
    pub tool_schema: ToolSchemaSummary,
}

/// Runs the session and every check.
pub async fn run(command: ServerCommand, plan: SessionPlan) -> GuardRun {
    process::become_subreaper();
    let transcript = session::run(&command, &plan).await;
    let cx = CheckContext {
        transcript: &transcript,
    };
    let mut findings = Vec::new();
    let mut results = Vec::new();
    for check in checks::registry() {
        let mut found = Vec::new();
        check.run(&cx, &mut found);
        finding::sort(&mut found);
        findings.extend(found.iter().cloned());
        results.push(CheckResult {
            name: check.name(),
            codes: check.codes().to_vec(),
            findings: found,
        });
    }
    finding::sort(&mut findings);
    let tool_schema = ToolSchemaSummary::of(&transcript);
    GuardRun {
        command,
        plan,
        transcript,
        checks: results,
        findings,
        tool_schema,
    }
}

impl GuardRun {
    /// Adds the findings of a check made outside the session (the source scan of `--scan`),
    /// so they count in the verdict and appear under `name` in the report's checks.
    pub fn add_check(&mut self, name: &'static str, codes: &[Code], found: Vec<Finding>) {
        self.findings.extend(found.iter().cloned());
        finding::sort(&mut self.findings);
        self.checks.push(CheckResult {
            name,
            codes: codes.to_vec(),
            findings: found,
        });
    }
}
