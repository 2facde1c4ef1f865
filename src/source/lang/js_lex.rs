//! A light JavaScript and TypeScript lexer for the prefilter: where the comments, string
//! literals and template texts are (a template's `${...}` is code). A `/` starts a regular
//! expression after an operator, an opening bracket or a keyword such as `return`, and
//! divides after a name, a literal or a closing bracket. Anything it cannot follow gives None,
//! and then every occurrence counts: an unterminated string, comment, regular expression or
//! template, unbalanced brackets, or a quote glued to a word (`Don't` in JSX text; JSX closing
//! tags such as `</a>` read as an unterminated regular expression, so most JSX files are not
//! followed at all).

use super::js_window::REGEX_AFTER;
use super::prefilter::{Region, Span};

/// What came last before a `/`.
#[derive(Clone, Copy)]
enum Last {
    Start,
    /// An operator or an opening bracket (or `}`: a block's end starts a statement).
    Operator,
    /// A name or keyword, `src[start..end]`.
    Word(usize, usize),
    /// A literal or a closing `)` or `]`: a `/` after it divides.
    Operand,
}

/// The comments, strings and template texts of `src`, in order; None if unsure.
pub fn spans(src: &[u8]) -> Option<Vec<Span>> {
    let mut out = Vec::new();
    // The bracket depth at which each open template `${` started.
    let mut templates: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut last = Last::Start;
    let mut i = 0;
    if src.starts_with(b"#!") {
        i = line_end(src, 0);
        out.push(comment(0, i));
    }
    while i < src.len() {
        let c = src[i];
        // Most bytes are spaces, names and operators: each run in a tight loop of its own.
        match CLASS[usize::from(c)] {
            SPACE => {
                i += 1;
                while i < src.len() && CLASS[usize::from(src[i])] == SPACE {
                    i += 1;
                }
                continue;
            }
            NAME => {
                let start = i;
                i += 1;
                while i < src.len() && is_ident(src[i]) {
                    i += 1;
                }
                last = if c.is_ascii_digit() {
                    Last::Operand
                } else {
                    Last::Word(start, i)
                };
                continue;
            }
            OPERATOR => {
                i += 1;
                last = Last::Operator;
                continue;
            }
            _ => {}
        }
        match c {
            b'/' if src.get(i + 1) == Some(&b'/') => {
                let end = line_end(src, i);
                out.push(comment(i, end));
                i = end;
            }
            b'/' if src.get(i + 1) == Some(&b'*') => {
                let end = i + 2 + memchr::memmem::find(&src[i + 2..], b"*/")? + 2;
                out.push(comment(i, end));
                i = end;
            }
            b'/' if regex_allowed(src, last) => {
                i = skip_regex(src, i)?;
                last = Last::Operand;
            }
            b'\'' | b'"' => {
                if i > 0 && is_ident(src[i - 1]) {
                    return None;
                }
                let end = skip_string(src, i)?;
                out.push(text(i, end, i + 1, end - 1));
                i = end;
                last = Last::Operand;
            }
            b'`' => (i, last) = template_part(src, i + 1, &mut out, &mut templates, &mut depth)?,
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
                last = Last::Operator;
            }
            b')' | b']' => {
                depth = depth.checked_sub(1)?;
                i += 1;
                last = Last::Operand;
            }
            b'}' => {
                depth = depth.checked_sub(1)?;
                if templates.last() == Some(&depth) {
                    templates.pop();
                    (i, last) = template_part(src, i + 1, &mut out, &mut templates, &mut depth)?;
                } else {
                    i += 1;
                    last = Last::Operator;
                }
            }
            // A `/` that divides.
            _ => {
                i += 1;
                last = Last::Operator;
            }
        }
    }
    (depth == 0 && templates.is_empty()).then_some(out)
}

/// What each byte is to `spans`'s fast paths: a space, part of a name (`is_ident`: ASCII
/// letters and digits, `_`, `$`, any non-ASCII byte; a digit starts a number, also a run of
/// these), an operator that is nothing else to the lexer, or one of the bytes its `match`
/// looks at (`/`, quotes, brackets).
const SPACE: u8 = 1;
const NAME: u8 = 2;
const OPERATOR: u8 = 4;
const SPECIAL: u8 = 8;
static CLASS: [u8; 256] = {
    let mut class = [OPERATOR; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$' || byte >= 0x80 {
            class[b] = NAME;
        }
        b += 1;
    }
    let spaces = [b' ', b'\t', b'\n', b'\r', 0x0b, 0x0c];
    let mut k = 0;
    while k < spaces.len() {
        class[spaces[k] as usize] = SPACE;
        k += 1;
    }
    let special = [b'/', b'\'', b'"', b'`', b'(', b'[', b'{', b')', b']', b'}'];
    let mut k = 0;
    while k < special.len() {
        class[special[k] as usize] = SPECIAL;
        k += 1;
    }
    class
};

