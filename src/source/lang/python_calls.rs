//! The Python calls that write to stdout or point a logger at it, judged by their arguments:
//! `print` without `file=sys.stderr`, `click.echo` without `err=True`, `StreamHandler(sys.stdout)`...

use super::python::{Py, Sym};
use super::syntax::Fields;
use super::syntax::{args, string_content, text};
use super::{quoted, Hit, JSON_RPC_CHANNEL};
use tree_sitter::Node;

const CHANNEL: &str = "stdout, the channel of the stdio transport's JSON-RPC messages";

/// The value of keyword argument `name` in an argument list.
pub(super) fn keyword<'t>(arguments: Node<'t>, name: &str, src: &[u8]) -> Option<Node<'t>> {
    args(arguments).into_iter().find_map(|a| {
        (a.kind() == "keyword_argument" && a.field("name").is_some_and(|n| text(n, src) == name))
            .then(|| a.field("value"))?
    })
}

fn positional(arguments: Node<'_>) -> Vec<Node<'_>> {
    args(arguments)
        .into_iter()
        .filter(|a| {
            !matches!(
                a.kind(),
                "keyword_argument" | "dictionary_splat" | "list_splat"
            )
        })
        .collect()
}

/// `**kwargs` may hold any keyword, so what it sets is unknown.
fn has_kwargs_splat(arguments: Node<'_>) -> bool {
    args(arguments)
        .iter()
        .any(|a| a.kind() == "dictionary_splat")
}

pub(super) fn check_call(py: &Py<'_>, call: Node<'_>, out: &mut Vec<Hit>) {
    let (Some(callee), Some(arguments)) = (call.field("function"), call.field("arguments")) else {
        return;
    };
    if arguments.kind() != "argument_list" {
        return;
    }
    let Some(sym) = py.resolve(callee) else {
        return;
    };
    let src = py.src;
    let first = positional(arguments).first().copied();
    let stdout = |node: Option<Node<'_>>| node.is_some_and(|n| py.resolve(n) == Some(Sym::Stdout));
    match sym {
        Sym::Print => print(py, call, callee, arguments, out),
        Sym::RichPrint if writes_to_stdout_by_default(py, arguments) => {
            out.push(Hit::write(
                call,
                format!("{} (rich's print) writes to {CHANNEL}.", quoted(callee, src)),
                "Print through a stderr console instead: rich.console.Console(stderr=True).print(...).",
            ));
        }
        Sym::Echo => {
            let err = keyword(arguments, "err", src);
            let file = keyword(arguments, "file", src);
            let to_stderr = err.is_some_and(|v| text(v, src) != "False")
                || file.is_some_and(|f| py.resolve(f) != Some(Sym::Stdout));
            if !to_stderr && !has_kwargs_splat(arguments) {
                let mut hit = Hit::write(
                    call,
                    format!(
                        "{} writes to {CHANNEL} unless err=True.",
                        quoted(callee, src)
                    ),
                    "Pass err=True to write to stderr.",
                );
                // A file= given wins over err=, so only a call without one is rewritten.
                match (err, file) {
                    (Some(value), None) => hit = hit.edit(value, "True", "Pass err=True"),
                    (None, None) => {
                        if let Some((range, insert)) = add_keyword(arguments, "err=True", src) {
                            hit = hit.edit_range(range, insert, "Pass err=True");
                        }
                    }
                    _ => {}
                }
                out.push(hit);
            }
        }
        Sym::StdoutWrite(method) => {
            if method == "write" && first.is_some_and(|f| py.is_json_message(f, 0)) {
                return;
            }
            let mut hit = Hit::write(
                call,
                format!("{} writes to {CHANNEL}; anything but one JSON message per line breaks the client.", quoted(callee, src)),
                format!("Write logs to sys.stderr instead (sys.stderr.{method})."),
            );
            if let (Some(first), "write") = (first, method.as_ref()) {
                hit = hit.prints(super::python_prints::expression(first, src, 0));
            }
            out.push(stdout_to_stderr(callee.field("object"), src, hit));
        }
        Sym::OsWrite => {
            let fd_one =
                first.is_some_and(|f| text(f, src) == "1" || py.resolve(f) == Some(Sym::StdoutFd));
            if fd_one {
                out.push(Hit::write(
                    call,
                    format!(
                        "{} writes to file descriptor 1, {CHANNEL}.",
                        quoted(callee, src)
                    ),
                    "Write to file descriptor 2 (stderr) instead.",
                ));
            }
        }
        Sym::BasicConfig if stdout(keyword(arguments, "stream", src)) => {
            let stream = keyword(arguments, "stream", src);
            out.push(stdout_to_stderr(
                stream,
                src,
                Hit::logger(
                    call,
                    format!(
                    "logging.basicConfig(stream=sys.stdout) sends every log record to {CHANNEL}."
                ),
                    "Drop stream= (logging defaults to stderr) or pass stream=sys.stderr.",
                ),
            ));
        }
        Sym::StreamHandler if stdout(first.or_else(|| keyword(arguments, "stream", src))) => {
            let stream = first.or_else(|| keyword(arguments, "stream", src));
            out.push(stdout_to_stderr(
                stream,
                src,
                Hit::logger(
                    call,
                    format!(
                        "A logging.StreamHandler on sys.stdout sends log records to {CHANNEL}."
                    ),
                    "Use logging.StreamHandler() (stderr by default) or StreamHandler(sys.stderr).",
                ),
            ));
        }
        Sym::PPrint => {
            let stream =
                keyword(arguments, "stream", src).or_else(|| positional(arguments).get(1).copied());
            let to_stdout = match stream {
                None => !has_kwargs_splat(arguments),
                Some(s) => py.resolve(s) == Some(Sym::Stdout) || text(s, src) == "None",
            };
            if to_stdout && !py.redirects.covers(call) {
                out.push(Hit::write(
                    call,
                    format!(
                        "{} writes to {CHANNEL} unless given a stream.",
                        quoted(callee, src)
                    ),
                    "Pass stream=sys.stderr.",
                ));
            }
        }
        Sym::RichConsole => rich_console(py, call, arguments, out),
        Sym::RichHandler => {
            let has_console =
                keyword(arguments, "console", src).is_some() || positional(arguments).len() >= 2;
            if !has_console && !has_kwargs_splat(arguments) {
                out.push(Hit::logger(
                    call,
                    format!("RichHandler() without console= logs through rich's global console, which writes to {CHANNEL}."),
                    "Pass a stderr console: RichHandler(console=Console(stderr=True)).",
                ));
            }
        }
        Sym::LoguruAdd
            if first.is_some_and(|f| matches!(py.resolve(f), Some(Sym::Stdout | Sym::Print))) =>
        {
            out.push(Hit::logger(
                call,
                format!("This loguru sink is sys.stdout, {JSON_RPC_CHANNEL}."),
                "Add the sink sys.stderr instead (loguru's default handler already writes to stderr).",
            ));
        }
        Sym::StructlogPrint => {
            let file = keyword(arguments, "file", src).or(first);
            if file.is_none_or(|f| py.resolve(f) == Some(Sym::Stdout))
                && !has_kwargs_splat(arguments)
            {
                out.push(Hit::logger(
                    call,
                    format!(
                        "{} writes to sys.stdout, {JSON_RPC_CHANNEL}, unless given file=.",
                        quoted(callee, src)
                    ),
                    "Pass file=sys.stderr.",
                ));
            }
        }
        _ => {}
    }
}

/// True unless `file=` names something other than stdout (or `**kwargs` might).
fn writes_to_stdout_by_default(py: &Py<'_>, arguments: Node<'_>) -> bool {
    match keyword(arguments, "file", py.src) {
        Some(file) => py.resolve(file) == Some(Sym::Stdout) || text(file, py.src) == "None",
        None => !has_kwargs_splat(arguments),
    }
}

fn print(py: &Py<'_>, call: Node<'_>, callee: Node<'_>, arguments: Node<'_>, out: &mut Vec<Hit>) {
    let src = py.src;
    if !writes_to_stdout_by_default(py, arguments) {
        return;
    }
    // Without file=, print writes to whatever sys.stdout is when it runs.
    if keyword(arguments, "file", src).is_none() && py.redirects.covers(call) {
        return;
    }
    let file_given = keyword(arguments, "file", src).is_some();
    // A hand-written server printing one JSON message per line is speaking the protocol.
    let values = positional(arguments);
    if let [only] = values.as_slice() {
        if !file_given && keyword(arguments, "end", src).is_none() && py.is_json_message(*only, 0) {
            return;
        }
    }
    let sys_imported = py.resolve_name_at("sys", call) == Some(Sym::Module("sys".into()));
    let fix = if sys_imported {
        "Print to stderr: print(..., file=sys.stderr)."
    } else {
        "Print to stderr: print(..., file=sys.stderr), with `import sys`."
    };
    let mut hit = Hit::write(
        call,
        format!(
            "{} writes to {CHANNEL}; a client reading this output fails to parse it.",
            quoted(callee, src)
        ),
        fix,
    )
    .prints(super::python_prints::print_arguments(arguments, src));
    // `file=sys.stdout` becomes `file=sys.stderr` on the same module object.
    let stdout_attribute = keyword(arguments, "file", src)
        .filter(|f| f.kind() == "attribute")
        .and_then(|f| f.field("attribute"))
        .filter(|a| text(*a, src) == "stdout");
    if let Some(attribute) = stdout_attribute {
        hit = hit.edit(attribute, "stderr", "Print to stderr");
    }
    // Adding file= is only safe when the call has none and `sys` is the sys module here (or
    // names nothing, so that an `import sys` added at the top makes it so).
    let sys_unbound = py.is_unbound("sys", call);
    if !file_given && (sys_imported || sys_unbound) {
        if let Some((range, insert)) = add_keyword(arguments, "file=sys.stderr", src) {
            hit = hit.edit_range(range, insert, "Add file=sys.stderr");
            if !sys_imported {
                let (point, byte) = import_point(super::root_of(call), src);
                let eol = super::line_ending(src);
                let text = if byte == src.len() && !src.is_empty() && !src.ends_with(b"\n") {
                    format!("{eol}import sys{eol}")
                } else {
                    format!("import sys{eol}")
                };
                hit = hit.import_at(point, byte, text);
            }
        }
    }
    out.push(hit);
}

/// The edit that adds keyword argument `keyword` (`file=sys.stderr`) last in a call's
/// arguments. On one line: `, keyword)` for the closing parenthesis. Where the parenthesis
/// has a line of its own, the keyword gets one too, as black writes it: indented as the
/// arguments, with a trailing comma, and a comma added after the last argument if needed.
fn add_keyword(
    arguments: Node<'_>,
    keyword: &str,
    src: &[u8],
) -> Option<(tree_sitter::Range, String)> {
    let mut cursor = arguments.walk();
    let children: Vec<Node<'_>> = arguments.children(&mut cursor).collect();
    let [.., close] = children.as_slice() else {
        return None;
    };
    if close.kind() != ")" {
        return None;
    }
    // Comments are children too; the token that matters is the last one that is not.
    let before = children[..children.len() - 1]
        .iter()
        .rev()
        .find(|c| c.kind() != "comment")?;
    let line_start = close.start_byte() - close.start_position().column;
    let own_line = close.start_position().row > before.end_position().row
        && src[line_start..close.start_byte()]
            .iter()
            .all(|b| *b == b' ' || *b == b'\t');
    if !own_line {
        let insert = match before.kind() {
            "(" => format!("{keyword})"),
            "," => format!(" {keyword})"),
            _ => format!(", {keyword})"),
        };
        return Some((close.range(), insert));
    }
    let eol = super::line_ending(src);
    let indent = argument_indent(arguments, *close, src);
    let line = format!("{indent}{keyword},{eol}");
    let line_point = tree_sitter::Point {
        row: close.start_position().row,
        column: 0,
    };
    let (start, text) = match before.kind() {
        "(" | "," => ((line_start, line_point), line),
        _ => {
            // Keeps what follows the last argument (a comment, the line end) as it was.
            let rest = String::from_utf8_lossy(&src[before.end_byte()..line_start]);
            (
                (before.end_byte(), before.end_position()),
                format!(",{rest}{line}"),
            )
        }
    };
    let range = tree_sitter::Range {
        start_byte: start.0,
        end_byte: line_start,
        start_point: start.1,
        end_point: line_point,
    };
    Some((range, text))
}

/// The indentation of the arguments that start a line, or one level (four spaces, or a tab
/// where the parenthesis is tab-indented) deeper than the closing parenthesis.
fn argument_indent(arguments: Node<'_>, close: Node<'_>, src: &[u8]) -> String {
    let leading = |node: Node<'_>| {
        let start = node.start_byte() - node.start_position().column;
        let before = &src[start..node.start_byte()];
        before
            .iter()
            .all(|b| *b == b' ' || *b == b'\t')
            .then(|| String::from_utf8_lossy(before).into_owned())
    };
    let starts_line = super::syntax::args(arguments)
        .into_iter()
        .rev()
        .find_map(leading);
    starts_line.unwrap_or_else(|| {
        let close_indent = leading(close).unwrap_or_default();
        let unit = if close_indent.contains('\t') {
            "\t"
        } else {
            "    "
        };
        format!("{close_indent}{unit}")
    })
}

