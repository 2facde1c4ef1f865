//! Registry look-ups for `--registry`: is a launched package (or its pinned version)
//! deprecated on npm, or yanked or inactive on PyPI? Offline is detected quickly and the
//! check is skipped with a notice; a scan never waits long on the network.

use crate::launch::Ecosystem;
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;

/// How long one registry request may take, end to end.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(6);
/// How long reaching the registry may take before it counts as offline.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// Largest registry document read (npm documents of big packages are several MB).
const MAX_BODY: u64 = 32 * 1024 * 1024;
/// Most packages looked up per run.
pub const MAX_LOOKUPS: usize = 100;

/// A registry's verdict on a package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deprecation {
    /// `deprecated`, `yanked` or `inactive`.
    pub state: &'static str,
    /// The version it applies to, if one.
    pub version: Option<String>,
    pub message: String,
}

/// What the registries said, keyed by ecosystem, name and pinned version.
#[derive(Debug, Default)]
pub struct RegistryFacts {
    found: HashMap<(EcosystemKey, String, Option<String>), Deprecation>,
    /// Human notes: skipped look-ups and why.
    pub notices: Vec<String>,
    pub looked_up: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum EcosystemKey {
    Npm,
    PyPI,
}

fn key(e: Ecosystem) -> Option<EcosystemKey> {
    match e {
        Ecosystem::Npm => Some(EcosystemKey::Npm),
        Ecosystem::PyPI => Some(EcosystemKey::PyPI),
        Ecosystem::Docker => None,
    }
}

impl RegistryFacts {
    pub fn deprecation(
        &self,
        e: Ecosystem,
        name: &str,
        version: Option<&str>,
    ) -> Option<&Deprecation> {
        self.found
            .get(&(key(e)?, name.to_string(), version.map(str::to_string)))
    }
}

/// Where each registry lives; npm's own setting is honoured, PyPI's JSON API can be moved
/// with MCPCHECK_PYPI_URL (for mirrors and tests).
pub struct RegistryUrls {
    pub npm: String,
    pub pypi: String,
}

impl RegistryUrls {
    pub fn from_env() -> Self {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        Self {
            npm: var("npm_config_registry")
                .or_else(|| var("NPM_CONFIG_REGISTRY"))
                .unwrap_or_else(|| "https://registry.npmjs.org/".into()),
            pypi: var("MCPCHECK_PYPI_URL").unwrap_or_else(|| "https://pypi.org/".into()),
        }
    }
}

/// Looks up each (ecosystem, name, exact version) once.
pub fn look_up(
    packages: &[(Ecosystem, String, Option<String>)],
    urls: &RegistryUrls,
) -> RegistryFacts {
    let mut facts = RegistryFacts::default();
    let agent = crate::session::http::client::agent(REQUEST_TIMEOUT, CONNECT_TIMEOUT);
    let mut unique: Vec<&(Ecosystem, String, Option<String>)> = Vec::new();
    for p in packages {
        if key(p.0).is_some() && !unique.contains(&p) {
            unique.push(p);
        }
    }
    if unique.len() > MAX_LOOKUPS {
        facts.notices.push(format!(
            "registry: looked up the first {MAX_LOOKUPS} of {} packages only",
            unique.len()
        ));
        unique.truncate(MAX_LOOKUPS);
    }
    let mut offline: HashMap<EcosystemKey, String> = HashMap::new();
    for (eco, name, version) in unique {
        let Some(k) = key(*eco) else { continue };
        if offline.contains_key(&k) {
            continue;
        }
        let result = match k {
            EcosystemKey::Npm => npm(&agent, &urls.npm, name, version.as_deref()),
            EcosystemKey::PyPI => pypi(&agent, &urls.pypi, name, version.as_deref()),
        };
        facts.looked_up += 1;
        match result {
            Ok(Some(d)) => {
                facts.found.insert((k, name.clone(), version.clone()), d);
            }
            Ok(None) => {}
            Err(Lookup::Unreachable(why)) => {
                let registry = match k {
                    EcosystemKey::Npm => &urls.npm,
                    EcosystemKey::PyPI => &urls.pypi,
                };
                facts.notices.push(format!(
                    "registry: {} is unreachable ({why}); deprecated-package was not checked for its packages",
                    crate::finding::excerpt(registry, 100)
                ));
                offline.insert(k, why);
            }
            Err(Lookup::Failed(why)) => facts.notices.push(format!(
                "registry: could not look up {}: {why}",
                crate::finding::excerpt(name, 100)
            )),
        }
    }
    facts
}

pub(super) enum Lookup {
    /// The registry cannot be reached at all: stop asking it.
    Unreachable(String),
    /// This one package could not be looked up.
    Failed(String),
}

impl Lookup {
    /// A transport failure stops asking the service; any other error is this one look-up's.
    pub(super) fn from_error(e: ureq::Error) -> Self {
        match e {
            ureq::Error::Io(_)
            | ureq::Error::ConnectionFailed
            | ureq::Error::HostNotFound
            | ureq::Error::Timeout(_)
            | ureq::Error::Tls(_) => Lookup::Unreachable(e.to_string()),
            e => Lookup::Failed(e.to_string()),
        }
    }
}

pub(super) fn get_json(
    agent: &ureq::Agent,
    url: &str,
    accept: &str,
) -> Result<Option<Value>, Lookup> {
    let mut response = match agent.get(url).header("Accept", accept).call() {
        Ok(r) => r,
        Err(e) => return Err(Lookup::from_error(e)),
    };
    match response.status().as_u16() {
        200 => {}
        404 => return Ok(None),
        s => return Err(Lookup::Failed(format!("HTTP status {s}"))),
    }
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_BODY)
        .read_to_string()
        .map_err(|e| Lookup::Failed(e.to_string()))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| Lookup::Failed(format!("not JSON ({e})")))
}

