//! `.mcpcheck-lock.json`: per server a hash of its launch definition (names, never values)
//! and, with `pin --live`, of its whole advertised surface. A later scan reports what drifted.

use super::config_file::{ConfigFile, ServerEntry};
use super::live::{LiveIndex, LiveListing, LiveState};
use super::{entry_command, secrets, servers, InputError};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::session::transcript::ListKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

pub const DEFAULT_FILE: &str = ".mcpcheck-lock.json";
const SCHEMA_VERSION: u32 = 1;

/// Each server's launch definition and, with `pin --live`, its advertised surface, hashed
/// (`mcpcheck pin` writes it, `scan --lock` reads it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "mcpcheck lock file (.mcpcheck-lock.json)")]
pub struct LockFile {
    /// Always 1 in this version of the file.
    #[schemars(range(min = 1, max = 1))]
    pub schema_version: u32,
    /// `mcpcheck` and its version.
    pub generated_by: String,
    pub servers: Vec<LockedServer>,
}

/// One server of one config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LockedServer {
    /// The config file, as the scan shows it.
    pub config: String,
    pub name: String,
    /// SHA-256 of the canonical `definition`.
    pub definition_hash: String,
    /// What was hashed, for review (secrets masked, environment and header values never kept).
    pub definition: Definition,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface: Option<LockedSurface>,
}

/// A server's launch definition: names, never values; secrets masked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Definition {
    pub transport: String,
    pub launcher: String,
    pub command: Option<String>,
    pub args: Vec<String>,
    pub env_names: Vec<String>,
    pub header_names: Vec<String>,
    pub url: Option<String>,
}

