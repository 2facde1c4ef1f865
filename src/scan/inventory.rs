//! Facts about configs and servers, shared by the scan report and `mcpcheck inventory`:
//! transports, launchers and (live) what each server advertises. Everything shown is
//! redacted (no environment or header values, secrets masked) and bounded.

use super::config_file::{ConfigFile, ServerEntry};
use super::live::{LiveListing, LiveState};
use super::{launcher, lock};
use crate::finding::excerpt;
use crate::session::transcript::ListKind;
use serde_json::{json, Value};

/// One server, as the JSON reports show it.
pub fn server_json(
    file: &ConfigFile,
    entry: &ServerEntry,
    live: Option<&LiveListing>,
    items: bool,
) -> Value {
    let def = lock::definition(entry);
    let (line, column) = file.lines.position(&file.text, entry.span.start);
    let mut v = json!({
        "config": file.display,
        "name": excerpt(&entry.name, 128),
        "path": entry.pointer,
        "line": line,
        "column": column,
        "transport": def.transport,
        "launcher": def.launcher,
        "command": def.command.as_deref().map(|c| excerpt(c, 200)),
        "args": def.args.iter().map(|a| excerpt(a, 200)).collect::<Vec<_>>(),
        "url": def.url.as_deref().map(|u| excerpt(u, 300)),
        "envNames": def.env_names.iter().map(|n| excerpt(n, 128)).collect::<Vec<_>>(),
        "headerNames": def.header_names.iter().map(|n| excerpt(n, 128)).collect::<Vec<_>>(),
        "packages": launcher::packages(entry).iter().map(|p| json!({
            "runner": p.runner.as_str(),
            "name": excerpt(&super::urls::mask_all(&p.name), 200),
            "version": p.version.as_deref().map(|x| excerpt(x, 100)),
            "pinned": p.pin == launcher::Pin::Exact,
        })).collect::<Vec<_>>(),
        "disabled": entry.disabled,
        "understood": entry.transport.is_some(),
        "definitionHash": lock::definition_hash(&def),
    });
    if let Some(l) = live {
        v["live"] = live_json(l, items);
    }
    v
}

/// A server's live state, and with `items` what it listed.
pub fn live_json(l: &LiveListing, items: bool) -> Value {
    let mut v = json!({ "state": l.state.label() });
    match &l.state {
        LiveState::Answered => {}
        LiveState::CouldNotConnect { reason } => v["reason"] = json!(excerpt(reason, 300)),
        LiveState::NotAsked { why } => v["reason"] = json!(excerpt(why, 300)),
    }
    if l.state == LiveState::Answered {
        v["serverInfo"] = l.server_info().map_or(Value::Null, |i| {
            let f = |k: &str| i.get(k).and_then(Value::as_str).map(|s| excerpt(s, 128));
            json!({"name": f("name"), "version": f("version")})
        });
        for kind in ListKind::ALL {
            v["counts"][kind.items_key()] = json!(l.items(kind).len());
        }
        v["incomplete"] = json!(l.incomplete);
        if items {
            for kind in ListKind::ALL {
                v[kind.items_key()] =
                    Value::Array(l.items(kind).iter().map(|i| item_json(kind, i)).collect());
            }
        }
    }
    if !l.withheld_env.is_empty() {
        v["withheldEnv"] = json!(l
            .withheld_env
            .iter()
            .map(|n| excerpt(n, 128))
            .collect::<Vec<_>>());
    }
    v
}

/// The identifying fields of an advertised item, bounded and escaped.
fn item_json(kind: ListKind, item: &Value) -> Value {
    let s = |k: &str, n: usize| item.get(k).and_then(Value::as_str).map(|x| excerpt(x, n));
    let mut v = json!({ "name": s("name", 128) });
    if let Some(t) = s("title", 128) {
        v["title"] = json!(t);
    }
    match kind {
        ListKind::Resources => v["uri"] = json!(s("uri", 300)),
        ListKind::ResourceTemplates => v["uriTemplate"] = json!(s("uriTemplate", 300)),
        _ => {}
    }
    if let Some(d) = s("description", 200) {
        v["description"] = json!(d);
    }
    v
}

/// The short name of an item for human lists.
pub fn item_label(kind: ListKind, item: &Value) -> String {
    let get = |k: &str| item.get(k).and_then(Value::as_str);
    let name = get("name").unwrap_or("?");
    match kind {
        ListKind::Resources => format!(
            "{} ({})",
            excerpt(name, 60),
            excerpt(get("uri").unwrap_or("?"), 100)
        ),
        ListKind::ResourceTemplates => format!(
            "{} ({})",
            excerpt(name, 60),
            excerpt(get("uriTemplate").unwrap_or("?"), 100)
        ),
        _ => excerpt(name, 80),
    }
}
