//! How untrusted text is made visible: line breaks, tabs, control and invisible characters
//! escaped, so a string cannot forge lines, colours or terminal commands where it is shown.

/// At most `max_chars` characters of `text`, then `…`, escaped as [`escape_controls`]
/// does: for text that holds no secret (a value the user typed, an error of our own);
/// the server's text goes through `finding::excerpt`, which cleans it of secrets first.
pub fn bounded(text: &str, max_chars: usize) -> String {
    // Printable ASCII that fits is its own excerpt: nothing to escape, nothing to cut.
    if text.len() <= max_chars && text.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        return text.to_string();
    }
    bounded_by_char(text, max_chars)
}

/// `bounded`, one character at a time.
fn bounded_by_char(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count == max_chars {
            out.push('…');
            break;
        }
        push_escaped(&mut out, c);
    }
    out
}

/// `text` with line breaks, tabs, control and invisible characters escaped, as an excerpt
/// shows them, uncut.
pub fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    text.chars().for_each(|c| push_escaped(&mut out, c));
    out
}

pub fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if c.is_control() || is_bidi_control(c) => {
            out.push_str(&format!("\\u{{{:x}}}", c as u32))
        }
        c => out.push(c),
    }
}

/// Invisible characters that can hide or reorder text: bidi controls, zero-width marks, BOM.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200b}'..='\u{200f}' | '\u{2060}' | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_is_the_same_with_or_without_its_shortcut() {
        let cases = [
            "",
            "plain",
            "tab\there",
            "line\nbreak",
            "del\u{7f}",
            "nul\0",
            "café",
            "bidi\u{202e}x",
            "~ and space",
            "exactly10!",
            "eleven chr!",
        ];
        for text in cases {
            for max in [0, 1, 5, 9, 10, 11, 64] {
                assert_eq!(
                    bounded(text, max),
                    bounded_by_char(text, max),
                    "{text:?} at {max}"
                );
            }
        }
        // The shortcut's cases and the other's: a cut, and an escape.
        assert_eq!(bounded("exactly10!", 10), "exactly10!");
        assert_eq!(bounded("eleven chr!", 10), "eleven chr…");
        assert_eq!(bounded("a\tb", 10), "a\\tb");
        assert_eq!(bounded("a\u{7f}", 10), "a\\u{7f}");
    }
}