fn rich_console(py: &Py<'_>, call: Node<'_>, arguments: Node<'_>, out: &mut Vec<Hit>) {
    let src = py.src;
    if has_kwargs_splat(arguments) {
        return;
    }
    let to_stdout = match (
        keyword(arguments, "stderr", src),
        keyword(arguments, "file", src),
    ) {
        (Some(flag), _) if text(flag, src) != "False" => false,
        (_, Some(file)) => py.resolve(file) == Some(Sym::Stdout),
        _ => true,
    };
    if to_stdout {
        out.push(Hit::logger(
            call,
            format!("A rich Console without stderr=True writes to {CHANNEL}."),
            "Create it with Console(stderr=True).",
        ));
    }
}

/// `logging.config.dictConfig({... "stream": "ext://sys.stdout"})`.
pub(super) fn check_dict_config(py: &Py<'_>, pair: Node<'_>, out: &mut Vec<Hit>) {
    let (Some(key), Some(value)) = (pair.field("key"), pair.field("value")) else {
        return;
    };
    if string_content(key, py.src).as_deref() == Some("stream")
        && string_content(value, py.src).as_deref() == Some("ext://sys.stdout")
    {
        out.push(Hit::logger(
            pair,
            format!("This logging configuration gives a handler the stream ext://sys.stdout, {JSON_RPC_CHANNEL}."),
            "Use \"ext://sys.stderr\".",
        ));
    }
}

