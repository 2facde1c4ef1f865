//! What a Java or C# stdout write prints: literals, `+` concatenations, C# interpolated
//! strings (`$"port {port}"`), and `printf`/composite formats with their placeholders as holes.

use super::syntax::Fields;
use super::syntax::{string_content, text};
use crate::prints::{format_string, unescape, Pattern};
use tree_sitter::Node;

const MAX_DEPTH: usize = 16;

/// `println(x)`/`WriteLine(x)`, `print`/`Write`, `printf`/`format` or a composite format with
/// more arguments: `format` is `%`-style (Java) or `{0}`-style (C#).
pub(super) fn call(method: &str, values: &[Node<'_>], src: &[u8]) -> Pattern {
    let ends_line = matches!(method, "println" | "WriteLine");
    let percent = matches!(method, "printf" | "format");
    let pattern = match values {
        [] => Pattern::default(),
        [format, _, ..] if percent || ends_line || method == "Write" => {
            match expression(*format, src, 0).0.as_slice() {
                [crate::prints::Piece::Literal(f)] => format_string(f, percent, !percent),
                _ => Pattern::hole(),
            }
        }
        [only, ..] => expression(*only, src, 0),
    };
    let ended =
        matches!(pattern.0.last(), Some(crate::prints::Piece::Literal(s)) if s.ends_with('\n'));
    if ends_line || ended {
        pattern
    } else {
        pattern.then(Pattern::hole())
    }
}

fn expression(node: Node<'_>, src: &[u8], depth: usize) -> Pattern {
    if depth > MAX_DEPTH {
        return Pattern::hole();
    }
    match node.kind() {
        "argument" | "parenthesized_expression" => node
            .named_child(0)
            .map_or_else(Pattern::hole, |n| expression(n, src, depth + 1)),
        "string_literal" => match string_content(node, src) {
            Some(s) => Pattern::literal(unescape(&s)),
            None => Pattern::hole(),
        },
        "interpolated_string_expression" => interpolated(node, src),
        "decimal_integer_literal" | "integer_literal" => Pattern::literal(text(node, src)),
        "binary_expression" => {
            let plus = node.field("operator").is_some_and(|o| text(o, src) == "+");
            match (plus, node.field("left"), node.field("right")) {
                (true, Some(l), Some(r)) => {
                    expression(l, src, depth + 1).then(expression(r, src, depth + 1))
                }
                _ => Pattern::hole(),
            }
        }
        _ => Pattern::hole(),
    }
}

/// `$"text {x} more"`: the text between interpolations, each interpolation a hole.
fn interpolated(node: Node<'_>, src: &[u8]) -> Pattern {
    let raw = text(node, src);
    let Some(open) = raw.find('"') else {
        return Pattern::hole();
    };
    let verbatim = raw[..open].contains('@');
    let (start, end) = (
        node.start_byte() + open + 1,
        node.end_byte().saturating_sub(1),
    );
    let piece = |from: usize, to: usize| {
        let s = String::from_utf8_lossy(src.get(from..to.max(from)).unwrap_or_default())
            .replace("{{", "{")
            .replace("}}", "}");
        Pattern::literal(if verbatim { s } else { unescape(&s) })
    };
    let mut out = Pattern::default();
    let mut at = start;
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if child.kind() == "interpolation" {
            out = out
                .then(piece(at, child.start_byte()))
                .then(Pattern::hole());
            at = child.end_byte();
        }
    }
    out.then(piece(at, end))
}
