//! The parts of a JavaScript/TypeScript or Python module that never run while it serves
//! stdio (`transports` keeps them as facts, `source::reach` turns writes in them into notes):
//!
//! - a branch that runs only under another transport: its condition compares a transport
//!   with an HTTP one (`transport === 'http'`, `args.transport in ("sse", "streamable-http")`),
//!   or with stdio on the other side (`else` of `if (transport === 'stdio')`); tests an
//!   environment variable that the module uses to choose an HTTP transport (an `if` whose
//!   branch picks an HTTP transport, with stdio or nothing on the other side); reads HTTP
//!   request headers; or reads a name set from such a test (`shouldLog = process.env.SSE ===
//!   'true'`, a function returning one). A guard that returns unless such a condition holds
//!   leaves the rest of its block off stdio too;
//! - a path that exits before serving: a branch whose last statement exits (`--help`,
//!   `--version`, a setup wizard's `sys.exit(run_setup())`) and that starts no server.

use super::exit_paths::{exiting_function, exits_before_serving, leaves, script_only_block};
use super::syntax::Fields;
use super::syntax::{string_content, text};
use super::Lang;
use std::collections::HashSet;
use tree_sitter::{Node, Range};

/// Why a part of a module is off the stdio path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffStdio {
    /// Runs only under an HTTP or SSE transport.
    TransportBranch,
    /// Exits before any server starts.
    ExitingPath,
    /// A Python `if __name__ == "__main__":` block that serves nothing: it runs only when the
    /// file is run as a script, never when the package's entry imports the module.
    ScriptOnly,
}

/// Transport names that are not stdio. A bare `http` counts only when the other side names a
/// transport (`transport === 'http'`), since `'http'` is also a protocol or a scheme.
pub(super) const HTTP_NAMES: &[&str] = &[
    "sse",
    "streamable-http",
    "streamable_http",
    "streamablehttp",
    "httpstream",
    "http-stream",
    "http_stream",
];

/// Parts of a branch's text (in lower case) that pick an HTTP transport, besides a quoted
/// transport name and, in JavaScript, `.listen(`: a call that starts one
/// (`startSSEServer(server)`, `startStreamableHTTPServer(server)`) or a server transport's
/// class (`transports::JS_HTTP_TRANSPORTS`; a test keeps the two lists in step).
pub(super) const PICKS_HTTP: &[&str] = &[
    "sseserver",
    "httpserver",
    "startsse",
    "startstreamable",
    "streamablehttpservertransport",
    "sseservertransport",
];

/// Most branches looked at in one module: a bound on time for hostile input.
const MAX_BRANCHES: usize = 20_000;

struct Kinds {
    not: &'static str,
    binary: &'static str,
    and: &'static str,
    or: &'static str,
    eq: &'static [&'static str],
    ne: &'static [&'static str],
}

const JS: Kinds = Kinds {
    not: "unary_expression",
    binary: "binary_expression",
    and: "&&",
    or: "||",
    eq: &["===", "=="],
    ne: &["!==", "!="],
};
const PY: Kinds = Kinds {
    not: "not_operator",
    binary: "boolean_operator",
    and: "and",
    or: "or",
    eq: &["==", "in"],
    ne: &["!=", "not in"],
};

/// What one module's conditions mean.
struct Conditions<'s> {
    src: &'s [u8],
    kinds: &'static Kinds,
    /// Environment variables that choose an HTTP transport.
    selectors: HashSet<String>,
    /// Names (variables, fields, functions) set from a condition that holds only off stdio.
    flags: HashSet<String>,
}

/// Every kind the walk of `off_stdio` acts on: branches, what `setter` reads, and what
/// `exiting_function` and `script_only_block` read.
pub(super) const VISIT: &[&str] = &[
    "if_statement",
    "elif_clause",
    "ternary_expression",
    "conditional_expression",
    "switch_case",
    "case_clause",
    "variable_declarator",
    "assignment_expression",
    "assignment",
    "field_definition",
    "public_field_definition",
    "function_declaration",
    "function_definition",
    "method_definition",
];

