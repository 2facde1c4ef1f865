//! `toxic-flow`: one config gives the model a tool that reads private data and, on another
//! server, a tool that sends data out: an exfiltration path a prompt injection can drive,
//! though each server alone is fine. With a tool that brings in untrusted content as well,
//! it is the "lethal trifecta". Live tools are classified from their names, annotations
//! (readOnlyHint, openWorldHint) and parameters; without a live listing the servers' names
//! are only a guess, reported as a note. Precision over recall: a tool is put on a side
//! only by a verb and an object that say so together.

use super::config_file::ConfigFile;
use super::live::{LiveListing, LiveState};
use super::lock::{pinned_tools, LockFile};
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Risk};
use serde_json::Value;

/// What a tool can do in a flow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Roles {
    pub private_source: bool,
    pub untrusted_source: bool,
    pub sink: bool,
}

const READ_VERBS: &[&str] = &[
    "read", "get", "list", "search", "query", "find", "open", "cat", "view", "download", "fetch",
    "load", "export", "dump", "execute", "run",
];
const PRIVATE_OBJECTS: &[&str] = &[
    "file",
    "files",
    "directory",
    "directories",
    "dir",
    "folder",
    "tree",
    "email",
    "emails",
    "mail",
    "inbox",
    "database",
    "db",
    "table",
    "tables",
    "sql",
    "rows",
    "secret",
    "secrets",
    "password",
    "passwords",
    "credential",
    "credentials",
    "keychain",
    "vault",
    "env",
    "environment",
    "calendar",
    "contacts",
    "drive",
    "notes",
    "history",
];
const INBOUND_OBJECTS: &[&str] = &[
    "email",
    "emails",
    "mail",
    "inbox",
    "message",
    "messages",
    "issue",
    "issues",
    "comment",
    "comments",
    "review",
    "reviews",
    "discussion",
    "discussions",
    "ticket",
    "tickets",
];
const WEB_VERBS: &[&str] = &[
    "fetch", "browse", "navigate", "scrape", "crawl", "http", "request", "curl", "wget", "visit",
];
const SEND_VERBS: &[&str] = &[
    "send", "post", "publish", "upload", "reply", "tweet", "notify", "forward", "share", "dm",
    "webhook", "email", "mail",
];
const CREATE_VERBS: &[&str] = &["create", "add", "post", "write", "submit", "leave"];
const PUBLIC_OBJECTS: &[&str] = &[
    "comment",
    "comments",
    "issue",
    "message",
    "messages",
    "post",
    "tweet",
    "review",
    "reply",
    "gist",
    "discussion",
];
const URL_PARAMS: &[&str] = &[
    "url", "uri", "href", "endpoint", "link", "address", "webhook",
];

/// `readTextFile`, `read_text_file`, `read-text.file` → read, text, file.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn any(words: &[String], set: &[&str]) -> bool {
    words.iter().any(|w| set.contains(&w.as_str()))
}

fn hint(tool: &Value, name: &str) -> Option<bool> {
    tool.pointer(&format!("/annotations/{name}"))
        .and_then(Value::as_bool)
}

fn has_url_parameter(tool: &Value) -> bool {
    tool.pointer("/inputSchema/properties")
        .and_then(Value::as_object)
        .is_some_and(|p| {
            p.keys()
                .any(|k| URL_PARAMS.iter().any(|u| words(k).iter().any(|w| w == u)))
        })
}

/// The roles of one advertised tool.
pub fn classify(tool: &Value) -> Roles {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    let w = words(name);
    let read_only = hint(tool, "readOnlyHint") == Some(true);
    let open_world = hint(tool, "openWorldHint");
    let url = has_url_parameter(tool);
    let reads = any(&w, READ_VERBS);
    let web = any(&w, WEB_VERBS) || (w.iter().any(|x| x == "web") && reads);
    // A web request both brings in what the page says and sends what its URL carries.
    let web_request = open_world != Some(false) && (web && (url || open_world == Some(true)));
    let private_source =
        reads && any(&w, PRIVATE_OBJECTS) && !web_request && open_world != Some(true);
    let untrusted_source = web_request || (reads && any(&w, INBOUND_OBJECTS));
    let sends =
        (any(&w, SEND_VERBS) && !reads) || (any(&w, CREATE_VERBS) && any(&w, PUBLIC_OBJECTS));
    let sink = web_request || (sends && !read_only && open_world != Some(false));
    Roles {
        private_source,
        untrusted_source,
        sink,
    }
}

/// Server names that suggest a role, for when no listing exists: (fragment, roles).
const NAME_GUESSES: &[(&str, Roles)] = &[
    ("filesystem", PRIVATE),
    ("postgres", PRIVATE),
    ("sqlite", PRIVATE),
    ("mysql", PRIVATE),
    ("gdrive", PRIVATE),
    ("obsidian", PRIVATE),
    ("gmail", ALL),
    ("fetch", WEB),
    ("puppeteer", WEB),
    ("playwright", WEB),
    ("browser", WEB),
    (
        "slack",
        Roles {
            private_source: false,
            untrusted_source: true,
            sink: true,
        },
    ),
];
const PRIVATE: Roles = Roles {
    private_source: true,
    untrusted_source: false,
    sink: false,
};
const WEB: Roles = Roles {
    private_source: false,
    untrusted_source: true,
    sink: true,
};
const ALL: Roles = Roles {
    private_source: true,
    untrusted_source: true,
    sink: true,
};

