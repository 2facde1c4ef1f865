//! Python: which names are the real `print`, `sys.stdout`, `logging`, `rich`, `click`...
//! Bindings follow Python's scoping (function, class and comprehension scopes; a name bound
//! anywhere in a function is local to all of it). The checks per call are in `python_calls`.

use super::python_calls;
use super::python_redirect::{self, Redirects};
use super::scope::{agree, every_expr, Binding, Bindings, Members, Value};
use super::syntax::Fields;
use super::syntax::{self, args, contains, string_content, text, MAX_RESOLVE_DEPTH};
use super::{Hit, Lang, Text};
use tree_sitter::Node;

/// Modules whose members `module_member` knows; any other module, and any member of these
/// that is not in `module_member` (`sys.maxsize`, `os.environ`), leads nowhere.
const MEMBER_MODULES: &[&str] = &[
    "sys",
    "builtins",
    "rich",
    "rich.console",
    "rich.logging",
    "click",
    "typer",
    "logging",
    "os",
    "loguru",
    "json",
    "contextlib",
    "pprint",
    "structlog",
];

/// True if members of `module` (or of its members) can mean something to the rules.
fn module_leads_somewhere(module: &str) -> bool {
    MEMBER_MODULES.iter().any(|m| {
        m.strip_prefix(module)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
    })
}

/// What an expression denotes, as far as stdout is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Sym {
    Module(String),
    Print,
    RichPrint,
    Echo,
    Stdout,
    Stderr,
    StdoutWrite(String),
    StdoutFileno,
    StdoutFd,
    OsWrite,
    BasicConfig,
    StreamHandler,
    RichConsole,
    RichHandler,
    Loguru,
    LoguruAdd,
    JsonDumps,
    StructlogPrint,
    RedirectStdout,
    PPrint,
}

/// Module members that matter, as (module, attribute, meaning).
fn module_member(module: &str, attr: &str) -> Sym {
    match (module, attr) {
        ("sys", "stdout" | "__stdout__") => Sym::Stdout,
        ("sys", "stderr" | "__stderr__") => Sym::Stderr,
        ("builtins", "print") => Sym::Print,
        ("rich", "print") => Sym::RichPrint,
        ("rich.console", "Console") => Sym::RichConsole,
        ("rich.logging", "RichHandler") => Sym::RichHandler,
        ("click" | "typer", "echo" | "secho") => Sym::Echo,
        ("logging", "basicConfig") => Sym::BasicConfig,
        ("logging", "StreamHandler") => Sym::StreamHandler,
        ("os", "write") => Sym::OsWrite,
        ("loguru", "logger") => Sym::Loguru,
        ("json", "dumps") => Sym::JsonDumps,
        ("contextlib", "redirect_stdout") => Sym::RedirectStdout,
        ("pprint", "pprint" | "pp") => Sym::PPrint,
        (
            "structlog",
            "PrintLoggerFactory" | "PrintLogger" | "WriteLoggerFactory" | "WriteLogger",
        ) => Sym::StructlogPrint,
        _ => Sym::Module(format!("{module}.{attr}")),
    }
}

fn member(of: &Sym, attr: &str) -> Option<Sym> {
    Some(match (of, attr) {
        (Sym::Module(m), a) => module_member(m, a),
        (Sym::Stdout, "write" | "writelines") => Sym::StdoutWrite(attr.to_string()),
        (Sym::Stdout, "buffer") => Sym::Stdout,
        (Sym::Stdout, "fileno") => Sym::StdoutFileno,
        (Sym::Stderr, "buffer") => Sym::Stderr,
        (Sym::Loguru, "add") => Sym::LoguruAdd,
        _ => return None,
    })
}

const SCOPES: &[&str] = &[
    "module",
    "function_definition",
    "lambda",
    "class_definition",
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
];

const VISIT: &[&str] = &[
    "call",
    "pair",
    "import_statement",
    "import_from_statement",
    "function_definition",
    "class_definition",
    "lambda",
    "assignment",
    "named_expression",
    "augmented_assignment",
    "for_statement",
    "for_in_clause",
    "as_pattern_target",
    "with_statement",
];

