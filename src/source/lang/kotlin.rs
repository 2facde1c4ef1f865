//! Kotlin: the standard library's `println`/`print` (unless the file defines or imports its
//! own) and `System.out.print*`.

use super::java::{CHANNEL, JSON_METHODS};
use super::prefilter::Prefilter;
use super::scope::{every_expr, Bindings, Value};
use super::syntax::Fields;
use super::syntax::{self, args, text, MAX_RESOLVE_DEPTH};
use super::{quoted, Hit, Lang};
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// What a file must mention for a rule to match (see `prefilter`): the standard print
/// functions (an alias is imported by name) or `System.out`.
pub(super) static PREFILTER: Prefilter = Prefilter::new(|| {
    vec![
        vec![vec!["print", "println"]],
        vec![vec!["System"], vec!["out"]],
    ]
});

const SCOPES: &[&str] = &[
    "source_file",
    "block",
    "function_body",
    "lambda_literal",
    "class_body",
];

const VISIT: &[&str] = &[
    "call_expression",
    "function_declaration",
    "import",
    "property_declaration",
];

struct Kt<'t> {
    src: &'t [u8],
    /// Names defined or imported in this file that are not the standard library's.
    own_functions: HashSet<String>,
    /// `import kotlin.io.println as say`: alias → standard function.
    aliases: HashMap<String, String>,
    locals: Bindings<'t>,
}

pub fn scan(lang: Lang, root: Node<'_>, src: &[u8], out: &mut Vec<Hit>) {
    let mut kt = Kt {
        src,
        own_functions: HashSet::new(),
        aliases: HashMap::new(),
        locals: Bindings::default(),
    };
    let mut calls = Vec::new();
    let scopes = syntax::kinds(lang, SCOPES);
    syntax::walk(
        root,
        syntax::kinds(lang, VISIT),
        |node, ancestors| match node.kind() {
            "call_expression" => calls.push(node),
            "function_declaration" => {
                if let Some(name) = node.field("name") {
                    kt.own_functions.insert(text(name, src).to_string());
                }
            }
            "import" => kt.import(node),
            "property_declaration" => {
                let parts = args(node);
                let Some(declared) = parts.iter().find(|p| p.kind() == "variable_declaration")
                else {
                    return;
                };
                let (Some(name), Some(scope)) =
                    (declared.named_child(0), syntax::nearest(ancestors, scopes))
                else {
                    return;
                };
                let value = parts.last().filter(|v| v.id() != declared.id());
                kt.locals.add(
                    text(name, src),
                    scope,
                    value.map_or(Value::Opaque, |v| Value::Expr(*v)),
                );
            }
            _ => {}
        },
    );
    for call in calls {
        kt.check_call(call, out);
    }
}

impl<'t> Kt<'t> {
    fn import(&mut self, node: Node<'t>) {
        let parts = args(node);
        let Some(path) = parts.iter().find(|p| p.kind() == "qualified_identifier") else {
            return;
        };
        let path = text(*path, self.src);
        let alias = parts
            .iter()
            .find(|p| p.kind() == "identifier")
            .map(|a| text(*a, self.src));
        let last = path.rsplit('.').next().unwrap_or(path);
        match (path, alias) {
            ("kotlin.io.println" | "kotlin.io.print", Some(alias)) => {
                self.aliases.insert(alias.to_string(), last.to_string());
            }
            ("kotlin.io.println" | "kotlin.io.print", None) => {}
            (_, Some(alias)) => {
                self.own_functions.insert(alias.to_string());
            }
            (_, None) => {
                self.own_functions.insert(last.to_string());
            }
        }
    }

    /// The standard print function a callee names, if it is one.
    fn stdlib_print(&self, callee: Node<'t>) -> Option<String> {
        if callee.kind() != "identifier" {
            return None;
        }
        let name = text(callee, self.src);
        if self.own_functions.contains(name)
            || !self.locals.lookup(name, callee, |_, _| true).is_empty()
        {
            return None;
        }
        match name {
            "println" | "print" => Some(name.to_string()),
            _ => self.aliases.get(name).cloned(),
        }
    }

    fn is_system_out(&self, node: Node<'t>, depth: u32) -> bool {
        if depth > MAX_RESOLVE_DEPTH {
            return false;
        }
        match node.kind() {
            "navigation_expression" => {
                matches!(text(node, self.src), "System.out" | "java.lang.System.out")
                    && !self.own_functions.contains("System")
            }
            "identifier" => {
                let bound = self.locals.lookup(text(node, self.src), node, |_, _| true);
                every_expr(&bound, |e| self.is_system_out(e, depth + 1))
            }
            _ => false,
        }
    }

    fn is_json(&self, node: Node<'t>, depth: u32) -> bool {
        if depth > MAX_RESOLVE_DEPTH {
            return false;
        }
        match node.kind() {
            "call_expression" => node
                .named_child(0)
                .filter(|c| c.kind() == "navigation_expression")
                .and_then(|n| n.named_child(n.named_child_count().saturating_sub(1) as u32))
                .is_some_and(|m| JSON_METHODS.contains(&text(m, self.src))),
            "identifier" => {
                let bound = self.locals.lookup(text(node, self.src), node, |_, _| true);
                every_expr(&bound, |e| self.is_json(e, depth + 1))
            }
            _ => false,
        }
    }

    fn check_call(&self, call: Node<'t>, out: &mut Vec<Hit>) {
        let Some(callee) = call.named_child(0) else {
            return;
        };
        let values: Vec<Node<'t>> = args(call)
            .into_iter()
            .find(|c| c.kind() == "value_arguments")
            .map(args)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|v| v.named_child(v.named_child_count().saturating_sub(1) as u32))
            .collect();
        let method = if let Some(name) = self.stdlib_print(callee) {
            name
        } else if callee.kind() == "navigation_expression" {
            let (Some(receiver), Some(member)) = (
                callee.named_child(0),
                callee.named_child(callee.named_child_count().saturating_sub(1) as u32),
            ) else {
                return;
            };
            let member = text(member, self.src);
            if !matches!(member, "println" | "print" | "printf" | "format")
                || !self.is_system_out(receiver, 0)
            {
                return;
            }
            member.to_string()
        } else {
            return;
        };
        if let ("println", [only]) = (method.as_str(), values.as_slice()) {
            if self.is_json(*only, 0) {
                return;
            }
        }
        out.push(Hit::write(
            call,
            format!(
                "{} writes to {CHANNEL}; a client reading this output fails to parse it.",
                quoted(callee, self.src)
            ),
            "Write to stderr instead: System.err.println(...).",
        ));
    }
}
