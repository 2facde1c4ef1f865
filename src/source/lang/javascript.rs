//! JavaScript, TypeScript and TSX: the console methods Node sends to stdout,
//! `process.stdout` writes, and (in `js_loggers`) consoles and loggers bound to stdout.

use super::js_loggers;
use super::js_window;
use super::scope::{agree, Bindings, Value};
use super::syntax::{self, args, string_content, text, KindSet, Words, MAX_RESOLVE_DEPTH};
use super::{quoted, Hit, Lang};
use tree_sitter::Node;

/// Console methods Node writes to stdout (`console.trace`, `warn`, `error`, `assert` go to stderr).
const STDOUT_METHODS: &[&str] = &[
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

/// Where a console method occurrence goes when it is not one of the stdout methods.
const STDERR_SUFFIXES: &[&str] = &[".error", ".warn", ".assert", ".trace"];

static WORDS: Words = Words::new(&[
    "console",
    "stdout",
    "Console",
    "pino",
    "winston",
    "bunyan",
    "writeSync",
]);

/// Words a block must not mention to be left out of a windowed parse: the scan's words, and
/// those whose far-away bindings a finding may depend on (JSON for protocol lines, suppressions).
static KEEP: Words = Words::new(&[
    "console",
    "stdout",
    "Console",
    "pino",
    "winston",
    "bunyan",
    "writeSync",
    "JSON",
    "mcpcheck",
]);
/// Logger configurations may live in object literals far from the call: parse those files whole.
static LOGGERS: Words = Words::new(&["Console", "pino", "winston", "bunyan"]);

pub fn parse_ranges(src: &[u8]) -> Option<Vec<tree_sitter::Range>> {
    if LOGGERS.any(src) {
        return None;
    }
    js_window::included_ranges(src, &KEEP, &[])
}

/// After a parse of `ranges`: the ranges widened to keep the uses of names the parsed part
/// binds to a stdout writer (`const print = console.log` and, far below, `print(...)`), or
/// None if no left-out block uses one.
pub fn widen_ranges(
    lang: Lang,
    root: Node<'_>,
    src: &[u8],
    ranges: &[tree_sitter::Range],
) -> Option<Vec<tree_sitter::Range>> {
    let js = collect(lang, root, src).0;
    let aliases: Vec<String> = js
        .bindings
        .all()
        .filter(|(name, bound)| {
            global(name).is_none()
                && bound.iter().any(|b| {
                    matches!(
                        js.resolve_value(&b.value, 0),
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
                })
        })
        .map(|(name, _)| name.to_string())
        .collect();
    if !aliases
        .iter()
        .any(|a| js_window::used_outside(src, ranges, a))
    {
        return None;
    }
    // Empty ranges parse the whole file.
    Some(js_window::included_ranges(src, &KEEP, &aliases).unwrap_or_default())
}

pub fn may_hold_finding(src: &[u8]) -> bool {
    WORDS.any_where(src, |word, end| {
        if word != 0 {
            return true;
        }
        // `console.error(` alone cannot be a finding; any other use of `console` may be.
        let rest = &src[end..];
        !STDERR_SUFFIXES.iter().any(|s| {
            rest.starts_with(s.as_bytes())
                && !rest
                    .get(s.len())
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$')
        })
    })
}

/// What an expression denotes, as far as stdout is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Sym {
    Global,
    Console,
    ConsoleMethod(String),
    ConsoleClass,
    Process,
    Stdout,
    StdoutMethod(String),
    StdoutFd,
    Stderr,
    Require,
    Json,
    JsonStringify,
    Fs,
    FsWrite,
    Pino,
    PinoDestination,
    PinoTransport,
    Winston,
    WinstonTransports,
    WinstonConsole,
    WinstonCreateLogger,
    Bunyan,
    BunyanCreate,
}

fn module(specifier: &str) -> Option<Sym> {
    Some(match specifier.strip_prefix("node:").unwrap_or(specifier) {
        "console" => Sym::Console,
        "process" => Sym::Process,
        "fs" => Sym::Fs,
        "pino" => Sym::Pino,
        "winston" => Sym::Winston,
        "bunyan" => Sym::Bunyan,
        _ => return None,
    })
}

fn member(of: &Sym, prop: &str) -> Option<Sym> {
    Some(match (of, prop) {
        (Sym::Global, "console") => Sym::Console,
        (Sym::Global, "process") => Sym::Process,
        (Sym::Global, "JSON") => Sym::Json,
        (Sym::Console, "Console") => Sym::ConsoleClass,
        (Sym::Console, "_stdout") => Sym::Stdout,
        (Sym::Console, m) if m.chars().all(|c| c.is_ascii_alphabetic()) => {
            Sym::ConsoleMethod(m.to_string())
        }
        (Sym::Process, "stdout") => Sym::Stdout,
        (Sym::Process, "stderr") => Sym::Stderr,
        (Sym::Stdout, "write" | "end") => Sym::StdoutMethod(prop.to_string()),
        (Sym::Stdout, "fd") => Sym::StdoutFd,
        (Sym::Json, "stringify") => Sym::JsonStringify,
        (Sym::Fs, "writeSync" | "write") => Sym::FsWrite,
        (Sym::Pino, "destination") => Sym::PinoDestination,
        (Sym::Pino, "transport") => Sym::PinoTransport,
        (Sym::Pino, "pino" | "default") => Sym::Pino,
        (Sym::Winston, "transports") => Sym::WinstonTransports,
        (Sym::Winston, "createLogger") => Sym::WinstonCreateLogger,
        (Sym::Winston, "default") => Sym::Winston,
        (Sym::WinstonTransports, "Console") => Sym::WinstonConsole,
        (Sym::Bunyan, "createLogger") => Sym::BunyanCreate,
        (Sym::Bunyan, "default") => Sym::Bunyan,
        _ => return None,
    })
}

fn global(name: &str) -> Option<Sym> {
    Some(match name {
        "console" => Sym::Console,
        "process" => Sym::Process,
        "globalThis" | "global" | "window" => Sym::Global,
        "require" => Sym::Require,
        "JSON" => Sym::Json,
        _ => return None,
    })
}

const FUNCTION_SCOPES: &[&str] = &[
    "program",
    "function_declaration",
    "function_expression",
    "function",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
    "generator_function",
];
const BLOCK_SCOPES: &[&str] = &[
    "program",
    "statement_block",
    "for_statement",
    "for_in_statement",
    "catch_clause",
    "switch_statement",
    "class_static_block",
    "function_declaration",
    "function_expression",
    "function",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
    "generator_function",
];

/// The nodes the scan looks at: candidates and everything that binds a name.
const VISIT: &[&str] = &[
    "call_expression",
    "new_expression",
    "variable_declarator",
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
    "formal_parameters",
    "arrow_function",
    "catch_clause",
    "for_in_statement",
    "import_statement",
];

/// One file's bindings and the resolver over them.
pub(super) struct Js<'t> {
    pub src: &'t [u8],
    bindings: Bindings<'t>,
}

