//! Which declaration a name refers to: a per-file table of bindings, looked up by the
//! innermost scope that contains the use. Each language decides what binds and where.

use super::syntax::contains;
use std::collections::HashMap;
use tree_sitter::Node;

/// What a name was bound to, as far as the scan can follow it.
#[derive(Debug, Clone)]
pub enum Value<'t> {
    /// `name = expr`.
    Expr(Node<'t>),
    /// `{ a: { b: name } } = expr`: the member path taken from `expr`.
    Member { source: Node<'t>, path: Vec<String> },
    /// An import: `member` of `module`, or the module itself.
    Import {
        module: String,
        member: Option<String>,
    },
    /// A parameter, loop variable, definition or anything else not followed.
    Opaque,
}

#[derive(Debug, Clone)]
pub struct Binding<'t> {
    /// The node whose extent is the binding's scope.
    pub scope: Node<'t>,
    pub value: Value<'t>,
}

/// Every binding in one file, by name.
#[derive(Debug, Default)]
pub struct Bindings<'t> {
    by_name: HashMap<String, Vec<Binding<'t>>>,
}

impl<'t> Bindings<'t> {
    pub fn add(&mut self, name: &str, scope: Node<'t>, value: Value<'t>) {
        if name.is_empty() {
            return;
        }
        self.by_name
            .entry(name.to_string())
            .or_default()
            .push(Binding { scope, value });
    }

    /// Every bound name with its bindings.
    pub fn all(&self) -> impl Iterator<Item = (&str, &[Binding<'t>])> {
        self.by_name.iter().map(|(n, b)| (n.as_str(), b.as_slice()))
    }

    /// The bindings of `name` in the innermost scope around `at` that binds it (all of them if
    /// it is bound several times there). Empty when the name is free: a global or builtin.
    /// `visible` lets a language hide scopes (Python class bodies from their methods).
    pub fn lookup(
        &self,
        name: &str,
        at: Node<'t>,
        visible: impl Fn(&Binding<'t>, Node<'t>) -> bool,
    ) -> Vec<&Binding<'t>> {
        let Some(all) = self.by_name.get(name) else {
            return Vec::new();
        };
        let candidates: Vec<&Binding<'t>> = all
            .iter()
            .filter(|b| contains(b.scope, at) && visible(b, at))
            .collect();
        let Some(innermost) = candidates
            .iter()
            .map(|b| (b.scope.end_byte() - b.scope.start_byte(), b.scope.id()))
            .min()
        else {
            return Vec::new();
        };
        candidates
            .into_iter()
            .filter(|b| b.scope.id() == innermost.1)
            .collect()
    }
}

/// Resolves every binding with `resolve`; the result only if all of them agree.
pub fn agree<T: PartialEq>(results: impl IntoIterator<Item = Option<T>>) -> Option<T> {
    let mut agreed: Option<T> = None;
    for result in results {
        let value = result?;
        match &agreed {
            None => agreed = Some(value),
            Some(a) if *a == value => {}
            Some(_) => return None,
        }
    }
    agreed
}

/// Whether a name is bound and every binding is an expression that `holds`: `agree` for a
/// yes-or-no question. A parameter, an import or any value not followed answers no.
pub fn every_expr<'t>(bound: &[&Binding<'t>], mut holds: impl FnMut(Node<'t>) -> bool) -> bool {
    !bound.is_empty()
        && bound.iter().all(|b| match b.value {
            Value::Expr(e) => holds(e),
            _ => false,
        })
}

/// Attributes a class gives its instances (`self.out = ...`, `this.out = ...`, class fields),
/// and the methods whose receiver (`self`, `this`) refers to them.
#[derive(Debug, Default)]
pub struct Members<'t> {
    values: HashMap<(usize, String), Vec<Node<'t>>>,
    /// (method, receiver name, class id), in source order.
    methods: Vec<(Node<'t>, String, usize)>,
}

impl<'t> Members<'t> {
    pub fn add(&mut self, class: Node<'t>, name: &str, value: Node<'t>) {
        self.add_to(class.id(), name, value);
    }

    fn add_to(&mut self, class: usize, name: &str, value: Node<'t>) {
        self.values
            .entry((class, name.to_string()))
            .or_default()
            .push(value);
    }

    /// Records `receiver.name = value` if `receiver` is the receiver of the method around `at`.
    pub fn add_through(&mut self, receiver: &str, name: &str, value: Node<'t>, at: Node<'t>) {
        if let Some((r, class)) = self.method_at(at) {
            if r == receiver {
                self.add_to(class, name, value);
            }
        }
    }

    fn method_at(&self, at: Node<'t>) -> Option<(String, usize)> {
        self.methods
            .iter()
            .filter(|(m, _, _)| contains(*m, at))
            .min_by_key(|(m, _, _)| m.end_byte() - m.start_byte())
            .map(|(_, r, c)| (r.clone(), *c))
    }

    pub fn add_method(&mut self, method: Node<'t>, receiver: &str, class: Node<'t>) {
        self.methods
            .push((method, receiver.to_string(), class.id()));
    }

    /// The values given to `receiver.name` where `at` is, if `receiver` is the receiver of
    /// the innermost method around `at`.
    pub fn of_receiver(&self, receiver: &str, name: &str, at: Node<'t>) -> &[Node<'t>] {
        match self.method_at(at) {
            Some((r, class)) if r == receiver => self
                .values
                .get(&(class, name.to_string()))
                .map_or(&[], Vec::as_slice),
            _ => &[],
        }
    }

    /// Every attribute name with its values.
    pub fn all(&self) -> impl Iterator<Item = (&str, &[Node<'t>])> {
        self.values
            .iter()
            .map(|((_, n), v)| (n.as_str(), v.as_slice()))
    }
}
