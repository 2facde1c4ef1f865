//! `mcpcheck inventory`: configs, servers, transports and (live) what each server lists,
//! as text for people or JSON for machines. Content never makes it fail.

use super::human::Style;
use super::issue::SchemaVersion;
use super::scan::json::ConfigFacts;
use super::scan::server::{server, ServerFacts};
use crate::finding::excerpt;
use crate::scan::config_file::ConfigFile;
use crate::scan::inventory::item_label;
use crate::scan::live::{LiveIndex, LiveListing, LiveState};
use crate::scan::lock;
use crate::session::transcript::ListKind;
use schemars::JsonSchema;
use serde::Serialize;

/// What the inventory shows.
pub struct Inventory<'a> {
    pub configs: &'a [ConfigFile],
    /// Files that could not be parsed, with why.
    pub broken: &'a [(String, String)],
    pub live: &'a [LiveListing],
    pub live_ran: bool,
    pub notices: &'a [String],
}

/// `mcpcheck inventory --format json` (schemaVersion 1): the configs read, every server in
/// them as the scan report shows it, and (with `--live`) what each listed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "mcpcheck inventory --format json")]
pub struct InventoryJson<'a> {
    pub schema_version: SchemaVersion,
    /// Whether the servers were asked (`--live`).
    pub live: bool,
    /// Each config read, then each that could not be.
    pub configs: Vec<InventoryConfig<'a>>,
    pub servers: Vec<ServerFacts>,
    pub notices: Vec<String>,
}

/// A config file: read, or not readable.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum InventoryConfig<'a> {
    Read(ConfigFacts<'a>),
    Unreadable(UnreadableConfig<'a>),
}

/// A config file that could not be parsed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UnreadableConfig<'a> {
    pub path: &'a str,
    /// Why.
    pub error: String,
}

pub fn report<'a>(inv: &Inventory<'a>) -> InventoryJson<'a> {
    let mut configs: Vec<InventoryConfig<'a>> = inv
        .configs
        .iter()
        .map(|c| {
            InventoryConfig::Read(ConfigFacts {
                path: &c.display,
                client: c.client.as_str(),
                scope: c.scope.as_str(),
                servers: c.servers.len(),
            })
        })
        .collect();
    configs.extend(inv.broken.iter().map(|(path, error)| {
        InventoryConfig::Unreadable(UnreadableConfig {
            path,
            error: excerpt(error, 300),
        })
    }));
    let index = LiveIndex::new(inv.live);
    let servers = inv
        .configs
        .iter()
        .flat_map(|c| c.servers.iter().map(move |s| (c, s)))
        .map(|(c, s)| server(c, s, index.get(&c.display, &s.pointer), true))
        .collect();
    InventoryJson {
        schema_version: SchemaVersion,
        live: inv.live_ran,
        configs,
        servers,
        notices: inv.notices.iter().map(|n| excerpt(n, 500)).collect(),
    }
}

pub fn human(inv: &Inventory<'_>, style: Style) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let index = LiveIndex::new(inv.live);
    let servers: usize = inv.configs.iter().map(|c| c.servers.len()).sum();
    let _ = writeln!(
        out,
        "{}  {}, {}{}",
        style.paint("1", "mcpcheck inventory:"),
        crate::finding::plural(inv.configs.len(), "config"),
        crate::finding::plural(servers, "server"),
        if inv.live_ran { " (live)" } else { "" }
    );
    for (path, error) in inv.broken {
        let _ = writeln!(
            out,
            "\n{}  unreadable: {}",
            excerpt(path, 200),
            excerpt(error, 300)
        );
    }
    for c in inv.configs {
        let _ = writeln!(
            out,
            "\n{}  ({}, {})",
            excerpt(&c.display, 200),
            c.client.as_str(),
            c.scope.as_str()
        );
        if c.servers.is_empty() {
            let _ = writeln!(out, "  no servers");
        }
        for s in &c.servers {
            let def = lock::definition(s);
            let target = match (&def.url, &def.command) {
                (Some(u), _) if s.is_remote() => u.clone(),
                (_, Some(cmd)) => std::iter::once(cmd.clone())
                    .chain(def.args.iter().cloned())
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => "(not understood)".into(),
            };
            let _ = writeln!(
                out,
                "  {}  {} · {}{}",
                style.paint("1", &excerpt(&s.name, 60)),
                def.transport,
                excerpt(&target, 200),
                if s.disabled { " · disabled" } else { "" }
            );
            if !def.env_names.is_empty() {
                let _ = writeln!(out, "    env: {}", excerpt(&def.env_names.join(", "), 200));
            }
            if !def.header_names.is_empty() {
                let _ = writeln!(
                    out,
                    "    headers: {}",
                    excerpt(&def.header_names.join(", "), 200)
                );
            }
            let Some(l) = index.get(&c.display, &s.pointer) else {
                continue;
            };
            let _ = writeln!(out, "    live: {}", excerpt(&l.state.describe(), 300));
            if l.state != LiveState::Answered {
                continue;
            }
            for kind in ListKind::ALL {
                let items = l.items(kind);
                if items.is_empty() {
                    continue;
                }
                let labels: Vec<String> = items.iter().map(|i| item_label(kind, i)).collect();
                let _ = writeln!(
                    out,
                    "    {} ({}): {}",
                    kind.items_key(),
                    items.len(),
                    excerpt(&labels.join(", "), 600)
                );
            }
            if !l.incomplete.is_empty() {
                let _ = writeln!(out, "    incomplete: {}", l.incomplete.join(", "));
            }
        }
    }
    for n in inv.notices {
        let _ = writeln!(out, "note: {}", excerpt(n, 300));
    }
    out
}
