//! JavaScript, TypeScript and TSX: the console methods Node sends to stdout,
//! `process.stdout` writes, and (in `js_loggers`) consoles and loggers bound to stdout.

use super::js_bindings::collect;
use super::js_loggers;
use super::js_resolve::{global, Js, Sym};
use super::js_window;
use super::prefilter::{
    called_with_other_fd, unfollowed_member, Occurrence, Prefilter, Region, Text,
};
use super::syntax::Fields;
use super::syntax::{args, text, Words};
use super::{quoted, Hit, Lang};
use tree_sitter::Node;

/// Console methods Node writes to stdout (`console.trace`, `warn`, `error`, `assert` go to stderr).
pub(super) const STDOUT_METHODS: &[&str] = &[
    "log",
    "info",
    "debug",
    "dir",
    "dirxml",
    "table",
    "group",
    "groupCollapsed",
    "count",
    "timeLog",
    "timeEnd",
];
/// Console methods whose output is identical on stderr, so `console.error` is a drop-in fix.
const REPLACEABLE: &[&str] = &["log", "info", "debug"];

/// What a file must mention for a rule to match (see `prefilter`), from the roots in
/// `js_resolve`: `console` (global, module or `globalThis.console`: console methods, the
/// `Console` class, `console._stdout`), `stdout` (`process.stdout`), the logger modules, and
/// both the `fs` module and `write`/`writeSync` for `fs.write(1, ...)`.
pub(super) static PREFILTER: Prefilter = Prefilter::new(|| {
    vec![
        vec![vec!["console"]],
        vec![vec!["stdout"]],
        vec![vec!["pino"]],
        vec![vec!["winston"]],
        vec![vec!["bunyan"]],
        vec![vec!["fs"], vec!["write", "writeSync"]],
    ]
})
.lexed(super::js_lex::spans)
.counting(counts);

/// Which occurrences can lead to a finding: in code, not a console method that does not
/// write to stdout (`console.error`, `console.time`), not a member of `process.stdout` that
/// `js_resolve::member` does not follow (`process.stdout.isTTY`), not `write` called with a
/// first argument other than `1`. In a string, only where the rules read one, and only the
/// whole string or `node:` and the word (`'fs'`, `'node:console'`; `'./fs'` is another
/// module): a module specifier (after `(`, `from` or `import`), an index (`["stdout"]`), a key
/// (`{ "log": l }`) or an imported name (`import { "writeSync" as w }`). (`'/dev/stdout'` and
/// `'pino/file'` matter only to a pino logger, whose `pino` counts elsewhere.)
fn counts(occurrence: &Occurrence<'_>) -> bool {
    match occurrence.region {
        Region::Comment => false,
        Region::Text { start, end } => {
            let whole = occurrence.in_text().is_some_and(|(before, after)| {
                (before.is_empty() || before == b"node:") && after.is_empty()
            });
            whole && string_read_by_rules(occurrence.src, start, end)
        }
        Region::Code => match occurrence.word {
            "console" => {
                !unfollowed_member(occurrence, &CONSOLE_MEMBERS) && !only_tested(occurrence)
            }
            "stdout" => !unfollowed_member(occurrence, &["write", "end", "fd"]),
            "write" | "writeSync" => !called_with_other_fd(occurrence, &[b"//", b"/*"]),
            _ => true,
        },
    }
}

/// `typeof console`, `!console`, `console && ...`, `console === x`, `console ? a : b`: the
/// value is only tested, never held or called (the resolver follows no operator).
fn only_tested(occurrence: &Occurrence<'_>) -> bool {
    let before = occurrence.before().trim_ascii_end();
    let after = occurrence.after().trim_ascii_start();
    // `!console.log(1)` and `typeof console.log` still read a member.
    if [".", "[", "(", "?."]
        .iter()
        .any(|m| after.starts_with(m.as_bytes()))
    {
        return false;
    }
    let tested_after = ["&&", "||", "===", "!==", "==", "!="]
        .iter()
        .any(|op| after.starts_with(op.as_bytes()))
        || (after.starts_with(b"?") && !after.starts_with(b"?.") && !after.starts_with(b"??"));
    let negated = before.ends_with(b"!") && !before.ends_with(b"!!");
    tested_after || negated || ends_with_word(before, b"typeof")
}

