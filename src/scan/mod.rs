//! The security scan engine: MCP client configs (static rules), their servers' live
//! surfaces (`--live`), baselines, lock files and the inventory.

pub mod advisories;
pub mod baseline;
pub mod config_file;
pub mod discover;
pub mod entry_command;
pub mod exposure;
pub mod inventory;
pub mod jsonc;
pub mod live;
pub mod live_remote;
pub mod lock;
pub mod package_registry;
pub mod rules;
pub mod run;
pub mod secrets;
pub mod server_entry;
pub mod toxic_flow;
pub mod urls;
pub mod versions;

use crate::catalog::Code;
use crate::finding::{Finding, Risk};
use crate::gate::Gate;
use config_file::{ConfigFile, Scope, ServerEntry};
use live::LiveListing;
use std::path::{Path, PathBuf};

/// Bad input: exit code 2, one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

impl From<config_file::ConfigError> for InputError {
    fn from(e: config_file::ConfigError) -> Self {
        InputError(e.0)
    }
}

/// Which configs to read.
#[derive(Debug, Clone, Default)]
pub struct Targets {
    pub paths: Vec<PathBuf>,
    pub global: bool,
}

/// The config files found, and notes about the search.
#[derive(Debug, Default)]
pub struct Loaded {
    pub configs: Vec<ConfigFile>,
    /// Files that could not be parsed (only kept when the caller tolerates them).
    pub broken: Vec<(String, String)>,
    pub notices: Vec<String>,
}

/// Finds and parses the configs. With `tolerant`, a broken file is listed instead of
/// failing the run (the inventory never fails on content).
pub fn load(targets: &Targets, cwd: &Path, tolerant: bool) -> Result<Loaded, InputError> {
    let mut candidates: Vec<(PathBuf, Scope)> = Vec::new();
    let mut loaded = Loaded::default();
    if targets.paths.is_empty() {
        let walk = discover::walk(cwd);
        loaded.notices.extend(walk.notices);
        candidates.extend(walk.files.into_iter().map(|f| (f, Scope::Project)));
    }
    for p in &targets.paths {
        let abs = if p.is_absolute() {
            p.clone()
        } else {
            cwd.join(p)
        };
        if abs.is_dir() {
            let walk = discover::walk(&abs);
            loaded.notices.extend(walk.notices);
            candidates.extend(walk.files.into_iter().map(|f| (f, Scope::Project)));
        } else if abs.is_file() {
            candidates.push((abs, Scope::Explicit));
        } else {
            return Err(InputError(format!(
                "{}: no such file or directory; give a config file or a directory to search",
                p.display()
            )));
        }
    }
    if targets.global {
        let var = |k: &str| std::env::var(k).ok();
        for path in discover::global_configs(std::env::consts::OS, &var) {
            if path.is_file() {
                candidates.push((path, Scope::Global));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    for (path, scope) in candidates {
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if !seen.insert(key) {
            continue;
        }
        let display = discover::display_path(&path, cwd);
        match config_file::load(&path, &display, scope) {
            Ok(c) => loaded.configs.push(c),
            Err(e) if tolerant => loaded.broken.push((display, e.0)),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(loaded)
}

/// The risk `--fail-on` and the scan's order go by.
pub use crate::gate::risk_of;

/// Sorts findings: highest risk first, then by place, then by code.
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        risk_of(b)
            .cmp(&risk_of(a))
            .then_with(|| a.location.file.cmp(&b.location.file))
            .then_with(|| a.location.line.cmp(&b.location.line))
            .then_with(|| a.location.column.cmp(&b.location.column))
            .then_with(|| a.code.as_str().cmp(b.code.as_str()))
            .then_with(|| a.location.logical.cmp(&b.location.logical))
    });
}

/// Which codes are reported (`--rules`, `--ignore-rule`).
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub only: Vec<Code>,
    pub ignore: Vec<Code>,
}

impl Selection {
    pub fn parse(only: &[String], ignore: &[String]) -> Result<Self, InputError> {
        let codes = |names: &[String], flag: &str| -> Result<Vec<Code>, InputError> {
            names
                .iter()
                .map(|n| n.trim())
                .filter(|n| !n.is_empty())
                .map(|n| {
                    Code::from_name(n).ok_or_else(|| {
                        InputError(format!(
                            "{flag} {:?}: unknown code; `mcpcheck rules` lists them",
                            crate::finding::excerpt(n, 60)
                        ))
                    })
                })
                .collect()
        };
        Ok(Self {
            only: codes(only, "--rules")?,
            ignore: codes(ignore, "--ignore-rule")?,
        })
    }

    pub fn selects(&self, code: Code) -> bool {
        (self.only.is_empty() || self.only.contains(&code)) && !self.ignore.contains(&code)
    }
}

/// Everything a scan needs besides the configs.
pub struct ScanSettings<'a> {
    pub selection: &'a Selection,
    pub registry: Option<&'a package_registry::RegistryFacts>,
    pub advisories: Option<&'a advisories::AdvisoryFacts>,
    pub lock: Option<&'a lock::LockFile>,
    /// Live listings, when `--live` ran (one per server, in config order).
    pub live: Option<&'a [LiveListing]>,
}