pub(super) struct Py<'t> {
    pub src: &'t [u8],
    pub bindings: Bindings<'t>,
    pub imports_logging: bool,
    pub redirects: Redirects,
    /// `self.out = sys.stdout` and class attributes.
    pub members: Members<'t>,
    /// Every function and lambda, in source order (to hide class bodies from them).
    functions: Vec<Node<'t>>,
}

pub fn scan(lang: Lang, root: Node<'_>, src: &[u8], out: &mut Vec<Hit>) {
    let (py, calls, pairs) = collect(lang, root, src);
    check(&py, calls, pairs, out);
}

/// `widen_ranges`, then, if the parse will do, `scan`, from one walk of the tree.
pub fn widen_or_scan(
    lang: Lang,
    root: Node<'_>,
    file: &Text<'_>,
    ranges: &[tree_sitter::Range],
    out: &mut Vec<Hit>,
) -> Option<Vec<tree_sitter::Range>> {
    let (py, calls, pairs) = collect(lang, root, file.src);
    let wider = wider(&py, file, ranges);
    if wider.is_none() {
        check(&py, calls, pairs, out);
    }
    wider
}

fn check<'t>(py: &Py<'t>, calls: Vec<Node<'t>>, pairs: Vec<Node<'t>>, out: &mut Vec<Hit>) {
    for call in calls {
        python_calls::check_call(py, call, out);
    }
    if py.imports_logging {
        for pair in pairs {
            python_calls::check_dict_config(py, pair, out);
        }
    }
}

/// The file's bindings, with the calls and dictionary pairs to check.
fn collect<'t>(
    lang: Lang,
    root: Node<'t>,
    src: &'t [u8],
) -> (Py<'t>, Vec<Node<'t>>, Vec<Node<'t>>) {
    let mut py = Py {
        src,
        bindings: Bindings::default(),
        imports_logging: false,
        redirects: Redirects::default(),
        members: Members::default(),
        functions: Vec::new(),
    };
    let mut calls = Vec::new();
    let mut pairs = Vec::new();
    let (mut stdout_assignments, mut withs) = (Vec::new(), Vec::new());
    let scopes = syntax::kinds(lang, SCOPES);
    syntax::walk(root, syntax::kinds(lang, VISIT), |node, ancestors| {
        let Some(scope) = syntax::nearest(ancestors, scopes) else {
            return;
        };
        match node.kind() {
            "call" => calls.push(node),
            "pair" => pairs.push(node),
            "import_statement" => py.bind_import(node, scope),
            "import_from_statement" => py.bind_from_import(node, scope),
            "function_definition" | "class_definition" => {
                if node.kind() == "function_definition" {
                    py.functions.push(node);
                }
                if let Some(name) = node.field("name") {
                    py.bind_targets(name, scope, None);
                }
                // A method: its first parameter is the instance (`self`).
                let receiver = node
                    .field("parameters")
                    .and_then(|p| args(p).into_iter().next())
                    .filter(|p| p.kind() == "identifier");
                if let (Some(receiver), "class_definition") = (receiver, scope.kind()) {
                    py.members.add_method(node, text(receiver, src), scope);
                }
                if let Some(params) = node.field("parameters") {
                    py.bind_parameters(params, node);
                }
            }
            "lambda" => {
                py.functions.push(node);
                if let Some(params) = node.field("parameters") {
                    py.bind_parameters(params, node);
                }
            }
            "assignment" => {
                if let Some(left) = node.field("left") {
                    let right = node.field("right");
                    py.bind_targets(left, scope, right);
                }
                if python_redirect::assigns_stdout(node, src) {
                    stdout_assignments.push(node);
                }
                py.note_member(node, scope);
            }
            "with_statement" => withs.push(node),
            "named_expression" => {
                if let Some(name) = node.field("name") {
                    py.bind_targets(name, scope, node.field("value"));
                }
            }
            "augmented_assignment" | "for_statement" | "for_in_clause" => {
                if let Some(left) = node.field("left") {
                    py.bind_targets(left, scope, None);
                }
            }
            "as_pattern_target" => py.bind_targets(node, scope, None),
            _ => {}
        }
    });
    py.redirects = Redirects::find(&py, &stdout_assignments, &withs);
    (py, calls, pairs)
}