/// What the server advertised (`pin --live`), hashed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LockedSurface {
    /// SHA-256 of the canonical surface: every field, keys sorted, items sorted by name.
    pub hash: String,
    /// Per item (`tools/NAME`…), a hash per field path, to say what changed.
    pub items: BTreeMap<String, BTreeMap<String, String>>,
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// JSON with object keys sorted bytewise at every level, arrays in order.
pub fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), canonical(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

fn hash_value(v: &Value) -> String {
    sha256_hex(canonical(v).to_string().as_bytes())
}

/// A server's launch definition, masked.
pub fn definition(entry: &ServerEntry) -> Definition {
    let mask = super::urls::mask_all;
    let args: Vec<String> = entry.args.iter().map(|a| a.value.clone()).collect();
    let mut env_names: Vec<String> = entry.env.iter().map(|e| e.name.clone()).collect();
    env_names.sort();
    let mut header_names: Vec<String> = entry.headers.iter().map(|h| h.name.clone()).collect();
    header_names.sort();
    let runner = entry_command::packages(entry)
        .first()
        .map(|p| p.launcher.as_str().to_string());
    Definition {
        transport: entry.transport.map_or("unknown", |t| t.as_str()).into(),
        launcher: runner.unwrap_or_else(|| match entry.transport {
            None => "unknown".into(),
            Some(_) if entry.is_remote() => "remote".into(),
            Some(_) => "command".into(),
        }),
        command: entry.command.as_ref().map(|c| {
            if c.value.contains(char::is_whitespace) {
                secrets::mask_args(&entry_command::shell_words(&c.value)).join(" ")
            } else {
                mask(&c.value)
            }
        }),
        args: secrets::mask_args(&args),
        env_names,
        header_names,
        url: entry.url.as_ref().map(|u| super::urls::mask_url(&u.value)),
    }
}

pub fn definition_hash(d: &Definition) -> String {
    hash_value(&serde_json::to_value(d).unwrap_or(Value::Null))
}

/// The items of each list, sorted by name bytewise (then by their canonical text).
fn sorted_items(items: &[Value]) -> Vec<Value> {
    let mut v: Vec<(String, String, Value)> = items
        .iter()
        .map(|i| {
            let c = canonical(i);
            (item_name(i), c.to_string(), c)
        })
        .collect();
    v.sort_by(|a, b| {
        a.0.as_bytes()
            .cmp(b.0.as_bytes())
            .then_with(|| a.1.cmp(&b.1))
    });
    v.into_iter().map(|(_, _, c)| c).collect()
}

fn item_name(item: &Value) -> String {
    ["name", "uri", "uriTemplate"]
        .iter()
        .find_map(|k| item.get(k).and_then(Value::as_str))
        .unwrap_or("")
        .to_string()
}

/// Hash of the whole advertised surface.
pub fn surface_hash(l: &LiveListing) -> String {
    let mut doc = Map::new();
    for kind in ListKind::ALL {
        doc.insert(
            kind.items_key().into(),
            Value::Array(sorted_items(l.items(kind))),
        );
    }
    hash_value(&Value::Object(doc))
}

/// Per item, a hash of each field (three levels of object keys deep), so a diff can say
/// "description changed" or "inputSchema/properties/path changed".
fn field_hashes(item: &Value) -> BTreeMap<String, String> {
    fn walk(v: &Value, path: &str, depth: usize, out: &mut BTreeMap<String, String>) {
        match v {
            Value::Object(m) if depth < 3 && !m.is_empty() => {
                for (k, child) in m {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}/{k}")
                    };
                    walk(child, &p, depth + 1, out);
                }
            }
            _ => {
                out.insert(path.to_string(), hash_value(v));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(item, "", 0, &mut out);
    out
}

pub fn locked_surface(l: &LiveListing) -> LockedSurface {
    let mut items = BTreeMap::new();
    for kind in ListKind::ALL {
        for item in l.items(kind) {
            items.insert(
                format!("{}/{}", kind.items_key(), item_name(item)),
                field_hashes(item),
            );
        }
    }
    LockedSurface {
        hash: surface_hash(l),
        items,
    }
}

/// The servers a client loads: where one file names a server twice (JSONC allows it), the
/// last definition wins, as in JSON.parse, so the lock holds one entry per file and name.
fn loaded_servers(configs: &[ConfigFile]) -> Vec<(&ConfigFile, &ServerEntry)> {
    let all: Vec<(&ConfigFile, &ServerEntry)> = servers(configs).collect();
    all.iter()
        .enumerate()
        .filter(|(i, (file, entry))| {
            !all[i + 1..].iter().any(|(later_file, later)| {
                std::ptr::eq(*later_file, *file) && later.name == entry.name
            })
        })
        .map(|(_, pair)| *pair)
        .collect()
}

/// Builds the lock for every server (surfaces only for servers that answered).
pub fn build(configs: &[ConfigFile], live: Option<&[LiveListing]>) -> LockFile {
    let mut out = Vec::new();
    let index = live.map(LiveIndex::new);
    for (file, entry) in loaded_servers(configs) {
        let def = definition(entry);
        let surface = index
            .as_ref()
            .and_then(|i| i.get(&file.display, &entry.pointer))
            .filter(|l| l.state == LiveState::Answered)
            .map(locked_surface);
        out.push(LockedServer {
            config: file.display.clone(),
            name: entry.name.clone(),
            definition_hash: definition_hash(&def),
            definition: def,
            surface,
        });
    }
    out.sort_by(|a, b| {
        a.config
            .cmp(&b.config)
            .then_with(|| a.name.as_bytes().cmp(b.name.as_bytes()))
    });
    LockFile {
        schema_version: SCHEMA_VERSION,
        generated_by: format!("mcpcheck {}", env!("CARGO_PKG_VERSION")),
        servers: out,
    }
}

pub fn read(path: &std::path::Path) -> Result<LockFile, InputError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        InputError(format!(
            "{}: cannot read the lock file ({e})",
            path.display()
        ))
    })?;
    let lock: LockFile = serde_json::from_str(&text).map_err(|e| {
        InputError(format!(
            "{}: not a valid lock file ({e}); regenerate it with `mcpcheck pin --force`",
            path.display()
        ))
    })?;
    if lock.schema_version != SCHEMA_VERSION {
        return Err(InputError(format!(
            "{}: lock schemaVersion {} is not supported (expected {SCHEMA_VERSION})",
            path.display(),
            lock.schema_version
        )));
    }
    Ok(lock)
}

/// What differs between two definitions, for a person.
fn definition_changes(old: &Definition, new: &Definition) -> Vec<String> {
    let mut out = Vec::new();
    let show = |v: &Option<String>| {
        v.as_deref()
            .map_or("none".to_string(), |s| crate::finding::excerpt(s, 80))
    };
    if old.transport != new.transport {
        out.push(format!("transport {} → {}", old.transport, new.transport));
    }
    if old.launcher != new.launcher {
        out.push(format!("launcher {} → {}", old.launcher, new.launcher));
    }
    if old.command != new.command {
        out.push(format!(
            "command {} → {}",
            show(&old.command),
            show(&new.command)
        ));
    }
    if old.args != new.args {
        out.push(format!(
            "args [{}] → [{}]",
            crate::finding::excerpt(&old.args.join(" "), 100),
            crate::finding::excerpt(&new.args.join(" "), 100)
        ));
    }
    for (what, a, b) in [
        ("env", &old.env_names, &new.env_names),
        ("header", &old.header_names, &new.header_names),
    ] {
        let added: Vec<&String> = b.iter().filter(|n| !a.contains(n)).collect();
        let removed: Vec<&String> = a.iter().filter(|n| !b.contains(n)).collect();
        if !added.is_empty() {
            out.push(format!(
                "{what} names added: {}",
                crate::finding::excerpt(&join(&added), 100)
            ));
        }
        if !removed.is_empty() {
            out.push(format!(
                "{what} names removed: {}",
                crate::finding::excerpt(&join(&removed), 100)
            ));
        }
    }
    if old.url != new.url {
        out.push(format!("url {} → {}", show(&old.url), show(&new.url)));
    }
    out
}

