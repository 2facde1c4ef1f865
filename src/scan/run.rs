//! The scan engine's entry points, one per command: what to read and check comes in as a
//! plain request; the report, baseline, lock file or inventory goes out. Nothing here
//! renders or writes.

use super::baseline::Baseline;
use super::config_file::ConfigFile;
use super::live::{LiveListing, LiveOptions, LiveState};
use super::{lock, package_registry, Loaded, ScanReport, ScanSettings, Selection, Targets};
use crate::catalog::Code;
use crate::error::Error;
use crate::finding::{Finding, Risk};
use std::path::PathBuf;
use std::time::Instant;

/// Which rules run: `--rules`, `--ignore-rule`, and the package-registry look-ups.
#[derive(Debug, Clone, Default)]
pub struct RuleRequest {
    pub rules: Vec<String>,
    pub ignore_rules: Vec<String>,
    pub registry: bool,
    /// Look packages up in advisory databases (`--advisories`).
    pub advisories: bool,
}

/// Advisory facts for `--advisories`, with their notices.
fn advisory_facts(
    r: &RuleRequest,
    loaded: &Loaded,
    selection: &Selection,
) -> Option<super::advisories::AdvisoryFacts> {
    if !r.advisories
        || !(selection.selects(Code::VulnerablePackage)
            || selection.selects(Code::AdvisoryLookupFailed))
    {
        return None;
    }
    let packages = super::launched_packages(&loaded.configs);
    Some(super::advisories::look_up(
        &packages,
        &package_registry::RegistryUrls::from_env(),
        &super::advisories::osv_url_from_env(),
    ))
}

/// `mcpcheck scan`.
#[derive(Debug, Clone)]
pub struct ScanRequest {
    pub targets: Targets,
    /// `Some` to list every server live.
    pub live: Option<LiveOptions>,
    pub rules: RuleRequest,
    pub fail_on: Risk,
    pub baseline: Option<PathBuf>,
    /// The lock file named; without one, `.mcpcheck-lock.json` in `cwd` if present.
    pub lock: Option<PathBuf>,
    pub cwd: PathBuf,
}

impl Default for ScanRequest {
    /// The current directory's project configs, every rule, failing at high risk.
    fn default() -> Self {
        Self {
            targets: Targets::default(),
            live: None,
            rules: RuleRequest::default(),
            fail_on: Risk::High,
            baseline: None,
            lock: None,
            cwd: PathBuf::from("."),
        }
    }
}

/// `mcpcheck baseline`: today's findings, to accept.
#[derive(Debug, Clone, Default)]
pub struct BaselineRequest {
    pub targets: Targets,
    /// `Some` to list every server live and accept its surface findings too.
    pub live: Option<LiveOptions>,
    pub rules: RuleRequest,
    pub cwd: PathBuf,
}

/// `mcpcheck pin` and `mcpcheck inventory`: configs, and optionally their live surfaces.
#[derive(Debug, Clone, Default)]
pub struct ListRequest {
    pub targets: Targets,
    pub live: Option<LiveOptions>,
    pub cwd: PathBuf,
}

/// The codes the static config scan can produce: its rules and the lock comparison.
pub fn static_codes() -> Vec<Code> {
    let mut codes: Vec<Code> = super::rules::registry()
        .iter()
        .flat_map(|r| std::iter::once(r.code()).chain(r.also_reports().iter().copied()))
        .collect();
    codes.extend([
        Code::ServerDefinitionDrift,
        Code::ServerAddedSincePin,
        Code::ToxicFlow,
    ]);
    codes
}

/// The codes only `--live` can produce: the surface rules and the surface comparison.
fn live_codes() -> Vec<Code> {
    let mut codes: Vec<Code> = crate::surface::rules::registry()
        .iter()
        .map(|r| r.code())
        .collect();
    codes.extend([Code::SurfaceScanIncomplete, Code::ToolSurfaceDrift]);
    codes
}

