//! Rust: `println!`/`print!`, writes to `std::io::stdout()`, `tracing_subscriber::fmt`
//! without a stderr writer, and `env_logger`/`simplelog`/`fern` pointed at stdout. Paths are
//! resolved through the file's `use` declarations; a local `macro_rules! println` shadows.

use super::prefilter::{Need, Prefilter};
use super::rust_paths::{path_text, STDOUT_VALUES, TRACING_BUILDERS, TRACING_INIT};
use super::scope::{agree, every_expr, Bindings, Value};
use super::syntax::Fields;
use super::syntax::{self, args, string_content, text, MAX_RESOLVE_DEPTH};
use super::{quoted, Hit, Lang, JSON_RPC_CHANNEL};
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// The standard macros that print to stdout (`write!` needs a stdout target, below).
const PRINT_MACROS: &[&str] = &["println", "print"];

/// What a file must mention for a rule to match (see `prefilter`), derived from the paths the
/// rules resolve: the print macros, and for each path its spelled segment.
pub(super) static PREFILTER: Prefilter = Prefilter::new(|| {
    let paths = TRACING_BUILDERS
        .iter()
        .chain(TRACING_INIT)
        .chain(STDOUT_VALUES)
        .chain(&["std::io::stdout"]);
    let mut needs: Vec<Need> = PRINT_MACROS.iter().map(|m| vec![vec![*m]]).collect();
    needs.extend(paths.map(|p| vec![vec![spelled_segment(p)]]));
    needs
});

/// A segment every mention of `path` spells, as `full_path` builds paths from the file's
/// text: the crate (first in the `use` or the path), or for `std`, which every file names,
/// the item itself (last, where it is imported or called).
fn spelled_segment(path: &'static str) -> &'static str {
    match path.split_once("::") {
        Some(("std", _)) => path.rsplit("::").next().unwrap_or(path),
        Some((krate, _)) => krate,
        None => path,
    }
}

const CHANNEL: &str = "stdout, the channel of the stdio transport's JSON-RPC messages";
/// Most method calls followed along a builder chain.
const MAX_CHAIN: usize = 64;
/// Methods that install a tracing subscriber built so far.
const INSTALLS: &[&str] = &["init", "try_init", "finish", "set_default"];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Sym {
    Stdout,
    Stderr,
}

const SCOPES: &[&str] = &[
    "source_file",
    "block",
    "function_item",
    "closure_expression",
    "for_expression",
];

const VISIT: &[&str] = &[
    "macro_invocation",
    "call_expression",
    "scoped_identifier",
    "use_declaration",
    "macro_definition",
    "let_declaration",
    "parameter",
    "closure_parameters",
    "for_expression",
];

pub(super) struct Rs<'t> {
    pub(super) src: &'t [u8],
    /// Local name → full path, from `use` declarations.
    pub(super) uses: HashMap<String, String>,
    pub(super) wildcards: Vec<String>,
    pub(super) macros: HashSet<String>,
    pub(super) locals: Bindings<'t>,
}

pub fn scan(lang: Lang, root: Node<'_>, src: &[u8], out: &mut Vec<Hit>) {
    let mut rs = Rs {
        src,
        uses: HashMap::new(),
        wildcards: Vec::new(),
        macros: HashSet::new(),
        locals: Bindings::default(),
    };
    let mut candidates = Vec::new();
    let scopes = syntax::kinds(lang, SCOPES);
    let functions = syntax::kinds(lang, &["function_item", "closure_expression"]);
    syntax::walk(
        root,
        syntax::kinds(lang, VISIT),
        |node, ancestors| match node.kind() {
            "macro_invocation" | "call_expression" => candidates.push(node),
            // Only as an argument: `.target(Target::Stdout)`, `TermLogger::new(.., TerminalMode::Mixed, ..)`.
            "scoped_identifier" if ancestors.last().is_some_and(|p| p.kind() == "arguments") => {
                candidates.push(node)
            }
            "use_declaration" => {
                if let Some(argument) = node.field("argument") {
                    rs.collect_use(argument, "");
                }
            }
            "macro_definition" => {
                if let Some(name) = node.field("name") {
                    rs.macros.insert(text(name, src).to_string());
                }
            }
            "let_declaration" => {
                let (Some(pattern), Some(scope)) =
                    (node.field("pattern"), syntax::nearest(ancestors, scopes))
                else {
                    return;
                };
                let value = node.field("value").map_or(Value::Opaque, Value::Expr);
                if pattern.kind() == "identifier" {
                    rs.locals.add(text(pattern, src), scope, value);
                }
            }
            "parameter" | "closure_parameters" | "for_expression" => {
                let scope = if node.kind() == "for_expression" {
                    Some(node)
                } else {
                    syntax::nearest(ancestors, functions)
                };
                let pattern = node.field("pattern").unwrap_or(node);
                if let Some(scope) = scope {
                    syntax::preorder(pattern, |n| {
                        if n.kind() == "identifier" {
                            rs.locals.add(text(n, src), scope, Value::Opaque);
                        }
                    });
                }
            }
            _ => {}
        },
    );
    for node in candidates {
        match node.kind() {
            "macro_invocation" => rs.check_macro(node, out),
            "call_expression" => rs.check_call(node, out),
            _ => rs.check_value(node, out),
        }
    }
}

