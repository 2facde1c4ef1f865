//! One server of a client config, as the scan report and `mcpcheck inventory` show it:
//! its transport, launcher and packages, and (live) what it listed. Everything shown is
//! redacted (no environment or header values, secrets masked) and bounded.

use crate::finding::excerpt;
use crate::scan::config_file::{ConfigFile, ServerEntry};
use crate::scan::entry_command;
use crate::scan::live::{LiveListing, LiveState};
use crate::scan::lock;
use crate::session::transcript::ListKind;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// A server found in a config.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerFacts {
    /// The config file it is in.
    pub config: String,
    pub name: String,
    /// Its JSON pointer in the config.
    pub path: String,
    pub line: u64,
    pub column: u64,
    pub transport: String,
    pub launcher: String,
    pub command: Option<String>,
    pub args: Vec<String>,
    pub url: Option<String>,
    /// The names of the variables it sets (never their values).
    pub env_names: Vec<String>,
    /// The names of the headers it sends (never their values).
    pub header_names: Vec<String>,
    pub packages: Vec<Package>,
    pub disabled: bool,
    /// Whether mcpcheck understood its definition.
    pub understood: bool,
    /// The hash of its definition, as `scan --lock` records it.
    pub definition_hash: String,
    /// With `--live`: what the server answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live: Option<Live>,
}

/// A package the server's launcher runs (`npx`, `uvx`, `docker`...).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Package {
    pub runner: &'static str,
    pub name: String,
    pub version: Option<String>,
    /// Whether the version is pinned exactly.
    pub pinned: bool,
}

/// How a live query went.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LiveStateName {
    Answered,
    CouldNotConnect,
    NotAsked,
}

/// A server's live state, and when it answered what it listed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Live {
    pub state: LiveStateName,
    /// Why it could not be asked, or could not be reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The server's `serverInfo` (null when it sent none); answered servers only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-absent-or-null" = true))]
    pub server_info: Option<Option<ServerInfo>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts: Option<Counts>,
    /// The lists that were not read in full.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Item>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Vec<Item>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<Vec<Resource>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_templates: Option<Vec<ResourceTemplate>>,
    /// The variables withheld from the server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withheld_env: Option<Vec<String>>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ServerInfo {
    pub name: Option<String>,
    pub version: Option<String>,
}

/// How many of each the server listed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub tools: usize,
    pub prompts: usize,
    pub resources: usize,
    pub resource_templates: usize,
}

/// A tool or prompt, by its identifying fields.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Item {
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Resource {
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub uri: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub uri_template: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// One server, as the JSON reports show it.
pub fn server(
    file: &ConfigFile,
    entry: &ServerEntry,
    live: Option<&LiveListing>,
    items: bool,
) -> ServerFacts {
    let def = lock::definition(entry);
    let (line, column) = file.lines.position(&file.text, entry.span.start);
    let bounded = |v: &[String], n: usize| v.iter().map(|a| excerpt(a, n)).collect();
    let packages = entry_command::packages(entry)
        .iter()
        .map(|p| Package {
            runner: p.launcher.as_str(),
            name: excerpt(&crate::scan::urls::mask_all(&p.package.name), 200),
            version: p.package.version.as_deref().map(|x| excerpt(x, 100)),
            pinned: p.package.pin == crate::launch::Pin::Exact,
        })
        .collect();
    ServerFacts {
        config: file.display.clone(),
        name: excerpt(&entry.name, 128),
        path: entry.pointer.clone(),
        line,
        column,
        transport: def.transport.clone(),
        launcher: def.launcher.clone(),
        command: def.command.as_deref().map(|c| excerpt(c, 200)),
        args: bounded(&def.args, 200),
        url: def.url.as_deref().map(|u| excerpt(u, 300)),
        env_names: bounded(&def.env_names, 128),
        header_names: bounded(&def.header_names, 128),
        packages,
        disabled: entry.disabled,
        understood: entry.transport.is_some(),
        definition_hash: lock::definition_hash(&def),
        live: live.map(|l| live_facts(l, items)),
    }
}

/// A server's live state, and with `items` what it listed.
fn live_facts(l: &LiveListing, items: bool) -> Live {
    let (state, reason) = match &l.state {
        LiveState::Answered => (LiveStateName::Answered, None),
        LiveState::CouldNotConnect { reason } => {
            (LiveStateName::CouldNotConnect, Some(excerpt(reason, 300)))
        }
        LiveState::NotAsked { why } => (LiveStateName::NotAsked, Some(excerpt(why, 300))),
    };
    let answered = l.state == LiveState::Answered;
    let listed = answered && items;
    let s = |i: &Value, k: &str, n: usize| i.get(k).and_then(Value::as_str).map(|x| excerpt(x, n));
    let item = |i: &Value| Item {
        name: s(i, "name", 128),
        title: s(i, "title", 128),
        description: s(i, "description", 200),
    };
    Live {
        state,
        reason,
        server_info: answered.then(|| {
            l.server_info().map(|i| ServerInfo {
                name: s(i, "name", 128),
                version: s(i, "version", 128),
            })
        }),
        counts: answered.then(|| Counts {
            tools: l.items(ListKind::Tools).len(),
            prompts: l.items(ListKind::Prompts).len(),
            resources: l.items(ListKind::Resources).len(),
            resource_templates: l.items(ListKind::ResourceTemplates).len(),
        }),
        incomplete: answered.then(|| l.incomplete.clone()),
        tools: listed.then(|| l.items(ListKind::Tools).iter().map(item).collect()),
        prompts: listed.then(|| l.items(ListKind::Prompts).iter().map(item).collect()),
        resources: listed.then(|| {
            let resource = |i: &Value| Resource {
                name: s(i, "name", 128),
                title: s(i, "title", 128),
                uri: s(i, "uri", 300),
                description: s(i, "description", 200),
            };
            l.items(ListKind::Resources).iter().map(resource).collect()
        }),
        resource_templates: listed.then(|| {
            let template = |i: &Value| ResourceTemplate {
                name: s(i, "name", 128),
                title: s(i, "title", 128),
                uri_template: s(i, "uriTemplate", 300),
                description: s(i, "description", 200),
            };
            l.items(ListKind::ResourceTemplates)
                .iter()
                .map(template)
                .collect()
        }),
        withheld_env: (!l.withheld_env.is_empty())
            .then(|| l.withheld_env.iter().map(|n| excerpt(n, 128)).collect()),
    }
}
