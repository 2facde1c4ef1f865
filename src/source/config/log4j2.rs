//! log4j2: a Console appender's target is SYSTEM_OUT unless it says `SYSTEM_ERR`. It matters
//! when a logger that is not turned off writes through it, directly or through appenders
//! that forward (Async, Failover, Routing). XML element and attribute names are matched
//! without regard to case, as log4j2's plugins are; the properties format is read by its keys.

use super::logback::start_tag;
use super::properties::{Entry, Properties};
use super::reach::{reached, ActiveLogger, Reach};
use super::text::Text;
use super::{hit, shown, CHANNEL};
use crate::source::lang::Hit;
use roxmltree::{Attribute, Document, Node};
use std::collections::HashMap;

const FIX: &str = "Send the Console appender to stderr: target=\"SYSTEM_ERR\" (in log4j2.properties, appender.NAME.target = SYSTEM_ERR). Clients keep stderr as the server's log.";

fn is(node: &Node<'_, '_>, name: &str) -> bool {
    node.is_element() && node.tag_name().name().eq_ignore_ascii_case(name)
}

fn attribute<'a, 'i>(node: &Node<'a, 'i>, name: &str) -> Option<Attribute<'a, 'i>> {
    node.attributes()
        .find(|a| a.name().eq_ignore_ascii_case(name))
}

fn value<'a>(node: &Node<'a, '_>, name: &str) -> Option<&'a str> {
    attribute(node, name).map(|a| a.value().trim())
}

/// Where the target points: stderr, an unknown variable, or stdout (its default).
fn stdout_target(target: Option<&str>) -> bool {
    match target {
        None => true,
        Some(t) => !t.contains("${") && !t.eq_ignore_ascii_case("SYSTEM_ERR"),
    }
}

fn message(name: &str, target: Option<&str>, how: &Reach) -> String {
    let written = match target {
        None => "SYSTEM_OUT, its default (it has no target)".to_string(),
        Some(t) => format!("target {}, which is stdout", shown(t)),
    };
    format!(
        "log4j2 Console appender `{}` writes to {written}, and {}: every log record lands on stdout, {CHANNEL}.",
        shown(name),
        how.phrase()
    )
}

pub fn scan_xml(doc: &Document<'_>, text: &Text<'_>, out: &mut Vec<Hit>) {
    let root = doc.root_element();
    if !is(&root, "configuration") {
        return;
    }
    let appenders: Vec<Node<'_, '_>> = root
        .descendants()
        .filter(|n| is(n, "appenders"))
        .flat_map(|n| n.children().filter(|c| c.is_element()))
        .collect();
    let forwards: HashMap<String, Vec<String>> = appenders
        .iter()
        .filter_map(|a| Some((value(a, "name")?.to_string(), forwarded(a))))
        .collect();
    let loggers: Vec<ActiveLogger> = root
        .descendants()
        .filter(|n| is(n, "loggers"))
        .flat_map(|n| n.children())
        .filter(|n| {
            ["root", "asyncroot", "logger", "asynclogger"]
                .iter()
                .any(|k| is(n, k))
        })
        .filter(|n| !value(n, "level").is_some_and(|l| l.eq_ignore_ascii_case("off")))
        .map(|n| ActiveLogger {
            described: describe(&n, text),
            refs: n
                .children()
                .filter(|c| is(c, "appenderref"))
                .filter(|c| !value(c, "level").is_some_and(|l| l.eq_ignore_ascii_case("off")))
                .filter_map(|c| value(&c, "ref").map(str::to_string))
                .collect(),
        })
        .collect();
    let reach = reached(&loggers, &forwards);
    for appender in appenders {
        let console = is(&appender, "console")
            || (is(&appender, "appender")
                && value(&appender, "type").is_some_and(|t| t.eq_ignore_ascii_case("console")));
        let (Some(name), true) = (value(&appender, "name"), console) else {
            continue;
        };
        let Some(how) = reach.get(name) else {
            continue;
        };
        let target = attribute(&appender, "target");
        let target_value = target.as_ref().map(|t| t.value().trim());
        if !stdout_target(target_value) {
            continue;
        }
        let message = message(name, target_value, how);
        out.push(match target {
            None => hit(start_tag(&appender, text), message, FIX),
            Some(t) => {
                let r = t.range_value();
                let h = hit(text.range(t.range().start, t.range().end), message, FIX);
                if t.value() == "SYSTEM_OUT" && text.text.get(r.clone()) == Some("SYSTEM_OUT") {
                    h.edit_range(
                        text.range(r.start, r.end),
                        "SYSTEM_ERR",
                        "Write to SYSTEM_ERR",
                    )
                } else {
                    h
                }
            }
        });
    }
}

/// The appenders an appender hands events to: `<AppenderRef ref>` anywhere inside it,
/// `<Route ref>`, and a Failover's `primary`.
fn forwarded(appender: &Node<'_, '_>) -> Vec<String> {
    let inner = appender
        .descendants()
        .skip(1)
        .filter(|n| is(n, "appenderref") || is(n, "route"))
        .filter_map(|n| value(&n, "ref"));
    inner
        .chain(value(appender, "primary"))
        .map(str::to_string)
        .collect()
}

