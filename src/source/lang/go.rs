//! Go: `fmt.Print*`, `fmt.Fprint*(os.Stdout, ...)`, `os.Stdout.Write*`, and loggers on
//! `os.Stdout` (`log.SetOutput`, `log.New`, `slog.New*Handler`, logrus, zerolog). Package
//! names come from the file's imports (aliases and dot imports included); locals shadow them.

use super::prefilter::{Need, Prefilter};
use super::scope::{agree, every_expr, Bindings, Value};
use super::syntax::Fields;
use super::syntax::{self, args, string_content, text, MAX_RESOLVE_DEPTH};
use super::{quoted, span, Hit, Lang, JSON_RPC_CHANNEL};
use std::collections::HashMap;
use tree_sitter::Node;

/// fmt's functions that print to stdout.
const FMT_PRINTS: &[&str] = &["Print", "Printf", "Println"];

/// What a file must mention for a rule to match (see `prefilter`): every rule in `member`
/// is one of fmt's prints or takes `os.Stdout` (as a writer, an output, `Out:`).
pub(super) static PREFILTER: Prefilter = Prefilter::new(|| {
    let mut needs: Vec<Need> = FMT_PRINTS.iter().map(|w| vec![vec![*w]]).collect();
    needs.push(vec![vec!["Stdout"]]);
    needs
});

const CHANNEL: &str = "stdout, the channel of the stdio transport's JSON-RPC messages";
const LOGRUS: &str = "github.com/sirupsen/logrus";
const ZEROLOG: &str = "github.com/rs/zerolog";

#[derive(Debug, Clone, PartialEq, Eq)]
enum Sym {
    Package(String),
    FmtPrint(String),
    FmtFprint(String),
    Stdout,
    Stderr,
    StdoutWrite,
    SetOutput,
    LoggerNew,
    SlogHandler,
    IoWrite,
    JsonMarshal,
    ZerologConsoleWriter,
}

fn member(of: &Sym, name: &str) -> Option<Sym> {
    let Sym::Package(path) = of else {
        return (*of == Sym::Stdout && matches!(name, "Write" | "WriteString"))
            .then_some(Sym::StdoutWrite);
    };
    Some(match (path.as_str(), name) {
        ("fmt", print) if FMT_PRINTS.contains(&print) => Sym::FmtPrint(name.to_string()),
        ("fmt", "Fprint" | "Fprintf" | "Fprintln") => Sym::FmtFprint(name.to_string()),
        ("os", "Stdout") => Sym::Stdout,
        ("os", "Stderr") => Sym::Stderr,
        ("log" | LOGRUS, "SetOutput") => Sym::SetOutput,
        ("log" | ZEROLOG, "New") => Sym::LoggerNew,
        ("log/slog", "NewTextHandler" | "NewJSONHandler") => Sym::SlogHandler,
        ("io", "WriteString" | "Copy") => Sym::IoWrite,
        ("encoding/json", "Marshal") => Sym::JsonMarshal,
        (ZEROLOG, "ConsoleWriter") => Sym::ZerologConsoleWriter,
        _ => return None,
    })
}

/// The name a package is known by when imported without an alias.
fn default_name(path: &str) -> &str {
    let mut segments = path.rsplit('/');
    let last = segments.next().unwrap_or(path);
    let is_version =
        last.len() > 1 && last.starts_with('v') && last[1..].chars().all(|c| c.is_ascii_digit());
    if is_version {
        segments.next().unwrap_or(last)
    } else {
        last
    }
}

const SCOPES: &[&str] = &[
    "source_file",
    "block",
    "for_statement",
    "if_statement",
    "expression_switch_statement",
    "type_switch_statement",
    "select_statement",
    "function_declaration",
    "method_declaration",
    "func_literal",
];

const VISIT: &[&str] = &[
    "call_expression",
    "composite_literal",
    "import_spec",
    "short_var_declaration",
    "range_clause",
    "var_spec",
    "const_spec",
    "parameter_declaration",
    "variadic_parameter_declaration",
];