impl<'t> Rs<'t> {
    fn resolve(&self, node: Node<'t>, depth: u32) -> Option<Sym> {
        if depth > MAX_RESOLVE_DEPTH {
            return None;
        }
        match node.kind() {
            "call_expression" => {
                let function = node.field("function")?;
                if function.kind() == "field_expression" {
                    // `stdout().lock()` is still stdout.
                    let field = text(function.field("field")?, self.src);
                    let value = self.resolve(function.field("value")?, depth + 1)?;
                    return (field == "lock").then_some(value);
                }
                match self.full_path(function)?.as_str() {
                    "std::io::stdout" => Some(Sym::Stdout),
                    "std::io::stderr" => Some(Sym::Stderr),
                    _ => None,
                }
            }
            "identifier" => {
                let bound = self.locals.lookup(text(node, self.src), node, |_, _| true);
                agree(bound.iter().map(|b| match b.value {
                    Value::Expr(e) => self.resolve(e, depth + 1),
                    _ => None,
                }))
            }
            "reference_expression" | "parenthesized_expression" | "try_expression" => self.resolve(
                node.field("value").or_else(|| {
                    node.named_child(node.named_child_count().saturating_sub(1) as u32)
                })?,
                depth + 1,
            ),
            _ => None,
        }
    }

    /// True if the expression (or a local it uses) serialises with `serde_json` on one line.
    fn mentions_json(&self, node: Node<'t>, depth: u32) -> bool {
        if depth > MAX_RESOLVE_DEPTH {
            return false;
        }
        let mut found = false;
        syntax::preorder(node, |n| {
            if found {
                return;
            }
            match n.kind() {
                "scoped_identifier" => {
                    found = matches!(
                        self.full_path(n).as_deref(),
                        Some("serde_json::to_string" | "serde_json::to_vec")
                    )
                }
                "identifier" => {
                    let bound = self.locals.lookup(text(n, self.src), n, |_, _| true);
                    // A local, not the last segment of a path (parent() is costly: asked last).
                    found = !bound.is_empty()
                        && n.parent().is_none_or(|p| p.kind() != "scoped_identifier")
                        && every_expr(&bound, |e| self.mentions_json(e, depth + 1));
                }
                _ => {}
            }
        });
        found
    }

    /// `serde_json::to_string` in a macro's tokens, written out or through a local.
    fn tokens_hold_json(&self, tokens: Node<'t>) -> bool {
        let mut idents: Vec<Node<'t>> = Vec::new();
        syntax::preorder(tokens, |n| {
            if n.kind() == "identifier" {
                idents.push(n);
            }
        });
        idents.windows(2).any(|w| {
            text(w[0], self.src) == "serde_json"
                && matches!(text(w[1], self.src), "to_string" | "to_vec")
        }) || idents.iter().any(|i| {
            let bound = self.locals.lookup(text(*i, self.src), *i, |_, _| true);
            every_expr(&bound, |e| self.mentions_json(e, 1))
        })
    }

    fn check_macro(&self, node: Node<'t>, out: &mut Vec<Hit>) {
        let (Some(name_node), Some(tokens)) = (
            node.field("macro"),
            node.named_children(&mut node.walk())
                .find(|c| c.kind() == "token_tree"),
        ) else {
            return;
        };
        let name_leaf = name_node.field("name").unwrap_or(name_node);
        let name = text(name_leaf, self.src);
        let path = path_text(name_node, self.src);
        let is_std = path == name
            || matches!(
                path.as_str(),
                "std::println" | "std::print" | "std::write" | "std::writeln"
            );
        if !is_std || self.macros.contains(name) {
            return;
        }
        match name {
            name if PRINT_MACROS.contains(&name) => {
                let format = args(tokens)
                    .first()
                    .and_then(|f| string_content(*f, self.src));
                let pure = format
                    .as_ref()
                    .is_some_and(|f| f == if name == "println" { "{}" } else { "{}\\n" });
                if pure && self.tokens_hold_json(tokens) {
                    return;
                }
                // println!'s format string, `{}` and `{name:>8}` holes (a line printed whole).
                let prints = match format {
                    Some(f) => {
                        crate::prints::format_string(&crate::prints::unescape(&f), false, true)
                    }
                    None => crate::prints::Pattern::default(),
                };
                let prints = if name == "println" {
                    prints
                } else {
                    prints.then(crate::prints::Pattern::hole())
                };
                out.push(
                    Hit::write(
                        node,
                        format!("{name}! writes to {CHANNEL}; a client reading this output fails to parse it."),
                        format!("Use e{name}! (stderr) instead."),
                    )
                    .edit(name_leaf, format!("e{name}"), format!("Replace {name}! with e{name}!"))
                    .prints(prints),
                );
            }
            "write" | "writeln"
                if self.macro_target_is_stdout(tokens) && !self.tokens_hold_json(tokens) =>
            {
                let hit = Hit::write(
                    node,
                    format!("{name}! to std::io::stdout() writes to {CHANNEL}."),
                    "Write to std::io::stderr() instead.",
                );
                out.push(self.macro_target_to_stderr(tokens, hit));
            }
            _ => {}
        }
    }