pub fn scan(lang: Lang, root: Node<'_>, src: &[u8], out: &mut Vec<Hit>) {
    let (js, candidates) = collect(lang, root, src);
    for call in candidates {
        if call.kind() == "new_expression" {
            js.check_new(call, out);
        } else {
            js.check_call(call, out);
        }
    }
}

/// One walk over the tree: every binding, and the calls and `new`s to check.
fn collect<'t>(lang: Lang, root: Node<'t>, src: &'t [u8]) -> (Js<'t>, Vec<Node<'t>>) {
    let mut js = Js {
        src,
        bindings: Bindings::default(),
    };
    let mut candidates = Vec::new();
    let (block_scopes, function_scopes) = (
        syntax::kinds(lang, BLOCK_SCOPES),
        syntax::kinds(lang, FUNCTION_SCOPES),
    );
    let ambient = syntax::kinds(lang, &["ambient_declaration"]);
    syntax::walk(
        root,
        syntax::kinds(lang, VISIT),
        |node, ancestors| match node.kind() {
            "call_expression" | "new_expression" => candidates.push(node),
            // `declare const console: Console` describes the global; it binds nothing.
            "variable_declarator" if syntax::nearest(ancestors, ambient).is_none() => {
                js.bind_declarator(node, ancestors, block_scopes, function_scopes)
            }
            "function_declaration" | "generator_function_declaration" | "class_declaration" => {
                let scope = syntax::nearest(ancestors, block_scopes);
                if let (Some(name), Some(scope)) = (node.child_by_field_name("name"), scope) {
                    js.bindings.add(text(name, src), scope, Value::Opaque);
                }
            }
            "formal_parameters" => {
                if let Some(function) = ancestors.last() {
                    js.bind_pattern(node, *function, None, Vec::new());
                }
            }
            "arrow_function" => {
                if let Some(param) = node.child_by_field_name("parameter") {
                    js.bind_pattern(param, node, None, Vec::new());
                }
            }
            "catch_clause" => {
                if let Some(param) = node.child_by_field_name("parameter") {
                    js.bind_pattern(param, node, None, Vec::new());
                }
            }
            "for_in_statement" => {
                if let Some(left) = node.child_by_field_name("left") {
                    js.bind_pattern(left, node, None, Vec::new());
                }
            }
            "import_statement" => js.bind_import(node, root),
            _ => {}
        },
    );
    (js, candidates)
}