struct Go<'t> {
    src: &'t [u8],
    imports: HashMap<String, String>,
    dot_imports: Vec<String>,
    locals: Bindings<'t>,
}

pub fn scan(lang: Lang, root: Node<'_>, src: &[u8], out: &mut Vec<Hit>) {
    let mut go = Go {
        src,
        imports: HashMap::new(),
        dot_imports: Vec::new(),
        locals: Bindings::default(),
    };
    let mut candidates = Vec::new();
    let scopes = syntax::kinds(lang, SCOPES);
    syntax::walk(
        root,
        syntax::kinds(lang, VISIT),
        |node, ancestors| match node.kind() {
            "call_expression" | "composite_literal" => candidates.push(node),
            "import_spec" => go.import(node),
            "short_var_declaration" | "range_clause" => {
                if let Some(scope) = syntax::nearest(ancestors, scopes) {
                    go.bind_list(node, scope);
                }
            }
            "var_spec" | "const_spec" => {
                if let Some(scope) = syntax::nearest(ancestors, scopes) {
                    go.bind_spec(node, scope);
                }
            }
            "parameter_declaration" | "variadic_parameter_declaration" => {
                // The parameter list's parent: the function, method or function literal.
                let function = ancestors.len().checked_sub(2).map(|i| ancestors[i]);
                if let Some(function) = function {
                    let mut cursor = node.walk();
                    for name in node.children_by_field_name("name", &mut cursor) {
                        go.locals.add(text(name, src), function, Value::Opaque);
                    }
                }
            }
            _ => {}
        },
    );
    for node in candidates {
        if node.kind() == "composite_literal" {
            go.check_literal(node, out);
        } else {
            go.check_call(node, out);
        }
    }
}

impl<'t> Go<'t> {
    fn import(&mut self, spec: Node<'t>) {
        let Some(path) = spec.field("path").and_then(|p| string_content(p, self.src)) else {
            return;
        };
        match spec.field("name") {
            Some(name) if name.kind() == "dot" => self.dot_imports.push(path),
            Some(name) if name.kind() == "blank_identifier" => {}
            Some(name) => {
                self.imports.insert(text(name, self.src).to_string(), path);
            }
            None => {
                self.imports.insert(default_name(&path).to_string(), path);
            }
        }
    }

    /// `a, b := x, y` binds pairwise; `b, err := f()` binds `b` to the call's first result.
    fn bind_list(&mut self, node: Node<'t>, scope: Node<'t>) {
        let names = node.field("left").map(args).unwrap_or_default();
        let values = node.field("right").map(args).unwrap_or_default();
        let range = node.kind() == "range_clause";
        for (i, name) in names.iter().enumerate() {
            let value = match (range, values.len()) {
                (false, n) if n == names.len() => Value::Expr(values[i]),
                (false, 1) if i == 0 => Value::Expr(values[0]),
                _ => Value::Opaque,
            };
            self.locals.add(text(*name, self.src), scope, value);
        }
    }

    fn bind_spec(&mut self, spec: Node<'t>, scope: Node<'t>) {
        let mut cursor = spec.walk();
        let names: Vec<Node<'t>> = spec.children_by_field_name("name", &mut cursor).collect();
        let values = spec.field("value").map(args).unwrap_or_default();
        for (i, name) in names.iter().enumerate() {
            let value = match values.get(i) {
                Some(v) if values.len() == names.len() => Value::Expr(*v),
                _ => Value::Opaque,
            };
            self.locals.add(text(*name, self.src), scope, value);
        }
    }

    fn resolve(&self, node: Node<'t>) -> Option<Sym> {
        self.resolve_at(node, 0)
    }

