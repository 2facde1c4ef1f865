//! A `.properties` reader with java.util.Properties' rules: `#`/`!` comment lines, keys
//! ending at an unescaped `=`, `:` or whitespace, backslash line continuations and escapes.
//! Spring Boot's `#---` lines split a file into documents.

use super::text::Text;

/// One key and its value, with where they stand in the file.
#[derive(Debug)]
pub struct Entry {
    pub key: String,
    pub value: String,
    /// Bytes from the key's first character to the end of its (logical) line.
    pub start: usize,
    pub end: usize,
    /// Where the value stands, when it is written plainly on the key's line (no escapes,
    /// no continuation), so replacing those bytes replaces the value.
    pub plain_value: Option<(usize, usize)>,
    /// The document it belongs to (0, then +1 after each `#---` line).
    pub document: usize,
}

#[derive(Debug, Default)]
pub struct Properties {
    pub entries: Vec<Entry>,
    /// Comment lines, as byte ranges.
    pub comments: Vec<(usize, usize)>,
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\x0c')
}

pub fn parse(text: &Text<'_>) -> Properties {
    let src = text.text;
    let lines: Vec<(usize, usize)> = text.lines().collect();
    let mut out = Properties::default();
    let mut document = 0;
    let mut i = 0;
    while i < lines.len() {
        let (start, end) = lines[i];
        i += 1;
        let line = &src[start..end];
        let body = line.trim_start_matches(is_blank);
        if body.is_empty() {
            continue;
        }
        let first = end - body.len();
        if body.starts_with('#') || body.starts_with('!') {
            // Spring Boot: `#---` or `!---` alone at the start of a line begins a new document.
            if (line == "#---" || line == "!---") && first == start {
                document += 1;
            }
            out.comments.push((first, end));
            continue;
        }
        // Joins continuation lines: an odd number of trailing backslashes continues the line.
        let mut logical = String::from(body);
        let mut last_end = end;
        let mut continued = false;
        while ends_in_odd_backslashes(&logical) && i < lines.len() {
            logical.pop();
            let (s, e) = lines[i];
            i += 1;
            logical.push_str(src[s..e].trim_start_matches(is_blank));
            last_end = e;
            continued = true;
        }
        if !continued && ends_in_odd_backslashes(&logical) {
            logical.pop();
        }
        let (key_raw, value_offset) = split_key(&logical);
        let value_raw = &logical[value_offset..];
        let plain_value = (!continued && !value_raw.contains('\\'))
            .then(|| (first + value_offset, first + value_offset + value_raw.len()));
        out.entries.push(Entry {
            key: unescape(key_raw),
            value: unescape(value_raw),
            start: first,
            end: last_end,
            plain_value,
            document,
        });
    }
    out
}

fn ends_in_odd_backslashes(s: &str) -> bool {
    s.bytes().rev().take_while(|b| *b == b'\\').count() % 2 == 1
}

/// The raw key, and the byte offset where the raw value starts.
fn split_key(line: &str) -> (&str, usize) {
    let mut escaped = false;
    let mut key_end = line.len();
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '=' || c == ':' || is_blank(c) {
            key_end = i;
            break;
        }
    }
    let rest = &line[key_end..];
    let after_blanks = rest.trim_start_matches(is_blank);
    let after_separator = match after_blanks.strip_prefix(['=', ':']) {
        Some(r) => r.trim_start_matches(is_blank),
        None => after_blanks,
    };
    (&line[..key_end], line.len() - after_separator.len())
}

/// Resolves `\t`, `\n`, `\r`, `\f`, `\uXXXX` and `\x` (any other character stands for itself).
fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\x0c'),
            Some('u') => {
                let hex: String = chars.clone().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(decoded) if hex.len() == 4 => {
                        out.push(decoded);
                        chars.nth(3);
                    }
                    // Java refuses a malformed \u escape; keep the text as written.
                    _ => out.push_str("\\u"),
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(src: &str) -> Vec<(String, String, usize)> {
        parse(&Text::new(src))
            .entries
            .into_iter()
            .map(|e| (e.key, e.value, e.document))
            .collect()
    }

    fn e(k: &str, v: &str, d: usize) -> (String, String, usize) {
        (k.to_string(), v.to_string(), d)
    }

    #[test]
    fn separators_comments_and_blanks_follow_java_properties() {
        let src = "# comment\n! also\n  a=1\nb : 2\nc 3\nd\ne=\nf\\ g=h\\=i\n  \n";
        assert_eq!(
            entries(src),
            [
                e("a", "1", 0),
                e("b", "2", 0),
                e("c", "3", 0),
                e("d", "", 0),
                e("e", "", 0),
                e("f g", "h=i", 0),
            ]
        );
        assert_eq!(parse(&Text::new(src)).comments.len(), 2);
    }

    #[test]
    fn continuations_join_lines_and_drop_leading_blanks() {
        let src = "k = one, \\\n    two\\\\\nnext=x\\\r\n  y\nlast=\\\\\\";
        assert_eq!(
            entries(src),
            [
                e("k", "one, two\\", 0),
                e("next", "xy", 0),
                e("last", "\\", 0)
            ]
        );
        let parsed = parse(&Text::new(src));
        assert_eq!(parsed.entries[0].plain_value, None);
        assert_eq!(
            &src[parsed.entries[0].start..parsed.entries[0].end],
            "k = one, \\\n    two\\\\"
        );
    }

    #[test]
    fn a_comment_line_is_never_continued() {
        assert_eq!(entries("# a \\\nb=1"), [e("b", "1", 0)]);
    }

    #[test]
    fn escapes_and_plain_values() {
        let src = "x=\\u0041\\tB\\q\\u00zz\ntarget = SYSTEM_OUT  ";
        let parsed = parse(&Text::new(src));
        assert_eq!(parsed.entries[0].value, "A\tBq\\u00zz");
        let t = &parsed.entries[1];
        let (s, end) = t.plain_value.expect("plain");
        assert_eq!(&src[s..end], "SYSTEM_OUT  ");
    }

    #[test]
    fn spring_document_separators_count() {
        assert_eq!(
            entries("a=1\n#---\nb=2\n !---\nc=3\n!---\nd=4"),
            [
                e("a", "1", 0),
                e("b", "2", 1),
                e("c", "3", 1),
                e("d", "4", 2)
            ]
        );
    }
}
