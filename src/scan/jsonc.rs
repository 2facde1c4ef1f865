//! JSON with comments and trailing commas, parsed into an owned tree that keeps byte spans,
//! so every finding can name an exact line and column.

use jsonc_parser::ast;
use jsonc_parser::{CollectOptions, ParseOptions};

/// A byte range in the file text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl From<jsonc_parser::common::Range> for Span {
    fn from(r: jsonc_parser::common::Range) -> Self {
        Span {
            start: r.start,
            end: r.end,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Spanned>),
    Object(Vec<Member>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Spanned {
    pub node: Node,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub key: String,
    pub key_span: Span,
    pub value: Spanned,
}

impl Spanned {
    pub fn as_str(&self) -> Option<&str> {
        match &self.node {
            Node::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn members(&self) -> Option<&[Member]> {
        match &self.node {
            Node::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The last member with this key (later duplicates win, as in JSON.parse).
    pub fn get(&self, key: &str) -> Option<&Spanned> {
        self.members()?
            .iter()
            .rev()
            .find(|m| m.key == key)
            .map(|m| &m.value)
    }

    pub fn kind(&self) -> &'static str {
        match self.node {
            Node::Null => "null",
            Node::Bool(_) => "a boolean",
            Node::Number(_) => "a number",
            Node::String(_) => "a string",
            Node::Array(_) => "an array",
            Node::Object(_) => "an object",
        }
    }

    /// The plain JSON value, for hashing and inventories.
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.node {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Number(n) => n
                .parse::<serde_json::Number>()
                .map(Value::Number)
                .unwrap_or_else(|_| Value::String(n.clone())),
            Node::String(s) => Value::String(s.clone()),
            Node::Array(items) => Value::Array(items.iter().map(Spanned::to_value).collect()),
            Node::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|m| (m.key.clone(), m.value.to_value()))
                    .collect(),
            ),
        }
    }
}

/// Why a file is not valid JSONC, with a 1-based position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Parses JSONC text. An empty document is an error: a config file must hold a value.
pub fn parse(text: &str) -> Result<Spanned, SyntaxError> {
    let options = ParseOptions {
        // Real clients read JSON with comments and trailing commas, not JSON5.
        allow_loose_object_property_names: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_missing_commas: false,
        ..ParseOptions::default()
    };
    let parsed =
        jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &options).map_err(|e| {
            SyntaxError {
                line: e.line_display(),
                column: e.column_display(),
                message: e.kind().to_string(),
            }
        })?;
    match parsed.value {
        Some(v) => Ok(convert(v)),
        None => Err(SyntaxError {
            line: 1,
            column: 1,
            message: "the file holds no JSON value".into(),
        }),
    }
}

fn convert(value: ast::Value<'_>) -> Spanned {
    match value {
        ast::Value::StringLit(s) => Spanned {
            span: s.range.into(),
            node: Node::String(s.value.into_owned()),
        },
        ast::Value::NumberLit(n) => Spanned {
            span: n.range.into(),
            node: Node::Number(n.value.to_string()),
        },
        ast::Value::BooleanLit(b) => Spanned {
            span: b.range.into(),
            node: Node::Bool(b.value),
        },
        ast::Value::NullKeyword(n) => Spanned {
            span: n.range.into(),
            node: Node::Null,
        },
        ast::Value::Array(a) => Spanned {
            span: a.range.into(),
            node: Node::Array(a.elements.into_iter().map(convert).collect()),
        },
        ast::Value::Object(o) => Spanned {
            span: o.range.into(),
            node: Node::Object(
                o.properties
                    .into_iter()
                    .map(|p| {
                        let (key, key_span) = match p.name {
                            ast::ObjectPropName::String(s) => (s.value.into_owned(), s.range),
                            ast::ObjectPropName::Word(w) => (w.value.to_string(), w.range),
                        };
                        Member {
                            key,
                            key_span: key_span.into(),
                            value: convert(p.value),
                        }
                    })
                    .collect(),
            ),
        },
    }
}

/// Maps byte offsets to 1-based lines and columns (columns count characters).
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset where each line starts.
    starts: Vec<usize>,
    /// Every [`MARK_EVERY`] bytes or so, a character boundary and the number of characters
    /// before it: a column is counted from the nearest mark, not from the line's start, so a
    /// config written on one line (minified JSON) costs the same per position as any other.
    marks: Vec<(usize, usize)>,
}

