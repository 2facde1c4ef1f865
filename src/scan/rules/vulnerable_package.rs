//! `vulnerable-package`: the launched package version (or, unpinned, the latest one its
//! runner fetches today) has published advisories. Needs `--advisories`; the facts are
//! looked up before the rules run. A package that could not be checked is
//! `advisory-lookup-failed`, so an outage never reads as a pass.

use super::{ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Risk};
use crate::launch::Pin;
use crate::scan::advisories::Advisory;
use crate::scan::config_file::ServerEntry;
use crate::scan::entry_command;
use crate::scan::urls::mask_all;

pub struct VulnerablePackage;

impl ConfigRule for VulnerablePackage {
    fn code(&self) -> Code {
        Code::VulnerablePackage
    }

    fn also_reports(&self) -> &'static [Code] {
        &[Code::AdvisoryLookupFailed]
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        let Some(facts) = cx.advisories else { return };
        for p in entry_command::packages(server) {
            if p.package.pin == Pin::NotRegistry {
                continue;
            }
            let exact = (p.package.pin == Pin::Exact)
                .then_some(p.package.version.as_deref())
                .flatten();
            let eco = p.package.ecosystem;
            let name = excerpt(&mask_all(&p.package.name), 100);
            let server_name = excerpt(&server.name, 60);
            if let Some(why) = facts.unchecked(eco, &p.package.name, exact) {
                out.push(
                    cx.finding(
                        Code::AdvisoryLookupFailed,
                        p.word.src,
                        format!(
                            "Server {server_name:?}: {name} was not checked for known vulnerabilities: {}.",
                            excerpt(why, 200)
                        ),
                    )
                    .evidence(&mask_all(&p.package.spec))
                    .fix("Run the scan again with network access to the advisory service (or a mirror in MCPCHECK_OSV_URL), or check the package by hand at osv.dev."),
                );
                continue;
            }
            let Some(checked) = facts.checked(eco, &p.package.name, exact) else {
                continue;
            };
            if checked.advisories.is_empty() {
                continue;
            }
            let version = excerpt(&checked.version, 40);
            let risk = checked
                .advisories
                .iter()
                .map(Advisory::risk)
                .max()
                .unwrap_or(Risk::Medium);
            let listed: Vec<String> = checked.advisories.iter().take(5).map(describe).collect();
            let more = checked.advisories.len().saturating_sub(listed.len());
            let upgrade = checked
                .advisories
                .iter()
                .filter_map(|a| a.fixed.as_deref())
                .max_by(|a, b| crate::scan::versions::compare(eco, a, b))
                .map(|v| excerpt(v, 40));
            let unfixed = checked.advisories.iter().any(|a| a.fixed.is_none());
            let which = if checked.latest {
                format!("{name} is not pinned, and its latest version {version}, which the runner fetches today,")
            } else {
                format!("{name} {version}")
            };
            let count = checked.advisories.len();
            let message = format!(
                "Server {server_name:?}: {which} has {count} known {}: {}{}.",
                if count == 1 {
                    "vulnerability"
                } else {
                    "vulnerabilities"
                },
                listed.join("; "),
                if more > 0 {
                    format!("; and {more} more")
                } else {
                    String::new()
                }
            );
            let fix = match (&upgrade, unfixed) {
                (Some(v), false) => format!(
                    "Upgrade to {name} {v} or later and pin it ({}).",
                    entry_command::pinned_example(&p).replace("1.2.3", v)
                ),
                (Some(v), true) => format!(
                    "Upgrade to {name} {v} or later and pin it ({}); at least one advisory has no fix yet, so also consider replacing or removing the server.",
                    entry_command::pinned_example(&p).replace("1.2.3", v)
                ),
                (None, _) => "No fixed version is published: replace or remove the server until one is.".to_string(),
            };
            out.push(
                cx.finding(Code::VulnerablePackage, p.word.src, message)
                    .risk(risk)
                    .evidence(&mask_all(&p.package.spec))
                    .fix(fix),
            );
        }
    }
}

/// `GHSA-… (CVE-…, high, fixed in 2.5.0): summary`.
fn describe(a: &Advisory) -> String {
    let mut facts: Vec<String> = a
        .aliases
        .iter()
        .filter(|x| x.starts_with("CVE-"))
        .take(3)
        .map(|x| excerpt(x, 40))
        .collect();
    facts.push(
        a.severity
            .as_deref()
            .map(|s| excerpt(&s.to_ascii_lowercase(), 20))
            .unwrap_or_else(|| "severity not stated".into()),
    );
    facts.push(match &a.fixed {
        Some(v) => format!("fixed in {}", excerpt(v, 40)),
        None => "no fix published".into(),
    });
    let summary = excerpt(&a.summary, 160);
    format!(
        "{} ({}){}",
        excerpt(&a.id, 60),
        facts.join(", "),
        if summary.is_empty() {
            String::new()
        } else {
            format!(": {summary}")
        }
    )
}
