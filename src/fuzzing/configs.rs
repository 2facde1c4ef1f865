//! Client configs (JSONC) with the scan rules and the lock, the guard's config, sweep
//! manifests and registry `server.json` entries.

use crate::catalog::Code;
use crate::scan::config_file::{self, Scope};
use crate::scan::lock;
use crate::scan::{self as scan_engine, ScanSettings, Selection};
use crate::sweep::manifest::{EntryPlan, Supplied};
use serde_json::Value;
use std::path::Path;

/// Client config file names, so every client's shape is parsed.
const CONFIG_PATHS: &[&str] = &[
    "/project/.mcp.json",
    "/project/.vscode/mcp.json",
    "/project/.cursor/mcp.json",
    "/home/u/.claude.json",
    "/home/u/.config/Claude/claude_desktop_config.json",
    "/home/u/.codeium/windsurf/mcp_config.json",
    "/project/.gemini/settings.json",
    "/home/u/.config/Code/User/settings.json",
];

/// Parses a client config and runs every rule. Invariants: each finding sits inside the
/// file; no verified provider token of the file appears in a finding's text; a lock built
/// from the file, compared with the same file (also after a JSON round trip), shows no
/// drift and nothing added or removed.
pub fn client_config(data: &[u8]) {
    let (control, rest) = super::split_first(data);
    let path = CONFIG_PATHS[usize::from(control) % CONFIG_PATHS.len()];
    let scope = match control >> 6 {
        0 => Scope::Project,
        1 => Scope::Global,
        _ => Scope::Explicit,
    };
    let text = String::from_utf8_lossy(rest).into_owned();
    let file = match config_file::parse(Path::new(path), "config.json", scope, text.clone()) {
        Ok(file) => file,
        Err(e) => return super::assert_one_line("config error", &e.0),
    };
    let configs = [file];
    let selection = Selection::default();
    let settings = ScanSettings {
        selection: &selection,
        registry: None,
        advisories: None,
        lock: None,
        live: None,
    };
    let findings = scan_engine::findings(&configs, &settings);
    // Lines end at LF, CRLF or a lone CR, as editors and SARIF count them.
    let lines = text.replace("\r\n", "\n").matches(['\n', '\r']).count() as u64 + 2;
    let tokens: Vec<&str> = crate::secrets::find_tokens(&text)
        .into_iter()
        .filter(|t| t.verified && t.end - t.start >= 16)
        .map(|t| &text[t.start..t.end])
        .collect();
    for f in &findings {
        if let Some(line) = f.location.line {
            assert!(
                line >= 1 && line <= lines,
                "finding at line {line} of {lines}"
            );
        }
        for shown in [Some(&f.message), f.evidence.as_ref(), f.fix.as_ref()]
            .into_iter()
            .flatten()
        {
            for token in &tokens {
                assert!(
                    !shown.contains(token),
                    "{}: a token of the config is shown: {shown:?}",
                    f.code.as_str()
                );
            }
        }
    }

    let pinned = lock::build(&configs, None);
    let drift = lock::compare(&pinned, &configs, None);
    assert!(drift.is_empty(), "a fresh lock shows drift: {drift:?}");
    assert!(lock::removed(&pinned, &configs).is_empty());
    let json = serde_json::to_string(&pinned).expect("a lock serialises");
    let reread: lock::LockFile = serde_json::from_str(&json).expect("a written lock reads back");
    assert_eq!(reread, pinned, "the lock changes through JSON");
    let settings = ScanSettings {
        lock: Some(&reread),
        ..settings
    };
    let with_lock = scan_engine::findings(&configs, &settings);
    assert!(
        !with_lock.iter().any(|f| matches!(
            f.code,
            Code::ServerAddedSincePin | Code::ServerDefinitionDrift | Code::ToolSurfaceDrift
        )),
        "the reread lock shows drift"
    );
}

/// The guard's `--config` file: parsed, or one line that says what is wrong.
pub fn guard_config(data: &[u8]) {
    let path = super::scratch("mcpcheck.json", data);
    if let Err(e) = crate::guard::config::load(&path) {
        super::assert_one_line("guard config error", &e.to_string());
    }
}

/// A sweep manifest, JSON or JSON Lines: entries with unique ids, or one line of error.
pub fn sweep_manifest(data: &[u8]) {
    let (control, rest) = super::split_first(data);
    let name = if control & 1 == 0 {
        "manifest.json"
    } else {
        "manifest.jsonl"
    };
    let path = super::scratch(name, rest);
    match crate::sweep::manifest::load(&path) {
        Ok(entries) => {
            assert!(!entries.is_empty(), "a manifest loaded with no entries");
            let mut ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
            ids.sort_unstable();
            let before = ids.len();
            ids.dedup();
            assert_eq!(before, ids.len(), "a manifest loaded with duplicate ids");
            entries.iter().for_each(check_plan);
        }
        Err(e) => super::assert_one_line("manifest error", &e.to_string()),
    }
}

/// A registry `server.json` entry turned into a launch plan, with and without supplied
/// values (taken from the entry's own `x-supplied` object).
pub fn server_json(data: &[u8]) {
    let Ok(Value::Object(server)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let mut supplied = Supplied::default();
    if let Some(Value::Object(given)) = server.get("x-supplied") {
        for (key, value) in given {
            if let Some(text) = value.as_str() {
                supplied.env.insert(key.clone(), text.to_string());
                supplied.inputs.insert(key.clone(), text.to_string());
            }
        }
    }
    for supplied in [Supplied::default(), supplied] {
        let plan = crate::sweep::server_json::launch_plan(&server, &supplied);
        check_plan(&crate::sweep::manifest::Entry {
            id: "fuzz".into(),
            position: "entry 1".into(),
            plan,
        });
    }
}

/// A launch has a program, a remote an http(s) URL; a plan that runs nothing says why.
fn check_plan(entry: &crate::sweep::manifest::Entry) {
    match &entry.plan {
        EntryPlan::Launch(launch) => {
            assert!(
                launch
                    .command
                    .first()
                    .is_some_and(|p| !p.value().is_empty()),
                "{}: a launch without a program",
                entry.id
            );
        }
        EntryPlan::Remote(remote) => {
            assert!(
                remote.url.value().starts_with("http://")
                    || remote.url.value().starts_with("https://"),
                "{}: a remote that is not an http(s) URL: {:?}",
                entry.id,
                remote.url
            );
        }
        EntryPlan::NeedsConfiguration { reason, .. } | EntryPlan::NotAsked { reason } => {
            assert!(!reason.is_empty(), "{}: a plan without a reason", entry.id);
        }
    }
}
