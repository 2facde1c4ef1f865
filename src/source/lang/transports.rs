//! What a JavaScript/TypeScript or Python module says about its transport, for telling the
//! stdio path from modules that only serve HTTP (`source::reach` uses it): the server
//! transports it creates, the local modules it loads (and whether a branch chooses them),
//! and the writes that only run on the way to a failing exit.

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
    /// The names a JavaScript `import` binds, and where the statement ends: a load whose
    /// names are used only in parts off the stdio path is off it too.
    pub bindings: Vec<String>,
    pub end: usize,
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
];

/// Whole words without which a module's facts cannot make a write in it a note: no HTTP
/// server transport, port or FastMCP HTTP run (so not HTTP-only), no exit (so no exit
/// writes) and no branch condition. Each name the fact walks below compare with is one of
/// them, or ends in one.
const JS_DEMOTING_WORDS: &[&str] = &["listen", "exit"];
/// `_exit` for `os._exit`, where `exit` is not a word of its own.
const PY_DEMOTING_WORDS: &[&str] = &["exit", "_exit", "SystemExit", "uvicorn"];

/// A text test before parsing a module for its facts: false only if no fact of it can turn
/// a write in it into a note (it may still matter as a module the stdio path loads).
pub fn may_demote(lang: Lang, src: &[u8]) -> bool {
    let (words, names, dollar): (&[&str], &[&[&str]], bool) = match lang {
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => (
            JS_DEMOTING_WORDS,
            &[JS_HTTP_TRANSPORTS, JS_BRANCH_WORDS],
            true,
        ),
        Lang::Python => (
            PY_DEMOTING_WORDS,
            &[PY_HTTP_METHODS, PY_HTTP_CLASSES, PY_BRANCH_WORDS],
            false,
        ),
        _ => return false,
    };
    words
        .iter()
        .chain(names.iter().flat_map(|n| n.iter()))
        .any(|w| has_word(src, w.as_bytes(), dollar))
}

/// `word` where a lexer reads it as a name of its own: no ASCII letter, `_` (or, in
/// JavaScript, `$`) right before it, nor those or a digit right after. Anything else next
/// to it (a digit before, a non-ASCII character) is let through, so the test never says no
/// where a parser could read the word.
fn has_word(src: &[u8], word: &[u8], dollar: bool) -> bool {
    let letter = |b: u8| b.is_ascii_alphabetic() || b == b'_' || (dollar && b == b'$');
    memchr::memmem::find_iter(src, word).any(|at| {
        let before = at.checked_sub(1).map(|i| src[i]);
        let after = src.get(at + word.len()).copied();
        !before.is_some_and(letter) && !after.is_some_and(|b| letter(b) || b.is_ascii_digit())
    })
}

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
    let mut facts = match lang {
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => javascript(lang, root, src),
        Lang::Python => python(lang, root, src, ranges),
        _ => return None,
    };
    for load in &mut facts.loads {
        load.off_stdio = facts
            .off_stdio
            .iter()
            .find(|(r, _)| r.start_byte <= load.at && load.at < r.end_byte)
            .map(|(_, why)| *why);
    }
    if !facts.off_stdio.is_empty() && facts.loads.iter().any(|l| !l.bindings.is_empty()) {
        bindings_used_off_stdio(root, src, &mut facts);
    }
    Some(facts)
}

