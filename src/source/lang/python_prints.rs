//! What a Python stdout write prints: literals, f-strings with their replacement fields as
//! holes, `+` concatenations, `%` formats and `str.format`, print's `sep` and `end`.

use super::syntax::Fields;
use super::syntax::{args, text};
use crate::prints::{format_string, unescape, Pattern};
use tree_sitter::Node;

const MAX_DEPTH: usize = 16;

/// What `print(a, b, sep=..., end=...)` prints on its line.
pub(super) fn print_arguments(arguments: Node<'_>, src: &[u8]) -> Pattern {
    let mut values = Vec::new();
    let mut sep = Some(" ".to_string());
    let mut ends_line = true;
    for a in args(arguments) {
        match a.kind() {
            "keyword_argument" => {
                let name = a.field("name").map(|n| text(n, src));
                let value = a.field("value");
                match name {
                    Some("sep") => sep = value.and_then(|v| plain(v, src)),
                    Some("end") => {
                        ends_line = value.and_then(|v| plain(v, src)).as_deref() == Some("\n")
                    }
                    _ => {}
                }
            }
            "list_splat" | "dictionary_splat" => values.push(Pattern::hole()),
            _ => values.push(expression(a, src, 0)),
        }
    }
    let joined = match sep {
        Some(sep) => Pattern::joined(values, &sep),
        None => Pattern::joined(values, "\u{0}").hole_for_separator(),
    };
    if ends_line {
        joined
    } else {
        // The next write continues this line.
        joined.then(Pattern::hole())
    }
}

/// A string that is all literal text, as it prints.
fn plain(node: Node<'_>, src: &[u8]) -> Option<String> {
    match expression(node, src, 0).0.as_slice() {
        [crate::prints::Piece::Literal(s)] => Some(s.clone()),
        [] => Some(String::new()),
        _ => None,
    }
}

trait SeparatorHole {
    fn hole_for_separator(self) -> Pattern;
}

impl SeparatorHole for Pattern {
    /// A separator that is not a literal: each NUL placeholder becomes a hole.
    fn hole_for_separator(self) -> Pattern {
        let mut out = Pattern::default();
        for piece in self.0 {
            match piece {
                crate::prints::Piece::Literal(s) => {
                    for (i, part) in s.split('\u{0}').enumerate() {
                        if i > 0 {
                            out = out.then(Pattern::hole());
                        }
                        out = out.then(Pattern::literal(part));
                    }
                }
                crate::prints::Piece::Hole => out = out.then(Pattern::hole()),
            }
        }
        out
    }
}

/// What an expression prints, a hole where its value is not written in the code.
pub(super) fn expression(node: Node<'_>, src: &[u8], depth: usize) -> Pattern {
    if depth > MAX_DEPTH {
        return Pattern::hole();
    }
    match node.kind() {
        "string" => string(node, src),
        "concatenated_string" => {
            let mut cursor = node.walk();
            let parts: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            parts.into_iter().fold(Pattern::default(), |p, s| {
                p.then(expression(s, src, depth + 1))
            })
        }
        "integer" | "float" => Pattern::literal(text(node, src)),
        "parenthesized_expression" => node
            .named_child(0)
            .map_or_else(Pattern::hole, |n| expression(n, src, depth + 1)),
        "binary_operator" => {
            let op = node.field("operator").map(|o| text(o, src));
            let (Some(l), Some(r)) = (node.field("left"), node.field("right")) else {
                return Pattern::hole();
            };
            match op {
                Some("+") => expression(l, src, depth + 1).then(expression(r, src, depth + 1)),
                Some("%") if l.kind() == "string" => format_of(l, src, true, false),
                _ => Pattern::hole(),
            }
        }
        "call" => {
            let method = node.field("function").filter(|f| f.kind() == "attribute");
            let object = method.and_then(|m| m.field("object"));
            let name = method.and_then(|m| m.field("attribute"));
            match (object, name) {
                (Some(o), Some(n)) if o.kind() == "string" && text(n, src) == "format" => {
                    format_of(o, src, false, true)
                }
                _ => Pattern::hole(),
            }
        }
        _ => Pattern::hole(),
    }
}

/// A format string (`"%s ready" % x`, `"{} ready".format(x)`): placeholders are holes.
fn format_of(node: Node<'_>, src: &[u8], percent: bool, braces: bool) -> Pattern {
    match string(node, src).0.as_slice() {
        [crate::prints::Piece::Literal(s)] => format_string(s, percent, braces),
        _ => Pattern::hole(),
    }
}

/// A string literal, an f-string's replacement fields as holes.
fn string(node: Node<'_>, src: &[u8]) -> Pattern {
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
    let (Some(start), Some(end)) = (
        children.iter().find(|c| c.kind() == "string_start"),
        children.iter().rfind(|c| c.kind() == "string_end"),
    ) else {
        return Pattern::hole();
    };
    let prefix = text(*start, src).to_ascii_lowercase();
    let (raw, fstring) = (prefix.contains('r'), prefix.contains('f'));
    let piece = |from: usize, to: usize| {
        let bytes = src.get(from..to.max(from)).unwrap_or_default();
        let mut s = String::from_utf8_lossy(bytes).into_owned();
        if !raw {
            s = unescape(&s);
        }
        if fstring {
            s = s.replace("{{", "{").replace("}}", "}");
        }
        Pattern::literal(s)
    };
    let mut out = Pattern::default();
    let mut at = start.end_byte();
    for child in &children {
        if child.kind() == "interpolation" {
            out = out
                .then(piece(at, child.start_byte()))
                .then(Pattern::hole());
            at = child.end_byte();
        }
    }
    out.then(piece(at, end.start_byte()))
}
