//! What a JavaScript/TypeScript or Python module says about its transport, for telling the
//! stdio path from modules that only serve HTTP (`source::reach` uses it): the server
//! transports it creates, the local modules it loads (and whether a branch chooses them),
//! and the writes that only run on the way to a failing exit.

use super::fact_marks::Marks;
use super::syntax::Fields;
use super::syntax::{self, args, string_content, text};
use super::transport_branches;
pub use super::transport_branches::OffStdio;
use super::Lang;
use tree_sitter::{Node, Range};

/// One module's transport facts.
#[derive(Debug, Clone, Default)]
pub struct ModuleFacts {
    /// Creates an HTTP or SSE server transport, or listens on a port.
    pub serves_http: bool,
    /// Creates a stdio transport or reads stdin itself.
    pub serves_stdio: bool,
    /// Connects a server to a transport (`server.connect(transport)`).
    pub connects: bool,
    pub loads: Vec<Load>,
    /// Writes followed, in the same block and with only writes between, by a failing exit
    /// (`process.exit(1)`): a usage or error text printed just before the process ends.
    pub exit_writes: Vec<Range>,
    /// Parts that never run while the module serves stdio (`transport_branches`).
    pub off_stdio: Vec<(Range, OffStdio)>,
    /// Names set from a condition that holds only off stdio (`shouldLog = transport ===
    /// 'sse'`), sorted: a part that reads one may be off stdio without a fact word in it.
    pub flags: Vec<String>,
    /// Only the facts of the parts around the module's writes are known
    /// (`transports::demoting_parts`): what makes those writes notes, not the loads nor what
    /// the module serves. `reach` reads the module again where an entry's path reaches it.
    pub local: bool,
    /// Only `serves_http` and `serves_stdio` are known, from a window of what makes a module
    /// serve (`transports_window::FactMentions::serving`), and they make it HTTP-only: the
    /// rest matters only where the stdio path loads it, and `reach` then reads it itself.
    pub serving_only: bool,
}

/// A module loaded by another, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Load {
    /// `./transports/http.js`; for Python a dotted name, leading dots for a relative one.
    pub specifier: String,
    /// Inside an `if`, a `switch` case or a conditional expression: a choice, such as a
    /// launcher's choice of transport.
    pub in_branch: bool,
    /// Inside a part off the stdio path: what it loads is not loaded under stdio from here.
    pub off_stdio: Option<OffStdio>,
    /// Byte offset, to place it in the parts off stdio.
    pub at: usize,
    /// The names a relative JavaScript `import` binds (`reach` follows no other), and where
    /// the statement ends: a load whose names are used only in parts off the stdio path is
    /// off it too.
    pub bindings: Vec<String>,
    pub end: usize,
}

/// A relative JavaScript specifier (`./x.js`, `../x`): the only loads `reach` follows.
pub fn relative(specifier: &str) -> bool {
    specifier.starts_with("./") || specifier.starts_with("../")
}

impl Load {
    fn new(specifier: String, in_branch: bool, at: usize) -> Self {
        Self {
            specifier,
            in_branch,
            off_stdio: None,
            at,
            bindings: Vec::new(),
            end: at,
        }
    }
}

impl ModuleFacts {
    /// A module that serves HTTP and no stdio: what the stdio path must not load.
    pub fn http_only(&self) -> bool {
        self.serves_http && !self.serves_stdio
    }
}

/// The words of `transport_branches`' conditions (a transport compared with, an
/// environment variable or a request's headers read): one list for the text test below
/// and for the windows of `transports_window`.
pub(super) const JS_BRANCH_WORDS: &[&str] = &[
    "env",
    "headers",
    "stdio",
    "http",
    "sse",
    "transport",
    "transportType",
    "httpStream",
    "streamableHttp",
];
pub(super) const PY_BRANCH_WORDS: &[&str] = &[
    "transport",
    "stdio",
    "http",
    "sse",
    "streamable_http",
    "getenv",
    "environ",
    "__main__",
    "headers",
];

/// Languages whose modules have transport facts.
pub fn has_facts(lang: Lang) -> bool {
    matches!(
        lang,
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx | Lang::Python
    )
}

