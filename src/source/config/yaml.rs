//! YAML flattened the way Spring Boot reads it: nested keys joined with `.`, list items as
//! `key[i]`, one list of entries per document. Built on saphyr-parser's events (aliases are
//! never expanded, nesting is bounded by the parser), with the span of every key.

use super::text::Text;
use super::Value;
use saphyr_parser::{Event, Parser, ScalarStyle, Span};

#[derive(Debug)]
pub struct Entry {
    pub key: String,
    pub value: Value,
    /// From the key's first byte to the end of its value (of the item, in a list).
    pub start: usize,
    pub end: usize,
    pub document: usize,
}

#[derive(Debug, Default)]
pub struct Yaml {
    pub entries: Vec<Entry>,
    /// `#` comments, as byte ranges.
    pub comments: Vec<(usize, usize)>,
}

/// A collection being read: a mapping waits for a key or for the value of `key`.
enum Frame {
    Mapping {
        prefix: Option<String>,
        key: Option<Key>,
        awaiting_value: bool,
    },
    Sequence {
        prefix: Option<String>,
        index: usize,
    },
}

/// A mapping key; None in `path` when it is not a plain string (an alias, a collection).
struct Key {
    path: Option<String>,
    start: usize,
    end: usize,
}

/// None when the file is not valid YAML.
pub fn parse(text: &Text<'_>) -> Option<Yaml> {
    let mut out = Yaml::default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut document = 0;
    let mut started = false;
    // Scalars' byte spans, to tell a `#` inside a value from a comment.
    let mut scalars: Vec<(usize, usize)> = Vec::new();
    let mut parser = Parser::new_from_str(text.text);
    while let Some(next) = parser.next_event() {
        let (event, span) = next.ok()?;
        let (start, end) = bytes(text, span);
        match event {
            Event::DocumentStart(_) => {
                if started {
                    document += 1;
                }
                started = true;
                stack.clear();
            }
            Event::Scalar(value, style, _, _) => {
                let end = match style {
                    // saphyr's span of a quoted scalar runs on past its closing quote.
                    ScalarStyle::DoubleQuoted | ScalarStyle::SingleQuoted => {
                        quoted_end(text.text, start).unwrap_or(end)
                    }
                    _ => end,
                };
                scalars.push((start, end));
                let value = scalar(&value, style);
                match child_path(&mut stack, start, end, key_text(&value)) {
                    Slot::Value(Some(key)) => out.entries.push(Entry {
                        key: key.path.unwrap_or_default(),
                        value,
                        start: key.start,
                        end: end.max(key.end),
                        document,
                    }),
                    Slot::Value(None) | Slot::Key | Slot::Ignored => {}
                }
            }
            Event::Alias(_) => {
                child_path(&mut stack, start, end, None);
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let prefix = match child_path(&mut stack, start, end, None) {
                    Slot::Value(Some(key)) => key.path,
                    Slot::Value(None) if stack.is_empty() => Some(String::new()),
                    _ => None,
                };
                stack.push(if matches!(event, Event::MappingStart(..)) {
                    Frame::Mapping {
                        prefix,
                        key: None,
                        awaiting_value: false,
                    }
                } else {
                    Frame::Sequence { prefix, index: 0 }
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
            }
            Event::StreamEnd => break,
            _ => {}
        }
    }
    out.comments = comments(text, &scalars);
    Some(out)
}

/// Where a node just read goes.
enum Slot {
    /// It is a mapping key (now remembered).
    Key,
    /// It is a value at this key (None: at the top of a document).
    Value(Option<Key>),
    /// It is inside something with no usable path.
    Ignored,
}

/// Places a node in the collection on top of the stack, returning its key when it is a value.
fn child_path(stack: &mut [Frame], start: usize, end: usize, text: Option<String>) -> Slot {
    let Some(top) = stack.last_mut() else {
        return Slot::Value(None);
    };
    match top {
        Frame::Mapping {
            prefix,
            key,
            awaiting_value,
        } => {
            if !*awaiting_value {
                *key = Some(Key {
                    path: prefix.as_ref().zip(text).map(|(p, k)| join(p, &k)),
                    start,
                    end,
                });
                *awaiting_value = true;
                return Slot::Key;
            }
            *awaiting_value = false;
            match key.take() {
                Some(k) if k.path.is_some() => Slot::Value(Some(k)),
                _ => Slot::Ignored,
            }
        }
        Frame::Sequence { prefix, index } => {
            let path = prefix.as_ref().map(|p| format!("{p}[{index}]"));
            *index += 1;
            match path {
                Some(path) => Slot::Value(Some(Key {
                    path: Some(path),
                    start,
                    end,
                })),
                None => Slot::Ignored,
            }
        }
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

fn key_text(value: &Value) -> Option<String> {
    match value {
        Value::Text(t) => Some(t.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => None,
    }
}

/// A scalar as SnakeYAML (YAML 1.1, what Spring Boot uses) reads it: plain `off`, `no`,
/// `false` are false; plain `~`, `null` or nothing are null; everything quoted is text.
fn scalar(text: &str, style: ScalarStyle) -> Value {
    if style != ScalarStyle::Plain {
        return Value::Text(text.to_string());
    }
    match text {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "y" | "Y" => {
            Value::Bool(true)
        }
        "false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "n" | "N" => {
            Value::Bool(false)
        }
        _ => Value::Text(text.to_string()),
    }
}

/// The byte after the closing quote of the quoted scalar starting at `start`.
fn quoted_end(src: &str, start: usize) -> Option<usize> {
    let bytes = src.as_bytes();
    let quote = *bytes.get(start)?;
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 1,
            b'\'' if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 1,
            b if b == quote => return Some(i + 1),
            _ => {}
        }
        i += 1;
    }
    None
}

fn bytes(text: &Text<'_>, span: Span) -> (usize, usize) {
    let at = |m: saphyr_parser::Marker| text.byte_at(m.line().saturating_sub(1), m.col());
    (at(span.start), at(span.end))
}

/// `#` starts a comment at the start of a line or after a blank, outside any scalar.
fn comments(text: &Text<'_>, scalars: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let src = text.text.as_bytes();
    let mut out = Vec::new();
    for (start, end) in text.lines() {
        let Some(hash) = (start..end).find(|&i| {
            src[i] == b'#'
                && (i == start || matches!(src[i - 1], b' ' | b'\t'))
                && !inside(scalars, i)
        }) else {
            continue;
        };
        out.push((hash, end));
    }
    out
}

fn inside(spans: &[(usize, usize)], byte: usize) -> bool {
    let after = spans.partition_point(|&(s, _)| s <= byte);
    spans[..after]
        .iter()
        .rev()
        .any(|&(s, e)| s <= byte && byte < e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(src: &str) -> Vec<(String, Value, usize)> {
        parse(&Text::new(src))
            .expect("valid yaml")
            .entries
            .into_iter()
            .map(|e| (e.key, e.value, e.document))
            .collect()
    }

    fn text(s: &str) -> Value {
        Value::Text(s.to_string())
    }

    #[test]
    fn nested_keys_are_joined_and_documents_counted() {
        let src = "spring:\n  main.banner-mode: off\n  ai:\n    mcp:\n      server:\n        stdio: true\nlogging:\n  pattern:\n    console:\n---\nspring.profiles.active: [a, \"b\"]\n";
        assert_eq!(
            flat(src),
            [
                ("spring.main.banner-mode".to_string(), Value::Bool(false), 0),
                (
                    "spring.ai.mcp.server.stdio".to_string(),
                    Value::Bool(true),
                    0
                ),
                ("logging.pattern.console".to_string(), Value::Null, 0),
                ("spring.profiles.active[0]".to_string(), text("a"), 1),
                ("spring.profiles.active[1]".to_string(), text("b"), 1),
            ]
        );
    }

    #[test]
    fn key_spans_point_at_the_key() {
        let src = "spring:\n  ai.mcp.server.stdio: \"true\"\n";
        let yaml = parse(&Text::new(src)).expect("valid");
        let e = &yaml.entries[0];
        assert_eq!(&src[e.start..e.end], "ai.mcp.server.stdio: \"true\"");
        assert_eq!(e.value, text("true"));
    }

    #[test]
    fn quoted_values_are_text_and_complex_keys_are_ignored() {
        let src = "a: 'off'\n? [x]\n: 1\nb: &anchor {c: 2}\nd: *anchor\ne: {f: [1, {g: 3}]}\n";
        assert_eq!(
            flat(src),
            [
                ("a".to_string(), text("off"), 0),
                ("b.c".to_string(), text("2"), 0),
                ("e.f[0]".to_string(), text("1"), 0),
                ("e.f[1].g".to_string(), text("3"), 0),
            ]
        );
    }

    #[test]
    fn comments_are_found_outside_scalars_only() {
        let src = "# top\na: \"x # not\" # yes\nb: |  # header\n  # content\nc: d#e\nd: 'it''s # x' #z\ne: \"q\\\" # r\"\n";
        let yaml = parse(&Text::new(src)).expect("valid");
        let found: Vec<&str> = yaml.comments.iter().map(|&(s, e)| &src[s..e]).collect();
        assert_eq!(found, ["# top", "# yes", "# header", "#z"]);
    }

    #[test]
    fn invalid_yaml_is_none() {
        assert!(parse(&Text::new("a: [1, 2\nb: {")).is_none());
        assert!(parse(&Text::new("a: b: c")).is_none());
    }
}
