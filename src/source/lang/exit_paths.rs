//! Paths that exit before any server starts, for `transport_branches`: a branch or a
//! function whose last statement ends the process with success (`--help`, `--version`,
//! `--list-tools`, a setup wizard's `sys.exit(run_setup())`) and that calls nothing that
//! serves, and a Python `if __name__ == "__main__":` block that serves nothing (a module's
//! demo code, which never runs when the package's entry imports it).

use super::syntax::text;
use super::syntax::Fields;
use tree_sitter::Node;

/// Calls that start serving, by the callee's last name: a path with one is not a path that
/// exits before serving (`main()` may serve).
const SERVING_CALLS: &[&str] = &[
    "connect",
    "run",
    "run_async",
    "run_stdio_async",
    "stdio_server",
    "serve",
    "serve_forever",
    "listen",
    "start",
    "main",
];

fn named(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// A branch that ends by exiting the process with success (or with what a call returns)
/// and starts no server on the way.
pub(super) fn exits_before_serving(block: Node<'_>, src: &[u8]) -> bool {
    last_statement(block).is_some_and(|s| is_exit(s, src) && !failing_exit(s, src))
        && !serves(block, src)
}

/// A function whose body ends by exiting with success and starts no server (`listTools()`
/// printing and calling `process.exit(0)`): its body.
pub(super) fn exiting_function<'t>(node: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    // Declared functions only: a callback (`process.on('SIGTERM', () => ...)`) runs while
    // the server serves.
    if !matches!(
        node.kind(),
        "function_declaration" | "function_definition" | "method_definition"
    ) {
        return None;
    }
    let body = node.field("body")?;
    exits_before_serving(body, src).then_some(body)
}

/// `if __name__ == "__main__":` whose block serves nothing.
pub(super) fn script_only_block<'t>(node: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    if node.kind() != "if_statement" {
        return None;
    }
    let condition = text(node.field("condition")?, src);
    let main = condition.contains("__name__") && condition.contains("__main__");
    let block = node.field("consequence")?;
    (main && !serves(block, src)).then_some(block)
}

/// Whether a call under `node` may start serving.
fn serves(node: Node<'_>, src: &[u8]) -> bool {
    let mut found = false;
    super::syntax::preorder(node, |n| {
        if found || !matches!(n.kind(), "call_expression" | "call" | "new_expression") {
            return;
        }
        let callee = n
            .field("function")
            .or_else(|| n.field("constructor"))
            .map_or("", |f| text(f, src));
        let last = callee
            .rsplit(['.', ' '])
            .next()
            .unwrap_or(callee)
            .trim_start_matches('?');
        found = SERVING_CALLS.contains(&last) || last.contains("Transport");
    });
    found
}

/// An exit with a literal failing code (non-zero, or a message): left to the writes-before-
/// a-failing-exit rule, since a failing start under a client is read by it.
fn failing_exit(statement: Node<'_>, src: &[u8]) -> bool {
    let Some(call) = statement.named_child(0) else {
        return false;
    };
    let first = call
        .field("arguments")
        .and_then(|a| named(a).into_iter().find(|n| n.kind() != "comment"));
    match first.map(|f| (f.kind(), text(f, src))) {
        Some(("number" | "integer", n)) => n.parse::<i64>().is_ok_and(|n| n != 0),
        Some(("string", _)) => true,
        _ => false,
    }
}

/// The last statement of a block (or of a `try` ending it) leaves the function: return,
/// throw, raise, or an exit.
pub(super) fn leaves(block: Node<'_>, src: &[u8]) -> bool {
    let last = last_statement(block);
    last.is_some_and(|s| {
        matches!(
            s.kind(),
            "return_statement" | "throw_statement" | "raise_statement"
        ) || is_exit(s, src)
    })
}

fn last_statement(block: Node<'_>) -> Option<Node<'_>> {
    let inner = match block.kind() {
        "else_clause" | "else" => block
            .field("body")
            .or_else(|| named(block).last().copied())?,
        _ => block,
    };
    let statements: Vec<Node<'_>> = match inner.kind() {
        "statement_block" | "block" => named(inner)
            .into_iter()
            .filter(|n| n.kind() != "comment")
            .collect(),
        _ => vec![inner],
    };
    let last = *statements.last()?;
    if last.kind() == "try_statement" {
        return last.field("body").and_then(last_statement);
    }
    Some(last)
}

/// `process.exit(...)`, `sys.exit(...)`, `exit(...)`, `raise SystemExit(...)` as a statement.
pub(super) fn is_exit(statement: Node<'_>, src: &[u8]) -> bool {
    let Some(call) = statement
        .named_child(0)
        .filter(|c| matches!(c.kind(), "call_expression" | "call"))
    else {
        return false;
    };
    let callee = call.field("function").map_or("", |f| text(f, src));
    match statement.kind() {
        "expression_statement" => {
            matches!(callee, "process.exit" | "sys.exit" | "exit" | "os._exit")
        }
        "raise_statement" => callee == "SystemExit",
        _ => false,
    }
}