/// A string literal whose content is `src[start..end]` stands where the resolver reads strings:
/// after `(`, `from` or `import`, or before `]`, `:` or `as`.
fn string_read_by_rules(src: &[u8], start: usize, end: usize) -> bool {
    let before = src[..start.saturating_sub(1)].trim_ascii_end();
    let after = src.get(end + 1..).unwrap_or_default().trim_ascii_start();
    before.ends_with(b"(")
        || ends_with_word(before, b"from")
        || ends_with_word(before, b"import")
        || after.starts_with(b"]")
        || after.starts_with(b":")
        || (after.starts_with(b"as") && after.get(2).is_some_and(|b| b.is_ascii_whitespace()))
}

fn ends_with_word(text: &[u8], word: &[u8]) -> bool {
    text.ends_with(word)
        && !text[..text.len() - word.len()]
            .last()
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$')
}

/// The members of `console` that can lead to stdout: its stdout methods, `Console`, `_stdout`.
const CONSOLE_MEMBERS: [&str; STDOUT_METHODS.len() + 2] = {
    let mut members = [""; STDOUT_METHODS.len() + 2];
    let mut i = 0;
    while i < STDOUT_METHODS.len() {
        members[i] = STDOUT_METHODS[i];
        i += 1;
    }
    members[i] = "Console";
    members[i + 1] = "_stdout";
    members
};

/// Words a block must not mention to be left out of a windowed parse: the prefilter's words
/// (a test checks), and those whose far-away bindings a finding may depend on (JSON for
/// protocol lines, suppressions).
static KEEP: Words = Words::new(&[
    "console",
    "stdout",
    "Console",
    "pino",
    "winston",
    "bunyan",
    "fs",
    "write",
    "writeSync",
    "JSON",
    "mcpcheck",
]);
/// Logger configurations may live in object literals far from the call: parse those files whole.
static LOGGERS: Words = Words::new(&["Console", "pino", "winston", "bunyan"]);

pub fn parse_ranges(text: &Text<'_>) -> Option<Vec<tree_sitter::Range>> {
    if LOGGERS.any(text.src) {
        return None;
    }
    js_window::included_ranges(text, &KEEP, &[])
}

/// After a parse of `ranges`: the ranges widened to keep the uses of names the parsed part
/// binds to a stdout writer (`const print = console.log` and, far below, `print(...)`), or
/// None if no left-out block uses one.
pub fn widen_ranges(
    lang: Lang,
    root: Node<'_>,
    text: &Text<'_>,
    ranges: &[tree_sitter::Range],
) -> Option<Vec<tree_sitter::Range>> {
    wider(&collect(lang, root, text.src).0, text, ranges)
}

/// `widen_ranges`, then, if the parse will do, `scan`, from one walk of the tree.
pub fn widen_or_scan(
    lang: Lang,
    root: Node<'_>,
    text: &Text<'_>,
    ranges: &[tree_sitter::Range],
    out: &mut Vec<Hit>,
) -> Option<Vec<tree_sitter::Range>> {
    let (js, candidates) = collect(lang, root, text.src);
    let wider = wider(&js, text, ranges);
    if wider.is_none() {
        check(&js, candidates, out);
    }
    wider
}