/// The facts of a parsed module, for the languages that have them.
pub fn facts(lang: Lang, root: Node<'_>, src: &[u8]) -> Option<ModuleFacts> {
    facts_in(lang, root, src, &[])
}

/// As `facts`, from a tree parsed from `ranges` only (empty: the whole file) whose left-out
/// parts mention none of `fact_words` (`transports_window`): a Python statement left out
/// between a write and an exit still parts them.
pub fn facts_in(lang: Lang, root: Node<'_>, src: &[u8], ranges: &[Range]) -> Option<ModuleFacts> {
    facts_where(lang, root, src, ranges, None)
}

/// Most walks of a module for its flags before the whole tree is walked.
const MAX_FLAG_ROUNDS: usize = 4;

/// As `facts_in`; with `marks` (`fact_marks`), the walk passes by every node that mentions no
/// fact word and no flag, with what it holds: the same facts from fewer nodes. A flag may be
/// read where no fact word is (`if (useHttp)`), and is known only after a walk, so the walk
/// is made again with the flags found marked, until it finds no new one: each walk finds a
/// part of the flags the whole walk finds, and all of them once they are marked (the tests
/// compare both walks).
pub fn facts_where(
    lang: Lang,
    root: Node<'_>,
    src: &[u8],
    ranges: &[Range],
    marks: Option<&Marks>,
) -> Option<ModuleFacts> {
    let walked = |marks: Option<&Marks>| match lang {
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => Some(javascript(lang, root, src, marks)),
        Lang::Python => Some(python(lang, root, src, ranges, marks)),
        _ => None,
    };
    let mut facts = walked(marks)?;
    if let Some(marks) = marks {
        // Copied only when a flag is marked (rare).
        let mut marks = std::borrow::Cow::Borrowed(marks);
        let mut marked: Vec<String> = Vec::new();
        for round in 1.. {
            let new: Vec<String> = facts
                .flags
                .iter()
                .filter(|f| !marked.contains(f))
                .cloned()
                .collect();
            if new.is_empty() {
                break;
            }
            if round == MAX_FLAG_ROUNDS {
                facts = walked(None)?;
                break;
            }
            for flag in new {
                marks.to_mut().add(src, &flag);
                marked.push(flag);
            }
            facts = walked(Some(&marks))?;
        }
    }
    for load in &mut facts.loads {
        load.off_stdio = facts
            .off_stdio
            .iter()
            .find(|(r, _)| r.start_byte <= load.at && load.at < r.end_byte)
            .map(|(_, why)| *why);
    }
    if !facts.off_stdio.is_empty() && facts.loads.iter().any(|l| !l.bindings.is_empty()) {
        bindings_used_off_stdio(lang, root, src, &mut facts);
    }
    Some(facts)
}

/// The names an `import` statement binds: default, namespace and named (as renamed).
fn import_bindings(statement: Node<'_>, src: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    syntax::preorder(statement, |n| {
        let name = match n.kind() {
            "import_specifier" => n.field("alias").or_else(|| n.field("name")),
            "identifier"
                if n.parent()
                    .is_some_and(|p| matches!(p.kind(), "import_clause" | "namespace_import")) =>
            {
                Some(n)
            }
            _ => None,
        };
        if let Some(name) = name {
            names.push(text(name, src).to_string());
        }
    });
    names
}

/// The nodes that use a name an `import` binds.
const NAME_KINDS: &[&str] = &["identifier", "shorthand_property_identifier"];

