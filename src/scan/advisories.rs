//! Advisory look-ups for `--advisories`: is a launched package version known vulnerable?
//! Asked of OSV's query API (`POST /v1/query`), which carries the GitHub Advisory Database
//! (GHSA ids with their CVE aliases) and PyPA's, without a token. An unpinned package is
//! checked at the version its registry serves as latest. Unreachable or rate-limited
//! services are reported, never passed over silently.

use super::package_registry::{get_json, join, Lookup, RegistryUrls};
use super::versions;
use crate::finding::Risk;
use crate::launch::Ecosystem;
use serde_json::{json, Value};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::time::Duration;

const REQUEST_TIMEOUT: Duration = Duration::from_secs(8);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// Largest advisory answer read: OSV records are a few KB each.
const MAX_BODY: u64 = 8 * 1024 * 1024;
/// Most pages of one query followed.
const MAX_PAGES: usize = 5;
/// Most packages looked up per run.
pub const MAX_LOOKUPS: usize = 100;

/// One published advisory affecting a package version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advisory {
    /// `GHSA-…`, `PYSEC-…`.
    pub id: String,
    /// `CVE-…` and other ids of the same advisory.
    pub aliases: Vec<String>,
    /// As the database states it (`CRITICAL`, `HIGH`, `MODERATE`, `LOW`), if it does.
    pub severity: Option<String>,
    /// The first version that fixes it, if one is published.
    pub fixed: Option<String>,
    pub summary: String,
}

impl Advisory {
    pub fn risk(&self) -> Risk {
        match self
            .severity
            .as_deref()
            .map(str::to_ascii_uppercase)
            .as_deref()
        {
            Some("CRITICAL") => Risk::Critical,
            Some("HIGH") => Risk::High,
            Some("LOW") => Risk::Low,
            // MODERATE, MEDIUM, or not stated.
            _ => Risk::Medium,
        }
    }
}

/// What was found for one package as launched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The version checked: the pinned one, or the registry's latest.
    pub version: String,
    /// The package is not pinned, so `version` is what its registry serves today.
    pub latest: bool,
    pub advisories: Vec<Advisory>,
}

type Key = (&'static str, String, Option<String>);

/// The answers, keyed by ecosystem, name and pinned version (none when unpinned).
#[derive(Debug, Default)]
pub struct AdvisoryFacts {
    checked: HashMap<Key, Checked>,
    /// Packages that could not be checked, with why.
    unchecked: HashMap<Key, String>,
    pub notices: Vec<String>,
}

fn ecosystem(e: Ecosystem) -> Option<&'static str> {
    match e {
        Ecosystem::Npm => Some("npm"),
        Ecosystem::PyPI => Some("PyPI"),
        Ecosystem::Docker => None,
    }
}

impl AdvisoryFacts {
    fn key(e: Ecosystem, name: &str, version: Option<&str>) -> Option<Key> {
        Some((ecosystem(e)?, name.to_string(), version.map(str::to_string)))
    }

    pub fn checked(&self, e: Ecosystem, name: &str, version: Option<&str>) -> Option<&Checked> {
        self.checked.get(&Self::key(e, name, version)?)
    }

    pub fn unchecked(&self, e: Ecosystem, name: &str, version: Option<&str>) -> Option<&str> {
        self.unchecked
            .get(&Self::key(e, name, version)?)
            .map(String::as_str)
    }
}

/// Where OSV lives: `MCPCHECK_OSV_URL` moves it (mirrors, tests).
pub fn osv_url_from_env() -> String {
    std::env::var("MCPCHECK_OSV_URL")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "https://api.osv.dev/".into())
}