    /// `std::io::stdout()`, `io::stdout()` or `stdout()` (maybe `.lock()`ed) written where
    /// the write is becomes the same call of `stderr`; a stream bound elsewhere is left alone.
    fn stdout_call_to_stderr(&self, value: Node<'t>, hit: Hit) -> Hit {
        let locked = value
            .field("function")
            .filter(|f| f.kind() == "field_expression")
            .filter(|f| {
                f.field("field")
                    .is_some_and(|n| text(n, self.src) == "lock")
            })
            .and_then(|f| f.field("value"));
        let call = locked.unwrap_or(value);
        let Some(function) = call
            .field("function")
            .filter(|_| call.kind() == "call_expression")
            .filter(|f| self.full_path(*f).as_deref() == Some("std::io::stdout"))
        else {
            return hit;
        };
        match function.field("name") {
            // `io::stdout` and `std::io::stdout` name a module that also has `stderr`.
            Some(name) if text(name, self.src) == "stdout" => {
                hit.edit(name, "stderr", "Replace stdout() with stderr()")
            }
            _ => hit.edit(
                function,
                "std::io::stderr",
                "Replace stdout() with std::io::stderr()",
            ),
        }
    }

    /// `write!(io::stdout(), ...)`: the same rewrite on the macro's first token trees.
    fn macro_target_to_stderr(&self, tokens: Node<'t>, hit: Hit) -> Hit {
        let mut cursor = tokens.walk();
        let target: Vec<Node<'t>> = tokens
            .children(&mut cursor)
            .skip(1)
            .take_while(|c| c.kind() != ",")
            .collect();
        // The called path: the identifiers and `::` before the first `()`.
        let Some(call_at) = target.iter().position(|t| t.kind() == "token_tree") else {
            return hit;
        };
        let path_start = target[..call_at]
            .iter()
            .rposition(|t| !matches!(t.kind(), "identifier" | "::"))
            .map_or(0, |i| i + 1);
        let path = &target[path_start..call_at];
        let written: String = path.iter().map(|t| text(*t, self.src)).collect();
        let (Some(last), true) = (
            path.last().filter(|l| l.kind() == "identifier"),
            self.resolve_path(&written).as_deref() == Some("std::io::stdout"),
        ) else {
            return hit;
        };
        if written.contains("::") && text(*last, self.src) == "stdout" {
            hit.edit(*last, "stderr", "Replace stdout() with stderr()")
        } else {
            hit.edit_range(
                super::span(path[0], *last),
                "std::io::stderr",
                "Replace stdout() with std::io::stderr()",
            )
        }
    }

    /// The first argument of `write!`: `out`, `io::stdout()`, `&mut stdout().lock()`...
    fn macro_target_is_stdout(&self, tokens: Node<'t>) -> bool {
        let mut cursor = tokens.walk();
        let children: Vec<Node<'t>> = tokens.children(&mut cursor).collect();
        let inner = children
            .get(1..children.len().saturating_sub(1))
            .unwrap_or(&[]);
        let target: Vec<Node<'t>> = inner
            .iter()
            .copied()
            .take_while(|c| c.kind() != ",")
            .collect();
        let written: String = target.iter().map(|t| text(*t, self.src)).collect();
        let written = written.trim_start_matches("&mut").trim_start_matches('&');
        let written = written.strip_suffix(".lock()").unwrap_or(written);
        if let Some(function) = written.strip_suffix("()") {
            return self.resolve_path(function).as_deref() == Some("std::io::stdout");
        }
        let Some(ident) = target.iter().rev().find(|t| t.kind() == "identifier") else {
            return false;
        };
        text(*ident, self.src) == written && self.resolve(*ident, 0) == Some(Sym::Stdout)
    }

