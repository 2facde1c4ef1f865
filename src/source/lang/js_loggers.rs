//! JavaScript consoles and loggers whose output goes to stdout: `new Console(process.stdout)`,
//! pino's default destination, winston's Console transport, bunyan's default stream.
//! A configuration the file does not show (an options object from elsewhere) is no finding.

use super::js_resolve::{Js, Sym};
use super::syntax::Fields;
use super::syntax::{args, string_content, text, MAX_PATTERN_DEPTH};
use super::Hit;
use tree_sitter::Node;

const NPM_LEVELS: &[&str] = &["error", "warn", "info", "http", "verbose", "debug", "silly"];
const SYSLOG_LEVELS: &[&str] = &[
    "emerg", "alert", "crit", "error", "warning", "notice", "info", "debug",
];

/// The value of `key` in an object literal (`{ key: v }` or `{ key }`).
fn property<'t>(object: Node<'t>, key: &str, src: &[u8]) -> Option<Node<'t>> {
    args(object).into_iter().find_map(|p| match p.kind() {
        "pair" => {
            let k = p.field("key")?;
            let name = string_content(k, src).unwrap_or_else(|| text(k, src).to_string());
            (name == key).then(|| p.field("value"))?
        }
        "shorthand_property_identifier" if text(p, src) == key => Some(p),
        _ => None,
    })
}

/// True if an object literal spreads another object in, so its keys are not all visible.
fn has_spread(object: Node<'_>) -> bool {
    args(object).iter().any(|p| p.kind() == "spread_element")
}

/// `new Console(process.stdout)` or `new Console({ stdout: process.stdout })`.
pub(super) fn console_class(
    js: &Js<'_>,
    node: Node<'_>,
    arguments: &[Node<'_>],
    out: &mut Vec<Hit>,
) {
    let Some(first) = arguments.first() else {
        return;
    };
    let stdout = js.resolve(*first) == Some(Sym::Stdout)
        || js
            .object_literal(*first)
            .and_then(|o| property(o, "stdout", js.src))
            .is_some_and(|s| js.resolve(s) == Some(Sym::Stdout));
    if stdout {
        out.push(Hit::logger(
            node,
            "A Console is bound to process.stdout, so its log/info/debug calls write to the stdio transport's JSON-RPC channel.".to_string(),
            "Bind it to stderr: new Console({ stdout: process.stderr, stderr: process.stderr }).",
        ));
    }
}

/// Whether a pino destination goes to stdout: Some(true), Some(false), or None when unknown.
fn destination_is_stdout(js: &Js<'_>, node: Node<'_>) -> Option<bool> {
    match js.resolve(node) {
        Some(Sym::Stdout) => return Some(true),
        Some(Sym::Stderr) => return Some(false),
        _ => {}
    }
    if node.kind() != "call_expression" {
        return None;
    }
    let callee = js.resolve(node.field("function")?)?;
    let arguments = args(node.field("arguments")?);
    match callee {
        Sym::PinoDestination => match arguments.first() {
            None => Some(true),
            Some(arg) => {
                let target = match js.object_literal(*arg) {
                    Some(o) if has_spread(o) => return None,
                    Some(o) => match property(o, "dest", js.src) {
                        None => return Some(true),
                        Some(d) => d,
                    },
                    None => *arg,
                };
                fd_is_stdout(js, target)
            }
        },
        Sym::PinoTransport => {
            let options = js.object_literal(*arguments.first()?)?;
            transport_to_stdout(js, options).map(|n| n.is_some())
        }
        _ => None,
    }
}

/// `1`, `'/dev/stdout'` or `process.stdout.fd` is stdout; another literal is not.
fn fd_is_stdout(js: &Js<'_>, node: Node<'_>) -> Option<bool> {
    if js.resolve(node) == Some(Sym::StdoutFd) {
        return Some(true);
    }
    match node.kind() {
        "number" => Some(text(node, js.src) == "1"),
        "string" => Some(string_content(node, js.src)? == "/dev/stdout"),
        _ => None,
    }
}

/// The transport entry that writes to stdout: pino-pretty and pino/file default to fd 1.
/// Ok(None) when none does; None when the configuration is not visible.
fn transport_to_stdout<'t>(js: &Js<'t>, options: Node<'t>) -> Option<Option<Node<'t>>> {
    transport_to_stdout_at(js, options, 0)
}

fn transport_to_stdout_at<'t>(
    js: &Js<'t>,
    options: Node<'t>,
    depth: u32,
) -> Option<Option<Node<'t>>> {
    if has_spread(options) || depth > MAX_PATTERN_DEPTH {
        return None;
    }
    if let Some(targets) = property(options, "targets", js.src) {
        if targets.kind() != "array" {
            return None;
        }
        for entry in args(targets) {
            let entry = js.object_literal(entry)?;
            if transport_to_stdout_at(js, entry, depth + 1)?.is_some() {
                return Some(Some(entry));
            }
        }
        return Some(None);
    }
    let target = string_content(property(options, "target", js.src)?, js.src)?;
    if !matches!(target.as_str(), "pino-pretty" | "pino/file") {
        return Some(None);
    }
    let destination = property(options, "options", js.src)
        .and_then(|o| js.object_literal(o))
        .and_then(|o| property(o, "destination", js.src));
    match destination {
        None => Some(Some(options)),
        Some(d) => Some(fd_is_stdout(js, d)?.then_some(options)),
    }
}