/// Marks an `import` off the stdio path when every use of every name it binds is in a part
/// off it (`startSSEServer` called only in the branch an SSE variable picks).
fn bindings_used_off_stdio(lang: Lang, root: Node<'_>, src: &[u8], facts: &mut ModuleFacts) {
    let wanted: std::collections::HashSet<&str> = facts
        .loads
        .iter()
        .flat_map(|l| l.bindings.iter().map(String::as_str))
        .collect();
    let imports: Vec<(usize, usize)> = facts.loads.iter().map(|l| (l.at, l.end)).collect();
    // Where the names' texts start (in code or not, within longer words too): an
    // identifier that is one of them starts at one, so only the nodes around those starts
    // are walked (a module binds many names, and the tree is large).
    let starts: Option<Vec<usize>> = aho_corasick::AhoCorasick::new(&wanted).ok().map(|m| {
        let mut starts: Vec<usize> = m.find_overlapping_iter(src).map(|m| m.start()).collect();
        starts.sort_unstable();
        starts
    });
    let holds = |start: usize, end: usize| {
        starts.as_ref().is_none_or(|starts| {
            let first = starts.partition_point(|at| *at < start);
            starts.get(first).is_some_and(|at| *at < end)
        })
    };
    let mut uses: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    syntax::walk_where(root, syntax::kinds(lang, NAME_KINDS), holds, |n, _| {
        let name = text(n, src);
        let at = n.start_byte();
        if wanted.contains(name) && !imports.iter().any(|(s, e)| *s <= at && at < *e) {
            uses.entry(name).or_default().push(at);
        }
    });
    let region = |at: usize| {
        facts
            .off_stdio
            .iter()
            .find(|(r, _)| r.start_byte <= at && at < r.end_byte)
            .map(|(_, why)| *why)
    };
    let mut marks = Vec::new();
    for (i, load) in facts.loads.iter().enumerate() {
        if load.bindings.is_empty() || load.off_stdio.is_some() {
            continue;
        }
        let mut why = None;
        let all_off = load.bindings.iter().all(|name| {
            let at = uses
                .get(name.as_str())
                .map(Vec::as_slice)
                .unwrap_or_default();
            !at.is_empty()
                && at.iter().all(|a| match region(*a) {
                    Some(w) => {
                        why.get_or_insert(w);
                        true
                    }
                    None => false,
                })
        });
        if all_off {
            marks.push((i, why));
        }
    }
    for (i, why) in marks {
        facts.loads[i].off_stdio = why;
    }
}

pub(super) const JS_HTTP_TRANSPORTS: &[&str] =
    &["StreamableHTTPServerTransport", "SSEServerTransport"];
const JS_VISIT: &[&str] = &[
    "import_statement",
    "export_statement",
    "call_expression",
    "new_expression",
    "member_expression",
    "statement_block",
    "switch_case",
    "switch_default",
    "program",
];
const JS_BRANCHES: &[&str] = &[
    "if_statement",
    "else_clause",
    "switch_case",
    "switch_default",
    "ternary_expression",
];

/// One walk for the facts (`JS_VISIT`) and the parts off the stdio path
/// (`transport_branches::VISIT`).
const JS_WALK: &[&[&str]; 2] = &[JS_VISIT, transport_branches::VISIT];

/// One walk of `root` over the kinds of both `lists`: `visit` gets the nodes of the first
/// list's kinds (the facts'), with their ancestors; the second's are the parts off the stdio
/// path's, which are returned with the flags.
fn walk<'t>(
    lang: Lang,
    root: Node<'t>,
    src: &[u8],
    lists: &'static [&'static [&'static str]; 2],
    marks: Option<&Marks>,
    mut visit: impl FnMut(Node<'t>, &[Node<'t>]),
) -> (Vec<(Range, OffStdio)>, Vec<String>) {
    let (facts, off_kinds) = (syntax::kinds(lang, lists[0]), syntax::kinds(lang, lists[1]));
    let mut off = transport_branches::Found::default();
    let holds = |start, end| marks.is_none_or(|m| m.holds(start, end));
    syntax::walk_where(
        root,
        syntax::kinds_of(lang, lists),
        holds,
        |node, ancestors| {
            if off_kinds.has(node) {
                off.visit(node, src);
            }
            if facts.has(node) {
                visit(node, ancestors);
            }
        },
    );
    off.parts(lang, src)
}

