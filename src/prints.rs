//! What a stdout write would print, as a pattern of literal text and holes (the values of
//! expressions), so a line a live server printed can be traced back to the write. The
//! source scan makes the patterns, the guard matches its stray stdout lines against them.

use serde::Serialize;

/// A stdout write the source scan found, and what it would print.
#[derive(Debug, Clone)]
pub struct PrintingWrite {
    pub write: crate::finding::SourceWrite,
    pub prints: Pattern,
}

/// One piece of a printed line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Piece {
    /// Text printed as written.
    Literal(String),
    /// The value of an expression: any text, possibly empty.
    Hole,
}

/// What one write prints, piece by piece.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Pattern(pub Vec<Piece>);

impl Pattern {
    pub fn literal(text: impl Into<String>) -> Self {
        Self(vec![Piece::Literal(text.into())])
    }

    pub fn hole() -> Self {
        Self(vec![Piece::Hole])
    }

    /// `self` followed by `other`, with neighbouring literals and holes merged.
    pub fn then(mut self, other: Pattern) -> Self {
        for piece in other.0 {
            match (self.0.last_mut(), piece) {
                (Some(Piece::Literal(a)), Piece::Literal(b)) => a.push_str(&b),
                (Some(Piece::Hole), Piece::Hole) => {}
                (_, Piece::Literal(b)) if b.is_empty() => {}
                (_, piece) => self.0.push(piece),
            }
        }
        self
    }

    /// The pieces joined by `separator` (print's arguments, console.log's).
    pub fn joined(parts: Vec<Pattern>, separator: &str) -> Self {
        let mut out = Pattern::default();
        for (i, part) in parts.into_iter().enumerate() {
            if i > 0 {
                out = out.then(Pattern::literal(separator));
            }
            out = out.then(part);
        }
        out
    }

    /// Characters of literal text: how specific a match is. A pattern of holes alone would
    /// match any line, so it names no write.
    pub fn literal_chars(&self) -> usize {
        self.0
            .iter()
            .map(|p| match p {
                Piece::Literal(s) => s.chars().count(),
                Piece::Hole => 0,
            })
            .sum()
    }

    /// Whether `line` is what this pattern prints (each hole any text, possibly empty).
    pub fn matches(&self, line: &str) -> bool {
        matches_from(&self.0, line)
    }
}

fn matches_from(pieces: &[Piece], line: &str) -> bool {
    match pieces.split_first() {
        None => line.is_empty(),
        Some((Piece::Literal(s), rest)) => line
            .strip_prefix(s.as_str())
            .is_some_and(|tail| matches_from(rest, tail)),
        Some((Piece::Hole, rest)) => {
            // Holes are never adjacent, so the next piece is a literal or the end.
            let Some(Piece::Literal(next)) = rest.first() else {
                return true;
            };
            line.match_indices(next.as_str())
                .any(|(at, _)| matches_from(rest, &line[at..]))
        }
    }
}

impl Pattern {
    /// One pattern per line the write prints; the empty line after a final `\n` is not one.
    pub fn lines(&self) -> Vec<Pattern> {
        let mut lines = vec![Pattern::default()];
        for piece in &self.0 {
            match piece {
                Piece::Hole => {
                    let last = lines.pop().unwrap_or_default();
                    lines.push(last.then(Pattern::hole()));
                }
                Piece::Literal(text) => {
                    for (i, part) in text.split('\n').enumerate() {
                        if i > 0 {
                            lines.push(Pattern::default());
                        }
                        let last = lines.pop().unwrap_or_default();
                        lines.push(last.then(Pattern::literal(part)));
                    }
                }
            }
        }
        if lines.len() > 1 && lines.last().is_some_and(|l| l.0.is_empty()) {
            lines.pop();
        }
        lines
    }

    pub fn has_hole(&self) -> bool {
        self.0.contains(&Piece::Hole)
    }
}

/// A string literal's escapes as the text they stand for (`\n`, `\t`, quotes, backslash);
/// other escapes are kept as written.
pub fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(q @ ('\\' | '\'' | '"' | '`' | '$' | '{' | '}')) => out.push(q),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// The pieces of a printf-style format (`%s`, `%d`, `%v`, `{}`, `{name}`, `{:>8}`...): each
/// placeholder a hole, `%%`/`{{`/`}}` their literal character.
pub fn format_string(format: &str, percent: bool, braces: bool) -> Pattern {
    let mut out = Pattern::default();
    let mut text = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '%' if percent => {
                if chars.peek() == Some(&'%') {
                    chars.next();
                    text.push('%');
                    continue;
                }
                // Flags, width, precision, an optional (name), then the verb.
                while let Some(&n) = chars.peek() {
                    chars.next();
                    if n.is_ascii_alphabetic() && !matches!(n, 'l' | 'h') {
                        break;
                    }
                }
                out = out
                    .then(Pattern::literal(std::mem::take(&mut text)))
                    .then(Pattern::hole());
            }
            '{' if braces => {
                if chars.peek() == Some(&'{') {
                    chars.next();
                    text.push('{');
                    continue;
                }
                for n in chars.by_ref() {
                    if n == '}' {
                        break;
                    }
                }
                out = out
                    .then(Pattern::literal(std::mem::take(&mut text)))
                    .then(Pattern::hole());
            }
            '}' if braces && chars.peek() == Some(&'}') => {
                chars.next();
                text.push('}');
            }
            c => text.push(c),
        }
    }
    out.then(Pattern::literal(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_match_any_text_and_literals_must_be_there() {
        let p = Pattern::literal("Server started on port ")
            .then(Pattern::hole())
            .then(Pattern::literal(""));
        assert!(p.matches("Server started on port 8080"));
        assert!(p.matches("Server started on port "));
        assert!(!p.matches("Server stopped on port 8080"));
        let framed = Pattern::literal("[")
            .then(Pattern::hole())
            .then(Pattern::literal("] a"));
        assert!(framed.matches("[x] a] a"));
        assert!(!framed.matches("[x] b"));
        assert_eq!(framed.literal_chars(), 4);
    }

    #[test]
    fn a_write_of_several_lines_is_several_patterns() {
        let p = Pattern::literal("a\nb ")
            .then(Pattern::hole())
            .then(Pattern::literal("\n"));
        let lines = p.lines();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].matches("a"));
        assert!(lines[1].matches("b 42"));
        assert_eq!(unescape(r"x\n\'y\d"), "x\n'y\\d");
    }

    #[test]
    fn formats_turn_placeholders_into_holes() {
        let p = format_string("listening on %s:%d (100%%)", true, false);
        assert!(p.matches("listening on host:80 (100%)"));
        assert!(!p.matches("listening on host:80 (100%%)"));
        let b = format_string("store {name!r} opened {{ok}}", false, true);
        assert!(b.matches("store 'notes' opened {ok}"));
    }
}