/// One side of a flow: a server and the tools (or, guessed, nothing) that put it there.
struct Side<'a> {
    server: &'a str,
    pointer: &'a str,
    tools: Vec<String>,
}

/// The flows in every config, one finding per config at most, and the flows guessed from the
/// names of servers that were not listed, as notices (a guess is not a finding).
pub fn findings(
    live: &[LiveListing],
    configs: &[ConfigFile],
    lock: Option<&LockFile>,
) -> (Vec<Finding>, Vec<String>) {
    let mut out = Vec::new();
    let mut notices = Vec::new();
    for config in configs {
        let servers: Vec<&LiveListing> = live
            .iter()
            .filter(|l| l.config == config.display)
            .filter(|l| {
                config
                    .servers
                    .iter()
                    .any(|e| e.pointer == l.pointer && !e.disabled)
            })
            .collect();
        // Listed tools, or for a server not listed now, the tools its lock entry pinned.
        let mut listed: Vec<(&LiveListing, Vec<Value>)> = Vec::new();
        let mut pinned_used = false;
        for l in &servers {
            if matches!(l.state, LiveState::Answered) {
                listed.push((l, l.tools.clone()));
            } else if let Some(surface) = lock
                .and_then(|k| {
                    k.servers
                        .iter()
                        .find(|s| s.config == config.display && s.name == l.server)
                })
                .and_then(|s| s.surface.as_ref())
            {
                listed.push((l, pinned_tools(surface)));
                pinned_used = true;
            }
        }
        let (mut private, mut untrusted, mut sinks) = (Vec::new(), Vec::new(), Vec::new());
        for (l, tools) in &listed {
            let mut by_role: [Vec<String>; 3] = Default::default();
            for tool in tools {
                let r = classify(tool);
                let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
                for (i, on) in [r.private_source, r.untrusted_source, r.sink]
                    .iter()
                    .enumerate()
                {
                    if *on && by_role[i].len() < 5 {
                        by_role[i].push(excerpt(name, 60));
                    }
                }
            }
            let [p, u, s] = by_role;
            for (tools, list) in [(p, &mut private), (u, &mut untrusted), (s, &mut sinks)] {
                if !tools.is_empty() {
                    list.push(Side {
                        server: &l.server,
                        pointer: &l.pointer,
                        tools,
                    });
                }
            }
        }
        let what = if pinned_used {
            Source::ListedOrPinned
        } else {
            Source::Listed
        };
        if let Some(f) = flow(config, &private, &untrusted, &sinks, what) {
            out.push(f);
            continue;
        }
        // No flow among the listed tools: guess from the names of servers with no listing.
        if listed.len() == servers.len() {
            continue;
        }
        let (mut private, mut untrusted, mut sinks) = (Vec::new(), Vec::new(), Vec::new());
        for l in servers
            .iter()
            .filter(|l| !listed.iter().any(|(x, _)| x.pointer == l.pointer))
        {
            let Some(entry) = config.servers.iter().find(|e| e.pointer == l.pointer) else {
                continue;
            };
            let mut text = entry.name.to_ascii_lowercase();
            for p in super::launcher::packages(entry) {
                text.push(' ');
                text.push_str(&p.name.to_ascii_lowercase());
            }
            let Some((_, roles)) = NAME_GUESSES.iter().find(|(frag, _)| text.contains(frag)) else {
                continue;
            };
            let side = || Side {
                server: &l.server,
                pointer: &l.pointer,
                tools: Vec::new(),
            };
            if roles.private_source {
                private.push(side());
            }
            if roles.untrusted_source {
                untrusted.push(side());
            }
            if roles.sink {
                sinks.push(side());
            }
        }
        if let Some(f) = flow(config, &private, &untrusted, &sinks, Source::Guessed) {
            notices.push(format!(
                "toxic-flow (a guess, not a finding): {}",
                f.message
            ));
        }
    }
    (out, notices)
}