/// The parts of the module off the stdio path, in source order, from a walk of their own
/// (the scan's walk is `transports`', shared with its facts).
#[cfg(test)]
pub fn off_stdio(lang: Lang, root: Node<'_>, src: &[u8]) -> Vec<(Range, OffStdio)> {
    // Only the kinds `Found::visit` acts on, tested by id: most nodes are none of them.
    let visit = super::syntax::kinds(lang, VISIT);
    let mut found = Found::default();
    super::syntax::walk(root, visit, |node, _| found.visit(node, src));
    found.parts(lang, src).0
}

/// What a walk over a module's nodes collects for `off_stdio`; a walk of its own, or one a
/// caller shares (`transports` walks once for its facts and these).
#[derive(Default)]
pub(super) struct Found<'t> {
    branches: Vec<Node<'t>>,
    setters: Vec<(String, Node<'t>)>,
    exits: Vec<(Range, OffStdio)>,
}

impl<'t> Found<'t> {
    /// Each node of a kind in `VISIT`, in source order (a node of another kind adds nothing).
    pub(super) fn visit(&mut self, node: Node<'t>, src: &[u8]) {
        if self.branches.len() >= MAX_BRANCHES {
            return;
        }
        match node.kind() {
            "if_statement"
            | "elif_clause"
            | "ternary_expression"
            | "conditional_expression"
            | "switch_case"
            | "case_clause" => self.branches.push(node),
            _ => {
                if let Some(set) = setter(node, src) {
                    self.setters.push(set);
                }
            }
        }
        if let Some(body) = exiting_function(node, src) {
            self.exits.push((body.range(), OffStdio::ExitingPath));
        }
        if let Some(block) = script_only_block(node, src) {
            self.exits.push((block.range(), OffStdio::ScriptOnly));
        }
    }

    /// The parts off the stdio path, in source order, and the flags: the names set from a
    /// condition that holds only off stdio, sorted.
    pub(super) fn parts(self, lang: Lang, src: &[u8]) -> (Vec<(Range, OffStdio)>, Vec<String>) {
        let kinds = match lang {
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => &JS,
            Lang::Python => &PY,
            _ => return (Vec::new(), Vec::new()),
        };
        let python = lang == Lang::Python;
        let Found {
            branches,
            setters,
            exits,
        } = self;
        let mut c = Conditions {
            src,
            kinds,
            selectors: HashSet::new(),
            flags: HashSet::new(),
        };
        for b in &branches {
            c.collect_selectors(*b, python);
        }
        // Twice, so a flag set from another flag is seen whatever their order.
        for _ in 0..2 {
            for (name, value) in &setters {
                if c.holds_off(*value) {
                    c.flags.insert(name.clone());
                }
            }
        }
        let mut out = exits;
        for b in branches {
            c.branch(b, python, &mut out);
        }
        out.sort_by_key(|(r, _)| r.start_byte);
        let mut flags: Vec<String> = c.flags.into_iter().collect();
        flags.sort_unstable();
        (out, flags)
    }
}

/// `name = value`, `const name = value`, a class field, or a function whose body is one
/// `return value`: (name, value).
fn setter<'t>(node: Node<'t>, src: &[u8]) -> Option<(String, Node<'t>)> {
    let (name, value) = match node.kind() {
        "variable_declarator" => (node.field("name")?, node.field("value")?),
        "assignment_expression" | "assignment" => (node.field("left")?, node.field("right")?),
        "field_definition" | "public_field_definition" => (
            node.field("property").or_else(|| node.field("name"))?,
            node.field("value")?,
        ),
        "function_declaration" | "function_definition" => {
            let body = node.field("body")?;
            let mut statements = named(body).into_iter().filter(|s| s.kind() != "comment");
            let only = statements.next()?;
            if statements.next().is_some() || only.kind() != "return_statement" {
                return None;
            }
            let value = only.named_child(0)?;
            return Some((text(node.field("name")?, src).to_string(), value));
        }
        _ => return None,
    };
    Some((flag_name(name, src)?, value))
}