/// After a parse of `ranges` (see `python_window`): None if no left-out statement uses a
/// name the parsed part binds to anything the rules follow (`p = print`, `import sys as s`,
/// `self.out = sys.stdout`) or defines such a name again, else the ranges with the statements
/// that mention those names (empty ranges: parse the whole file).
pub fn widen_ranges(
    lang: Lang,
    root: Node<'_>,
    file: &Text<'_>,
    ranges: &[tree_sitter::Range],
) -> Option<Vec<tree_sitter::Range>> {
    wider(&collect(lang, root, file.src).0, file, ranges)
}

fn wider(
    py: &Py<'_>,
    file: &Text<'_>,
    ranges: &[tree_sitter::Range],
) -> Option<Vec<tree_sitter::Range>> {
    let src = file.src;
    // `import re` and `from os import environ` lead nowhere; `import sys` is followed only
    // through words that keep a definition anyway (`sys.stdout`); `import rich.console as rc`
    // is followed as `rc`.
    let leads_somewhere = |name: &str, sym: Option<Sym>| match sym {
        Some(Sym::Module(module)) => module_leads_somewhere(&module) && name != module,
        other => other.is_some(),
    };
    let bound = py.bindings.all().filter(|(name, bound)| {
        bound
            .iter()
            .any(|b| leads_somewhere(name, py.resolve_value(&b.value, 0)))
    });
    let members = py
        .members
        .all()
        .filter(|(_, values)| values.iter().any(|v| py.resolve(*v).is_some()));
    let used: Vec<&str> = bound
        .map(|(name, _)| name)
        .chain(members.map(|(name, _)| name))
        .filter(|name| super::js_window::used_outside(src, ranges, name))
        .collect();
    if used.is_empty() {
        return None;
    }
    // Parse again with the definitions that use them (empty ranges parse the whole file).
    Some(super::python_words::window(file, &used).unwrap_or_default())
}

impl<'t> Py<'t> {
    /// A class body's names are not visible inside the functions it defines.
    fn visible(&self, binding: &Binding<'t>, at: Node<'t>) -> bool {
        let class = binding.scope;
        if class.kind() != "class_definition" {
            return true;
        }
        // Functions are in source order: those starting inside the class, up to `at`.
        let first = self
            .functions
            .partition_point(|f| f.start_byte() <= class.start_byte());
        let last = self
            .functions
            .partition_point(|f| f.start_byte() <= at.start_byte());
        !self.functions[first..last.max(first)]
            .iter()
            .any(|f| contains(*f, at) && contains(class, *f))
    }

    /// What a bound name means at `at`; None if it is free or not followed.
    /// True when nothing binds `name` where `at` is (no import, assignment or parameter).
    pub(super) fn is_unbound(&self, name: &str, at: Node<'t>) -> bool {
        self.bindings
            .lookup(name, at, |b, n| self.visible(b, n))
            .is_empty()
    }

