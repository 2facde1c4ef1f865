//! Rules that judge what servers advertise: their tools, prompts, resources and resource
//! templates. Shared by every engine that lists a server (guard, scan, proxy); it knows
//! nothing about sessions or configs, only about the listed JSON.
//!
//! Every input here is untrusted. The work is bounded (items per list, fields per item,
//! bytes per text field, nesting depth), every pattern is a linear-time `regex`, and every
//! piece of advertised text that reaches a finding goes through [`text::evidence`] or
//! [`item::segment`], which bound it, make hidden characters visible and redact secrets.

mod files;
pub mod item;
pub mod listing;
pub mod rules;
pub mod schema;
pub mod text;

pub use files::{check_files, SurfaceRequest, SurfaceRun};

use crate::catalog::Code;
use crate::finding::{self, Finding, Location};
use item::{Item, ItemKind};
use serde_json::Value;
use std::collections::HashMap;

/// What one server advertised, one entry per listed item (all pages concatenated).
#[derive(Debug, Clone, Default)]
pub struct ServerSurface {
    /// The server's name, as the user knows it (config key, `serverInfo.name`, program).
    pub server: String,
    pub tools: Vec<Value>,
    pub prompts: Vec<Value>,
    pub resources: Vec<Value>,
    pub resource_templates: Vec<Value>,
}

/// Which rules to run.
#[derive(Debug, Clone, Copy, Default)]
pub struct SurfaceOptions {
    /// Only the high-precision rules about poisoning, hidden text and secrets (the guard's set).
    pub only_guard_rules: bool,
}

/// Items inspected per list; a legitimate server lists far fewer.
pub const MAX_ITEMS_PER_LIST: usize = 5_000;
/// Text fields (strings and object keys) inspected per item.
pub const MAX_FIELDS_PER_ITEM: usize = 4_000;
/// Bytes of one text field inspected.
pub const MAX_FIELD_BYTES: usize = 64 * 1024;
/// Nesting depth inspected inside one item.
pub const MAX_DEPTH: usize = 32;
/// Findings of one code kept per server; the rest are counted, not listed.
pub const MAX_FINDINGS_PER_CODE: usize = 100;

/// Runs the surface rules over every server at once (cross-server rules need them all).
pub fn check(surfaces: &[ServerSurface], options: &SurfaceOptions) -> Vec<Finding> {
    check_with_initialize(surfaces, &[], options)
}

/// Like [`check`], with each server's `initialize` result where it is known (same order as
/// `surfaces`; missing or `None` = unknown). Its `instructions` and `serverInfo` are checked
/// like any advertised text (at `servers/<server>/instructions`…), and rules about
/// capabilities, such as `mutating-tools-without-logging`, judge only servers whose
/// capabilities are known.
pub fn check_with_initialize(
    surfaces: &[ServerSurface],
    initialize: &[Option<Value>],
    options: &SurfaceOptions,
) -> Vec<Finding> {
    let servers: Vec<Server<'_>> = surfaces
        .iter()
        .enumerate()
        .map(|(i, s)| Server::new(i, s, initialize.get(i).and_then(Option::as_ref)))
        .collect();
    let rules: Vec<Box<dyn rules::SurfaceRule>> = rules::registry()
        .into_iter()
        .filter(|r| !options.only_guard_rules || r.in_guard())
        .collect();
    let mut out = Vec::new();
    for server in &servers {
        let mut cap = FindingCap::default();
        for item in &server.items {
            for rule in &rules {
                let from = out.len();
                for field in &item.fields {
                    rule.check_text(item, field, &mut out);
                }
                match item.kind {
                    ItemKind::Tool => rule.check_tool(server, item, &mut out),
                    ItemKind::Prompt => rule.check_prompt(server, item, &mut out),
                    ItemKind::Resource => rule.check_resource(server, item, &mut out),
                    ItemKind::ResourceTemplate => {
                        rule.check_resource_template(server, item, &mut out)
                    }
                    ItemKind::Initialize => {}
                }
                cap.admit(&mut out, from, MAX_FINDINGS_PER_CODE);
            }
        }
        for rule in &rules {
            let from = out.len();
            rule.check_server(server, &mut out);
            cap.admit(&mut out, from, MAX_FINDINGS_PER_CODE);
        }
        let mut skipped = server.skipped.clone();
        skipped.extend(cap.dropped());
        if !skipped.is_empty() {
            out.push(incomplete(server, &skipped));
        }
    }
    let mut cap = FindingCap::default();
    for rule in &rules {
        let from = out.len();
        rule.check_servers(&servers, &mut out);
        cap.admit(&mut out, from, MAX_FINDINGS_PER_CODE * servers.len().max(1));
    }
    if let Some(first) = servers.first() {
        let dropped = cap.dropped();
        if !dropped.is_empty() {
            out.push(incomplete(first, &dropped));
        }
    }
    finding::sort(&mut out);
    out
}

/// One server prepared for the rules: its items with their text fields extracted once.
#[derive(Debug)]
pub struct Server<'a> {
    pub index: usize,
    /// The name as a logical-path segment (bounded, escaped, secrets redacted).
    pub segment: String,
    pub surface: &'a ServerSurface,
    pub capabilities: Option<&'a Value>,
    pub items: Vec<Item<'a>>,
    /// What the bounds left out, for `surface-scan-incomplete`.
    pub skipped: Vec<String>,
}