fn wider(
    js: &Js<'_>,
    text: &Text<'_>,
    ranges: &[tree_sitter::Range],
) -> Option<Vec<tree_sitter::Range>> {
    let src = text.src;
    let writer = |sym: Option<Sym>| {
        matches!(
            sym,
            Some(
                Sym::Console
                    | Sym::ConsoleMethod(_)
                    | Sym::ConsoleClass
                    | Sym::Process
                    | Sym::Stdout
                    | Sym::StdoutMethod(_)
                    | Sym::Fs
                    | Sym::FsWrite
            )
        )
    };
    let mut aliases: Vec<String> = js
        .bindings
        .all()
        .filter(|(name, bound)| {
            global(name).is_none() && bound.iter().any(|b| writer(js.resolve_value(&b.value, 0)))
        })
        .map(|(name, _)| name.to_string())
        .collect();
    // `this.out = process.stdout` used as `this.out.write(...)` in a left-out method.
    aliases.extend(
        js.members
            .all()
            .filter(|(_, values)| values.iter().any(|v| writer(js.resolve(*v))))
            .map(|(name, _)| name.to_string()),
    );
    if !aliases
        .iter()
        .any(|a| js_window::used_outside(src, ranges, a))
    {
        return None;
    }
    // Empty ranges parse the whole file.
    Some(js_window::included_ranges(text, &KEEP, &aliases).unwrap_or_default())
}

pub fn scan(lang: Lang, root: Node<'_>, src: &[u8], out: &mut Vec<Hit>) {
    let (js, candidates) = collect(lang, root, src);
    check(&js, candidates, out);
}

fn check<'t>(js: &Js<'t>, candidates: Vec<Node<'t>>, out: &mut Vec<Hit>) {
    for call in candidates {
        if call.kind() == "new_expression" {
            js.check_new(call, out);
        } else {
            js.check_call(call, out);
        }
    }
}

impl<'t> Js<'t> {
    fn check_call(&self, call: Node<'t>, out: &mut Vec<Hit>) {
        let Some(callee) = call.field("function") else {
            return;
        };
        let arguments = match call.field("arguments") {
            Some(a) if a.kind() == "arguments" => args(a),
            _ => return,
        };
        match self.resolve(callee) {
            Some(Sym::ConsoleMethod(m)) => self.console_method(call, callee, &m, &arguments, out),
            Some(Sym::StdoutMethod(m)) => self.stdout_method(call, &m, &arguments, out),
            Some(Sym::FsWrite) => {
                let to_stdout = arguments.first().is_some_and(|fd| {
                    text(*fd, self.src) == "1" || self.resolve(*fd) == Some(Sym::StdoutFd)
                });
                if to_stdout {
                    out.push(Hit::write(
                        call,
                        format!("{} writes to file descriptor 1, stdout: the channel of the stdio transport's JSON-RPC messages.", quoted(callee, self.src)),
                        "Write to file descriptor 2 (stderr) instead.",
                    ));
                }
            }
            Some(Sym::ConsoleClass) => js_loggers::console_class(self, call, &arguments, out),
            Some(Sym::Pino) => js_loggers::pino(self, call, &arguments, out),
            Some(Sym::BunyanCreate) => js_loggers::bunyan(self, call, &arguments, out),
            Some(_) => {}
            None => self.indirect_call(call, callee, &arguments, out),
        }
    }