/// The findings of every rule and check on the loaded configs.
pub fn findings(configs: &[ConfigFile], s: &ScanSettings<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let selected = |c: Code| s.selection.selects(c);
    for file in configs {
        let cx = rules::RuleContext {
            file,
            registry: s.registry,
            advisories: s.advisories,
        };
        out.extend(rules::check(&cx, &selected));
    }
    if let Some(lock) = s.lock {
        // A project's lock pins the project's servers: the user's own configs are compared
        // only when it pins some of their servers (`pin --global`).
        let pinned: Vec<ConfigFile> = configs
            .iter()
            .filter(|c| {
                c.scope != Scope::Global || lock.servers.iter().any(|l| l.config == c.display)
            })
            .cloned()
            .collect();
        out.extend(
            lock::compare(lock, &pinned, s.live)
                .into_iter()
                .filter(|f| selected(f.code)),
        );
    }
    sort(&mut out);
    out
}

/// Every server entry with its file, in order.
pub fn servers(configs: &[ConfigFile]) -> impl Iterator<Item = (&ConfigFile, &ServerEntry)> {
    configs
        .iter()
        .flat_map(|c| c.servers.iter().map(move |s| (c, s)))
}

/// The packages every server launches, for registry look-ups.
pub fn launched_packages(
    configs: &[ConfigFile],
) -> Vec<(crate::launch::Ecosystem, String, Option<String>)> {
    let mut out = Vec::new();
    for (_, s) in servers(configs) {
        for p in entry_command::packages(s) {
            if p.package.pin == crate::launch::Pin::NotRegistry {
                continue;
            }
            let exact = (p.package.pin == crate::launch::Pin::Exact)
                .then(|| p.package.version.clone())
                .flatten();
            out.push((p.package.ecosystem, p.package.name.clone(), exact));
        }
    }
    out
}

/// Runs `--live` on every server of the configs, on the caller's runtime.
pub async fn list_live(configs: &[ConfigFile], opts: live::LiveOptions) -> Vec<LiveListing> {
    let mut planned = Vec::new();
    for (file, entry) in servers(configs) {
        let (target, withheld) = live::plan(entry, &opts);
        let mut listing = LiveListing::new(file, entry, live::LiveState::Answered);
        listing.withheld_env = withheld;
        planned.push((listing, target));
    }
    live::list_all(planned, opts).await
}

/// The values the configs give their servers under credential names (variables and
/// headers): a server that repeats one must not have it shown.
pub fn given_secrets(configs: &[ConfigFile]) -> crate::secrets::KnownSecrets {
    let mut known = crate::secrets::KnownSecrets::new();
    for (_, entry) in servers(configs) {
        for e in entry.env.iter().chain(&entry.headers) {
            if crate::secrets::might_name_credential(&e.name) {
                known.add(&e.value.value, crate::secrets::known::MASK);
            }
        }
    }
    known
}

/// Live listings for when `--live` was not given: every server "not asked".
pub fn not_listed(configs: &[ConfigFile]) -> Vec<LiveListing> {
    servers(configs)
        .map(|(f, s)| {
            LiveListing::new(
                f,
                s,
                live::LiveState::NotAsked {
                    why: "--live not given".into(),
                },
            )
        })
        .collect()
}

/// Everything a scan found, for the renderers.
#[derive(Debug)]
pub struct ScanReport {
    pub configs: Vec<ConfigFile>,
    /// One per server, in config order ("not asked" without `--live`).
    pub live: Vec<LiveListing>,
    pub live_ran: bool,
    pub findings: Vec<Finding>,
    /// Findings the baseline accepted (not reported).
    pub suppressed: usize,
    pub fail_on: Risk,
    pub notices: Vec<String>,
    pub baseline: Option<String>,
    pub lock: Option<String>,
    pub rules_run: usize,
    pub duration_ms: u64,
}

impl ScanReport {
    /// Findings at or above the failure threshold.
    pub fn failing(&self) -> usize {
        Gate::Risk(self.fail_on).failing(&self.findings)
    }

    pub fn ok(&self) -> bool {
        Gate::Risk(self.fail_on).passes(&self.findings)
    }

    pub fn server_count(&self) -> usize {
        self.configs.iter().map(|c| c.servers.len()).sum()
    }
}

impl From<InputError> for crate::error::Error {
    fn from(e: InputError) -> Self {
        crate::error::Error::Input(e.0)
    }
}
