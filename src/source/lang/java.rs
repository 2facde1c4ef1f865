//! Java: `System.out.print*` (also through `import static java.lang.System.out` and locals),
//! and logging pointed at `System.out` (`new StreamHandler(System.out, ...)`, a console
//! appender's target, slf4j-simple's `logFile`).

use super::prefilter::Prefilter;
use super::scope::{agree, every_expr, Bindings, Value};
use super::syntax::Fields;
use super::syntax::{self, args, string_content, text, MAX_RESOLVE_DEPTH};
use super::{quoted, Hit, Lang, JSON_RPC_CHANNEL};
use tree_sitter::Node;

/// What a file must mention for a rule to match (see `prefilter`): `System` and `out`
/// (`System.out`, however spaced, its static import, the `"System.out"` targets of logger
/// setters), or a `SYSTEM_OUT` target.
pub(super) static PREFILTER: Prefilter =
    Prefilter::new(|| vec![vec![vec!["System"], vec!["out"]], vec![vec!["SYSTEM_OUT"]]]);

pub(super) const CHANNEL: &str = "stdout, the channel of the stdio transport's JSON-RPC messages";
/// Serialiser methods that produce one JSON document on one line.
pub(super) const JSON_METHODS: &[&str] = &[
    "writeValueAsString",
    "toJson",
    "toJSONString",
    "encodeToString",
];
const PRINT_METHODS: &[&str] = &["print", "println", "printf", "format", "write", "append"];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Sym {
    System,
    Stdout,
    Stderr,
}

const SCOPES: &[&str] = &[
    "program",
    "class_body",
    "block",
    "method_declaration",
    "constructor_declaration",
    "lambda_expression",
    "for_statement",
    "enhanced_for_statement",
    "catch_clause",
];

const VISIT: &[&str] = &[
    "method_invocation",
    "object_creation_expression",
    "import_declaration",
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "variable_declarator",
    "formal_parameter",
    "catch_formal_parameter",
    "enhanced_for_statement",
];

struct Java<'t> {
    src: &'t [u8],
    locals: Bindings<'t>,
    static_out: bool,
    shadows_system: bool,
}

pub fn scan(lang: Lang, root: Node<'_>, src: &[u8], out: &mut Vec<Hit>) {
    let mut java = Java {
        src,
        locals: Bindings::default(),
        static_out: false,
        shadows_system: false,
    };
    let mut candidates = Vec::new();
    let scopes = syntax::kinds(lang, SCOPES);
    syntax::walk(
        root,
        syntax::kinds(lang, VISIT),
        |node, ancestors| match node.kind() {
            "method_invocation" | "object_creation_expression" => candidates.push(node),
            "import_declaration" => {
                let written: String = text(node, src)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                if written.starts_with("import static java.lang.System.out;")
                    || written.starts_with("import static java.lang.System.*;")
                {
                    java.static_out = true;
                }
            }
            "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
                if node.field("name").is_some_and(|n| text(n, src) == "System") =>
            {
                java.shadows_system = true;
            }
            "variable_declarator" => {
                let (Some(name), Some(scope)) =
                    (node.field("name"), syntax::nearest(ancestors, scopes))
                else {
                    return;
                };
                let value = node.field("value").map_or(Value::Opaque, Value::Expr);
                java.locals.add(text(name, src), scope, value);
            }
            "formal_parameter" | "catch_formal_parameter" | "enhanced_for_statement" => {
                let scope = if node.kind() == "enhanced_for_statement" {
                    Some(node)
                } else {
                    syntax::nearest(ancestors, scopes)
                };
                let (Some(name), Some(scope)) = (node.field("name"), scope) else {
                    return;
                };
                java.locals.add(text(name, src), scope, Value::Opaque);
            }
            _ => {}
        },
    );
    for node in candidates {
        if node.kind() == "method_invocation" {
            java.check_invocation(node, out);
        } else {
            java.check_creation(node, out);
        }
    }
}

