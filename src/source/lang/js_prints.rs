//! What a JavaScript/TypeScript stdout write prints: literals, template literals with their
//! substitutions as holes, `+` concatenations, and console's `%s`-style formats.

use super::syntax::text;
use super::syntax::Fields;
use crate::prints::{format_string, unescape, Pattern};
use tree_sitter::Node;

/// Deep enough for `'a' + b + 'c' + ...` chains as people write them.
const MAX_DEPTH: usize = 16;

/// What `console.log(a, b, ...)` prints: util.format's rules (a first string with `%`
/// placeholders and more arguments is a format; otherwise the arguments joined by spaces).
pub(super) fn console_arguments(arguments: &[Node<'_>], src: &[u8]) -> Pattern {
    if let [first, rest @ ..] = arguments {
        if !rest.is_empty() && first.kind() == "string" && text(*first, src).contains('%') {
            let format = format_string(&unescape(&quoted_inner(*first, src)), true, false);
            return format.then(Pattern::hole());
        }
    }
    Pattern::joined(
        arguments.iter().map(|a| expression(*a, src, 0)).collect(),
        " ",
    )
}

/// What an expression prints, a hole where its value is not written in the code.
pub(super) fn expression(node: Node<'_>, src: &[u8], depth: usize) -> Pattern {
    if depth > MAX_DEPTH {
        return Pattern::hole();
    }
    match node.kind() {
        "string" => Pattern::literal(unescape(&quoted_inner(node, src))),
        "template_string" => template(node, src),
        "number" => Pattern::literal(text(node, src)),
        "parenthesized_expression" => node
            .named_child(0)
            .map_or_else(Pattern::hole, |n| expression(n, src, depth + 1)),
        "binary_expression" => {
            let op = node.field("operator").map(|o| text(o, src));
            match (op, node.field("left"), node.field("right")) {
                (Some("+"), Some(l), Some(r)) => {
                    expression(l, src, depth + 1).then(expression(r, src, depth + 1))
                }
                _ => Pattern::hole(),
            }
        }
        _ => Pattern::hole(),
    }
}

/// A string literal's text without its quotes, escapes as written.
fn quoted_inner(node: Node<'_>, src: &[u8]) -> String {
    let raw = text(node, src);
    raw.get(1..raw.len().saturating_sub(1))
        .unwrap_or("")
        .to_string()
}

/// `` `text ${x} more` ``: the text between substitutions, each substitution a hole.
fn template(node: Node<'_>, src: &[u8]) -> Pattern {
    let (start, end) = (node.start_byte() + 1, node.end_byte().saturating_sub(1));
    let mut out = Pattern::default();
    let mut at = start;
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if child.kind() != "template_substitution" {
            continue;
        }
        out = out
            .then(literal(src, at, child.start_byte()))
            .then(Pattern::hole());
        at = child.end_byte();
    }
    out.then(literal(src, at, end))
}

fn literal(src: &[u8], from: usize, to: usize) -> Pattern {
    let raw = src.get(from..to.max(from)).unwrap_or_default();
    Pattern::literal(unescape(&String::from_utf8_lossy(raw)))
}
