//! The transport facts of a Python module (`transports`): what it loads, the servers it
//! runs (FastMCP's `run`, uvicorn, the SDK's HTTP apps), stdin read, and the writes just
//! before a failing exit.

use super::super::fact_marks::Marks;
use super::super::prefilter::Text;
use super::super::python_window;
use super::super::syntax::{self, args, string_content, text};
use super::super::transport_branches;
use super::super::Lang;
use super::syntax::Fields;
use super::{Load, ModuleFacts};
use tree_sitter::{Node, Range};

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
pub(crate) const PY_HTTP_METHODS: &[&str] = &[
    "streamable_http_app",
    "sse_app",
    "http_app",
    "run_sse_async",
    "run_streamable_http_async",
    "run_http_async",
];
pub(crate) const PY_HTTP_CLASSES: &[&str] = &["SseServerTransport", "StreamableHTTPSessionManager"];
const PY_HTTP_TRANSPORTS: &[&str] = &["sse", "streamable-http", "streamable_http", "http"];

/// One walk for the facts (`PY_VISIT`) and the parts off the stdio path.
const PY_WALK: &[&[&str]; 2] = &[PY_VISIT, transport_branches::VISIT];

pub(super) fn python(
    lang: Lang,
    root: Node<'_>,
    src: &[u8],
    ranges: &[Range],
    marks: Option<&Marks>,
) -> ModuleFacts {
    let mut facts = ModuleFacts::default();
    let branches = syntax::kinds(lang, PY_BRANCHES);
    (facts.off_stdio, facts.flags) =
        super::walk(lang, root, src, PY_WALK, marks, |node, ancestors| {
            // Asked only where a load or a call is: most visits are names.
            let in_branch = || ancestors.iter().any(|a| branches.has(*a));
            match node.kind() {
                "import_statement" => {
                    let in_branch = in_branch();
                    let mut cursor = node.walk();
                    for name in node.children_by_field_name("name", &mut cursor) {
                        let name = name.field("name").unwrap_or(name);
                        facts.loads.push(Load::new(
                            text(name, src).to_string(),
                            in_branch,
                            node.start_byte(),
                        ));
                    }
                }
                "import_from_statement" => {
                    let Some(module) = node.field("module_name") else {
                        return;
                    };
                    let module = text(module, src).to_string();
                    let in_branch = in_branch();
                    // `from pkg import http`: `http` may be a module of the package.
                    let mut cursor = node.walk();
                    let names: Vec<String> = node
                        .children_by_field_name("name", &mut cursor)
                        .map(|n| text(n.field("name").unwrap_or(n), src).to_string())
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
                    // Bytes, not text: most names are neither, and no UTF-8 check is needed.
                    if matches!(&src[node.byte_range()], b"stdio_server" | b"sys.stdin") {
                        facts.serves_stdio = true;
                    }
                }
                _ => {}
            }
        });
    facts
}

/// The calls `python_exit_writes` reads as writes.
pub(super) const WRITES: &[&str] = &[
    "print",
    "sys.stdout.write",
    "sys.stderr.write",
    "click.echo",
    "typer.echo",
];

