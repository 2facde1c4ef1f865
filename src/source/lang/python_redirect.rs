//! Python code that moves stdout out of the way: after `sys.stdout = sys.stderr`, and inside
//! `with contextlib.redirect_stdout(sys.stderr):`, `print` and `sys.stdout` write to stderr.

use super::python::{Py, Sym};
use super::syntax::Fields;
use super::syntax::{args, text};
use tree_sitter::Node;

/// Where `sys.stdout` no longer means the process's stdout.
#[derive(Debug, Default)]
pub(super) struct Redirects {
    /// `sys.stdout = ...` assignments in source order: where each ends, and whether it sends
    /// stdout away (`sys.stderr`) or back (`sys.__stdout__`).
    assignments: Vec<(usize, bool)>,
    /// Bodies of `with redirect_stdout(<not stdout>):`.
    bodies: Vec<(usize, usize)>,
}

impl Redirects {
    /// `assignments` are `X.stdout = Y` nodes; `withs` are `with` statements.
    pub(super) fn find<'t>(py: &Py<'t>, assignments: &[Node<'t>], withs: &[Node<'t>]) -> Self {
        let away =
            |value: Option<Node<'t>>| value.is_some_and(|v| py.resolve(v) != Some(Sym::Stdout));
        let assignments = assignments
            .iter()
            .filter(|a| {
                let target = a.field("left").and_then(|l| l.field("object"));
                target.is_some_and(|t| py.resolve(t) == Some(Sym::Module("sys".into())))
            })
            .map(|a| (a.end_byte(), away(a.field("right"))))
            .collect();
        let mut bodies = Vec::new();
        for with in withs {
            let Some(body) = with.field("body") else {
                continue;
            };
            let clause = args(*with).into_iter().find(|c| c.kind() == "with_clause");
            let redirects = clause
                .map(args)
                .unwrap_or_default()
                .into_iter()
                .any(|item| {
                    let call = item.field("value").filter(|v| v.kind() == "call");
                    call.is_some_and(|call| {
                        let target = call
                            .field("arguments")
                            .and_then(|a| args(a).into_iter().next());
                        call.field("function")
                            .is_some_and(|f| py.resolve(f) == Some(Sym::RedirectStdout))
                            && away(target)
                    })
                });
            if redirects {
                bodies.push((body.start_byte(), body.end_byte()));
            }
        }
        Self {
            assignments,
            bodies,
        }
    }

    /// True if stdout is redirected where `node` runs.
    pub(super) fn covers(&self, node: Node<'_>) -> bool {
        self.assignments
            .iter()
            .rev()
            .find(|(at, _)| *at <= node.start_byte())
            .is_some_and(|(_, away)| *away)
            || self
                .bodies
                .iter()
                .any(|(s, e)| *s <= node.start_byte() && node.end_byte() <= *e)
    }
}

/// `sys.stdout = ...` (an assignment to an attribute named stdout).
pub(super) fn assigns_stdout(assignment: Node<'_>, src: &[u8]) -> bool {
    assignment
        .field("left")
        .filter(|l| l.kind() == "attribute")
        .and_then(|l| l.field("attribute"))
        .is_some_and(|a| text(a, src) == "stdout")
}
