//! logback.xml: a `ch.qos.logback.core.ConsoleAppender` writes to System.out unless its
//! `<target>` is System.err. It matters when a logger that is not turned off (the root or a
//! `<logger>`, also inside `<springProfile>` or `<if>`) writes through it, directly or via
//! an appender that forwards (`AsyncAppender`'s `<appender-ref>`). Element names are matched
//! without regard to case, as Joran does.

use super::reach::{reached, ActiveLogger};
use super::text::Text;
use super::{hit, shown, CHANNEL};
use crate::source::lang::Hit;
use roxmltree::{Document, Node};
use std::collections::HashMap;

const CONSOLE_APPENDER: &str = "ch.qos.logback.core.ConsoleAppender";

fn is(node: &Node<'_, '_>, name: &str) -> bool {
    node.is_element() && node.tag_name().name().eq_ignore_ascii_case(name)
}

/// The element's text, trimmed (None if it has none).
fn text_of<'a>(node: &Node<'a, '_>) -> Option<&'a str> {
    node.children()
        .find(|c| c.is_text())
        .and_then(|t| t.text())
        .map(str::trim)
}

pub fn scan(doc: &Document<'_>, text: &Text<'_>, out: &mut Vec<Hit>) {
    let root = doc.root_element();
    if !is(&root, "configuration") {
        return;
    }
    // `<import class="ch.qos.logback.core.ConsoleAppender"/>` lets `class="ConsoleAppender"`.
    let imported_console = root
        .descendants()
        .any(|n| is(&n, "import") && n.attribute("class").map(str::trim) == Some(CONSOLE_APPENDER));
    let appenders: Vec<Node<'_, '_>> = root.descendants().filter(|n| is(n, "appender")).collect();
    let forwards: HashMap<String, Vec<String>> = appenders
        .iter()
        .filter_map(|a| Some((a.attribute("name")?.trim().to_string(), refs(a))))
        .collect();
    let loggers: Vec<ActiveLogger> = root
        .descendants()
        .filter(|n| is(n, "root") || is(n, "logger"))
        .filter(|n| !turned_off(n))
        .map(|n| ActiveLogger {
            described: describe(&n, text),
            refs: refs(&n),
        })
        .collect();
    let reach = reached(&loggers, &forwards);
    for appender in appenders {
        let class = appender.attribute("class").map(str::trim).unwrap_or("");
        let console = class == CONSOLE_APPENDER || (imported_console && class == "ConsoleAppender");
        let Some(name) = appender.attribute("name").map(str::trim) else {
            continue;
        };
        let Some(how) = reach.get(name).filter(|_| console) else {
            continue;
        };
        let target = appender.children().find(|c| is(c, "target"));
        let value = target.as_ref().and_then(text_of).unwrap_or("");
        // A variable is resolved at run time: no guess.
        if value.contains("${") || value.eq_ignore_ascii_case("System.err") {
            continue;
        }
        let name = shown(name);
        let fix = "Set the appender's target to stderr: <target>System.err</target>. Clients keep stderr as the server's log.";
        let finding = match target {
            None => hit(
                start_tag(&appender, text),
                format!("logback ConsoleAppender `{name}` writes to System.out, its default (it has no <target>), and {}: every log record lands on stdout, {CHANNEL}.", how.phrase()),
                fix,
            ),
            Some(target) => {
                let h = hit(
                    text.range(target.range().start, target.range().end),
                    format!("logback ConsoleAppender `{name}` writes to System.out (<target>{}</target>), and {}: every log record lands on stdout, {CHANNEL}.", shown(value), how.phrase()),
                    fix,
                );
                match exact_text(&target, text, "System.out") {
                    Some((s, e)) => h.edit_range(text.range(s, e), "System.err", "Write to System.err"),
                    None => h,
                }
            }
        };
        out.push(finding);
    }
}

/// The names of `<appender-ref ref="...">` children.
fn refs(node: &Node<'_, '_>) -> Vec<String> {
    node.children()
        .filter(|c| is(c, "appender-ref"))
        .filter_map(|c| c.attribute("ref"))
        .map(|r| r.trim().to_string())
        .collect()
}

/// A level of OFF on the element or in a `<level value="OFF"/>` child.
fn turned_off(node: &Node<'_, '_>) -> bool {
    let level = node.attribute("level").or_else(|| {
        node.children()
            .find(|c| is(c, "level"))
            .and_then(|l| l.attribute("value"))
    });
    level.is_some_and(|l| l.trim().eq_ignore_ascii_case("off"))
}

fn describe(node: &Node<'_, '_>, text: &Text<'_>) -> String {
    let line = text.row(node.range().start) + 1;
    match node.attribute("name") {
        Some(name) if is(node, "logger") => {
            format!("<logger name=\"{}\"> (line {line})", shown(name))
        }
        _ => format!("<root> (line {line})"),
    }
}

/// The range of an element's start tag: up to the `>` after its last attribute.
pub(super) fn start_tag(node: &Node<'_, '_>, text: &Text<'_>) -> tree_sitter::Range {
    let start = node.range().start;
    let after_attributes = node
        .attributes()
        .map(|a| a.range().end)
        .max()
        .unwrap_or(start);
    let end = text.text[after_attributes..node.range().end]
        .find('>')
        .map_or(node.range().end, |i| after_attributes + i + 1);
    text.range(start, end)
}

/// Where the element's only text is exactly `wanted` (blanks around it allowed).
fn exact_text(node: &Node<'_, '_>, text: &Text<'_>, wanted: &str) -> Option<(usize, usize)> {
    let mut children = node.children();
    let only = children.next().filter(|c| c.is_text())?;
    if children.next().is_some() {
        return None;
    }
    let raw = &text.text[only.range()];
    let offset = raw.find(wanted)?;
    (raw.trim() == wanted).then(|| {
        let s = only.range().start + offset;
        (s, s + wanted.len())
    })
}