fn describe(sides: &[&Side<'_>]) -> String {
    sides
        .iter()
        .map(|s| {
            let server = format!("{:?}", excerpt(s.server, 60));
            if s.tools.is_empty() {
                server
            } else {
                format!("{} ({})", server, s.tools.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the sides were learnt from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    Listed,
    ListedOrPinned,
    Guessed,
}

/// A finding when a private source and a sink sit on different servers.
fn flow(
    config: &ConfigFile,
    private: &[Side<'_>],
    untrusted: &[Side<'_>],
    sinks: &[Side<'_>],
    source: Source,
) -> Option<Finding> {
    let guessed = source == Source::Guessed;
    let pairs: Vec<(&Side<'_>, &Side<'_>)> = private
        .iter()
        .flat_map(|p| sinks.iter().map(move |s| (p, s)))
        .filter(|(p, s)| p.pointer != s.pointer)
        .collect();
    let (_, first_sink) = pairs.first()?;
    let mut sources: Vec<&Side<'_>> = Vec::new();
    let mut outs: Vec<&Side<'_>> = Vec::new();
    for (p, s) in &pairs {
        if !sources.iter().any(|x| x.pointer == p.pointer) {
            sources.push(p);
        }
        if !outs.iter().any(|x| x.pointer == s.pointer) {
            outs.push(s);
        }
    }
    let inbound: Vec<&Side<'_>> = untrusted.iter().collect();
    let trifecta = !inbound.is_empty();
    let entry = config
        .servers
        .iter()
        .find(|e| e.pointer == first_sink.pointer)?;
    let what = match source {
        Source::Guessed => "guessed from the servers' names, as they were not listed; run with --live to classify their tools",
        Source::ListedOrPinned => "from the tools the servers advertise or, for servers not listed, the tools pinned in the lock file",
        Source::Listed => "from the tools the servers advertise",
    };
    let message = if trifecta {
        format!(
            "Lethal trifecta in {}: untrusted content from {} can instruct the model to read private data with {} and send it out with {} ({what}).",
            config.display,
            describe(&inbound),
            describe(&sources),
            describe(&outs)
        )
    } else {
        format!(
            "Toxic flow in {}: private data read with {} can be sent out with {} ({what}).",
            config.display,
            describe(&sources),
            describe(&outs)
        )
    };
    let risk = match (guessed, trifecta) {
        (true, _) => Risk::Info,
        (false, true) => Risk::High,
        (false, false) => Risk::Medium,
    };
    Some(
        Finding::new(Code::ToxicFlow, message)
            .at(config.location(&entry.pointer, entry.span))
            .risk(risk)
            .detail(if trifecta { "lethal-trifecta" } else { "source-and-sink" })
            .evidence(&format!(
                "{} source(s), {} sink(s){}",
                sources.len(),
                outs.len(),
                if trifecta { ", untrusted input" } else { "" }
            ))
            .fix("Keep servers that read private data and servers that can send data out in separate configs (or profiles), disable the sending tools you do not need, or require confirmation for each call to them."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn roles(tool: Value) -> (bool, bool, bool) {
        let r = classify(&tool);
        (r.private_source, r.untrusted_source, r.sink)
    }

    #[test]
    fn tools_are_classified_by_verb_and_object_together() {
        assert_eq!(
            roles(json!({"name": "read_text_file", "annotations": {"readOnlyHint": true}})),
            (true, false, false)
        );
        assert_eq!(
            roles(json!({"name": "listDirectory"})),
            (true, false, false)
        );
        assert_eq!(
            roles(json!({"name": "fetch", "inputSchema": {"properties": {"url": {}}}})),
            (false, true, true)
        );
        assert_eq!(roles(json!({"name": "send_email"})), (false, false, true));
        assert_eq!(roles(json!({"name": "search_emails"})), (true, true, false));
        assert_eq!(
            roles(json!({"name": "create_issue_comment"})),
            (false, false, true)
        );
        // Look-alikes: no object, or annotations that say otherwise.
        assert_eq!(roles(json!({"name": "add"})), (false, false, false));
        assert_eq!(
            roles(
                json!({"name": "get_doc_page", "annotations": {"readOnlyHint": true, "openWorldHint": false}})
            ),
            (false, false, false)
        );
        assert_eq!(
            roles(json!({"name": "send_notification", "annotations": {"openWorldHint": false}})),
            (false, false, false)
        );
        assert_eq!(roles(json!({"name": "write_file"})), (false, false, false));
        assert_eq!(
            roles(json!({"name": "fetch_docs", "annotations": {"openWorldHint": false}})),
            (false, false, false)
        );
    }

    #[test]
    fn pinned_tools_keep_names_parameters_and_boolean_annotations() {
        use crate::scan::config_file::{parse, Scope};
        let file = parse(
            std::path::Path::new(".mcp.json"),
            ".mcp.json",
            Scope::Project,
            "{\"mcpServers\": {\"s\": {\"command\": \"node\"}}}".into(),
        )
        .expect("config");
        let mut listing = LiveListing::new(&file, &file.servers[0], LiveState::Answered);
        listing.tools = vec![
            json!({"name": "send_notification", "description": "d", "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}}}, "annotations": {"openWorldHint": false, "title": "T"}}),
            json!({"name": "fetch", "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}}, "annotations": {"readOnlyHint": true}}),
        ];
        let pinned = pinned_tools(&crate::scan::lock::locked_surface(&listing));
        assert_eq!(
            pinned,
            [
                json!({"name": "fetch", "inputSchema": {"type": "object", "properties": {"url": {}}}, "annotations": {"readOnlyHint": true}}),
                json!({"name": "send_notification", "inputSchema": {"type": "object", "properties": {"to": {}}}, "annotations": {"openWorldHint": false}}),
            ]
        );
        // So a pinned tool is classified as the listed one was.
        assert_eq!(roles(pinned[1].clone()), roles(listing.tools[0].clone()));
        assert_eq!(roles(pinned[0].clone()), (false, true, true));
    }
}