pub(super) fn pino(js: &Js<'_>, call: Node<'_>, arguments: &[Node<'_>], out: &mut Vec<Hit>) {
    let fix = "Send pino to stderr: pino(options, pino.destination(2)), or a transport with options: { destination: 2 }.";
    let (message, stdout) = match arguments {
        [] => ("pino() writes to stdout by default, the stdio transport's JSON-RPC channel.", true),
        [first, rest @ ..] => match js.object_literal(*first) {
            Some(options) if has_spread(options) => return,
            Some(options) => match property(options, "transport", js.src) {
                Some(transport) => {
                    let Some(transport) = js.object_literal(transport) else {
                        return;
                    };
                    (
                        "This pino transport writes to stdout (pino-pretty and pino/file default to file descriptor 1), the stdio transport's JSON-RPC channel.",
                        matches!(transport_to_stdout(js, transport), Some(Some(_))),
                    )
                }
                None => match rest.first() {
                    None => ("pino() without a destination writes to stdout, the stdio transport's JSON-RPC channel.", true),
                    Some(dest) => (
                        "This pino logger's destination is stdout, the stdio transport's JSON-RPC channel.",
                        destination_is_stdout(js, *dest) == Some(true),
                    ),
                },
            },
            None => (
                "This pino logger's destination is stdout, the stdio transport's JSON-RPC channel.",
                destination_is_stdout(js, *first) == Some(true),
            ),
        },
    };
    if stdout {
        let hit = Hit::logger(call, message.to_string(), fix);
        out.push(match arguments.iter().find_map(|a| fd_one(js, *a, 0)) {
            Some(one) => hit.edit(one, "2", "Send pino to file descriptor 2 (stderr)"),
            None => hit,
        });
    }
}

/// The literal `1` naming stdout in a pino destination (`pino.destination(1)`, `{ dest: 1 }`,
/// a transport's `destination: 1`), which becomes `2`.
fn fd_one<'t>(js: &Js<'t>, node: Node<'t>, depth: usize) -> Option<Node<'t>> {
    if depth > 3 {
        return None;
    }
    if node.kind() == "number" {
        return (text(node, js.src) == "1").then_some(node);
    }
    if node.kind() == "call_expression"
        && js.resolve(node.field("function")?) == Some(Sym::PinoDestination)
    {
        return fd_one(js, *args(node.field("arguments")?).first()?, depth + 1);
    }
    let object = js.object_literal(node)?;
    ["dest", "destination", "transport", "options"]
        .iter()
        .filter_map(|key| property(object, key, js.src))
        .find_map(|value| fd_one(js, value, depth + 1))
}

pub(super) fn bunyan(js: &Js<'_>, call: Node<'_>, arguments: &[Node<'_>], out: &mut Vec<Hit>) {
    let Some(options) = arguments.first().and_then(|a| js.object_literal(*a)) else {
        return;
    };
    if has_spread(options) {
        return;
    }
    let fix = "Give bunyan an explicit stderr stream: bunyan.createLogger({ name, stream: process.stderr }).";
    if let Some(stream) = property(options, "stream", js.src) {
        if js.resolve(stream) == Some(Sym::Stdout) {
            out.push(Hit::logger(call, "This bunyan logger's stream is process.stdout, the stdio transport's JSON-RPC channel.".into(), fix));
        }
        return;
    }
    match property(options, "streams", js.src) {
        Some(streams) if streams.kind() == "array" => {
            let to_stdout = args(streams).into_iter().any(|entry| {
                js.object_literal(entry)
                    .and_then(|e| property(e, "stream", js.src))
                    .is_some_and(|s| js.resolve(s) == Some(Sym::Stdout))
            });
            if to_stdout {
                out.push(Hit::logger(call, "One of this bunyan logger's streams is process.stdout, the stdio transport's JSON-RPC channel.".into(), fix));
            }
        }
        Some(_) => {}
        None => out.push(Hit::logger(
            call,
            "bunyan.createLogger without a stream writes to process.stdout by default, the stdio transport's JSON-RPC channel.".into(),
            fix,
        )),
    }
}

/// The string elements of an array literal; None if it is not a literal list of strings.
fn string_list(node: Node<'_>, src: &[u8]) -> Option<Vec<String>> {
    if node.kind() != "array" {
        return None;
    }
    args(node)
        .into_iter()
        .map(|e| string_content(e, src))
        .collect()
}

/// The level names of a winston logger, most severe first; None if they are not visible.
fn logger_levels(js: &Js<'_>, logger_options: Option<Node<'_>>) -> Option<Vec<String>> {
    let Some(levels) = logger_options.and_then(|o| property(o, "levels", js.src)) else {
        return Some(NPM_LEVELS.iter().map(|s| s.to_string()).collect());
    };
    let written = text(levels, js.src);
    if written.ends_with("syslog.levels") {
        return Some(SYSLOG_LEVELS.iter().map(|s| s.to_string()).collect());
    }
    if written.ends_with("npm.levels") {
        return Some(NPM_LEVELS.iter().map(|s| s.to_string()).collect());
    }
    let object = js.object_literal(levels)?;
    let mut named: Vec<(i64, String)> = Vec::new();
    for pair in args(object) {
        let key = pair.field("key")?;
        let value = text(pair.field("value")?, js.src).parse().ok()?;
        let name = string_content(key, js.src).unwrap_or_else(|| text(key, js.src).to_string());
        named.push((value, name));
    }
    named.sort();
    Some(named.into_iter().map(|(_, n)| n).collect())
}

/// The options object of the `winston.createLogger({ transports: [...] })` around a transport.
fn enclosing_logger_options<'t>(js: &Js<'t>, transport: Node<'t>) -> Option<Node<'t>> {
    let mut node = transport.parent()?;
    if node.kind() == "array" {
        node = node.parent()?;
    }
    if node.kind() != "pair" {
        return None;
    }
    let options = node.parent()?;
    let call = options.parent()?.parent()?;
    let callee = call.field("function")?;
    (call.kind() == "call_expression" && js.resolve(callee) == Some(Sym::WinstonCreateLogger))
        .then_some(options)
}

/// `new winston.transports.Console()`: every level not in `stderrLevels` goes to stdout.
pub(super) fn winston_console(
    js: &Js<'_>,
    node: Node<'_>,
    arguments: &[Node<'_>],
    out: &mut Vec<Hit>,
) {
    let options = match arguments.first() {
        None => None,
        Some(a) => match js.object_literal(*a) {
            Some(o) if has_spread(o) => return,
            Some(o) => Some(o),
            None => return,
        },
    };
    let logger = enclosing_logger_options(js, node);
    if logger.is_some_and(has_spread) {
        return;
    }
    let Some(levels) = logger_levels(js, logger) else {
        return;
    };
    let mut covered: Vec<String> = Vec::new();
    for key in ["stderrLevels", "consoleWarnLevels"] {
        if let Some(list) = options.and_then(|o| property(o, key, js.src)) {
            let Some(names) = string_list(list, js.src) else {
                return;
            };
            covered.extend(names);
        }
    }
    // Levels less severe than the configured threshold are never written.
    let threshold = [options, logger]
        .into_iter()
        .flatten()
        .find_map(|o| property(o, "level", js.src))
        .and_then(|l| string_content(l, js.src));
    let emitted = match threshold.and_then(|t| levels.iter().position(|l| *l == t)) {
        Some(last) => &levels[..=last],
        None => &levels[..],
    };
    let uncovered: Vec<&str> = emitted
        .iter()
        .filter(|l| !covered.contains(l))
        .map(String::as_str)
        .collect();
    if uncovered.is_empty() {
        return;
    }
    out.push(Hit::logger(
        node,
        format!(
            "winston's Console transport writes levels not listed in stderrLevels to stdout ({}), the stdio transport's JSON-RPC channel.",
            uncovered.join(", ")
        ),
        format!(
            "List every level in stderrLevels: new winston.transports.Console({{ stderrLevels: [{}] }}).",
            emitted.iter().map(|l| format!("'{l}'")).collect::<Vec<_>>().join(", ")
        ),
    ));
}
