//! `toxic-flow`: one config gives the model a tool that reads private data and a tool that
//! sends data out, on two servers or inside one: an exfiltration path a prompt injection can
//! drive. With a tool that brings in untrusted content as well, it is the "lethal
//! trifecta" (GitHub's server alone: read an issue, read a private repository, open a pull
//! request). Live tools are classified from their names, annotations (readOnlyHint,
//! openWorldHint) and parameters (see `classify`); without a live listing the servers' names
//! are only a guess, reported as a note.

use super::config_file::ConfigFile;
use super::live::{LiveListing, LiveState};
use super::lock::{pinned_tools, LockFile};
use super::server_entry::ServerEntry;
use crate::catalog::Code;
use crate::finding::{excerpt, plural, Finding, Risk};
use classify::NAME_GUESSES;
pub use classify::{classify, Roles};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

pub mod classify;

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
    // Listings by config, and the lock's entries by config and name: looked up, not searched.
    let mut live_by_config: HashMap<&str, Vec<&LiveListing>> = HashMap::new();
    for l in live {
        live_by_config.entry(l.config.as_str()).or_default().push(l);
    }
    let locked: HashMap<(&str, &str), &_> = lock
        .map(|k| {
            k.servers
                .iter()
                .rev()
                .map(|s| ((s.config.as_str(), s.name.as_str()), s))
                .collect()
        })
        .unwrap_or_default();
    for config in configs {
        let entries: HashMap<&str, &ServerEntry> = config
            .servers
            .iter()
            .map(|e| (e.pointer.as_str(), e))
            .collect();
        let enabled: HashSet<&str> = config
            .servers
            .iter()
            .filter(|e| !e.disabled)
            .map(|e| e.pointer.as_str())
            .collect();
        let servers: Vec<&LiveListing> = live_by_config
            .get(config.display.as_str())
            .into_iter()
            .flatten()
            .copied()
            .filter(|l| enabled.contains(l.pointer.as_str()))
            .collect();
        // Listed tools, or for a server not listed now, the tools its lock entry pinned.
        let mut listed: Vec<(&LiveListing, Vec<Value>)> = Vec::new();
        let mut pinned_used = false;
        for l in &servers {
            if matches!(l.state, LiveState::Answered) {
                listed.push((l, l.tools.clone()));
            } else if let Some(surface) = locked
                .get(&(config.display.as_str(), l.server.as_str()))
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
                let name = tool_label(tool.get("name").and_then(Value::as_str).unwrap_or(""));
                for (i, on) in [r.private_source, r.untrusted_source, r.sink]
                    .iter()
                    .enumerate()
                {
                    if *on && by_role[i].len() < 5 {
                        by_role[i].push(name.clone());
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
        let listed_pointers: HashSet<&str> =
            listed.iter().map(|(x, _)| x.pointer.as_str()).collect();
        for l in servers
            .iter()
            .filter(|l| !listed_pointers.contains(l.pointer.as_str()))
        {
            let Some(&entry) = entries.get(l.pointer.as_str()) else {
                continue;
            };
            let mut text = entry.name.to_ascii_lowercase();
            for p in super::entry_command::packages(entry) {
                text.push(' ');
                text.push_str(&p.package.name.to_ascii_lowercase());
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

/// A tool's name as shown, with the name it imitates when a look-alike character hides it.
fn tool_label(name: &str) -> String {
    match classify::reads_as(name) {
        Some(folded) => format!("{} read as {}", excerpt(name, 60), excerpt(&folded, 60)),
        None => excerpt(name, 60),
    }
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

/// A finding when a private source and a sink sit on different servers or, failing that,
/// inside one server.
fn flow(
    config: &ConfigFile,
    private: &[Side<'_>],
    untrusted: &[Side<'_>],
    sinks: &[Side<'_>],
    source: Source,
) -> Option<Finding> {
    let all: Vec<(&Side<'_>, &Side<'_>)> = private
        .iter()
        .flat_map(|p| sinks.iter().map(move |s| (p, s)))
        .collect();
    let across: Vec<_> = all
        .iter()
        .copied()
        .filter(|(p, s)| p.pointer != s.pointer)
        .collect();
    let within = across.is_empty();
    let pairs = if within { all } else { across };
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
    // Inside one server: the first such server's own tools on each side.
    let own = |sides: &[&Side<'_>]| {
        sides
            .iter()
            .find(|x| x.pointer == first_sink.pointer)
            .map(|x| x.tools.join(", "))
    };
    let own_inbound = within.then(|| own(&inbound)).flatten();
    let server = format!("{:?}", excerpt(first_sink.server, 60));
    let tools = |list: Option<String>| match list {
        Some(t) if !t.is_empty() => format!(" ({t})"),
        _ => String::new(),
    };
    let (message, detail) = match (within, trifecta, own_inbound) {
        (true, _, Some(u)) => (
            format!(
                "Lethal trifecta inside one server in {}: {server} brings in untrusted content{}, reads private data{} and can send it out{} ({what}).",
                config.display,
                tools(Some(u)),
                tools(own(&sources)),
                tools(own(&outs)),
            ),
            "lethal-trifecta-in-one-server",
        ),
        (true, false, None) => (
            format!(
                "Toxic flow inside one server in {}: {server} reads private data{} and can send it out{} ({what}).",
                config.display,
                tools(own(&sources)),
                tools(own(&outs)),
            ),
            "source-and-sink-in-one-server",
        ),
        (_, true, _) => (
            format!(
                "Lethal trifecta in {}: untrusted content from {} can instruct the model to read private data with {} and send it out with {} ({what}).",
                config.display,
                describe(&inbound),
                describe(&sources),
                describe(&outs)
            ),
            "lethal-trifecta",
        ),
        (false, false, _) => (
            format!(
                "Toxic flow in {}: private data read with {} can be sent out with {} ({what}).",
                config.display,
                describe(&sources),
                describe(&outs)
            ),
            "source-and-sink",
        ),
    };
    let risk = match (source == Source::Guessed, trifecta) {
        (true, _) => Risk::Info,
        (false, true) => Risk::High,
        (false, false) => Risk::Medium,
    };
    Some(
        Finding::new(Code::ToxicFlow, message)
            .at(config.location(&entry.pointer, entry.span))
            .risk(risk)
            .detail(detail)
            .evidence(&format!(
                "{}, {}{}",
                plural(sources.len(), "source"),
                plural(outs.len(), "sink"),
                if trifecta { ", untrusted input" } else { "" }
            ))
            .fix(if within {
                "Disable the server's sending tools you do not need (or those that read private data), give it a token that reaches only what it must (GitHub: one repository, no private ones), or require confirmation for each call to its sending tools."
            } else {
                "Keep servers that read private data and servers that can send data out in separate configs (or profiles), disable the sending tools you do not need, or require confirmation for each call to them."
            }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use super::classify::tests::roles;

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