    pub(super) fn resolve_name_at(&self, name: &str, at: Node<'t>) -> Option<Sym> {
        let bound = self.bindings.lookup(name, at, |b, n| self.visible(b, n));
        agree(bound.iter().map(|b| self.resolve_value(&b.value, 1)))
    }

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
                let bound = self.bindings.lookup(name, node, |b, n| self.visible(b, n));
                if bound.is_empty() {
                    return (name == "print").then_some(Sym::Print);
                }
                agree(
                    bound
                        .iter()
                        .map(|b| self.resolve_value(&b.value, depth + 1)),
                )
            }
            "attribute" => {
                let object = node.field("object")?;
                let attribute = text(node.field("attribute")?, self.src);
                if object.kind() == "identifier" {
                    let receiver = text(object, self.src);
                    let values = self.members.of_receiver(receiver, attribute, node);
                    if !values.is_empty() {
                        return agree(values.iter().map(|v| self.resolve_at(*v, depth + 1)));
                    }
                }
                let object = self.resolve_at(object, depth + 1)?;
                let resolved = member(&object, attribute);
                // `sys.stdout` read where it has been redirected is not the process's stdout.
                let redirected = object == Sym::Module("sys".into())
                    && resolved == Some(Sym::Stdout)
                    && self.redirects.covers(node);
                if redirected {
                    return None;
                }
                resolved
            }
            "call" => match self.resolve_at(node.field("function")?, depth + 1)? {
                Sym::StdoutFileno => Some(Sym::StdoutFd),
                _ => None,
            },
            "parenthesized_expression" => self.resolve_at(node.named_child(0)?, depth + 1),
            "assignment" => self.resolve_at(node.field("right")?, depth + 1),
            _ => None,
        }
    }

    fn resolve_value(&self, value: &Value<'t>, depth: u32) -> Option<Sym> {
        match value {
            Value::Expr(expr) => self.resolve_at(*expr, depth),
            Value::Import {
                module,
                member: None,
            } => Some(Sym::Module(module.clone())),
            Value::Import {
                module,
                member: Some(m),
            } => Some(module_member(module, m)),
            Value::Member { .. } | Value::Opaque => None,
        }
    }

    /// True if the text written is one JSON document on one line: the stdio protocol itself.
    pub(super) fn is_json_message(&self, node: Node<'t>, depth: u32) -> bool {
        if depth > MAX_RESOLVE_DEPTH {
            return false;
        }
        match node.kind() {
            "call" => {
                let Some(callee) = node.field("function") else {
                    return false;
                };
                // `json.dumps(x).encode()` is the same line as bytes.
                if callee.kind() == "attribute"
                    && callee
                        .field("attribute")
                        .is_some_and(|a| text(a, self.src) == "encode")
                {
                    return callee
                        .field("object")
                        .is_some_and(|o| self.is_json_message(o, depth + 1));
                }
                // `indent=` spreads the document over several lines, which breaks framing.
                self.resolve(callee) == Some(Sym::JsonDumps)
                    && node.field("arguments").is_none_or(|a| {
                        python_calls::keyword(a, "indent", self.src)
                            .is_none_or(|v| text(v, self.src) == "None")
                    })
            }
            "binary_operator" => {
                let (Some(left), Some(right)) = (node.field("left"), node.field("right")) else {
                    return false;
                };
                self.is_json_message(left, depth + 1)
                    && string_content(right, self.src).is_some_and(|s| s == "\\n")
            }
            "string" => {
                let parts = args(node);
                let interpolations: Vec<Node<'t>> = parts
                    .iter()
                    .copied()
                    .filter(|p| p.kind() == "interpolation")
                    .collect();
                interpolations.len() == 1
                    && interpolations[0]
                        .field("expression")
                        .is_some_and(|e| self.is_json_message(e, depth + 1))
                    && parts.iter().all(|p| {
                        matches!(p.kind(), "interpolation" | "string_start" | "string_end")
                            || text(*p, self.src) == "\\n"
                    })
            }
            "parenthesized_expression" => node
                .named_child(0)
                .is_some_and(|e| self.is_json_message(e, depth + 1)),
            "identifier" => {
                let bound = self
                    .bindings
                    .lookup(text(node, self.src), node, |b, n| self.visible(b, n));
                every_expr(&bound, |e| self.is_json_message(e, depth + 1))
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_modules_with_members_the_rules_know_lead_somewhere() {
        for module in ["sys", "rich", "rich.console", "logging", "contextlib"] {
            assert!(module_leads_somewhere(module), "{module}");
        }
        for module in [
            "sys.maxsize",
            "os.environ",
            "contextlib.suppress",
            "richer",
            "re",
        ] {
            assert!(!module_leads_somewhere(module), "{module}");
        }
        // Every module `module_member` knows a member of is listed.
        for (module, attr) in [
            ("sys", "stdout"),
            ("rich.console", "Console"),
            ("os", "write"),
        ] {
            assert!(!matches!(module_member(module, attr), Sym::Module(_)));
            assert!(MEMBER_MODULES.contains(&module));
        }
    }
}
