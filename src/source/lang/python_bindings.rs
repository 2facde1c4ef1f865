//! Python bindings: what imports, assignments, definitions, parameters and `self.x = ...`
//! bind, and in which scope.

use super::python::Py;
use super::scope::Value;
use super::syntax::Fields;
use super::syntax::{args, text, MAX_PATTERN_DEPTH};
use tree_sitter::Node;

/// Names a `from MODULE import *` brings in that matter here.
const STAR_EXPORTS: &[(&str, &str)] = &[
    ("sys", "stdout"),
    ("sys", "stderr"),
    ("rich", "print"),
    ("rich.console", "Console"),
    ("rich.logging", "RichHandler"),
    ("click", "echo"),
    ("click", "secho"),
    ("logging", "basicConfig"),
    ("logging", "StreamHandler"),
    ("os", "write"),
    ("contextlib", "redirect_stdout"),
    ("pprint", "pprint"),
    ("pprint", "pp"),
];

impl<'t> Py<'t> {
    /// Binds the names assigned by a target (`a`, `a, b`, `(a, *b)`), not attributes, in
    /// `scope`: the scope around the assignment (a definition's own name binds outside it; a
    /// comprehension's loop variable inside the comprehension).
    pub(super) fn bind_targets(
        &mut self,
        target: Node<'t>,
        scope: Node<'t>,
        value: Option<Node<'t>>,
    ) {
        self.bind_targets_at(target, scope, value, 0);
    }

    fn bind_targets_at(
        &mut self,
        target: Node<'t>,
        scope: Node<'t>,
        value: Option<Node<'t>>,
        depth: u32,
    ) {
        if depth > MAX_PATTERN_DEPTH {
            return;
        }
        match target.kind() {
            "identifier" => {
                let value = value.map_or(Value::Opaque, Value::Expr);
                self.bindings.add(text(target, self.src), scope, value);
            }
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "tuple"
            | "list"
            | "parenthesized_expression"
            | "list_splat_pattern"
            | "list_splat"
            | "as_pattern_target" => {
                for child in args(target) {
                    self.bind_targets_at(child, scope, None, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// `self.out = value` in a method, or `out = value` in a class body.
    pub(super) fn note_member(&mut self, assignment: Node<'t>, scope: Node<'t>) {
        let (Some(left), Some(value)) = (assignment.field("left"), assignment.field("right"))
        else {
            return;
        };
        match left.kind() {
            "identifier" if scope.kind() == "class_definition" => {
                self.members.add(scope, text(left, self.src), value)
            }
            "attribute" => {
                let (Some(object), Some(attribute)) =
                    (left.field("object"), left.field("attribute"))
                else {
                    return;
                };
                if object.kind() == "identifier" {
                    let (receiver, name) = (text(object, self.src), text(attribute, self.src));
                    self.members.add_through(receiver, name, value, assignment);
                }
            }
            _ => {}
        }
    }

    pub(super) fn bind_parameters(&mut self, params: Node<'t>, function: Node<'t>) {
        for param in args(params) {
            let name = match param.kind() {
                "identifier" => Some(param),
                "default_parameter" | "typed_default_parameter" => param.field("name"),
                "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                    args(param).into_iter().find(|c| c.kind() == "identifier")
                }
                _ => None,
            };
            if let Some(name) = name {
                self.bindings
                    .add(text(name, self.src), function, Value::Opaque);
            }
        }
    }

    fn note_module(&mut self, module: &str) {
        if module == "logging" || module.starts_with("logging.") {
            self.imports_logging = true;
        }
    }

    pub(super) fn bind_import(&mut self, node: Node<'t>, scope: Node<'t>) {
        let mut cursor = node.walk();
        let names: Vec<Node<'t>> = node.children_by_field_name("name", &mut cursor).collect();
        for name in names {
            match name.kind() {
                // `import a.b` binds `a`.
                "dotted_name" => {
                    let full = text(name, self.src);
                    self.note_module(full);
                    let first = full.split('.').next().unwrap_or(full);
                    let value = Value::Import {
                        module: first.to_string(),
                        member: None,
                    };
                    self.bindings.add(first, scope, value);
                }
                "aliased_import" => {
                    let (Some(module), Some(alias)) = (name.field("name"), name.field("alias"))
                    else {
                        continue;
                    };
                    let module = text(module, self.src).to_string();
                    self.note_module(&module);
                    let alias = text(alias, self.src);
                    self.bindings.add(
                        alias,
                        scope,
                        Value::Import {
                            module,
                            member: None,
                        },
                    );
                }
                _ => {}
            }
        }
    }

    pub(super) fn bind_from_import(&mut self, node: Node<'t>, scope: Node<'t>) {
        let Some(module) = node.field("module_name") else {
            return;
        };
        // Relative imports name the project's own modules.
        if module.kind() != "dotted_name" {
            return;
        }
        let module = text(module, self.src).to_string();
        self.note_module(&module);
        let import = |member: &str| Value::Import {
            module: module.clone(),
            member: Some(member.to_string()),
        };
        if args(node).iter().any(|c| c.kind() == "wildcard_import") {
            for (m, attr) in STAR_EXPORTS {
                if *m == module {
                    self.bindings.add(attr, scope, import(attr));
                }
            }
        }
        let mut cursor = node.walk();
        let names: Vec<Node<'t>> = node.children_by_field_name("name", &mut cursor).collect();
        for name in names {
            let (imported, local) = match name.kind() {
                "dotted_name" => (text(name, self.src), text(name, self.src)),
                "aliased_import" => match (name.field("name"), name.field("alias")) {
                    (Some(n), Some(a)) => (text(n, self.src), text(a, self.src)),
                    _ => continue,
                },
                _ => continue,
            };
            self.bindings.add(local, scope, import(imported));
        }
    }
}