/// For each byte of `at` (a write), the part of the file where an exit or `__main__` may
/// make it a note (`transports::may_demote_at`): the outermost statement around it that is
/// not a class, with its decorators and clauses, since a branch, a function or a block
/// that an exit ends and that holds the write lies in it, and so does an
/// `if __name__ == "__main__":` around it; and if that statement is a call of `WRITES`, the
/// statements after it in its block up to the first that is not one (exit writes). None if
/// the lexer is unsure.
pub(super) fn local_parts(text: &Text<'_>, at: &[usize]) -> Option<Vec<(usize, usize)>> {
    let statements = python_window::line_statements(text)?;
    let src = text.src;
    let n = statements.len();
    let line = |i: usize| statements.get(i).map_or(src.len(), |s| s.line);
    let indent = |i: usize| statements[i].indent;
    // Made once, so that each write costs the depth of its statement, however many there
    // are: the statement around each (`parent`), the one before it at its depth or above
    // (`prev`), and the first after it at its depth or above (`next`, or `n`).
    let (mut parent, mut prev, mut next) = (vec![None; n], vec![None; n], vec![n; n]);
    let mut open: Vec<usize> = Vec::new();
    for i in 0..n {
        let mut same = None;
        while let Some(top) = open.pop_if(|top| indent(*top) >= indent(i)) {
            next[top] = i;
            same = same.or((indent(top) == indent(i)).then_some(top));
        }
        parent[i] = open.last().copied();
        prev[i] = same.or(parent[i]);
        open.push(i);
    }
    // The statement after `i`'s own (its body, clauses and, after a decorator, what it
    // decorates), or the end.
    let after = |i: usize| {
        let mut j = next[i];
        while j < n
            && indent(j) == indent(i)
            && (statements[j].clause || statements[j - 1].decorator)
        {
            j = next[j];
        }
        j
    };
    let write = |i: usize| {
        WRITES.iter().any(|w| {
            src[line(i) + indent(i)..]
                .strip_prefix(w.as_bytes())
                .is_some_and(|rest| rest.trim_ascii_start().starts_with(b"("))
        })
    };
    // For a write, the first statement after the writes that follow it in its block.
    let mut writes_end = vec![n; n];
    for i in (0..n).rev().filter(|&i| write(i)) {
        let e = after(i);
        writes_end[i] = if e < n && indent(e) == indent(i) && write(e) {
            writes_end[e]
        } else {
            e
        };
    }
    let part = |at: usize| {
        let Some(inner) = statements.partition_point(|s| s.line <= at).checked_sub(1) else {
            return Some((0, line(0)));
        };
        // The statements around `inner`, innermost first.
        let around = std::iter::successors(Some(inner), |&j| parent[j]).collect::<Vec<_>>();
        let mut outer = around.into_iter().rev().find(|&j| !statements[j].class)?;
        // Back to the head of a clause's statement and to a definition's decorators.
        while outer > 0 && (statements[outer].clause || statements[outer - 1].decorator) {
            outer = prev[outer]?;
        }
        let mut end = after(outer);
        if write(outer) {
            end = writes_end[outer];
            if end < n && indent(end) == indent(outer) {
                end = after(end);
            }
        }
        Some((line(outer), line(end)))
    };
    // A class line itself, or a clause with nothing before it: the whole file.
    Some(
        at.iter()
            .map(|&at| part(at).unwrap_or((0, src.len())))
            .collect(),
    )
}

/// Whether a condition may read request headers (`transport_branches`: a comparison, `==`,
/// `!=`, `in` or `not in`, with `headers` in one side): a logical line that holds both
/// `headers` and such an operator. Without one, no branch, guard or flag reads them. True if
/// the lexer is unsure.
pub(super) fn compares_headers(text: &Text<'_>) -> bool {
    let Some(statements) = python_window::line_statements(text) else {
        return true;
    };
    let ends = statements.iter().skip(1).map(|s| s.line);
    let ends = ends.chain(std::iter::once(text.src.len()));
    statements.iter().zip(ends).any(|(s, end)| {
        let line = &text.src[s.line..end];
        memchr::memmem::find(line, b"headers").is_some()
            && (memchr::memmem::find(line, b"==").is_some()
                || memchr::memmem::find(line, b"!=").is_some()
                || python_window::whole_words(line, b"in").next().is_some())
    })
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
        let callee = text(call.field("function")?, src);
        let first = call
            .field("arguments")
            .and_then(|a| args(a).first().copied());
        Some((statement.kind(), callee, first))
    };
    let is_write = |statement: Node<'t>| {
        call_in(statement).is_some_and(|(kind, callee, _)| {
            kind == "expression_statement" && WRITES.contains(&callee)
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

fn python_call(call: Node<'_>, src: &[u8], in_branch: impl Fn() -> bool, facts: &mut ModuleFacts) {
    let (Some(callee), Some(arguments)) = (call.field("function"), call.field("arguments")) else {
        return;
    };
    let name = match callee.kind() {
        "attribute" => callee.field("attribute").map_or("", |a| text(a, src)),
        _ => text(callee, src),
    };
    let written = text(callee, src);
    // The arguments are read only for the few calls that are facts.
    if matches!(written, "importlib.import_module" | "import_module") {
        let values = args(arguments);
        if let Some(specifier) = values.first().and_then(|s| string_content(*s, src)) {
            facts
                .loads
                .push(Load::new(specifier, in_branch(), call.start_byte()));
        }
    } else if written == "uvicorn.run"
        || PY_HTTP_METHODS.contains(&name)
        || PY_HTTP_CLASSES.contains(&name)
    {
        facts.serves_http = true;
    } else if name == "run_stdio_async" {
        facts.serves_stdio = true;
    } else if name == "run" && callee.kind() == "attribute" {
        let values = args(arguments);
        let transport = values.iter().find_map(|a| {
            (a.kind() == "keyword_argument"
                && a.field("name").is_some_and(|n| text(n, src) == "transport"))
            .then(|| a.field("value"))
            .flatten()
        });
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