const MARK_EVERY: usize = 1024;

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => starts.push(i + 1),
                // A lone CR ends a line too (old Mac files); CRLF counts once.
                b'\r' if bytes.get(i + 1) != Some(&b'\n') => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        let mut marks = vec![(0, 0)];
        let mut next = MARK_EVERY;
        for (count, (at, _)) in text.char_indices().enumerate() {
            if at >= next {
                marks.push((at, count));
                next = at + MARK_EVERY;
            }
        }
        Self { starts, marks }
    }

    /// 1-based (line, column) of a byte offset.
    pub fn position(&self, text: &str, offset: usize) -> (u64, u64) {
        let line = self.starts.partition_point(|&s| s <= offset).max(1) - 1;
        let start = self.starts[line];
        let offset = offset.min(text.len());
        let column = match (
            self.chars_before(text, offset),
            self.chars_before(text, start),
        ) {
            (Some(end), Some(start)) if end >= start => end - start,
            _ => 0,
        };
        (line as u64 + 1, column as u64 + 1)
    }

    /// Characters before byte `offset` (`None` inside a character).
    fn chars_before(&self, text: &str, offset: usize) -> Option<usize> {
        let k = self.marks.partition_point(|&(at, _)| at <= offset).max(1) - 1;
        let (at, count) = self.marks[k];
        text.get(at..offset).map(|s| count + s.chars().count())
    }
}

/// Escapes one reference token of a JSON pointer (RFC 6901).
pub fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_parse_with_spans() {
        let text = "// head\n{\n  \"a\": [1, \"x\",], /* c */\n}\n";
        let root = parse(text).expect("parses");
        let a = root.get("a").expect("a");
        let Node::Array(items) = &a.node else {
            panic!("array")
        };
        let idx = LineIndex::new(text);
        assert_eq!(idx.position(text, items[1].span.start), (3, 12));
        assert_eq!(items[1].as_str(), Some("x"));
    }

    #[test]
    fn errors_name_the_line_and_column() {
        let err = parse("{\n  \"a\": 1\n  \"b\": 2\n}").expect_err("missing comma");
        assert_eq!((err.line, err.column), (2, 9));
        assert!(err.message.contains("comma"), "{}", err.message);
        assert!(parse("").is_err());
    }

    #[test]
    fn columns_count_characters_and_lone_cr_ends_a_line() {
        let text = "{\"é\": \"x\"}\r\"";
        let idx = LineIndex::new(text);
        assert_eq!(idx.position(text, 7), (1, 7));
        assert_eq!(idx.position(text, text.len() - 1), (2, 1));
    }

    /// Columns counted from the nearest mark are the characters from the line's start, on
    /// a long line with multi-byte characters and on short lines after it.
    #[test]
    fn columns_count_characters_on_long_lines_too() {
        let line: String = (0..3000)
            .map(|i| if i % 7 == 0 { "é€" } else { "ab" })
            .collect();
        let text = format!("{line}\n{line}\r\nx\ry");
        let idx = LineIndex::new(&text);
        let naive = |offset: usize| {
            let start = text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1);
            let line_no = text[..offset].matches('\n').count()
                + text[..offset].matches('\r').count()
                - text[..offset].matches("\r\n").count();
            (
                line_no as u64 + 1,
                text[start..offset].chars().count() as u64 + 1,
            )
        };
        for (offset, _) in text.char_indices().step_by(37) {
            assert_eq!(
                idx.position(&text, offset),
                naive(offset),
                "at byte {offset}"
            );
        }
        assert_eq!(idx.position(&text, text.len() - 1), (4, 1));
    }

    #[test]
    fn pointer_tokens_escape_slash_and_tilde() {
        assert_eq!(pointer_token("/home/a~b"), "~1home~1a~0b");
    }
}