/// `sys.stdout` written as such becomes `sys.stderr` (the same module object); anything else
/// (a name bound to sys.stdout, `sys.__stdout__`) is left for a person.
fn stdout_to_stderr(stream: Option<Node<'_>>, src: &[u8], hit: Hit) -> Hit {
    let attribute = stream
        .filter(|s| s.kind() == "attribute")
        .filter(|s| {
            s.field("object")
                .is_some_and(|o| o.kind() == "identifier" && text(o, src) == "sys")
        })
        .and_then(|s| s.field("attribute"))
        .filter(|a| text(*a, src) == "stdout");
    match attribute {
        Some(a) => hit.edit(a, "stderr", "Write to sys.stderr"),
        None => hit,
    }
}

/// Where `import sys` goes: after a shebang, comments, the module docstring and
/// `from __future__` imports, at the start of a line.
fn import_point(module: Node<'_>, src: &[u8]) -> (tree_sitter::Point, usize) {
    let mut cursor = module.walk();
    let mut docstring_seen = false;
    for child in module.children(&mut cursor) {
        let docstring = !docstring_seen
            && child.kind() == "expression_statement"
            && child.named_child_count() == 1
            && child.named_child(0).is_some_and(|c| c.kind() == "string");
        docstring_seen |= child.kind() != "comment";
        if child.kind() == "comment" || child.kind() == "future_import_statement" || docstring {
            continue;
        }
        let point = tree_sitter::Point {
            row: child.start_position().row,
            column: 0,
        };
        return (point, child.start_byte() - child.start_position().column);
    }
    (module.end_position(), src.len())
}