fn describe(node: &Node<'_, '_>, text: &Text<'_>) -> String {
    let line = text.row(node.range().start) + 1;
    let tag = shown(node.tag_name().name());
    match value(node, "name") {
        Some(name) if !tag.to_ascii_lowercase().ends_with("root") => {
            format!("<{tag} name=\"{}\"> (line {line})", shown(name))
        }
        _ => format!("<{tag}> (line {line})"),
    }
}

/// One appender of log4j2.properties: `appender.ID.*`.
#[derive(Default)]
struct PropertiesAppender<'p> {
    kind: Option<&'p Entry>,
    name: Option<&'p str>,
    target: Option<&'p Entry>,
    forwards: Vec<String>,
}

/// One logger: `rootLogger*` or `logger.ID*`.
#[derive(Default)]
struct PropertiesLogger<'p> {
    first: Option<&'p Entry>,
    name: Option<&'p str>,
    off: bool,
    refs: Vec<String>,
}

pub fn scan_properties(parsed: &Properties, text: &Text<'_>, out: &mut Vec<Hit>) {
    let mut appenders: ById<'_, PropertiesAppender<'_>> = ById::new();
    let mut loggers: ById<'_, PropertiesLogger<'_>> = ById::new();
    for entry in &parsed.entries {
        let key = entry.key.trim();
        let value = entry.value.trim();
        if let Some(rest) = key.strip_prefix("appender.") {
            let (id, property) = rest.split_once('.').unwrap_or((rest, ""));
            let a = appenders.slot(id);
            match property.to_ascii_lowercase().as_str() {
                "type" => a.kind = Some(entry),
                "name" => a.name = Some(value),
                "target" => a.target = Some(entry),
                p if p.starts_with("appenderref.") && p.ends_with(".ref") => {
                    a.forwards.push(value.to_string())
                }
                _ => {}
            }
            continue;
        }
        let (id, property) = if key == "rootLogger" || key.starts_with("rootLogger.") {
            (
                "",
                key.strip_prefix("rootLogger")
                    .unwrap_or("")
                    .trim_start_matches('.'),
            )
        } else if let Some(rest) = key.strip_prefix("logger.") {
            rest.split_once('.').unwrap_or((rest, ""))
        } else {
            continue;
        };
        let l = loggers.slot(id);
        l.first.get_or_insert(entry);
        match property.to_ascii_lowercase().as_str() {
            // `rootLogger = INFO, STDOUT`: a level, then appender references.
            "" => {
                let mut parts = value.split(',').map(str::trim);
                l.off |= parts
                    .next()
                    .is_some_and(|lv| lv.eq_ignore_ascii_case("off"));
                l.refs
                    .extend(parts.filter(|p| !p.is_empty()).map(str::to_string));
            }
            "level" => l.off = value.eq_ignore_ascii_case("off"),
            "name" => l.name = Some(value),
            p if p.starts_with("appenderref.") && p.ends_with(".ref") => {
                l.refs.push(value.to_string())
            }
            _ => {}
        }
    }
    let active: Vec<ActiveLogger> = loggers
        .items
        .iter()
        .filter(|(_, l)| !l.off)
        .filter_map(|(id, l)| {
            let line = text.row(l.first?.start) + 1;
            let described = if id.is_empty() {
                format!("rootLogger (line {line})")
            } else {
                format!("logger.{} (line {line})", shown(id))
            };
            Some(ActiveLogger {
                described,
                refs: l.refs.clone(),
            })
        })
        .collect();
    let forwards: HashMap<String, Vec<String>> = appenders
        .items
        .iter()
        .filter_map(|(_, a)| Some((a.name?.to_string(), a.forwards.clone())))
        .collect();
    let reach = reached(&active, &forwards);
    for (_, appender) in &appenders.items {
        let (Some(kind), Some(name)) = (appender.kind, appender.name) else {
            continue;
        };
        if !kind.value.trim().eq_ignore_ascii_case("console") {
            continue;
        }
        let Some(how) = reach.get(name) else {
            continue;
        };
        let target_value = appender.target.map(|t| t.value.trim());
        if !stdout_target(target_value) {
            continue;
        }
        let message = message(name, target_value, how);
        out.push(match appender.target {
            None => hit(text.range(kind.start, kind.end), message, FIX),
            Some(target) => {
                let h = hit(text.range(target.start, target.end), message, FIX);
                match target.plain_value {
                    Some((s, e)) if text.text[s..e].trim_end() == "SYSTEM_OUT" => h.edit_range(
                        text.range(s, s + "SYSTEM_OUT".len()),
                        "SYSTEM_ERR",
                        "Write to SYSTEM_ERR",
                    ),
                    _ => h,
                }
            }
        });
    }
}

/// Items by id, in the order their ids first appear (so findings keep file order).
struct ById<'p, T> {
    index: HashMap<&'p str, usize>,
    items: Vec<(&'p str, T)>,
}

impl<'p, T: Default> ById<'p, T> {
    fn new() -> Self {
        Self {
            index: HashMap::new(),
            items: Vec::new(),
        }
    }

    fn slot(&mut self, id: &'p str) -> &mut T {
        let next = self.items.len();
        let i = *self.index.entry(id).or_insert(next);
        if i == next {
            self.items.push((id, T::default()));
        }
        &mut self.items[i].1
    }
}
