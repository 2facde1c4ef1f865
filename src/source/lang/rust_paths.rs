//! Rust paths: what a path written in the file names, through its `use` declarations
//! (`io::stdout` after `use std::io;`, `Target::Stdout` after `use env_logger::Target;`).

use super::rust::Rs;
use super::syntax::Fields;
use super::syntax::{args, text, MAX_PATTERN_DEPTH};
use tree_sitter::Node;

pub(super) const TRACING_BUILDERS: &[&str] = &[
    "tracing_subscriber::fmt",
    "tracing_subscriber::fmt::fmt",
    "tracing_subscriber::fmt::layer",
    "tracing_subscriber::fmt::Layer::new",
    "tracing_subscriber::fmt::Layer::default",
    "tracing_subscriber::fmt::Subscriber::builder",
    "tracing_subscriber::fmt::SubscriberBuilder::default",
    "tracing_subscriber::FmtSubscriber::builder",
];
pub(super) const TRACING_INIT: &[&str] = &[
    "tracing_subscriber::fmt::init",
    "tracing_subscriber::fmt::try_init",
];
pub(super) const STDOUT_VALUES: &[&str] = &[
    "env_logger::Target::Stdout",
    "env_logger::fmt::Target::Stdout",
    "simplelog::TerminalMode::Stdout",
    "simplelog::TerminalMode::Mixed",
];

impl<'t> Rs<'t> {
    pub(super) fn collect_use(&mut self, node: Node<'t>, prefix: &str) {
        self.collect_use_at(node, prefix, 0);
    }

    fn collect_use_at(&mut self, node: Node<'t>, prefix: &str, depth: u32) {
        if depth > MAX_PATTERN_DEPTH {
            return;
        }
        let join = |p: &str, s: &str| {
            if p.is_empty() {
                s.to_string()
            } else {
                format!("{p}::{s}")
            }
        };
        match node.kind() {
            "identifier" | "scoped_identifier" => {
                let full = join(prefix, &path_text(node, self.src));
                let local = full.rsplit("::").next().unwrap_or(&full).to_string();
                self.uses.insert(local, full);
            }
            "self" => {
                let local = prefix.rsplit("::").next().unwrap_or(prefix).to_string();
                self.uses.insert(local, prefix.to_string());
            }
            "use_as_clause" => {
                if let (Some(path), Some(alias)) = (node.field("path"), node.field("alias")) {
                    let full = join(prefix, &path_text(path, self.src));
                    self.uses.insert(text(alias, self.src).to_string(), full);
                }
            }
            "scoped_use_list" => {
                let inner = match node.field("path") {
                    Some(path) => join(prefix, &path_text(path, self.src)),
                    None => prefix.to_string(),
                };
                if let Some(list) = node.field("list") {
                    self.collect_use_at(list, &inner, depth + 1);
                }
            }
            "use_list" => {
                for child in args(node) {
                    self.collect_use_at(child, prefix, depth + 1);
                }
            }
            "use_wildcard" => {
                if let Some(path) = node.named_child(0) {
                    self.wildcards
                        .push(join(prefix, &path_text(path, self.src)));
                }
            }
            _ => {}
        }
    }

    /// The full path a path expression names through the file's `use`s, or None for a local name.
    pub(super) fn full_path(&self, node: Node<'t>) -> Option<String> {
        if !matches!(node.kind(), "identifier" | "scoped_identifier") {
            return None;
        }
        self.resolve_path(&path_text(node, self.src))
    }

    pub(super) fn resolve_path(&self, written: &str) -> Option<String> {
        let (first, rest) = match written.split_once("::") {
            Some((f, r)) => (f, Some(r)),
            None => (written, None),
        };
        if let Some(full) = self.uses.get(first) {
            return Some(match rest {
                Some(r) => format!("{full}::{r}"),
                None => full.clone(),
            });
        }
        // Names brought in by `use simplelog::*;` are only known for the paths that matter.
        let via_wildcard = self
            .wildcards
            .iter()
            .map(|w| format!("{w}::{written}"))
            .find(|p| is_known_path(p));
        via_wildcard.or_else(|| rest.map(|_| written.to_string()))
    }
}

pub(super) fn is_known_path(path: &str) -> bool {
    matches!(path, "std::io::stdout" | "std::io::stderr")
        || TRACING_BUILDERS.contains(&path)
        || TRACING_INIT.contains(&path)
        || STDOUT_VALUES.contains(&path)
}

/// A path as written, without spaces: `std :: io` is `std::io`.
pub(super) fn path_text(node: Node<'_>, src: &[u8]) -> String {
    text(node, src)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}