/// The names an `import` statement binds: default, namespace and named (as renamed).
fn import_bindings(statement: Node<'_>, src: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    syntax::preorder(statement, |n| {
        let name = match n.kind() {
            "import_specifier" => n
                .child_by_field_name("alias")
                .or_else(|| n.child_by_field_name("name")),
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

/// Marks an `import` off the stdio path when every use of every name it binds is in a part
/// off it (`startSSEServer` called only in the branch an SSE variable picks).
fn bindings_used_off_stdio(root: Node<'_>, src: &[u8], facts: &mut ModuleFacts) {
    let wanted: std::collections::HashSet<&str> = facts
        .loads
        .iter()
        .flat_map(|l| l.bindings.iter().map(String::as_str))
        .collect();
    let imports: Vec<(usize, usize)> = facts.loads.iter().map(|l| (l.at, l.end)).collect();
    let mut uses: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    syntax::preorder(root, |n| {
        if matches!(n.kind(), "identifier" | "shorthand_property_identifier") {
            let name = text(n, src);
            let at = n.start_byte();
            if wanted.contains(name) && !imports.iter().any(|(s, e)| *s <= at && at < *e) {
                uses.entry(name).or_default().push(at);
            }
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
const JS_WALK: &[&[&str]] = &[JS_VISIT, transport_branches::VISIT];

fn javascript(lang: Lang, root: Node<'_>, src: &[u8]) -> ModuleFacts {
    let mut facts = ModuleFacts::default();
    let branches = syntax::kinds(lang, JS_BRANCHES);
    let (visit, off_visit) = (
        syntax::kinds(lang, JS_VISIT),
        syntax::kinds(lang, transport_branches::VISIT),
    );
    let mut off = transport_branches::Found::default();
    syntax::walk(root, syntax::kinds_of(lang, JS_WALK), |node, ancestors| {
        if off_visit.has(node) {
            off.visit(node, src);
        }
        if !visit.has(node) {
            return;
        }
        let in_branch = ancestors.iter().any(|a| branches.has(*a));
        match node.kind() {
            "import_statement" | "export_statement" => {
                if let Some(source) = node
                    .child_by_field_name("source")
                    .and_then(|s| string_content(s, src))
                {
                    let mut load = Load::new(source, false, node.start_byte());
                    load.end = node.end_byte();
                    load.bindings = import_bindings(node, src);
                    facts.loads.push(load);
                }
            }
            "call_expression" => {
                let Some(callee) = node.child_by_field_name("function") else {
                    return;
                };
                match callee.kind() {
                    "import" => load_call(node, src, in_branch, &mut facts),
                    "identifier" if text(callee, src) == "require" => {
                        load_call(node, src, in_branch, &mut facts)
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
                    .child_by_field_name("constructor")
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
                if text(node, src) == "process.stdin" {
                    facts.serves_stdio = true;
                }
            }
            _ => {
                let statements = args(node);
                js_exit_writes(&statements, src, &mut facts.exit_writes);
            }
        }
    });
    facts.off_stdio = off.parts(lang, src);
    facts
}

fn property<'a>(member: Node<'_>, src: &'a [u8]) -> &'a str {
    member
        .child_by_field_name("property")
        .map_or("", |p| text(p, src))
}

/// `import("./x.js")`, `require("./x")`: a load when the specifier is a literal.
fn load_call(call: Node<'_>, src: &[u8], in_branch: bool, facts: &mut ModuleFacts) {
    let specifier = call
        .child_by_field_name("arguments")
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
            .and_then(|c| c.child_by_field_name("function"))
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
            .and_then(|c| c.child_by_field_name("arguments"))
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

const PY_VISIT: &[&str] = &[
    "module",
    "block",
    "import_statement",
    "import_from_statement",
    "call",
    "identifier",
    "attribute",
];
const PY_BRANCHES: &[&str] = &[
    "if_statement",
    "elif_clause",
    "else_clause",
    "conditional_expression",
    "case_clause",
];
/// Methods that build or run an HTTP or SSE server (FastMCP, the low-level SDK, uvicorn).
pub(super) const PY_HTTP_METHODS: &[&str] = &[
    "streamable_http_app",
    "sse_app",
    "http_app",
    "run_sse_async",
    "run_streamable_http_async",
    "run_http_async",
];
pub(super) const PY_HTTP_CLASSES: &[&str] = &["SseServerTransport", "StreamableHTTPSessionManager"];
const PY_HTTP_TRANSPORTS: &[&str] = &["sse", "streamable-http", "streamable_http", "http"];

/// One walk for the facts (`PY_VISIT`) and the parts off the stdio path.
const PY_WALK: &[&[&str]] = &[PY_VISIT, transport_branches::VISIT];

fn python(lang: Lang, root: Node<'_>, src: &[u8], ranges: &[Range]) -> ModuleFacts {
    let mut facts = ModuleFacts::default();
    let branches = syntax::kinds(lang, PY_BRANCHES);
    let (visit, off_visit) = (
        syntax::kinds(lang, PY_VISIT),
        syntax::kinds(lang, transport_branches::VISIT),
    );
    let mut off = transport_branches::Found::default();
    syntax::walk(root, syntax::kinds_of(lang, PY_WALK), |node, ancestors| {
        if off_visit.has(node) {
            off.visit(node, src);
        }
        if !visit.has(node) {
            return;
        }
        let in_branch = ancestors.iter().any(|a| branches.has(*a));
        match node.kind() {
            "import_statement" => {
                let mut cursor = node.walk();
                for name in node.children_by_field_name("name", &mut cursor) {
                    let name = name.child_by_field_name("name").unwrap_or(name);
                    facts.loads.push(Load::new(
                        text(name, src).to_string(),
                        in_branch,
                        node.start_byte(),
                    ));
                }
            }
            "import_from_statement" => {
                let Some(module) = node.child_by_field_name("module_name") else {
                    return;
                };
                let module = text(module, src).to_string();
                // `from pkg import http`: `http` may be a module of the package.
                let mut cursor = node.walk();
                let names: Vec<String> = node
                    .children_by_field_name("name", &mut cursor)
                    .map(|n| text(n.child_by_field_name("name").unwrap_or(n), src).to_string())
                    .collect();
                for name in names {
                    let joined = if module.ends_with('.') {
                        format!("{module}{name}")
                    } else {
                        format!("{module}.{name}")
                    };
                    facts
                        .loads
                        .push(Load::new(joined, in_branch, node.start_byte()));
                }
                facts
                    .loads
                    .push(Load::new(module, in_branch, node.start_byte()));
            }
            "call" => python_call(node, src, in_branch, &mut facts),
            "module" | "block" => {
                python_exit_writes(&args(node), src, ranges, &mut facts.exit_writes)
            }
            // A server that reads stdin itself speaks stdio, whatever else it serves.
            "identifier" | "attribute" => {
                if matches!(text(node, src), "stdio_server" | "sys.stdin") {
                    facts.serves_stdio = true;
                }
            }
            _ => {}
        }
    });
    facts.off_stdio = off.parts(lang, src);
    facts
}

/// In one block: the writes just before `sys.exit(N)`, `exit(N)` or `raise SystemExit(N)`
/// with N a non-zero number or a message (which exits with 1). Statements with a part of the
/// file left out of `ranges` between them were not next to each other.
fn python_exit_writes<'t>(
    statements: &[Node<'t>],
    src: &[u8],
    ranges: &[Range],
    out: &mut Vec<Range>,
) {
    let apart = |before: Node<'t>, after: Node<'t>| {
        ranges.windows(2).any(|pair| {
            before.end_byte() <= pair[0].end_byte && pair[1].start_byte <= after.start_byte()
        })
    };
    let call_in = |statement: Node<'t>| {
        let expression = statement.named_child(0)?;
        let call = match (statement.kind(), expression.kind()) {
            ("expression_statement" | "raise_statement", "call") => expression,
            _ => return None,
        };
        let callee = text(call.child_by_field_name("function")?, src);
        let first = call
            .child_by_field_name("arguments")
            .and_then(|a| args(a).first().copied());
        Some((statement.kind(), callee, first))
    };
    let is_write = |statement: Node<'t>| {
        call_in(statement).is_some_and(|(kind, callee, _)| {
            kind == "expression_statement"
                && matches!(
                    callee,
                    "print" | "sys.stdout.write" | "sys.stderr.write" | "click.echo" | "typer.echo"
                )
        })
    };
    for (i, statement) in statements.iter().enumerate() {
        let failing = call_in(*statement).is_some_and(|(kind, callee, first)| {
            let exits = match kind {
                "raise_statement" => callee == "SystemExit",
                _ => matches!(callee, "sys.exit" | "exit"),
            };
            let code = first.map(|f| (f.kind(), text(f, src)));
            exits
                && match code {
                    Some(("integer", n)) => n.parse::<i64>().is_ok_and(|n| n != 0),
                    Some((kind, _)) => kind == "string",
                    None => false,
                }
        });
        if failing {
            let mut next = *statement;
            for write in statements[..i].iter().rev() {
                if !is_write(*write) || apart(*write, next) {
                    break;
                }
                out.push(write.range());
                next = *write;
            }
        }
    }
}

fn python_call(call: Node<'_>, src: &[u8], in_branch: bool, facts: &mut ModuleFacts) {
    let (Some(callee), Some(arguments)) = (
        call.child_by_field_name("function"),
        call.child_by_field_name("arguments"),
    ) else {
        return;
    };
    let name = match callee.kind() {
        "attribute" => callee
            .child_by_field_name("attribute")
            .map_or("", |a| text(a, src)),
        _ => text(callee, src),
    };
    let written = text(callee, src);
    let values = args(arguments);
    let transport = values.iter().find_map(|a| {
        (a.kind() == "keyword_argument"
            && a.child_by_field_name("name")
                .is_some_and(|n| text(n, src) == "transport"))
        .then(|| a.child_by_field_name("value"))
        .flatten()
    });
    if matches!(written, "importlib.import_module" | "import_module") {
        if let Some(specifier) = values.first().and_then(|s| string_content(*s, src)) {
            facts
                .loads
                .push(Load::new(specifier, in_branch, call.start_byte()));
        }
    } else if written == "uvicorn.run"
        || PY_HTTP_METHODS.contains(&name)
        || PY_HTTP_CLASSES.contains(&name)
    {
        facts.serves_http = true;
    } else if name == "run_stdio_async" {
        facts.serves_stdio = true;
    } else if name == "run" && callee.kind() == "attribute" {
        // FastMCP's run(): stdio unless its transport is a literal HTTP one. A transport
        // chosen at run time may be stdio, so it counts as stdio.
        match transport.map(|t| string_content(t, src)) {
            Some(Some(t)) if PY_HTTP_TRANSPORTS.contains(&t.as_str()) => facts.serves_http = true,
            Some(_) => facts.serves_stdio = true,
            None if values.is_empty() => facts.serves_stdio = true,
            None => {}
        }
    }
}

#[cfg(test)]
#[path = "transports_tests.rs"]
mod tests;