pub(super) fn join(base: &str, path: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), path)
}

fn npm(
    agent: &ureq::Agent,
    base: &str,
    name: &str,
    version: Option<&str>,
) -> Result<Option<Deprecation>, Lookup> {
    let path = name.replacen('/', "%2f", 1);
    let Some(doc) = get_json(
        agent,
        &join(base, &path),
        "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8",
    )?
    else {
        return Ok(None);
    };
    let version = match version {
        Some(v) => v.trim_start_matches(['=', 'v']).to_string(),
        None => match doc.pointer("/dist-tags/latest").and_then(Value::as_str) {
            Some(v) => v.to_string(),
            None => return Ok(None),
        },
    };
    let message = doc
        .get("versions")
        .and_then(|v| v.get(&version))
        .and_then(|v| v.get("deprecated"))
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty());
    Ok(message.map(|m| Deprecation {
        state: "deprecated",
        version: Some(version.clone()),
        message: m.to_string(),
    }))
}

fn pypi(
    agent: &ureq::Agent,
    base: &str,
    name: &str,
    version: Option<&str>,
) -> Result<Option<Deprecation>, Lookup> {
    let Some(doc) = get_json(
        agent,
        &join(base, &format!("pypi/{name}/json")),
        "application/json",
    )?
    else {
        return Ok(None);
    };
    let version = match version {
        Some(v) => v.to_string(),
        None => match doc.pointer("/info/version").and_then(Value::as_str) {
            Some(v) => v.to_string(),
            None => return Ok(None),
        },
    };
    if let Some(files) = doc
        .get("releases")
        .and_then(|r| r.get(&version))
        .and_then(Value::as_array)
    {
        if !files.is_empty()
            && files
                .iter()
                .all(|f| f.get("yanked") == Some(&Value::Bool(true)))
        {
            let reason = files
                .iter()
                .find_map(|f| f.get("yanked_reason").and_then(Value::as_str))
                .unwrap_or("no reason given");
            return Ok(Some(Deprecation {
                state: "yanked",
                version: Some(version),
                message: reason.to_string(),
            }));
        }
    }
    let inactive = doc
        .pointer("/info/classifiers")
        .and_then(Value::as_array)
        .is_some_and(|c| {
            c.iter()
                .any(|x| x.as_str() == Some("Development Status :: 7 - Inactive"))
        });
    Ok(inactive.then(|| Deprecation {
        state: "inactive",
        version: None,
        message: "the project is classified \"Development Status :: 7 - Inactive\"".into(),
    }))
}