/// The name a flag is read by: `x`, or the field of `this.x` / `self.x`.
fn flag_name(node: Node<'_>, src: &[u8]) -> Option<String> {
    match node.kind() {
        "identifier" | "property_identifier" | "private_property_identifier" => {
            Some(text(node, src).to_string())
        }
        "member_expression" | "attribute" => {
            let object = node.field("object")?;
            let field = node.field("property").or_else(|| node.field("attribute"))?;
            matches!(text(object, src), "this" | "self").then(|| text(field, src).to_string())
        }
        _ => None,
    }
}

fn named(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// The environment variable a read names: `process.env.X`, `process.env["X"]`,
/// `os.getenv("X")`, `os.environ.get("X")`, `os.environ["X"]` (with calls after it, such as
/// `.lower()`).
fn env_name(node: Node<'_>, src: &[u8]) -> Option<String> {
    let read = matches!(
        node.kind(),
        "member_expression"
            | "subscript_expression"
            | "call_expression"
            | "call"
            | "attribute"
            | "subscript"
    );
    if !read {
        return None;
    }
    let t = text(node, src);
    let rest = [
        "process.env.",
        "process.env[",
        "os.getenv(",
        "os.environ.get(",
        "os.environ[",
        "getenv(",
    ]
    .iter()
    .find_map(|p| t.strip_prefix(p))?;
    let rest = rest.trim_start_matches(['"', '\'', '`']);
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .take(100)
        .collect();
    (!name.is_empty()).then_some(name)
}

impl<'s> Conditions<'s> {
    fn parts<'t>(&self, node: Node<'t>) -> Option<(Node<'t>, &'s str, Node<'t>)> {
        let left = node.field("left")?;
        let right = node.field("right")?;
        let op = node
            .field("operator")
            .map(|o| text(o, self.src))
            .unwrap_or("");
        Some((left, op, right))
    }

    /// A comparison `left OP right` (JavaScript binary, Python comparison of two operands).
    fn comparison<'t>(&self, node: Node<'t>) -> Option<(Node<'t>, String, Node<'t>)> {
        match node.kind() {
            "binary_expression" => {
                let (l, op, r) = self.parts(node)?;
                Some((l, op.to_string(), r))
            }
            "comparison_operator" => {
                let children = named(node);
                if children.len() != 2 {
                    return None;
                }
                // The operator is the text between the operands: `==`, `in`, `not in`.
                let between = &self.src[children[0].end_byte()..children[1].start_byte()];
                let op = String::from_utf8_lossy(between)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                Some((children[0], op, children[1]))
            }
            _ => None,
        }
    }

    /// The string literals of a side: one string, or a tuple/list/set of them.
    fn literals(&self, node: Node<'_>) -> Option<Vec<String>> {
        if let Some(s) = string_content(node, self.src) {
            return Some(vec![s]);
        }
        if matches!(node.kind(), "tuple" | "list" | "set" | "array") {
            return named(node)
                .into_iter()
                .map(|n| string_content(n, self.src))
                .collect();
        }
        None
    }

    /// For `side == literals`: whether every literal is another transport than stdio, and
    /// whether one is stdio.
    fn transport_literals(&self, side: Node<'_>, literals: &[String]) -> (bool, bool) {
        let names_transport = text(side, self.src)
            .to_ascii_lowercase()
            .contains("transport");
        let http = |l: &String| {
            let l = l.to_ascii_lowercase();
            HTTP_NAMES.contains(&l.as_str()) || (l == "http" && names_transport)
        };
        let all_http = !literals.is_empty() && literals.iter().all(http);
        let stdio = literals.iter().any(|l| l.eq_ignore_ascii_case("stdio"));
        (all_http, stdio)
    }

    /// A read that holds only off stdio by itself: a selector variable, a flag, a call of a
    /// flag function.
    fn off_atom(&self, node: Node<'_>) -> bool {
        if let Some(name) = env_name(node, self.src) {
            return self.selectors.contains(&name);
        }
        match node.kind() {
            "call_expression" | "call" => node
                .field("function")
                .and_then(|f| flag_name(f, self.src))
                .is_some_and(|n| self.flags.contains(&n)),
            _ => flag_name(node, self.src).is_some_and(|n| self.flags.contains(&n)),
        }
    }

    /// True when `node` being true means the module is not serving stdio.
    fn holds_off(&self, node: Node<'_>) -> bool {
        self.off_when(node, true, 0)
    }

    /// `truth`: what `node` evaluates to. Whether that outcome means "not stdio".
    fn off_when(&self, node: Node<'_>, truth: bool, depth: u32) -> bool {
        if depth > 24 {
            return false;
        }
        let k = self.kinds;
        match node.kind() {
            "parenthesized_expression" => named(node)
                .first()
                .is_some_and(|n| self.off_when(*n, truth, depth + 1)),
            kind if kind == k.not => {
                let operand = node.field("argument").or_else(|| node.field("operand"));
                let is_not = kind == "not_operator"
                    || node
                        .field("operator")
                        .is_some_and(|o| text(o, self.src) == "!");
                is_not && operand.is_some_and(|o| self.off_when(o, !truth, depth + 1))
            }
            kind if kind == k.binary || kind == "binary_expression" => {
                let Some((l, op, r)) = self.parts(node) else {
                    return false;
                };
                let side = |n| self.off_when(n, truth, depth + 1);
                // `a && b` true: both hold, either is enough; false: one is false, so both
                // must say so. `a || b` the other way round.
                if op == k.and {
                    if truth {
                        side(l) || side(r)
                    } else {
                        side(l) && side(r)
                    }
                } else if op == k.or {
                    if truth {
                        side(l) && side(r)
                    } else {
                        side(l) || side(r)
                    }
                } else {
                    self.compared_off(node, truth)
                }
            }
            "comparison_operator" => self.compared_off(node, truth),
            _ => truth && self.off_atom(node),
        }
    }

    /// A comparison whose outcome `truth` means "not stdio".
    fn compared_off(&self, node: Node<'_>, truth: bool) -> bool {
        let Some((l, op, r)) = self.comparison(node) else {
            return false;
        };
        let (side, literals) = match (self.literals(l), self.literals(r)) {
            (None, Some(lits)) => (l, lits),
            (Some(lits), None) => (r, lits),
            _ => return false,
        };
        let equal = if self.kinds.eq.contains(&op.as_str()) {
            truth
        } else if self.kinds.ne.contains(&op.as_str()) {
            !truth
        } else {
            return false;
        };
        let (http, stdio) = self.transport_literals(side, &literals);
        if equal && http || !equal && stdio && literals.len() == 1 {
            return true;
        }
        // A selector compared with a value that turns it on (`'true'`), or a request header
        // (only HTTP requests have headers) compared with a value.
        let on = literals.len() == 1
            && !matches!(
                literals[0].to_ascii_lowercase().as_str(),
                "" | "false" | "0" | "no" | "off"
            );
        let selector = env_name(side, self.src).is_some_and(|n| self.selectors.contains(&n));
        let header = text(side, self.src).contains("headers") && !literals[0].is_empty();
        equal && on && (selector || header)
    }

    /// Environment variables whose test picks an HTTP transport: each disjunct of a condition
    /// whose branch picks one, with stdio or nothing on the other side.
    fn collect_selectors(&mut self, branch: Node<'_>, python: bool) {
        let (Some(cond), Some(then)) = (branch.field("condition"), branch.field("consequence"))
        else {
            return;
        };
        // Python's `elif`s and `else` are several alternatives: stdio on any of them.
        let mut cursor = branch.walk();
        let others: Vec<Node<'_>> = branch
            .children_by_field_name("alternative", &mut cursor)
            .collect();
        let picks_http = |n: Node<'_>| {
            let t = text(n, self.src).to_ascii_lowercase();
            PICKS_HTTP.iter().any(|w| t.contains(w))
                || HTTP_NAMES
                    .iter()
                    .any(|h| t.contains(&format!("\"{h}\"")) || t.contains(&format!("'{h}'")))
                || (!python && t.contains(".listen("))
        };
        let picks_stdio = |n: Node<'_>| text(n, self.src).to_ascii_lowercase().contains("stdio");
        if !picks_http(then)
            || picks_stdio(then)
            || !(others.is_empty() || others.iter().any(|o| picks_stdio(*o)))
        {
            return;
        }
        let mut disjuncts = vec![cond];
        let mut names = Vec::new();
        while let Some(n) = disjuncts.pop() {
            match (n.kind(), self.parts(n)) {
                ("parenthesized_expression", _) => disjuncts.extend(named(n).first()),
                (_, Some((l, op, r))) if op == self.kinds.or => {
                    disjuncts.push(l);
                    disjuncts.push(r);
                }
                _ => {
                    let side = self.comparison(n).map_or(n, |(l, _, _)| l);
                    match env_name(side, self.src) {
                        Some(name) => names.push(name),
                        None => return,
                    }
                }
            }
        }
        self.selectors.extend(names);
    }

    fn branch(&self, node: Node<'_>, python: bool, out: &mut Vec<(Range, OffStdio)>) {
        if matches!(node.kind(), "switch_case" | "case_clause") {
            return self.case(node, out);
        }
        let Some(cond) = node.field("condition") else {
            return;
        };
        let then = node.field("consequence");
        // Python's `else` and `elif` clauses hang off the `if` as `alternative` children.
        let mut cursor = node.walk();
        let alternatives: Vec<Node<'_>> = node
            .children_by_field_name("alternative", &mut cursor)
            .collect();
        if let Some(then) = then {
            if self.off_when(cond, true, 0) {
                out.push((then.range(), OffStdio::TransportBranch));
            } else if exits_before_serving(then, self.src)
                && !text(cond, self.src).contains("__name__")
            {
                out.push((then.range(), OffStdio::ExitingPath));
            }
        }
        // One `else`: in Python an `if` with `elif`s has several alternatives.
        let only_else =
            alternatives.len() == 1 && (!python || matches!(alternatives[0].kind(), "else_clause"));
        if let Some(other) = alternatives.last().filter(|_| only_else) {
            if self.off_when(cond, false, 0) {
                out.push((other.range(), OffStdio::TransportBranch));
            } else if exits_before_serving(*other, self.src) {
                out.push((other.range(), OffStdio::ExitingPath));
            }
        }
        // `if (!http) return;`: what follows in the block runs only off stdio.
        if alternatives.is_empty()
            && then.is_some_and(|t| leaves(t, self.src))
            && self.off_when(cond, false, 0)
        {
            if let Some(block) = node.parent() {
                let range = Range {
                    start_byte: node.end_byte(),
                    end_byte: block.end_byte(),
                    start_point: node.end_position(),
                    end_point: block.end_position(),
                };
                out.push((range, OffStdio::TransportBranch));
            }
        }
    }

    /// `case 'sse':` of a switch on a transport, `case "sse":` of a match.
    fn case(&self, node: Node<'_>, out: &mut Vec<(Range, OffStdio)>) {
        let subject = node
            .parent()
            .and_then(|p| {
                if p.kind() == "switch_body" || p.kind() == "block" {
                    p.parent()
                } else {
                    Some(p)
                }
            })
            .and_then(|s| s.field("value").or_else(|| s.field("subject")));
        let value = node
            .field("value")
            .or_else(|| named(node).into_iter().find(|n| n.kind() == "case_pattern"));
        let (Some(subject), Some(value)) = (subject, value) else {
            return;
        };
        let literal = string_content(value, self.src).or_else(|| {
            named(value)
                .first()
                .and_then(|v| string_content(*v, self.src))
        });
        if let Some(literal) = literal {
            let (http, _) = self.transport_literals(subject, &[literal]);
            if http {
                out.push((node.range(), OffStdio::TransportBranch));
            }
        }
    }
}

#[cfg(test)]
#[path = "transport_branches_tests.rs"]
mod tests;