impl<'t> Java<'t> {
    fn resolve(&self, node: Node<'t>, depth: u32) -> Option<Sym> {
        if depth > MAX_RESOLVE_DEPTH {
            return None;
        }
        match node.kind() {
            "identifier" => {
                let name = text(node, self.src);
                let bound = self.locals.lookup(name, node, |_, _| true);
                if !bound.is_empty() {
                    return agree(bound.iter().map(|b| match b.value {
                        Value::Expr(e) => self.resolve(e, depth + 1),
                        _ => None,
                    }));
                }
                match name {
                    "System" if !self.shadows_system => Some(Sym::System),
                    "out" if self.static_out => Some(Sym::Stdout),
                    _ => None,
                }
            }
            "field_access" => {
                let object = node.field("object")?;
                let owner = if text(object, self.src) == "java.lang.System" {
                    Some(Sym::System)
                } else {
                    self.resolve(object, depth + 1)
                };
                match (owner?, text(node.field("field")?, self.src)) {
                    (Sym::System, "out") => Some(Sym::Stdout),
                    (Sym::System, "err") => Some(Sym::Stderr),
                    _ => None,
                }
            }
            "parenthesized_expression" => self.resolve(node.named_child(0)?, depth + 1),
            _ => None,
        }
    }

    fn is_json(&self, node: Node<'t>, depth: u32) -> bool {
        if depth > MAX_RESOLVE_DEPTH {
            return false;
        }
        match node.kind() {
            "method_invocation" => node
                .field("name")
                .is_some_and(|n| JSON_METHODS.contains(&text(n, self.src))),
            "identifier" => {
                let bound = self.locals.lookup(text(node, self.src), node, |_, _| true);
                every_expr(&bound, |e| self.is_json(e, depth + 1))
            }
            _ => false,
        }
    }

    fn check_invocation(&self, call: Node<'t>, out: &mut Vec<Hit>) {
        let Some(name) = call.field("name") else {
            return;
        };
        let method = text(name, self.src);
        let arguments = call.field("arguments").map(args).unwrap_or_default();
        let Some(object) = call.field("object") else {
            return;
        };
        if PRINT_METHODS.contains(&method) && self.resolve(object, 0) == Some(Sym::Stdout) {
            // One JSON message per line is the protocol itself.
            if let ("println", [only]) = (method, arguments.as_slice()) {
                if self.is_json(*only, 0) {
                    return;
                }
            }
            let mut hit = Hit::write(
                call,
                format!(
                    "{} writes to {CHANNEL}; a client reading this output fails to parse it.",
                    quoted(object, self.src)
                ),
                "Write to System.err instead.",
            );
            if object.kind() == "field_access" {
                if let Some(field) = object.field("field") {
                    hit = hit.edit(field, "err", "Replace System.out with System.err");
                }
            }
            out.push(hit.prints(super::c_family_prints::call(method, &arguments, self.src)));
            return;
        }
        let literal = |i: usize| arguments.get(i).and_then(|a| string_content(*a, self.src));
        let to_stdout = match method {
            "setTarget" | "withTarget" => {
                literal(0).as_deref() == Some("System.out")
                    || arguments
                        .first()
                        .is_some_and(|a| text(*a, self.src).ends_with("SYSTEM_OUT"))
            }
            "setProperty" => {
                literal(0).as_deref() == Some("org.slf4j.simpleLogger.logFile")
                    && literal(1).as_deref() == Some("System.out")
            }
            _ => false,
        };
        if to_stdout {
            out.push(Hit::logger(
                call,
                format!("This logging configuration writes to System.out, {JSON_RPC_CHANNEL}."),
                "Target System.err instead.",
            ));
        }
    }

    /// `new StreamHandler(System.out, formatter)` (java.util.logging).
    fn check_creation(&self, node: Node<'t>, out: &mut Vec<Hit>) {
        let is_handler = node
            .field("type")
            .is_some_and(|t| text(t, self.src).ends_with("StreamHandler"));
        let arguments = node.field("arguments").map(args).unwrap_or_default();
        if is_handler
            && arguments
                .first()
                .is_some_and(|a| self.resolve(*a, 0) == Some(Sym::Stdout))
        {
            out.push(Hit::logger(
                node,
                format!("A logging StreamHandler on System.out writes log records to {CHANNEL}."),
                "Use a ConsoleHandler (System.err) or new StreamHandler(System.err, formatter).",
            ));
        }
    }
}