impl<'t> Js<'t> {
    fn bind_declarator(
        &mut self,
        node: Node<'t>,
        ancestors: &[Node<'t>],
        block_scopes: &KindSet,
        function_scopes: &KindSet,
    ) {
        let Some(declaration) = ancestors.last() else {
            return;
        };
        let kinds = if declaration.kind() == "variable_declaration" {
            function_scopes
        } else {
            block_scopes
        };
        let (Some(scope), Some(name)) = (
            syntax::nearest(ancestors, kinds),
            node.child_by_field_name("name"),
        ) else {
            return;
        };
        let value = node.child_by_field_name("value");
        self.bind_pattern(name, scope, value, Vec::new());
    }

    /// Binds every name in a pattern; `source`/`path` say what each destructured name holds.
    fn bind_pattern(
        &mut self,
        pattern: Node<'t>,
        scope: Node<'t>,
        source: Option<Node<'t>>,
        path: Vec<String>,
    ) {
        let value = |path: Vec<String>| match source {
            None => Value::Opaque,
            Some(s) if path.is_empty() => Value::Expr(s),
            Some(s) => Value::Member { source: s, path },
        };
        match pattern.kind() {
            "identifier" => {
                let name = text(pattern, self.src);
                self.bindings.add(name, scope, value(path));
            }
            "shorthand_property_identifier_pattern" => {
                let name = text(pattern, self.src);
                let mut p = path;
                p.push(name.to_string());
                self.bindings.add(name, scope, value(p));
            }
            "object_pattern" => {
                for child in args(pattern) {
                    match child.kind() {
                        "pair_pattern" => {
                            let (Some(key), Some(val)) = (
                                child.child_by_field_name("key"),
                                child.child_by_field_name("value"),
                            ) else {
                                continue;
                            };
                            let key = string_content(key, self.src)
                                .unwrap_or_else(|| text(key, self.src).to_string());
                            let mut p = path.clone();
                            p.push(key);
                            self.bind_pattern(val, scope, source, p);
                        }
                        "object_assignment_pattern" => {
                            if let Some(left) = child.child_by_field_name("left") {
                                self.bind_pattern(left, scope, source, path.clone());
                            }
                        }
                        "shorthand_property_identifier_pattern" => {
                            self.bind_pattern(child, scope, source, path.clone())
                        }
                        _ => self.bind_pattern(child, scope, None, Vec::new()),
                    }
                }
            }
            "assignment_pattern" => {
                if let Some(left) = pattern.child_by_field_name("left") {
                    self.bind_pattern(left, scope, source, path);
                }
            }
            "required_parameter" | "optional_parameter" => {
                if let Some(p) = pattern.child_by_field_name("pattern") {
                    self.bind_pattern(p, scope, None, Vec::new());
                }
            }
            // Parameter lists, array patterns, rest elements: every name inside is opaque.
            "formal_parameters" | "array_pattern" | "rest_pattern" => {
                for child in args(pattern) {
                    self.bind_pattern(child, scope, None, Vec::new());
                }
            }
            _ => {}
        }
    }

    fn bind_import(&mut self, node: Node<'t>, root: Node<'t>) {
        let mut cursor = node.walk();
        if node.children(&mut cursor).any(|c| c.kind() == "type") {
            return;
        }
        let source = node
            .child_by_field_name("source")
            .and_then(|s| string_content(s, self.src));
        for clause in args(node) {
            match clause.kind() {
                "import_clause" => {
                    let Some(module) = source.clone() else {
                        continue;
                    };
                    self.bind_import_clause(clause, root, &module);
                }
                "import_require_clause" => {
                    let module = clause
                        .child_by_field_name("source")
                        .and_then(|s| string_content(s, self.src));
                    if let (Some(module), Some(name)) = (module, clause.named_child(0)) {
                        let name = text(name, self.src);
                        let value = Value::Import {
                            module,
                            member: None,
                        };
                        self.bindings.add(name, root, value);
                    }
                }
                _ => {}
            }
        }
    }

    fn bind_import_clause(&mut self, clause: Node<'t>, root: Node<'t>, module: &str) {
        for part in args(clause) {
            match part.kind() {
                "identifier" => {
                    let value = Value::Import {
                        module: module.to_string(),
                        member: None,
                    };
                    self.bindings.add(text(part, self.src), root, value);
                }
                "namespace_import" => {
                    if let Some(name) = part.named_child(0) {
                        let value = Value::Import {
                            module: module.to_string(),
                            member: None,
                        };
                        self.bindings.add(text(name, self.src), root, value);
                    }
                }
                "named_imports" => {
                    for spec in args(part) {
                        let Some(name) = spec.child_by_field_name("name") else {
                            continue;
                        };
                        let local = spec.child_by_field_name("alias").unwrap_or(name);
                        let imported = string_content(name, self.src)
                            .unwrap_or_else(|| text(name, self.src).to_string());
                        let value = Value::Import {
                            module: module.to_string(),
                            member: Some(imported),
                        };
                        self.bindings.add(text(local, self.src), root, value);
                    }
                }
                _ => {}
            }
        }
    }

    /// What `node` denotes, following aliases, imports and destructuring within the file.
    pub(super) fn resolve(&self, node: Node<'t>) -> Option<Sym> {
        self.resolve_at(node, 0)
    }

    fn resolve_at(&self, node: Node<'t>, depth: u32) -> Option<Sym> {
        if depth > MAX_RESOLVE_DEPTH {
            return None;
        }
        match node.kind() {
            "identifier" => {
                let name = text(node, self.src);
                let bound = self.bindings.lookup(name, node, |_, _| true);
                if bound.is_empty() {
                    return global(name);
                }
                agree(
                    bound
                        .iter()
                        .map(|b| self.resolve_value(&b.value, depth + 1)),
                )
            }
            "member_expression" => {
                let object = self.resolve_at(node.child_by_field_name("object")?, depth + 1)?;
                member(
                    &object,
                    text(node.child_by_field_name("property")?, self.src),
                )
            }
            "subscript_expression" => {
                let object = self.resolve_at(node.child_by_field_name("object")?, depth + 1)?;
                let index = string_content(node.child_by_field_name("index")?, self.src)?;
                member(&object, &index)
            }
            "parenthesized_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression" => self.resolve_at(node.named_child(0)?, depth + 1),
            "call_expression" => {
                let callee = node.child_by_field_name("function")?;
                // `console.log.bind(console)` is still console.log.
                if callee.kind() == "member_expression"
                    && callee
                        .child_by_field_name("property")
                        .is_some_and(|p| text(p, self.src) == "bind")
                {
                    let bound =
                        self.resolve_at(callee.child_by_field_name("object")?, depth + 1)?;
                    return matches!(bound, Sym::ConsoleMethod(_) | Sym::StdoutMethod(_))
                        .then_some(bound);
                }
                match self.resolve_at(callee, depth + 1)? {
                    Sym::Require => {
                        let arguments = node.child_by_field_name("arguments")?;
                        module(&string_content(*args(arguments).first()?, self.src)?)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn resolve_value(&self, value: &Value<'t>, depth: u32) -> Option<Sym> {
        match value {
            Value::Expr(expr) => self.resolve_at(*expr, depth),
            Value::Member { source, path } => {
                let mut sym = self.resolve_at(*source, depth)?;
                for key in path {
                    sym = member(&sym, key)?;
                }
                Some(sym)
            }
            Value::Import {
                module: m,
                member: part,
            } => {
                let sym = module(m)?;
                match part {
                    None => Some(sym),
                    Some(p) => member(&sym, p),
                }
            }
            Value::Opaque => None,
        }
    }

    /// The object literal an expression is, directly or through a `const` in this file.
    pub(super) fn object_literal(&self, node: Node<'t>) -> Option<Node<'t>> {
        let mut node = node;
        for _ in 0..MAX_RESOLVE_DEPTH {
            match node.kind() {
                "object" => return Some(node),
                "parenthesized_expression" | "as_expression" | "satisfies_expression" => {
                    node = node.named_child(0)?
                }
                "identifier" => {
                    let bound = self
                        .bindings
                        .lookup(text(node, self.src), node, |_, _| true);
                    match bound.as_slice() {
                        [only] => match only.value {
                            Value::Expr(expr) => node = expr,
                            _ => return None,
                        },
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
        None
    }

    /// True if the text written is one JSON document on one line: the stdio protocol itself.
    fn is_json_message(&self, node: Node<'t>, depth: u32) -> bool {
        if depth > MAX_RESOLVE_DEPTH {
            return false;
        }
        match node.kind() {
            "call_expression" => {
                let is_stringify = node
                    .child_by_field_name("function")
                    .is_some_and(|f| self.resolve(f) == Some(Sym::JsonStringify));
                let arguments = node
                    .child_by_field_name("arguments")
                    .map(args)
                    .unwrap_or_default();
                // A third argument indents the JSON over several lines, which breaks framing.
                is_stringify
                    && (arguments.len() < 3
                        || matches!(
                            text(arguments[2], self.src),
                            "0" | "undefined" | "null" | "''" | "\"\""
                        ))
            }
            "binary_expression" => {
                let (Some(left), Some(right)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) else {
                    return false;
                };
                self.is_json_message(left, depth + 1) && is_line_end(right, self.src)
            }
            "template_string" => {
                let parts = args(node);
                let substitutions: Vec<Node<'t>> = parts
                    .iter()
                    .copied()
                    .filter(|p| p.kind() == "template_substitution")
                    .collect();
                substitutions.len() == 1
                    && substitutions[0]
                        .named_child(0)
                        .is_some_and(|e| self.is_json_message(e, depth + 1))
                    && parts.iter().all(|p| {
                        p.kind() == "template_substitution"
                            || matches!(text(*p, self.src), "\\n" | "\\r\\n" | "")
                    })
            }
            "parenthesized_expression" => node
                .named_child(0)
                .is_some_and(|e| self.is_json_message(e, depth + 1)),
            "identifier" => {
                let bound = self
                    .bindings
                    .lookup(text(node, self.src), node, |_, _| true);
                !bound.is_empty()
                    && bound.iter().all(|b| match b.value {
                        Value::Expr(e) => self.is_json_message(e, depth + 1),
                        _ => false,
                    })
            }
            _ => false,
        }
    }

    fn check_call(&self, call: Node<'t>, out: &mut Vec<Hit>) {
        let Some(callee) = call.child_by_field_name("function") else {
            return;
        };
        let arguments = match call.child_by_field_name("arguments") {
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
        let (Some(object), Some(property)) = (
            callee.child_by_field_name("object"),
            callee.child_by_field_name("property"),
        ) else {
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
        if REPLACEABLE.contains(&method) && callee.kind() == "member_expression" {
            let plain_global = callee
                .child_by_field_name("object")
                .is_some_and(|o| o.kind() == "identifier" && text(o, self.src) == "console");
            if let (true, Some(property)) = (plain_global, callee.child_by_field_name("property")) {
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
        if method == "write"
            && arguments
                .first()
                .is_some_and(|a| self.is_json_message(*a, 0))
        {
            return;
        }
        let callee = call.child_by_field_name("function").unwrap_or(call);
        out.push(Hit::write(
            call,
            format!("{} writes to stdout, the channel of the stdio transport's JSON-RPC messages; anything but one JSON message per line breaks the client.", quoted(callee, self.src)),
            "Write logs to process.stderr instead (process.stderr.write or console.error).",
        ));
    }

    fn check_new(&self, node: Node<'t>, out: &mut Vec<Hit>) {
        let Some(constructor) = node.child_by_field_name("constructor") else {
            return;
        };
        let arguments = node
            .child_by_field_name("arguments")
            .map(args)
            .unwrap_or_default();
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

/// A string literal that only ends a line (`"\n"`).
fn is_line_end(node: Node<'_>, src: &[u8]) -> bool {
    string_content(node, src).is_some_and(|s| matches!(s.as_str(), "\\n" | "\\r\\n"))
}