fn join(v: &[&String]) -> String {
    v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

/// What differs between two surfaces: added, removed and changed items with their fields.
pub fn surface_changes(old: &LockedSurface, new: &LockedSurface) -> Vec<String> {
    let mut out = Vec::new();
    for (item, fields) in &new.items {
        match old.items.get(item) {
            None => out.push(format!("{item} added")),
            Some(before) if before != fields => {
                let mut changed: Vec<String> = fields
                    .iter()
                    .filter(|(k, h)| before.get(*k) != Some(*h))
                    .map(|(k, _)| {
                        if before.contains_key(k) {
                            format!("{k} changed")
                        } else {
                            format!("{k} added")
                        }
                    })
                    .collect();
                changed.extend(
                    before
                        .keys()
                        .filter(|k| !fields.contains_key(*k))
                        .map(|k| format!("{k} removed")),
                );
                out.push(format!("{item}: {}", changed.join(", ")));
            }
            Some(_) => {}
        }
    }
    out.extend(
        old.items
            .keys()
            .filter(|k| !new.items.contains_key(*k))
            .map(|k| format!("{k} removed")),
    );
    out
}

/// The drift findings of a scan against a lock.
pub fn compare(
    lock: &LockFile,
    configs: &[ConfigFile],
    live: Option<&[LiveListing]>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let locked_by_name: std::collections::HashMap<(&str, &str), &LockedServer> = lock
        .servers
        .iter()
        .map(|s| ((s.config.as_str(), s.name.as_str()), s))
        .collect();
    let index = live.map(LiveIndex::new);
    for (file, entry) in loaded_servers(configs) {
        let at = file.location(&entry.pointer, entry.span);
        let name = crate::finding::excerpt(&entry.name, 60);
        let Some(locked) = locked_by_name.get(&(file.display.as_str(), entry.name.as_str())) else {
            out.push(
                Finding::new(
                    Code::ServerAddedSincePin,
                    format!("Server {name:?} in {} was added after the lock was written; nobody has pinned it.", file.display),
                )
                .at(at),
            );
            continue;
        };
        let def = definition(entry);
        if definition_hash(&def) != locked.definition_hash {
            let changes = definition_changes(&locked.definition, &def);
            let what = if changes.is_empty() {
                "its definition hash differs".to_string()
            } else {
                changes.join("; ")
            };
            out.push(
                Finding::new(
                    Code::ServerDefinitionDrift,
                    format!("Server {name:?} changed since it was pinned: {what}."),
                )
                .at(at.clone())
                .evidence(&what),
            );
        }
        let (Some(old), Some(listing)) = (
            &locked.surface,
            index
                .as_ref()
                .and_then(|i| i.get(&file.display, &entry.pointer)),
        ) else {
            continue;
        };
        if listing.state != LiveState::Answered {
            continue;
        }
        let new = locked_surface(listing);
        if new.hash != old.hash {
            let changes = surface_changes(old, &new);
            let what = if changes.is_empty() {
                "the surface hash differs".to_string()
            } else {
                changes.join("; ")
            };
            out.push(
                Finding::new(
                    Code::ToolSurfaceDrift,
                    format!("Server {name:?} advertises a different surface than when it was pinned: {}.", crate::finding::excerpt(&what, 600)),
                )
                .at(at)
                .evidence(&what),
            );
        }
    }
    out
}

/// Locked servers that no config has any more.
pub fn removed(lock: &LockFile, configs: &[ConfigFile]) -> Vec<String> {
    let present: std::collections::HashSet<(&str, &str)> = servers(configs)
        .map(|(f, e)| (f.display.as_str(), e.name.as_str()))
        .collect();
    lock.servers
        .iter()
        .filter(|s| !present.contains(&(s.config.as_str(), s.name.as_str())))
        .map(|s| format!("{} in {}", crate::finding::excerpt(&s.name, 60), s.config))
        .collect()
}

/// The tools a lock pinned, rebuilt from their field hashes as far as a flow needs them:
/// the name, the parameter names, and the boolean annotations (whose two values have known
/// hashes). Descriptions and other values are not recoverable, and are left out.
pub fn pinned_tools(surface: &LockedSurface) -> Vec<Value> {
    let (yes, no) = (
        hash_value(&Value::Bool(true)),
        hash_value(&Value::Bool(false)),
    );
    let mut out = Vec::new();
    for (key, fields) in &surface.items {
        let Some(name) = key.strip_prefix("tools/") else {
            continue;
        };
        let mut properties = serde_json::Map::new();
        let mut annotations = serde_json::Map::new();
        for (path, hash) in fields {
            if let Some(rest) = path.strip_prefix("inputSchema/properties/") {
                let param = rest.split('/').next().unwrap_or(rest);
                properties.insert(param.to_string(), Value::Object(serde_json::Map::new()));
            } else if let Some(hint) = path.strip_prefix("annotations/") {
                if *hash == yes || *hash == no {
                    annotations.insert(hint.to_string(), Value::Bool(*hash == yes));
                }
            }
        }
        out.push(serde_json::json!({
            "name": name,
            "inputSchema": {"type": "object", "properties": properties},
            "annotations": annotations,
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listing(tools: Vec<Value>) -> LiveListing {
        LiveListing {
            server: "s".into(),
            config: "c".into(),
            pointer: "/mcpServers/s".into(),
            state: LiveState::Answered,
            initialize: None,
            tools,
            prompts: Vec::new(),
            resources: Vec::new(),
            resource_templates: Vec::new(),
            incomplete: Vec::new(),
            withheld_env: Vec::new(),
        }
    }

    #[test]
    fn surface_hash_ignores_order_but_not_content() {
        let a = json!({"name": "a", "description": "x", "inputSchema": {"type": "object", "properties": {"p": {"type": "string", "description": "d"}}, "required": ["p"]}});
        let a_reordered = json!({"inputSchema": {"required": ["p"], "properties": {"p": {"description": "d", "type": "string"}}, "type": "object"}, "description": "x", "name": "a"});
        let b = json!({"name": "b", "annotations": {"readOnlyHint": true}, "title": "B", "outputSchema": {"type": "object"}});
        let base = surface_hash(&listing(vec![a.clone(), b.clone()]));
        assert_eq!(base, surface_hash(&listing(vec![b.clone(), a_reordered])));
        let mut changed = a.clone();
        changed["inputSchema"]["properties"]["p"]["description"] = json!("other");
        assert_ne!(base, surface_hash(&listing(vec![changed, b.clone()])));
        let mut required = a.clone();
        required["inputSchema"]["required"] = json!([]);
        assert_ne!(base, surface_hash(&listing(vec![required, b.clone()])));
        let mut annotations = b.clone();
        annotations["annotations"]["readOnlyHint"] = json!(false);
        assert_ne!(base, surface_hash(&listing(vec![a.clone(), annotations])));
        let mut output = b;
        output["outputSchema"]["properties"] = json!({});
        assert_ne!(base, surface_hash(&listing(vec![a, output])));
    }

    #[test]
    fn a_server_named_twice_in_one_file_is_pinned_as_the_client_loads_it() {
        // Found by the client_config fuzz target: both definitions were pinned, and a scan
        // right after pin reported the first one as drifted.
        let text = r#"{"mcpServers": {"s": {"command": "a"}, "s": {"command": "b"}}}"#;
        let file = crate::scan::config_file::parse(
            std::path::Path::new("/p/.mcp.json"),
            ".mcp.json",
            crate::scan::config_file::Scope::Project,
            text.to_string(),
        )
        .expect("parses");
        let configs = [file];
        let lock = build(&configs, None);
        assert_eq!(lock.servers.len(), 1);
        assert_eq!(lock.servers[0].definition.command.as_deref(), Some("b"));
        assert_eq!(compare(&lock, &configs, None), Vec::<Finding>::new());
    }

    #[test]
    fn surface_changes_name_items_and_fields() {
        let old = locked_surface(&listing(vec![
            json!({"name": "a", "description": "x", "annotations": {"destructiveHint": true}}),
            json!({"name": "gone"}),
        ]));
        let new = locked_surface(&listing(vec![
            json!({"name": "a", "description": "y"}),
            json!({"name": "new"}),
        ]));
        assert_eq!(
            surface_changes(&old, &new),
            [
                "tools/a: description changed, annotations/destructiveHint removed",
                "tools/new added",
                "tools/gone removed"
            ]
        );
    }
}