fn comment(start: usize, end: usize) -> Span {
    Span {
        start,
        end,
        region: Region::Comment,
    }
}

fn text(start: usize, end: usize, content_start: usize, content_end: usize) -> Span {
    Span {
        start,
        end,
        region: Region::Text {
            start: content_start,
            end: content_end,
        },
    }
}

fn line_end(src: &[u8], from: usize) -> usize {
    memchr::memchr(b'\n', &src[from..]).map_or(src.len(), |p| from + p)
}

fn is_ident(byte: u8) -> bool {
    CLASS[usize::from(byte)] == NAME
}

fn regex_allowed(src: &[u8], last: Last) -> bool {
    match last {
        Last::Start | Last::Operator => true,
        Last::Word(start, end) => REGEX_AFTER.contains(&&src[start..end]),
        Last::Operand => false,
    }
}

/// The offset after the regular expression starting at `start` (its flags included).
fn skip_regex(src: &[u8], start: usize) -> Option<usize> {
    let mut class = false;
    let mut i = start + 1;
    while i < src.len() {
        match src[i] {
            b'\\' => i += 2,
            b'\n' | b'\r' => return None,
            b'[' => {
                class = true;
                i += 1;
            }
            b']' => {
                class = false;
                i += 1;
            }
            b'/' if !class => {
                i += 1;
                while i < src.len() && is_ident(src[i]) {
                    i += 1;
                }
                return Some(i);
            }
            _ => i += 1,
        }
    }
    None
}

/// The offset after the string literal whose quote is at `start`; None if a line ends first.
fn skip_string(src: &[u8], start: usize) -> Option<usize> {
    let quote = src[start];
    let mut i = start + 1;
    while i < src.len() {
        match src[i] {
            b'\\' => i += 2,
            b'\n' | b'\r' => return None,
            c if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// A template's text from `from` (after a backtick or a `${...}`), then where the code goes
/// on and what came last: the template closed, or a `${` opened at the current depth.
fn template_part(
    src: &[u8],
    from: usize,
    out: &mut Vec<Span>,
    templates: &mut Vec<usize>,
    depth: &mut usize,
) -> Option<(usize, Last)> {
    let (end, closed) = template_text(src, from, out)?;
    if closed {
        return Some((end, Last::Operand));
    }
    templates.push(*depth);
    *depth += 1;
    Some((end, Last::Operator))
}

/// A template's text from `from`: pushes it as a string and returns where the code goes on,
/// and whether the template closed (a backtick) or opened a `${`.
fn template_text(src: &[u8], from: usize, out: &mut Vec<Span>) -> Option<(usize, bool)> {
    let mut i = from;
    while i < src.len() {
        match src[i] {
            b'\\' => i += 2,
            b'`' => {
                out.push(text(from, i + 1, from, i));
                return Some((i + 1, true));
            }
            b'$' if src.get(i + 1) == Some(&b'{') => {
                out.push(text(from, i + 2, from, i));
                return Some((i + 2, false));
            }
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lexed(src: &str) -> Option<Vec<String>> {
        super::super::prefilter::lexed(spans, src)
    }

    #[test]
    fn comments_strings_and_template_texts_are_found() {
        let src = "#!/usr/bin/env node\n// console.log(1)\nconst a = 'x\\'y'; /* b\n*/ f(\"z\")\nt = `one ${g(`in ${h}`)} two`;\n";
        assert_eq!(
            lexed(src).expect("lexed"),
            [
                "c:#!/usr/bin/env node",
                "c:// console.log(1)",
                "s:x\\'y",
                "c:/* b\n*/",
                "s:z",
                "s:one ",
                "s:in ",
                "s:",
                "s: two",
            ]
        );
    }

    #[test]
    fn a_slash_is_a_regular_expression_only_where_an_expression_can_start() {
        // After `=` and `return`: a regular expression, with a quote and a slash in a class.
        let src = "x = /'[/]/g; function f() { return /\"/.test(s) }\ny = a / b / c; z = 'q';\n";
        assert_eq!(lexed(src).expect("lexed"), ["s:q"]);
        // `(a) / 2 / 'x'`: divisions, then a string.
        assert_eq!(lexed("v = (a) / 2 / 'x';\n").expect("lexed"), ["s:x"]);
    }

    #[test]
    fn what_it_cannot_follow_is_none() {
        assert!(spans(b"s = 'open\nconsole.log(1)\n").is_none());
        assert!(spans(b"/* never closed\n").is_none());
        assert!(spans(b"t = `never ${closed}\n").is_none());
        assert!(spans(b"f(1\n").is_none());
        assert!(spans(b"return <p>Don't</p>;\n").is_none());
        assert!(spans(b"return <a>x</a>;\n").is_none());
        assert_eq!(lexed("").expect("lexed"), Vec::<String>::new());
    }
}