    fn check_call(&self, call: Node<'t>, out: &mut Vec<Hit>) {
        let Some(function) = call.field("function") else {
            return;
        };
        let arguments = call.field("arguments").map(args).unwrap_or_default();
        if function.kind() == "field_expression" {
            let (Some(value), Some(field)) = (function.field("value"), function.field("field"))
            else {
                return;
            };
            let field = text(field, self.src);
            let on_stdout = || self.resolve(value, 0) == Some(Sym::Stdout);
            if matches!(
                field,
                "write_all" | "write" | "write_fmt" | "write_vectored"
            ) && on_stdout()
            {
                if arguments.first().is_some_and(|a| self.mentions_json(*a, 0)) {
                    return;
                }
                let hit = Hit::write(
                    call,
                    format!("{} writes to {CHANNEL}.", quoted(function, self.src)),
                    "Write to std::io::stderr() instead.",
                );
                out.push(self.stdout_call_to_stderr(value, hit));
            }
            if field == "chain"
                && arguments
                    .first()
                    .is_some_and(|a| self.resolve(*a, 0) == Some(Sym::Stdout))
            {
                out.push(Hit::logger(
                    call,
                    format!("This logger is chained to std::io::stdout(), {JSON_RPC_CHANNEL}."),
                    "Chain it to std::io::stderr() instead.",
                ));
            }
            return;
        }
        let Some(path) = self.full_path(function) else {
            return;
        };
        if TRACING_INIT.contains(&path.as_str()) {
            out.push(Hit::logger(call, format!("{} installs a tracing subscriber that writes to {CHANNEL} (its default writer).", quoted(function, self.src)), tracing_fix()));
        } else if TRACING_BUILDERS.contains(&path.as_str())
            && self.tracing_chain_writes_stdout(call)
        {
            out.push(Hit::logger(call, format!("{} builds a tracing subscriber that writes to {CHANNEL}: its default writer, unless .with_writer(std::io::stderr) is set.", quoted(function, self.src)), tracing_fix()));
        }
    }

    /// Follows the builder's method chain: a stdout writer, or none and the subscriber is used.
    fn tracing_chain_writes_stdout(&self, root: Node<'t>) -> bool {
        let mut top = root;
        let mut methods: Vec<(&str, Vec<Node<'t>>)> = Vec::new();
        // A builder chain is a handful of calls; hostile chains are cut short.
        while let Some(field) = top
            .parent()
            .filter(|p| p.kind() == "field_expression" && methods.len() < MAX_CHAIN)
        {
            let Some(call) = field.parent().filter(|c| c.kind() == "call_expression") else {
                break;
            };
            let name = field.field("field").map_or("", |f| text(f, self.src));
            methods.push((name, call.field("arguments").map(args).unwrap_or_default()));
            top = call;
        }
        if let Some((_, writer)) = methods.iter().find(|(m, _)| *m == "with_writer") {
            return writer.first().is_some_and(|w| {
                self.full_path(*w).as_deref() == Some("std::io::stdout")
                    || self.resolve(*w, 0) == Some(Sym::Stdout)
            });
        }
        if methods.iter().any(|(m, _)| INSTALLS.contains(m)) {
            return true;
        }
        let Some(parent) = top.parent() else {
            return false;
        };
        match parent.kind() {
            "arguments" => true,
            // `let layer = fmt::layer();` may get its writer later in the same block.
            "let_declaration" => {
                let Some(var) = parent.field("pattern").filter(|p| p.kind() == "identifier") else {
                    return false;
                };
                let var = text(var, self.src);
                let Some(block) = syntax::ancestor(parent, SCOPES) else {
                    return false;
                };
                let mut later_writer = false;
                syntax::preorder(block, |n| {
                    if n.kind() == "field_expression"
                        && n.field("field")
                            .is_some_and(|f| text(f, self.src) == "with_writer")
                        && n.field("value").is_some_and(|v| text(v, self.src) == var)
                    {
                        later_writer = true;
                    }
                });
                !later_writer
            }
            _ => false,
        }
    }

    /// `env_logger::Target::Stdout`, `simplelog::TerminalMode::Mixed`...
    fn check_value(&self, node: Node<'t>, out: &mut Vec<Hit>) {
        let Some(path) = self.full_path(node) else {
            return;
        };
        if !STDOUT_VALUES.contains(&path.as_str()) {
            return;
        }
        let (message, fix) = if path.starts_with("env_logger") {
            (
                "env_logger is configured with Target::Stdout",
                "Use Target::Stderr (env_logger's default).",
            )
        } else {
            (
                "simplelog's TerminalLogger writes to stdout in this mode",
                "Use TerminalMode::Stderr.",
            )
        };
        out.push(Hit::logger(
            node,
            format!("{message}: log records go to {CHANNEL}."),
            fix,
        ));
    }
}

fn tracing_fix() -> &'static str {
    "Send it to stderr: tracing_subscriber::fmt().with_writer(std::io::stderr).init()."
}
