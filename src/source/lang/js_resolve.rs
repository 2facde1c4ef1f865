//! JavaScript and TypeScript names: what `console`, `process.stdout`, `pino`... denote at each
//! use, through imports, `require`, aliases, destructuring and scopes (`var` to the function,
//! `let`/`const`/classes to the block, parameters to their function).

use super::scope::{agree, every_expr, Bindings, Members, Value};
use super::syntax::Fields;
use super::syntax::{args, string_content, text, MAX_RESOLVE_DEPTH};
use tree_sitter::Node;

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

pub(super) fn global(name: &str) -> Option<Sym> {
    Some(match name {
        "console" => Sym::Console,
        "process" => Sym::Process,
        "globalThis" | "global" | "window" => Sym::Global,
        "require" => Sym::Require,
        "JSON" => Sym::Json,
        _ => return None,
    })
}

/// One file's bindings and the resolver over them.
pub(super) struct Js<'t> {
    pub src: &'t [u8],
    pub bindings: Bindings<'t>,
    /// Assignments to a stdout writer (`console.log = console.error`, and back), in source
    /// order: the writer, where the assignment ends, and whether it now writes elsewhere.
    pub redirects: Vec<(Sym, usize, bool)>,
    /// `this.out = ...` and class fields.
    pub members: Members<'t>,
}

impl Sym {
    /// A method that writes to stdout when called.
    pub(super) fn writes_stdout(&self, stdout_methods: &[&str]) -> bool {
        match self {
            Sym::ConsoleMethod(m) => stdout_methods.contains(&m.as_str()),
            Sym::StdoutMethod(_) => true,
            _ => false,
        }
    }
}

impl<'t> Js<'t> {
    /// True if the last assignment to `sym` before `node` sent it away from stdout.
    fn redirected(&self, sym: &Sym, node: Node<'t>) -> bool {
        self.redirects
            .iter()
            .rev()
            .find(|(s, at, _)| s == sym && *at <= node.start_byte())
            .is_some_and(|(_, _, away)| *away)
    }

    /// A writer read from its object where it has been replaced is not the stdout writer;
    /// a copy taken before (`const write = process.stdout.write.bind(...)`) still is.
    fn unless_redirected(&self, sym: Option<Sym>, node: Node<'t>) -> Option<Sym> {
        sym.filter(|s| !self.redirected(s, node))
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
                let object = node.field("object")?;
                if object.kind() == "this" {
                    let property = text(node.field("property")?, self.src);
                    let values = self.members.of_receiver("this", property, node);
                    return agree(values.iter().map(|v| self.resolve_at(*v, depth + 1)));
                }
                let object = self.resolve_at(object, depth + 1)?;
                let property = text(node.field("property")?, self.src);
                self.unless_redirected(member(&object, property), node)
            }
            "subscript_expression" => {
                let object = self.resolve_at(node.field("object")?, depth + 1)?;
                let index = string_content(node.field("index")?, self.src)?;
                self.unless_redirected(member(&object, &index), node)
            }
            "parenthesized_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression" => self.resolve_at(node.named_child(0)?, depth + 1),
            "call_expression" => {
                let callee = node.field("function")?;
                // `console.log.bind(console)` is still console.log.
                if callee.kind() == "member_expression"
                    && callee
                        .field("property")
                        .is_some_and(|p| text(p, self.src) == "bind")
                {
                    let bound = self.resolve_at(callee.field("object")?, depth + 1)?;
                    return matches!(bound, Sym::ConsoleMethod(_) | Sym::StdoutMethod(_))
                        .then_some(bound);
                }
                match self.resolve_at(callee, depth + 1)? {
                    Sym::Require => {
                        let arguments = node.field("arguments")?;
                        module(&string_content(*args(arguments).first()?, self.src)?)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    pub(super) fn resolve_value(&self, value: &Value<'t>, depth: u32) -> Option<Sym> {
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
    pub(super) fn is_json_message(&self, node: Node<'t>, depth: u32) -> bool {
        if depth > MAX_RESOLVE_DEPTH {
            return false;
        }
        match node.kind() {
            "call_expression" => {
                let is_stringify = node
                    .field("function")
                    .is_some_and(|f| self.resolve(f) == Some(Sym::JsonStringify));
                let arguments = node.field("arguments").map(args).unwrap_or_default();
                // A third argument indents the JSON over several lines, which breaks framing.
                is_stringify
                    && (arguments.len() < 3
                        || matches!(
                            text(arguments[2], self.src),
                            "0" | "undefined" | "null" | "''" | "\"\""
                        ))
            }
            "binary_expression" => {
                let (Some(left), Some(right)) = (node.field("left"), node.field("right")) else {
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
                every_expr(&bound, |e| self.is_json_message(e, depth + 1))
            }
            _ => false,
        }
    }
}

/// A string literal that only ends a line (`"\n"`).
pub(super) fn is_line_end(node: Node<'_>, src: &[u8]) -> bool {
    string_content(node, src).is_some_and(|s| matches!(s.as_str(), "\\n" | "\\r\\n"))
}