    fn resolve_at(&self, node: Node<'t>, depth: u32) -> Option<Sym> {
        if depth > MAX_RESOLVE_DEPTH {
            return None;
        }
        match node.kind() {
            "identifier" | "package_identifier" => {
                let name = text(node, self.src);
                let bound = self.locals.lookup(name, node, |_, _| true);
                if !bound.is_empty() {
                    return agree(bound.iter().map(|b| match b.value {
                        Value::Expr(e) => self.resolve_at(e, depth + 1),
                        _ => None,
                    }));
                }
                if let Some(path) = self.imports.get(name) {
                    return Some(Sym::Package(path.clone()));
                }
                self.dot_imports
                    .iter()
                    .find_map(|p| member(&Sym::Package(p.clone()), name))
            }
            "selector_expression" => {
                let operand = self.resolve_at(node.field("operand")?, depth + 1)?;
                member(&operand, text(node.field("field")?, self.src))
            }
            "qualified_type" => {
                let package = self.resolve_at(node.field("package")?, depth + 1)?;
                member(&package, text(node.field("name")?, self.src))
            }
            "parenthesized_expression" => self.resolve_at(node.named_child(0)?, depth + 1),
            _ => None,
        }
    }

    /// True if the value is JSON from `json.Marshal` (maybe as a string or with a newline).
    fn is_json(&self, node: Node<'t>, depth: u32) -> bool {
        if depth > MAX_RESOLVE_DEPTH {
            return false;
        }
        match node.kind() {
            "call_expression" => {
                let Some(callee) = node.field("function") else {
                    return false;
                };
                let arguments = node.field("arguments").map(args).unwrap_or_default();
                match text(callee, self.src) {
                    "string" | "append" | "[]byte" => arguments
                        .first()
                        .is_some_and(|a| self.is_json(*a, depth + 1)),
                    _ => self.resolve(callee) == Some(Sym::JsonMarshal),
                }
            }
            "type_conversion_expression" => node
                .field("operand")
                .is_some_and(|o| self.is_json(o, depth + 1)),
            "binary_expression" => {
                node.field("left")
                    .is_some_and(|l| self.is_json(l, depth + 1))
                    && node
                        .field("right")
                        .and_then(|r| string_content(r, self.src))
                        .is_some_and(|s| s == "\\n")
            }
            "identifier" => {
                let bound = self.locals.lookup(text(node, self.src), node, |_, _| true);
                every_expr(&bound, |e| self.is_json(e, depth + 1))
            }
            _ => false,
        }
    }