impl<'a> Server<'a> {
    fn new(index: usize, surface: &'a ServerSurface, initialize: Option<&'a Value>) -> Self {
        let segment = item::segment(&surface.server);
        let mut skipped = Vec::new();
        let mut items = Vec::new();
        if let Some(init) = initialize.filter(|v| v.is_object()) {
            let item = Item::new(&surface.server, ItemKind::Initialize, 0, init);
            skipped.extend(item.skipped.clone());
            items.push(item);
        }
        let capabilities = initialize.and_then(|i| i.get("capabilities"));
        for kind in ItemKind::ALL {
            let list = match kind {
                ItemKind::Tool => &surface.tools,
                ItemKind::Prompt => &surface.prompts,
                ItemKind::Resource => &surface.resources,
                ItemKind::ResourceTemplate => &surface.resource_templates,
                ItemKind::Initialize => continue,
            };
            if list.len() > MAX_ITEMS_PER_LIST {
                skipped.push(format!(
                    "{} of {} {} (only the first {MAX_ITEMS_PER_LIST} are inspected)",
                    list.len() - MAX_ITEMS_PER_LIST,
                    list.len(),
                    kind.plural()
                ));
            }
            for (i, value) in list.iter().take(MAX_ITEMS_PER_LIST).enumerate() {
                let item = Item::new(&surface.server, kind, i, value);
                if let Some(note) = &item.skipped {
                    skipped.push(note.clone());
                }
                items.push(item);
            }
        }
        Self {
            index,
            segment,
            surface,
            capabilities,
            items,
            skipped,
        }
    }

    /// The server's name for messages: bounded, escaped, secrets redacted.
    pub fn display(&self) -> String {
        text::display(&self.surface.server, 64)
    }

    pub fn tools(&self) -> impl Iterator<Item = &Item<'a>> {
        self.items.iter().filter(|i| i.kind == ItemKind::Tool)
    }

    pub fn location(&self, rest: &str) -> Location {
        Location::logical(format!("servers/{}/{rest}", self.segment))
    }
}

/// Keeps at most a fixed number of findings per code, counting the rest.
#[derive(Default)]
struct FindingCap {
    kept: HashMap<Code, usize>,
    dropped: Vec<(Code, usize)>,
}

impl FindingCap {
    /// Applies the cap to the findings appended since `from`.
    fn admit(&mut self, out: &mut Vec<Finding>, from: usize, limit: usize) {
        let fresh: Vec<Finding> = out.drain(from..).collect();
        for f in fresh {
            let kept = self.kept.entry(f.code).or_default();
            if *kept < limit {
                *kept += 1;
                out.push(f);
            } else {
                match self.dropped.iter_mut().find(|(c, _)| *c == f.code) {
                    Some((_, n)) => *n += 1,
                    None => self.dropped.push((f.code, 1)),
                }
            }
        }
    }

    fn dropped(&self) -> Vec<String> {
        self.dropped
            .iter()
            .map(|(code, n)| {
                format!(
                    "{n} more {code} {} (only {} per code are listed)",
                    if *n == 1 { "finding" } else { "findings" },
                    self.kept.get(code).copied().unwrap_or(0)
                )
            })
            .collect()
    }
}

fn incomplete(server: &Server<'_>, skipped: &[String]) -> Finding {
    const SHOWN: usize = 5;
    let mut parts: Vec<String> = skipped.iter().take(SHOWN).cloned().collect();
    if skipped.len() > SHOWN {
        parts.push(format!("and {} more", skipped.len() - SHOWN));
    }
    Finding::new(
        Code::SurfaceScanIncomplete,
        format!(
            "Server {:?}: part of its surface was not inspected: {}.",
            server.display(),
            parts.join("; ")
        ),
    )
    .at(Location::logical(format!("servers/{}", server.segment)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn findings_per_code_are_capped_and_the_rest_counted() {
        let tools = (0..MAX_FINDINGS_PER_CODE + 30)
            .map(|i| json!({"name": format!("t{i}"), "description": "<IMPORTANT>x</IMPORTANT>"}))
            .collect();
        let surface = ServerSurface {
            server: "srv".into(),
            tools,
            ..ServerSurface::default()
        };
        let found = check(&[surface], &SurfaceOptions::default());
        let poisoning = found
            .iter()
            .filter(|f| f.code == Code::ToolPoisoningInstructions)
            .count();
        assert_eq!(poisoning, MAX_FINDINGS_PER_CODE);
        let note = found
            .iter()
            .find(|f| f.code == Code::SurfaceScanIncomplete)
            .expect("incomplete note");
        assert!(
            note.message
                .contains("30 more tool-poisoning-instructions findings"),
            "{}",
            note.message
        );
        assert_eq!(note.location.logical.as_deref(), Some("servers/srv"));
    }

    #[test]
    fn guard_rules_only_when_asked() {
        let surface = ServerSurface {
            server: "srv".into(),
            tools: vec![json!({"name": "delete_repo", "description": "<IMPORTANT>x</IMPORTANT>"})],
            ..ServerSurface::default()
        };
        let codes = |only_guard_rules| -> Vec<&str> {
            check(
                std::slice::from_ref(&surface),
                &SurfaceOptions { only_guard_rules },
            )
            .iter()
            .map(|f| f.code.as_str())
            .collect()
        };
        assert_eq!(codes(true), ["tool-poisoning-instructions"]);
        assert_eq!(
            codes(false),
            [
                "tool-poisoning-instructions",
                "unconfirmed-destructive-tool"
            ]
        );
    }
}
