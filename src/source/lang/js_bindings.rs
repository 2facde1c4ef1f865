//! JavaScript and TypeScript bindings: one walk over the tree records what every name is
//! bound to, in which scope, and collects the calls and `new`s to check.

use super::javascript::STDOUT_METHODS;
use super::js_resolve::Js;
use super::scope::{Bindings, Members, Value};
use super::syntax::Fields;
use super::syntax::{self, args, string_content, text, KindSet, MAX_PATTERN_DEPTH};
use super::Lang;
use tree_sitter::Node;

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
    "assignment_expression",
    "field_definition",
    "method_definition",
];

/// One walk over the tree: every binding, and the calls and `new`s to check.
pub(super) fn collect<'t>(lang: Lang, root: Node<'t>, src: &'t [u8]) -> (Js<'t>, Vec<Node<'t>>) {
    let mut js = Js {
        src,
        bindings: Bindings::default(),
        redirects: Vec::new(),
        members: Members::default(),
    };
    let mut assignments = Vec::new();
    let classes = syntax::kinds(lang, &["class_declaration", "class"]);
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
                if let (Some(name), Some(scope)) = (node.field("name"), scope) {
                    js.bindings.add(text(name, src), scope, Value::Opaque);
                }
            }
            "formal_parameters" => {
                if let Some(function) = ancestors.last() {
                    js.bind_pattern(node, *function, None, Vec::new());
                }
            }
            "arrow_function" => {
                if let Some(param) = node.field("parameter") {
                    js.bind_pattern(param, node, None, Vec::new());
                }
            }
            "catch_clause" => {
                if let Some(param) = node.field("parameter") {
                    js.bind_pattern(param, node, None, Vec::new());
                }
            }
            "for_in_statement" => {
                if let Some(left) = node.field("left") {
                    js.bind_pattern(left, node, None, Vec::new());
                }
            }
            "import_statement" => js.bind_import(node, root),
            "assignment_expression" => {
                assignments.push(node);
                // `this.out = process.stdout` inside a class.
                let left = node.field("left");
                let this_member = left.filter(|l| {
                    l.kind() == "member_expression"
                        && l.field("object").is_some_and(|o| o.kind() == "this")
                });
                let property = this_member.and_then(|l| l.field("property"));
                let class = syntax::nearest(ancestors, classes);
                if let (Some(property), Some(value), Some(class)) =
                    (property, node.field("right"), class)
                {
                    js.members.add(class, text(property, src), value);
                }
            }
            "field_definition" => {
                let class = syntax::nearest(ancestors, classes);
                let property = node.field("property");
                if let (Some(property), Some(value), Some(class)) =
                    (property, node.field("value"), class)
                {
                    js.members.add(class, text(property, src), value);
                }
            }
            "method_definition" => {
                if let Some(class) = syntax::nearest(ancestors, classes) {
                    js.members.add_method(node, "this", class);
                }
            }
            _ => {}
        },
    );
    // `console.log = console.error` and back: where the writer is replaced and restored
    // (both sides resolved as written, before any replacement is taken into account).
    let mut redirects = Vec::new();
    for assignment in assignments {
        let (Some(left), Some(right)) = (assignment.field("left"), assignment.field("right"))
        else {
            continue;
        };
        let Some(replaced) = js.resolve(left).filter(|r| r.writes_stdout(STDOUT_METHODS)) else {
            continue;
        };
        let away = !js
            .resolve(right)
            .is_some_and(|r| r.writes_stdout(STDOUT_METHODS));
        redirects.push((replaced, assignment.end_byte(), away));
    }
    js.redirects = redirects;
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
        let (Some(scope), Some(name)) = (syntax::nearest(ancestors, kinds), node.field("name"))
        else {
            return;
        };
        let value = node.field("value");
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
        self.bind_pattern_at(pattern, scope, source, path, 0);
    }

    fn bind_pattern_at(
        &mut self,
        pattern: Node<'t>,
        scope: Node<'t>,
        source: Option<Node<'t>>,
        path: Vec<String>,
        depth: u32,
    ) {
        if depth > MAX_PATTERN_DEPTH {
            return;
        }
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
                            let (Some(key), Some(val)) = (child.field("key"), child.field("value"))
                            else {
                                continue;
                            };
                            let key = string_content(key, self.src)
                                .unwrap_or_else(|| text(key, self.src).to_string());
                            let mut p = path.clone();
                            p.push(key);
                            self.bind_pattern_at(val, scope, source, p, depth + 1);
                        }
                        "object_assignment_pattern" => {
                            if let Some(left) = child.field("left") {
                                self.bind_pattern_at(left, scope, source, path.clone(), depth + 1);
                            }
                        }
                        "shorthand_property_identifier_pattern" => {
                            self.bind_pattern_at(child, scope, source, path.clone(), depth + 1)
                        }
                        _ => self.bind_pattern_at(child, scope, None, Vec::new(), depth + 1),
                    }
                }
            }
            "assignment_pattern" => {
                if let Some(left) = pattern.field("left") {
                    self.bind_pattern_at(left, scope, source, path, depth + 1);
                }
            }
            "required_parameter" | "optional_parameter" => {
                if let Some(p) = pattern.field("pattern") {
                    self.bind_pattern_at(p, scope, None, Vec::new(), depth + 1);
                }
            }
            // Parameter lists, array patterns, rest elements: every name inside is opaque.
            "formal_parameters" | "array_pattern" | "rest_pattern" => {
                for child in args(pattern) {
                    self.bind_pattern_at(child, scope, None, Vec::new(), depth + 1);
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
            .field("source")
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
                        .field("source")
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
                        let Some(name) = spec.field("name") else {
                            continue;
                        };
                        let local = spec.field("alias").unwrap_or(name);
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
}
