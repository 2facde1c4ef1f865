//! Picks the renderer for a format, and gathers what the machine formats need (repository,
//! anchor, category) before the work starts, so bad flags fail early.

use super::cli::Format;
use super::io::json_text;
use crate::error::Error;
use crate::guard::GuardRun;
use crate::report::document::{Report, ReportContext};
use crate::report::guard::{human, json};
use crate::report::markdown::{self, MarkdownOptions};
use crate::report::printed::Printed;
use crate::report::repo::RepoContext;
use crate::report::sarif;
use std::path::Path;

/// Options that take a value; they are dropped from the command shown for reproducing.
const OUTPUT_OPTIONS: &[&str] = &["--output", "--format", "--category", "--anchor"];

/// Everything a renderer needs besides the run.
#[derive(Debug, Clone)]
pub struct OutputPlan {
    pub format: Format,
    pub repo: Option<RepoContext>,
    pub anchor: Option<String>,
    pub category: Option<String>,
    pub color: bool,
}

impl OutputPlan {
    /// Resolves the repository and checks `--anchor` (SARIF and Markdown only need them).
    pub fn new(
        format: Format,
        anchor: Option<&Path>,
        category: Option<String>,
        color: bool,
    ) -> Result<Self, Error> {
        let needs_repo = matches!(format, Format::Sarif | Format::Markdown) || anchor.is_some();
        let repo = needs_repo.then(RepoContext::detect).transpose()?;
        let anchor = match (anchor, &repo) {
            (Some(path), Some(repo)) => Some(repo.explicit_anchor(path)?),
            _ => None,
        };
        if category.as_deref().is_some_and(|c| c.trim().is_empty()) {
            return Err(Error::Usage(
                "--category is empty; give a name such as mcpcheck".into(),
            ));
        }
        Ok(Self {
            format,
            repo,
            anchor,
            category,
            color,
        })
    }

    /// Renders a guard run in the planned format.
    pub fn render_guard(&self, run: &GuardRun, exit_code: i32) -> Result<String, Error> {
        let report = || -> Result<Report, Error> {
            let repo = match &self.repo {
                Some(r) => r.clone(),
                None => RepoContext::detect()?,
            };
            Ok(Report::from_guard(
                run,
                ReportContext {
                    repo,
                    anchor: self.anchor.clone(),
                    category: self.category.clone(),
                    invocation: reproducible_argv(std::env::args()),
                    exit_code,
                },
            ))
        };
        Ok(match self.format {
            Format::Json => json_text(&json::render(run))?,
            Format::Human => human::render(run, crate::report::human::Style { color: self.color }),
            Format::Sarif => sarif::render(&report()?),
            Format::Markdown => markdown::render(&report()?, &MarkdownOptions::document()),
        })
    }
}

/// SARIF or Markdown for an engine whose result is its findings (scan, surface, source):
/// the same renderers as the guard, so a new engine needs no renderer change.
pub fn render_findings(
    format: Format,
    engine: &'static str,
    findings: Vec<crate::finding::Finding>,
    exit_code: i32,
) -> Result<Printed, Error> {
    let mut report = Report::without_engine(ReportContext {
        repo: RepoContext::detect()?,
        anchor: None,
        category: None,
        invocation: reproducible_argv(std::env::args()),
        exit_code,
    });
    report.engine = engine;
    report.findings = findings;
    match format {
        Format::Sarif => Ok(sarif::printed(&report)),
        Format::Markdown => Ok(markdown::render(&report, &MarkdownOptions::document()).into()),
        Format::Human | Format::Json => Err(Error::Usage(
            "this output is rendered by the engine itself; use --format sarif or markdown here"
                .into(),
        )),
    }
}

/// mcpcheck's own argv as a user would type it: `mcpcheck` first, output options dropped.
pub fn reproducible_argv(args: impl Iterator<Item = String>) -> Vec<String> {
    let mut out = vec!["mcpcheck".to_string()];
    let mut skip_value = false;
    let mut after_dashes = false;
    for arg in args.skip(1) {
        if after_dashes {
            out.push(arg);
            continue;
        }
        if skip_value {
            skip_value = false;
            continue;
        }
        if arg == "--" {
            after_dashes = true;
        } else if OUTPUT_OPTIONS.contains(&arg.as_str()) {
            skip_value = true;
            continue;
        } else if arg == "--json"
            || OUTPUT_OPTIONS
                .iter()
                .any(|o| arg.starts_with(&format!("{o}=")))
        {
            continue;
        }
        out.push(arg);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproducible_argv_drops_output_options_only() {
        let argv = [
            "/x/target/debug/mcpcheck",
            "guard",
            "--format",
            "sarif",
            "--output=f.sarif",
            "--profile",
            "ci",
            "--",
            "node",
            "--format",
            "s.js",
        ]
        .map(String::from);
        assert_eq!(
            reproducible_argv(argv.into_iter()),
            [
                "mcpcheck",
                "guard",
                "--profile",
                "ci",
                "--",
                "node",
                "--format",
                "s.js"
            ]
        );
    }
}