/// Looks up each (ecosystem, name, exact version) once; docker images are not covered.
pub fn look_up(
    packages: &[(Ecosystem, String, Option<String>)],
    registries: &RegistryUrls,
    osv: &str,
) -> AdvisoryFacts {
    let mut facts = AdvisoryFacts::default();
    let agent = crate::session::http::client::agent(REQUEST_TIMEOUT, CONNECT_TIMEOUT);
    let mut unique: Vec<&(Ecosystem, String, Option<String>)> = Vec::new();
    let mut images = 0usize;
    for p in packages {
        if ecosystem(p.0).is_none() {
            images += 1;
        } else if !unique.contains(&p) {
            unique.push(p);
        }
    }
    if images > 0 {
        facts.notices.push(format!(
            "advisories: {} not checked; vulnerable-package covers npm and PyPI packages",
            crate::finding::plural(images, "container image")
        ));
    }
    if unique.len() > MAX_LOOKUPS {
        for p in &unique[MAX_LOOKUPS..] {
            if let Some(k) = AdvisoryFacts::key(p.0, &p.1, p.2.as_deref()) {
                facts.unchecked.insert(
                    k,
                    format!("only the first {MAX_LOOKUPS} packages are checked per run"),
                );
            }
        }
        facts.notices.push(format!(
            "advisories: checked the first {MAX_LOOKUPS} of {} packages only",
            unique.len()
        ));
        unique.truncate(MAX_LOOKUPS);
    }
    // Once a service is down or refuses us, every later package is unchecked for that reason.
    let mut down: HashMap<String, String> = HashMap::new();
    let mut answers: HashMap<(&'static str, String, String), Vec<Advisory>> = HashMap::new();
    for (eco, name, pinned) in unique {
        let Some(key) = AdvisoryFacts::key(*eco, name, pinned.as_deref()) else {
            continue;
        };
        let (version, latest) = match pinned {
            Some(v) => (v.trim_start_matches(['=', 'v']).to_string(), false),
            None => {
                let registry = match eco {
                    Ecosystem::Npm => registries.npm.clone(),
                    _ => registries.pypi.clone(),
                };
                if let Some(why) = down.get(&registry) {
                    facts.unchecked.insert(key, why.clone());
                    continue;
                }
                match latest_version(&agent, *eco, &registry, name) {
                    Ok(Some(v)) => (v, true),
                    Ok(None) => {
                        facts.unchecked.insert(
                            key,
                            "its registry does not know it, so it has no latest version to check"
                                .into(),
                        );
                        continue;
                    }
                    Err(e) => {
                        let why = failure(&e, &registry);
                        if let Lookup::Unreachable(_) = e {
                            down.insert(registry, why.clone());
                        }
                        facts.unchecked.insert(key, why);
                        continue;
                    }
                }
            }
        };
        if let Some(why) = down.get(osv) {
            facts.unchecked.insert(key, why.clone());
            continue;
        }
        // One query per resolved version: a pinned 2.4.0 and an unpinned latest 2.4.0 share it.
        let resolved = (key.0, name.clone(), version.clone());
        let answer = match answers.get(&resolved) {
            Some(a) => Ok(a.clone()),
            None => query(&agent, osv, *eco, name, &version),
        };
        match answer {
            Ok(advisories) => {
                answers.insert(resolved, advisories.clone());
                facts.checked.insert(
                    key,
                    Checked {
                        version,
                        latest,
                        advisories,
                    },
                );
            }
            Err(e) => {
                let why = failure(&e, osv);
                if let Lookup::Unreachable(_) = e {
                    down.insert(osv.to_string(), why.clone());
                }
                facts.unchecked.insert(key, why);
            }
        }
    }
    let unchecked = facts.unchecked.len();
    if unchecked > 0 {
        let mut reasons: Vec<&String> = facts.unchecked.values().collect();
        reasons.sort();
        reasons.dedup();
        facts.notices.push(format!(
            "advisories: {} not checked for known vulnerabilities ({}); each is reported as advisory-lookup-failed",
            crate::finding::plural(unchecked, "package"),
            reasons
                .iter()
                .take(3)
                .map(|r| r.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    facts
}

fn failure(e: &Lookup, service: &str) -> String {
    let service = crate::finding::excerpt(service, 100);
    match e {
        Lookup::Unreachable(why) => format!("{service} is unreachable ({why})"),
        Lookup::Failed(why) => format!("{service} did not answer: {why}"),
    }
}

/// The version a registry serves as latest (`dist-tags.latest`, PyPI's `info.version`).
fn latest_version(
    agent: &ureq::Agent,
    eco: Ecosystem,
    registry: &str,
    name: &str,
) -> Result<Option<String>, Lookup> {
    let (url, pointer) = match eco {
        Ecosystem::Npm => (
            join(registry, &name.replacen('/', "%2f", 1)),
            "/dist-tags/latest",
        ),
        _ => (
            join(registry, &format!("pypi/{name}/json")),
            "/info/version",
        ),
    };
    let doc = get_json(agent, &url, "application/json")?;
    Ok(doc
        .as_ref()
        .and_then(|d| d.pointer(pointer))
        .and_then(Value::as_str)
        .map(str::to_string))
}

/// OSV's advisories for one version, every page.
fn query(
    agent: &ureq::Agent,
    base: &str,
    eco: Ecosystem,
    name: &str,
    version: &str,
) -> Result<Vec<Advisory>, Lookup> {
    let url = join(base, "v1/query");
    let osv_name = ecosystem(eco).unwrap_or_default();
    let mut out = Vec::new();
    let mut page: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let mut body =
            json!({"package": {"name": name, "ecosystem": osv_name}, "version": version});
        if let Some(token) = &page {
            body["page_token"] = json!(token);
        }
        let doc = post_json(agent, &url, &body.to_string())?;
        for v in doc
            .get("vulns")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if v.get("withdrawn").is_some_and(|w| !w.is_null()) {
                continue;
            }
            out.push(advisory(v, eco, name, version));
        }
        page = doc
            .get("next_page_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_string);
        if page.is_none() {
            break;
        }
    }
    out.sort_by(|a, b| b.risk().cmp(&a.risk()).then_with(|| a.id.cmp(&b.id)));
    out.dedup_by(|a, b| a.id == b.id);
    Ok(out)
}

fn post_json(agent: &ureq::Agent, url: &str, body: &str) -> Result<Value, Lookup> {
    let mut response = match agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .send(body)
    {
        Ok(r) => r,
        Err(e) => return Err(Lookup::from_error(e)),
    };
    match response.status().as_u16() {
        200 => {}
        // Rate limits and refusals apply to every later query as well.
        s @ (403 | 429) => {
            return Err(Lookup::Unreachable(format!(
                "HTTP status {s}, rate-limited or refused"
            )))
        }
        s => return Err(Lookup::Failed(format!("HTTP status {s}"))),
    }
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_BODY)
        .read_to_string()
        .map_err(|e| Lookup::Failed(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| Lookup::Failed(format!("not JSON ({e})")))
}

/// One OSV record, read for this package: its severity and its fix for `version`.
fn advisory(v: &Value, eco: Ecosystem, name: &str, version: &str) -> Advisory {
    let text = |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
    let aliases = v
        .get("aliases")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    let mut fixed: Vec<String> = Vec::new();
    let mut severity = text("/database_specific/severity");
    for a in v
        .get("affected")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let same = a.pointer("/package/name").and_then(Value::as_str) == Some(name)
            && a.pointer("/package/ecosystem").and_then(Value::as_str) == ecosystem(eco);
        if !same {
            continue;
        }
        if severity.is_none() {
            severity = a
                .pointer("/ecosystem_specific/severity")
                .or_else(|| a.pointer("/database_specific/severity"))
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        for r in a
            .get("ranges")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for e in r
                .get("events")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(f) = e.get("fixed").and_then(Value::as_str) {
                    // The fix of the range this version is in: the first one above it.
                    if versions::compare(eco, f, version) == Ordering::Greater {
                        fixed.push(f.to_string());
                    }
                }
            }
        }
    }
    fixed.sort_by(|a, b| versions::compare(eco, a, b));
    Advisory {
        id: text("/id").unwrap_or_else(|| "an unnamed advisory".into()),
        aliases,
        severity,
        fixed: fixed.into_iter().next(),
        summary: text("/summary")
            .or_else(|| text("/details"))
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An OSV record for `name` with one range per fix.
    fn record(ecosystem: &str, name: &str, fixes: &[&str]) -> Value {
        let ranges: Vec<Value> = fixes
            .iter()
            .map(|f| json!({"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": f}]}))
            .collect();
        json!({"id": "GHSA-test", "affected": [
            {"package": {"ecosystem": ecosystem, "name": name}, "ranges": ranges}
        ]})
    }

    #[test]
    fn the_fix_shown_is_the_first_pypi_release_above_the_version() {
        let fixed = |version: &str, fixes: &[&str]| {
            advisory(
                &record("PyPI", "pkg", fixes),
                Ecosystem::PyPI,
                "pkg",
                version,
            )
            .fixed
        };
        // A post-release is after its release, so the release is the first fix.
        assert_eq!(fixed("0.9", &["1.0.post1", "1.0"]).as_deref(), Some("1.0"));
        // The final release is above its own pre-release (it was taken as below it).
        assert_eq!(fixed("1.0a1", &["1.0"]).as_deref(), Some("1.0"));
        assert_eq!(fixed("1.0", &["1.0a1"]), None);
        assert_eq!(
            fixed("1.0.dev0", &["1.0a1", "1.0"]).as_deref(),
            Some("1.0a1")
        );
        assert_eq!(fixed("5.0", &["1!1.0"]).as_deref(), Some("1!1.0"));
    }

    #[test]
    fn the_fix_shown_is_the_first_npm_release_above_the_version() {
        let fixed = |version: &str, fixes: &[&str]| {
            advisory(&record("npm", "pkg", fixes), Ecosystem::Npm, "pkg", version).fixed
        };
        assert_eq!(
            fixed("1.0.0-beta.2", &["1.0.0", "1.0.0-beta.11"]).as_deref(),
            Some("1.0.0-beta.11")
        );
        assert_eq!(fixed("1.0.0-rc.1", &["1.0.0"]).as_deref(), Some("1.0.0"));
        assert_eq!(fixed("1.0.0", &["1.0.0-rc.1"]), None);
        // Another ecosystem's record of the same name is not this package's.
        assert_eq!(
            advisory(
                &record("PyPI", "pkg", &["9.0"]),
                Ecosystem::Npm,
                "pkg",
                "1.0.0"
            )
            .fixed,
            None
        );
    }
}