    /// `console.log.call(console, x)`, `console.log.apply(...)`, `stream.pipe(process.stdout)`.
    fn indirect_call(
        &self,
        call: Node<'t>,
        callee: Node<'t>,
        arguments: &[Node<'t>],
        out: &mut Vec<Hit>,
    ) {
        if callee.kind() != "member_expression" {
            return;
        }
        let (Some(object), Some(property)) = (callee.field("object"), callee.field("property"))
        else {
            return;
        };
        match text(property, self.src) {
            "call" | "apply" => match self.resolve(object) {
                Some(Sym::ConsoleMethod(m)) if STDOUT_METHODS.contains(&m.as_str()) => {
                    out.push(Hit::write(call, self.console_message(object, &m), console_fix(&m)));
                }
                Some(Sym::StdoutMethod(_)) => out.push(Hit::write(
                    call,
                    format!("{} writes to stdout, the channel of the stdio transport's JSON-RPC messages.", quoted(object, self.src)),
                    "Write to process.stderr instead.",
                )),
                _ => {}
            },
            "pipe" if arguments.first().is_some_and(|a| self.resolve(*a) == Some(Sym::Stdout)) => {
                out.push(Hit::write(
                    call,
                    "A stream is piped into process.stdout, the channel of the stdio transport's JSON-RPC messages.".to_string(),
                    "Pipe it into process.stderr instead.",
                ));
            }
            _ => {}
        }
    }

    fn console_message(&self, callee: Node<'t>, method: &str) -> String {
        format!(
            "{} writes to stdout (Node sends console.{method} there), the channel of the stdio transport's JSON-RPC messages; a client reading this output fails to parse it.",
            quoted(callee, self.src)
        )
    }

    fn console_method(
        &self,
        call: Node<'t>,
        callee: Node<'t>,
        method: &str,
        arguments: &[Node<'t>],
        out: &mut Vec<Hit>,
    ) {
        if !STDOUT_METHODS.contains(&method) {
            return;
        }
        // A hand-written server printing one JSON message per line is speaking the protocol.
        if let [only] = arguments {
            if matches!(method, "log" | "info") && self.is_json_message(*only, 0) {
                return;
            }
        }
        let mut hit = Hit::write(
            call,
            self.console_message(callee, method),
            console_fix(method),
        );
        if matches!(
            method,
            "log" | "info" | "debug" | "trace" | "warn" | "error"
        ) {
            hit = hit.prints(super::js_prints::console_arguments(arguments, self.src));
        }
        if REPLACEABLE.contains(&method) && callee.kind() == "member_expression" {
            let plain_global = callee
                .field("object")
                .is_some_and(|o| o.kind() == "identifier" && text(o, self.src) == "console");
            if let (true, Some(property)) = (plain_global, callee.field("property")) {
                hit = hit.edit(
                    property,
                    "error",
                    format!("Replace console.{method} with console.error"),
                );
            }
        }
        out.push(hit);
    }

    fn stdout_method(
        &self,
        call: Node<'t>,
        method: &str,
        arguments: &[Node<'t>],
        out: &mut Vec<Hit>,
    ) {
        let json = method == "write"
            && arguments
                .first()
                .is_some_and(|a| self.is_json_message(*a, 0));
        if json {
            return;
        }
        let callee = call.field("function").unwrap_or(call);
        let mut hit = Hit::write(
            call,
            format!("{} writes to stdout, the channel of the stdio transport's JSON-RPC messages; anything but one JSON message per line breaks the client.", quoted(callee, self.src)),
            "Write logs to process.stderr instead (process.stderr.write or console.error).",
        );
        // `process.stdout.write` as written (it resolved to stdout, so `process` is the global).
        let stream = callee
            .field("object")
            .filter(|o| o.kind() == "member_expression" && text(*o, self.src) == "process.stdout")
            .and_then(|o| o.field("property"));
        if method == "write" {
            if let Some(first) = arguments.first() {
                hit = hit.prints(super::js_prints::expression(*first, self.src, 0));
            }
        }
        if let (Some(stream), "write") = (stream, method) {
            hit = hit.edit(
                stream,
                "stderr",
                "Replace process.stdout with process.stderr",
            );
        }
        out.push(hit);
    }

    fn check_new(&self, node: Node<'t>, out: &mut Vec<Hit>) {
        let Some(constructor) = node.field("constructor") else {
            return;
        };
        let arguments = node.field("arguments").map(args).unwrap_or_default();
        match self.resolve(constructor) {
            Some(Sym::ConsoleClass) => js_loggers::console_class(self, node, &arguments, out),
            Some(Sym::WinstonConsole) => js_loggers::winston_console(self, node, &arguments, out),
            Some(Sym::Bunyan) => js_loggers::bunyan(self, node, &arguments, out),
            _ => {}
        }
    }
}

fn console_fix(method: &str) -> String {
    if REPLACEABLE.contains(&method) {
        format!("Use console.error instead of console.{method}: it writes to stderr, which clients keep as the server's log.")
    } else {
        format!("console.{method} writes to stdout; format the value yourself and log it with console.error (stderr).")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windowed_parses_keep_every_block_with_a_prefilter_word() {
        for word in PREFILTER.words() {
            assert!(KEEP.words().contains(&word), "{word}");
        }
    }
}