    /// The printed values are one JSON message and a newline: the protocol itself.
    fn is_json_message(&self, values: &[Node<'t>], formatted: bool) -> bool {
        let (format, rest) = match (formatted, values) {
            (true, [format, rest @ ..]) => (string_content(*format, self.src), rest),
            (true, []) => return false,
            (false, rest) => (None, rest),
        };
        if formatted && !format.is_some_and(|f| matches!(f.as_str(), "%s\\n" | "%s")) {
            return false;
        }
        let (json, other): (Vec<Node<'t>>, Vec<Node<'t>>) =
            rest.iter().partition(|v| self.is_json(**v, 0));
        json.len() == 1
            && other
                .iter()
                .all(|v| string_content(*v, self.src).is_some_and(|s| s == "\\n"))
    }

    fn check_call(&self, call: Node<'t>, out: &mut Vec<Hit>) {
        let (Some(callee), Some(arguments)) = (call.field("function"), call.field("arguments"))
        else {
            return;
        };
        let values = args(arguments);
        let first_is_stdout = values
            .first()
            .is_some_and(|v| self.resolve(*v) == Some(Sym::Stdout));
        let os_free = self.locals.lookup("os", call, |_, _| true).is_empty();
        let os_imported = self.imports.get("os").is_some_and(|p| p == "os") && os_free;
        // Nothing is called `os` here and the os package is not imported under any name
        // (an alias, a dot import): adding the import makes `os` the os package.
        let os_addable = os_free
            && !self.imports.contains_key("os")
            && !self.imports.values().any(|p| p == "os")
            && !self.dot_imports.iter().any(|p| p == "os");
        match self.resolve(callee) {
            Some(Sym::FmtPrint(name)) => {
                if self.is_json_message(&values, name == "Printf") {
                    return;
                }
                let mut hit = Hit::write(
                    call,
                    format!(
                        "{} writes to {CHANNEL}; a client reading this output fails to parse it.",
                        quoted(callee, self.src)
                    ),
                    format!(
                        "Write to stderr: fmt.F{}(os.Stderr, ...).",
                        name.to_lowercase()
                    ),
                );
                let open = arguments.child(0).filter(|c| c.kind() == "(");
                let import = (!os_imported && os_addable)
                    .then(|| last_import(super::root_of(call)))
                    .flatten();
                if let (true, Some(open)) = (os_imported || import.is_some(), open) {
                    let package = match callee.kind() {
                        "selector_expression" => callee
                            .field("operand")
                            .map(|o| format!("{}.", text(o, self.src)))
                            .unwrap_or_default(),
                        _ => String::new(),
                    };
                    let separator = if values.is_empty() { "" } else { ", " };
                    hit = hit.edit_range(
                        span(callee, open),
                        format!("{package}F{}(os.Stderr{separator}", name.to_lowercase()),
                        format!("Replace {name} with F{} to os.Stderr", name.to_lowercase()),
                    );
                    {
                        if let Some(last) = import {
                            let eol = super::line_ending(self.src);
                            hit = hit.import_at(
                                last.end_position(),
                                last.end_byte(),
                                format!("{eol}import \"os\""),
                            );
                        }
                    }
                }
                out.push(hit.prints(go_prints(&name, &values, self.src)));
            }
            Some(Sym::FmtFprint(name)) if first_is_stdout => {
                if self.is_json_message(&values[1..], name == "Fprintf") {
                    return;
                }
                let hit = Hit::write(
                    call,
                    format!(
                        "{} writes to os.Stdout, {JSON_RPC_CHANNEL}.",
                        quoted(callee, self.src)
                    ),
                    "Write to os.Stderr instead.",
                );
                out.push(self.to_stderr(values.first().copied(), os_imported, hit));
            }
            Some(Sym::StdoutWrite) => {
                if values.first().is_some_and(|v| self.is_json(*v, 0)) {
                    return;
                }
                let hit = Hit::write(
                    call,
                    format!("{} writes to {CHANNEL}.", quoted(callee, self.src)),
                    "Write to os.Stderr instead.",
                );
                let stream = callee.field("operand");
                out.push(self.to_stderr(stream, os_imported, hit));
            }
            Some(Sym::IoWrite) if first_is_stdout => {
                if values.get(1).is_some_and(|v| self.is_json(*v, 0)) {
                    return;
                }
                let hit = Hit::write(
                    call,
                    format!(
                        "{} writes to os.Stdout, {JSON_RPC_CHANNEL}.",
                        quoted(callee, self.src)
                    ),
                    "Write to os.Stderr instead.",
                );
                out.push(self.to_stderr(values.first().copied(), os_imported, hit));
            }
            Some(Sym::SetOutput | Sym::LoggerNew | Sym::SlogHandler) if first_is_stdout => {
                out.push(Hit::logger(
                    call,
                    format!(
                        "{} sends log output to os.Stdout, {JSON_RPC_CHANNEL}.",
                        quoted(callee, self.src)
                    ),
                    "Log to os.Stderr instead.",
                ));
            }
            _ => {}
        }
    }

    /// `os.Stdout` written as such becomes `os.Stderr` when `os` is the os package here.
    fn to_stderr(&self, stream: Option<Node<'t>>, os_imported: bool, hit: Hit) -> Hit {
        match stream.filter(|s| os_imported && text(*s, self.src) == "os.Stdout") {
            Some(s) => hit.edit(s, "os.Stderr", "Replace os.Stdout with os.Stderr"),
            None => hit,
        }
    }

    /// `zerolog.ConsoleWriter{Out: os.Stdout}`.
    fn check_literal(&self, literal: Node<'t>, out: &mut Vec<Hit>) {
        let is_console_writer = literal
            .field("type")
            .is_some_and(|t| self.resolve(t) == Some(Sym::ZerologConsoleWriter));
        let Some(body) = literal.field("body").filter(|_| is_console_writer) else {
            return;
        };
        for element in args(body) {
            let parts = args(element);
            if let [key, value] = parts.as_slice() {
                let value = value.named_child(0).unwrap_or(*value);
                if text(*key, self.src) == "Out" && self.resolve(value) == Some(Sym::Stdout) {
                    out.push(Hit::logger(
                        literal,
                        format!(
                            "This zerolog ConsoleWriter writes to os.Stdout, {JSON_RPC_CHANNEL}."
                        ),
                        "Set Out: os.Stderr.",
                    ));
                }
            }
        }
    }
}

/// The file's last import declaration, after which an `import "os"` line is added.
fn last_import(root: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = root.walk();
    let last = root
        .children(&mut cursor)
        .filter(|c| c.kind() == "import_declaration")
        .last();
    last
}

/// What `fmt.Println/Printf/Print(...)` prints: Println's operands joined by spaces,
/// Printf's format with each verb a hole (a `Sprintf` operand is a format too), Print's
/// operands run together.
fn go_prints(name: &str, values: &[Node<'_>], src: &[u8]) -> crate::prints::Pattern {
    use crate::prints::{format_string, Pattern};
    let value = |v: Node<'_>| go_expression(v, src, 0);
    let pattern = match name {
        "Printf" => match values.split_first() {
            Some((format, _)) => match go_string(*format, src) {
                Some(f) => format_string(&f, true, false),
                None => Pattern::hole(),
            },
            None => Pattern::default(),
        },
        "Println" => Pattern::joined(values.iter().map(|v| value(*v)).collect(), " "),
        _ => Pattern::joined(values.iter().map(|v| value(*v)).collect(), ""),
    };
    let ends_line =
        matches!(pattern.0.last(), Some(crate::prints::Piece::Literal(s)) if s.ends_with('\n'));
    if name == "Println" || ends_line {
        pattern
    } else {
        // Print and Printf end the line only where their text says so.
        pattern.then(Pattern::hole())
    }
}

fn go_expression(node: Node<'_>, src: &[u8], depth: usize) -> crate::prints::Pattern {
    use crate::prints::{format_string, Pattern};
    if depth > 16 {
        return Pattern::hole();
    }
    if let Some(s) = go_string(node, src) {
        return Pattern::literal(s);
    }
    match node.kind() {
        "int_literal" | "float_literal" => Pattern::literal(text(node, src)),
        "binary_expression" => {
            let (Some(l), Some(r)) = (node.field("left"), node.field("right")) else {
                return Pattern::hole();
            };
            let plus = node.field("operator").is_some_and(|o| text(o, src) == "+");
            if plus {
                go_expression(l, src, depth + 1).then(go_expression(r, src, depth + 1))
            } else {
                Pattern::hole()
            }
        }
        "call_expression" => {
            let sprintf = node
                .field("function")
                .is_some_and(|f| text(f, src) == "fmt.Sprintf");
            let format = node
                .field("arguments")
                .and_then(|a| args(a).first().copied())
                .and_then(|f| go_string(f, src));
            match (sprintf, format) {
                (true, Some(f)) => format_string(&f, true, false),
                _ => Pattern::hole(),
            }
        }
        _ => Pattern::hole(),
    }
}

/// A Go string literal's text: escapes interpreted, raw strings as written.
fn go_string(node: Node<'_>, src: &[u8]) -> Option<String> {
    let raw = text(node, src);
    match node.kind() {
        "interpreted_string_literal" => Some(crate::prints::unescape(
            raw.get(1..raw.len().saturating_sub(1))?,
        )),
        "raw_string_literal" => Some(raw.get(1..raw.len().saturating_sub(1))?.to_string()),
        _ => None,
    }
}