/// `--rules` must name codes a scan can report: one no scan rule has (a guard or source
/// check) is an error, a live-only one without `--live` a notice, since it would run nothing.
fn check_rule_selection(selection: &Selection, live: bool) -> Result<Vec<String>, Error> {
    let (static_codes, live_codes) = (static_codes(), live_codes());
    let mut notices = Vec::new();
    for code in &selection.only {
        if static_codes.contains(code) {
            continue;
        }
        if !live_codes.contains(code) {
            return Err(Error::Usage(format!(
                "--rules {code}: no scan rule reports this code (only `mcpcheck {}` does); choose scan codes from `mcpcheck rules`",
                if code.meta().class == crate::finding::IssueClass::StaticSource {
                    "source"
                } else {
                    "guard` or `mcpcheck proxy"
                }
            )));
        }
        if !live {
            notices.push(format!(
                "--rules {code}: reported only from live surfaces; add --live to run it"
            ));
        }
    }
    if !selection.only.is_empty()
        && !selection
            .only
            .iter()
            .any(|c| static_codes.contains(c) || (live && live_codes.contains(c)))
    {
        notices.push("no selected rule can run on this scan: nothing was checked".into());
    }
    Ok(notices)
}

/// Registry facts for `--registry`, with their notices.
fn registry_facts(
    r: &RuleRequest,
    loaded: &Loaded,
    selection: &Selection,
) -> Option<package_registry::RegistryFacts> {
    if !r.registry || !selection.selects(crate::catalog::Code::DeprecatedPackage) {
        return None;
    }
    let packages = super::launched_packages(&loaded.configs);
    Some(package_registry::look_up(
        &packages,
        &package_registry::RegistryUrls::from_env(),
    ))
}

pub async fn scan(request: &ScanRequest) -> Result<ScanReport, Error> {
    let started = Instant::now();
    let cwd = &request.cwd;
    let selection = Selection::parse(&request.rules.rules, &request.rules.ignore_rules)?;
    let selection_notices = check_rule_selection(&selection, request.live.is_some())?;
    let baseline = request
        .baseline
        .as_deref()
        .map(Baseline::read)
        .transpose()?;
    let lock_path = match &request.lock {
        Some(p) => Some(p.clone()),
        None => Some(cwd.join(lock::DEFAULT_FILE)).filter(|p| p.is_file()),
    };
    let lock_file = lock_path.as_deref().map(lock::read).transpose()?;
    let mut loaded = super::load(&request.targets, cwd, false)?;
    loaded.notices.extend(selection_notices);
    if loaded.configs.is_empty() {
        loaded.notices.push(format!(
            "no MCP client config found{}; name config files or directories{}",
            match (request.targets.paths.is_empty(), request.targets.global) {
                (true, true) => " under the current directory or among the user's client configs",
                (true, false) => " under the current directory",
                _ => "",
            },
            if request.targets.global {
                ""
            } else {
                ", or add --global"
            }
        ));
    }
    let facts = registry_facts(&request.rules, &loaded, &selection);
    let advisories = advisory_facts(&request.rules, &loaded, &selection);
    // The credentials the configs give their servers: what a server repeats of them is
    // removed from every excerpt of the scan, and from the listings it keeps.
    let known = std::sync::Arc::new(super::given_secrets(&loaded.configs));
    let live = crate::secrets::known::in_force(std::sync::Arc::clone(&known), async {
        match request.live {
            Some(o) => super::list_live(&loaded.configs, o).await,
            None => super::not_listed(&loaded.configs),
        }
    })
    .await;
    let settings = ScanSettings {
        selection: &selection,
        registry: facts.as_ref(),
        advisories: advisories.as_ref(),
        lock: lock_file.as_ref(),
        live: request.live.map(|_| live.as_slice()),
    };
    let mut findings = super::findings(&loaded.configs, &settings);
    let (surface, flows, flow_notices) =
        crate::secrets::known::in_force(std::sync::Arc::clone(&known), async {
            let surface = surface_findings(&live, &loaded.configs, &selection);
            let (flows, notices) =
                toxic_flows(&live, &loaded.configs, lock_file.as_ref(), &selection);
            (surface, flows, notices)
        })
        .await;
    findings.extend(surface);
    findings.extend(flows);
    // Judged on what the servers sent; kept for the report without the configs' secrets.
    let mut live = live;
    live.iter_mut().for_each(|l| l.clean(&known));
    loaded.notices.extend(flow_notices);
    // One order for the whole report, config and live findings alike: highest risk first.
    super::sort(&mut findings);
    if let Some(f) = &facts {
        loaded.notices.extend(f.notices.iter().cloned());
    }
    if let Some(a) = &advisories {
        loaded.notices.extend(a.notices.iter().cloned());
    }
    if let Some(l) = &lock_file {
        for gone in lock::removed(l, &loaded.configs) {
            loaded.notices.push(format!(
                "lock: server {gone} was pinned but is no longer configured"
            ));
        }
        if request.live.is_none() && l.servers.iter().any(|s| s.surface.is_some()) {
            loaded.notices.push(
                "lock: tool surfaces were not compared; run with --live to compare them".into(),
            );
        }
    }
    let mut suppressed = 0;
    if let Some(b) = &baseline {
        (findings, suppressed) = super::baseline::filter(findings, b);
    }
    let rules_run = super::rules::registry()
        .iter()
        .filter(|r| selection.selects(r.code()))
        .count();
    Ok(ScanReport {
        configs: loaded.configs,
        live,
        live_ran: request.live.is_some(),
        findings,
        suppressed,
        fail_on: request.fail_on,
        notices: loaded.notices,
        baseline: request.baseline.as_ref().map(|p| p.display().to_string()),
        lock: lock_path.map(|p| super::discover::display_path(&p, cwd)),
        rules_run,
        duration_ms: started.elapsed().as_millis() as u64,
    })
}