fn javascript(lang: Lang, root: Node<'_>, src: &[u8], marks: Option<&Marks>) -> ModuleFacts {
    let mut facts = ModuleFacts::default();
    let branches = syntax::kinds(lang, JS_BRANCHES);
    (facts.off_stdio, facts.flags) = walk(lang, root, src, JS_WALK, marks, |node, ancestors| {
        // Asked only where a load is: most visits are calls and members.
        let in_branch = || ancestors.iter().any(|a| branches.has(*a));
        match node.kind() {
            "import_statement" | "export_statement" => {
                if let Some(source) = node.field("source").and_then(|s| string_content(s, src)) {
                    let mut load = Load::new(source, false, node.start_byte());
                    // Only a module `reach` follows (a relative one) is worth its names.
                    if relative(&load.specifier) {
                        load.end = node.end_byte();
                        load.bindings = import_bindings(node, src);
                    }
                    facts.loads.push(load);
                }
            }
            "call_expression" => {
                let Some(callee) = node.field("function") else {
                    return;
                };
                match callee.kind() {
                    "import" => load_call(node, src, in_branch(), &mut facts),
                    "identifier" if text(callee, src) == "require" => {
                        load_call(node, src, in_branch(), &mut facts)
                    }
                    "member_expression" => match property(callee, src) {
                        "listen" => facts.serves_http = true,
                        "connect" => facts.connects = true,
                        _ => {}
                    },
                    _ => {}
                }
            }
            "new_expression" => {
                let name = node
                    .field("constructor")
                    .map(|c| match c.kind() {
                        "member_expression" => property(c, src),
                        _ => text(c, src),
                    })
                    .unwrap_or("");
                if JS_HTTP_TRANSPORTS.contains(&name) {
                    facts.serves_http = true;
                } else if name == "StdioServerTransport" {
                    facts.serves_stdio = true;
                }
            }
            // A server that reads stdin itself speaks stdio, whatever else it serves.
            "member_expression" => {
                // Bytes, not text: a member chain's text is long, and no UTF-8 check is needed.
                if &src[node.byte_range()] == b"process.stdin" {
                    facts.serves_stdio = true;
                }
            }
            _ => {
                let statements = args(node);
                js_exit_writes(&statements, src, &mut facts.exit_writes);
            }
        }
    });
    facts
}

fn property<'a>(member: Node<'_>, src: &'a [u8]) -> &'a str {
    member.field("property").map_or("", |p| text(p, src))
}

/// `import("./x.js")`, `require("./x")`: a load when the specifier is a literal.
fn load_call(call: Node<'_>, src: &[u8], in_branch: bool, facts: &mut ModuleFacts) {
    let specifier = call
        .field("arguments")
        .and_then(|a| args(a).first().copied())
        .and_then(|s| string_content(s, src));
    if let Some(specifier) = specifier {
        facts
            .loads
            .push(Load::new(specifier, in_branch, call.start_byte()));
    }
}

/// In one block: the writes just before `process.exit(N)` with N a non-zero number.
fn js_exit_writes<'t>(statements: &[Node<'t>], src: &[u8], out: &mut Vec<Range>) {
    fn call_of(statement: Node<'_>) -> Option<Node<'_>> {
        Some(statement)
            .filter(|s| s.kind() == "expression_statement")
            .and_then(|s| s.named_child(0))
            .filter(|c| c.kind() == "call_expression")
    }
    let callee = |statement: Node<'t>| {
        call_of(statement)
            .and_then(|c| c.field("function"))
            .map_or("", |f| text(f, src))
    };
    let is_write = |statement: Node<'t>| {
        let callee = callee(statement);
        callee.starts_with("console.")
            || matches!(callee, "process.stdout.write" | "process.stderr.write")
    };
    for (i, statement) in statements.iter().enumerate() {
        let code = call_of(*statement)
            .filter(|_| callee(*statement) == "process.exit")
            .and_then(|c| c.field("arguments"))
            .map(args)
            .and_then(|a| a.first().map(|n| text(*n, src).to_string()));
        let failing = code.is_some_and(|c| c.parse::<i64>().is_ok_and(|n| n != 0));
        if !failing {
            continue;
        }
        for write in statements[..i].iter().rev().take_while(|s| is_write(**s)) {
            out.push(write.range());
        }
    }
}

#[path = "transports_demotes.rs"]
mod demotes;
/// The facts of Python modules.
#[path = "transports_python.rs"]
mod python;
pub use demotes::{demoting_parts, may_demote, may_demote_at, python_may_serve_stdio};
use python::python;
pub(super) use python::{PY_HTTP_CLASSES, PY_HTTP_METHODS};

#[cfg(test)]
#[path = "transports_tests.rs"]
mod tests;