/// A baseline of today's findings, and how many configs they came from.
pub async fn baseline(request: &BaselineRequest) -> Result<(Baseline, usize), Error> {
    let selection = Selection::parse(&request.rules.rules, &request.rules.ignore_rules)?;
    check_rule_selection(&selection, request.live.is_some())?;
    let loaded = super::load(&request.targets, &request.cwd, false)?;
    let facts = registry_facts(&request.rules, &loaded, &selection);
    let advisories = advisory_facts(&request.rules, &loaded, &selection);
    let settings = ScanSettings {
        selection: &selection,
        registry: facts.as_ref(),
        advisories: advisories.as_ref(),
        lock: None,
        live: None,
    };
    let mut findings = super::findings(&loaded.configs, &settings);
    // With --live, the surface findings `scan --live` reports, so they can be accepted too.
    let live = match request.live {
        Some(o) => super::list_live(&loaded.configs, o).await,
        None => super::not_listed(&loaded.configs),
    };
    if request.live.is_some() {
        findings.extend(surface_findings(&live, &loaded.configs, &selection));
    }
    findings.extend(toxic_flows(&live, &loaded.configs, None, &selection).0);
    super::sort(&mut findings);
    Ok((Baseline::of(&findings), loaded.configs.len()))
}

/// A lock file pinning every server (and its live surface, when listed), with the listings.
pub async fn pin(
    request: &ListRequest,
) -> Result<(lock::LockFile, Option<Vec<LiveListing>>), Error> {
    let loaded = super::load(&request.targets, &request.cwd, false)?;
    let live = match request.live {
        Some(o) => Some(super::list_live(&loaded.configs, o).await),
        None => None,
    };
    Ok((lock::build(&loaded.configs, live.as_deref()), live))
}

/// What `mcpcheck inventory` lists: every config (broken ones too) and each server's state.
pub struct InventoryData {
    pub loaded: Loaded,
    pub live: Vec<LiveListing>,
    pub live_ran: bool,
}

pub async fn inventory(request: &ListRequest) -> Result<InventoryData, Error> {
    let loaded = super::load(&request.targets, &request.cwd, true)?;
    // As in `scan`: the configs' credentials are in force while listing, and removed from
    // the listings shown.
    let known = std::sync::Arc::new(super::given_secrets(&loaded.configs));
    let mut live = crate::secrets::known::in_force(std::sync::Arc::clone(&known), async {
        match request.live {
            Some(o) => super::list_live(&loaded.configs, o).await,
            None => super::not_listed(&loaded.configs),
        }
    })
    .await;
    live.iter_mut().for_each(|l| l.clean(&known));
    Ok(InventoryData {
        loaded,
        live,
        live_ran: request.live.is_some(),
    })
}

/// The live surface rules (tool poisoning, hidden characters, shadowing, collisions…) over
/// every server that answered and its initialize result, all at once so cross-server rules
/// see them together. Each finding points at the config file that declares the server.
fn surface_findings(
    live: &[LiveListing],
    configs: &[ConfigFile],
    selection: &Selection,
) -> Vec<Finding> {
    use crate::surface::{ServerSurface, SurfaceOptions};
    let answered: Vec<&LiveListing> = live
        .iter()
        .filter(|l| matches!(l.state, LiveState::Answered))
        .collect();
    if answered.is_empty() {
        return Vec::new();
    }
    let surfaces: Vec<ServerSurface> = answered
        .iter()
        .map(|l| ServerSurface {
            server: l.server.clone(),
            tools: l.tools.clone(),
            prompts: l.prompts.clone(),
            resources: l.resources.clone(),
            resource_templates: l.resource_templates.clone(),
        })
        .collect();
    // With the initialize results, so `instructions` and the capabilities are judged too.
    let initialize: Vec<Option<serde_json::Value>> =
        answered.iter().map(|l| l.initialize.clone()).collect();
    let options = SurfaceOptions {
        only_guard_rules: false,
    };
    // Findings name their server by its escaped, bounded segment (`servers/a~1b/…`), not its
    // raw name. A name declared twice maps to its first entry.
    let mut by_segment = std::collections::HashMap::new();
    for l in &answered {
        by_segment
            .entry(crate::surface::item::segment(&l.server))
            .or_insert(*l);
    }
    crate::surface::check_with_initialize(&surfaces, &initialize, &options)
        .into_iter()
        .filter(|f| selection.selects(f.code))
        .map(|mut f| {
            let server = f
                .location
                .logical
                .as_deref()
                .and_then(|p| p.strip_prefix("servers/"))
                .map(|rest| rest.split('/').next().unwrap_or(rest))
                .and_then(|segment| by_segment.get(segment));
            if let Some(l) = server {
                place_at_entry(&mut f, l, configs);
            }
            f
        })
        .collect()
}

/// Flows from private data to a sink across the servers of each config, and the flows
/// guessed from the names of servers not listed (notices).
fn toxic_flows(
    live: &[LiveListing],
    configs: &[ConfigFile],
    lock: Option<&lock::LockFile>,
    selection: &Selection,
) -> (Vec<Finding>, Vec<String>) {
    if !selection.selects(Code::ToxicFlow) {
        return (Vec::new(), Vec::new());
    }
    super::toxic_flow::findings(live, configs, lock)
}

/// At the entry that declares the server, so every output has a line.
fn place_at_entry(f: &mut Finding, l: &LiveListing, configs: &[ConfigFile]) {
    f.location.file = Some(l.config.clone());
    let entry = configs
        .iter()
        .filter(|c| c.display == l.config)
        .find_map(|c| {
            c.servers
                .iter()
                .find(|e| e.pointer == l.pointer)
                .map(|e| (c, e))
        });
    if let Some((config, entry)) = entry {
        let (line, column) = config.lines.position(&config.text, entry.span.start);
        f.location.line = Some(line);
        f.location.column = Some(column);
    }
}

/// The current directory, which relative targets and the default lock file are read from.
pub fn current_dir() -> Result<PathBuf, Error> {
    std::env::current_dir()
        .map_err(|e| Error::System(format!("cannot read the current directory: {e}")))
}
