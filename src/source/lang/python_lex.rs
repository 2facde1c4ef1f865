//! A light Python lexer for the prefilter: where the comments and the string literals are.
//! f-strings (and t-strings) count as code, text and all: their replacement fields are code,
//! and telling the two apart is not worth the risk; only their ends are found, nested strings
//! included (3.12 allows the same quote inside a field). Anything it cannot follow (an
//! unterminated string, unbalanced brackets, nesting too deep) gives None: count everything.

use super::prefilter::{Region, Span};

/// f-strings nested deeper than this are not followed.
const MAX_NESTING: usize = 8;

/// The comments and the (non-f) string literals of `src`, in order; None if unsure.
pub fn spans(src: &[u8]) -> Option<Vec<Span>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < src.len() {
        let at = i;
        match CLASS[usize::from(src[at])] {
            OTHER => i += 1,
            OPEN => {
                depth += 1;
                i += 1;
            }
            CLOSE => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            COMMENT => {
                let end = memchr::memchr(b'\n', &src[at..]).map_or(src.len(), |p| at + p);
                out.push(Span {
                    start: at,
                    end,
                    region: Region::Comment,
                });
                i = end;
            }
            // A quote.
            _ => {
                let prefix = string_prefix(src, at);
                if prefix.formatted {
                    i = skip_fstring(src, at, 0)?;
                } else {
                    let end = skip_string(src, at)?;
                    let quotes = if is_triple(src, at) { 3 } else { 1 };
                    out.push(Span {
                        start: at - prefix.len,
                        end,
                        region: Region::Text {
                            start: at + quotes,
                            end: end - quotes,
                        },
                    });
                    i = end;
                }
            }
        }
    }
    (depth == 0).then_some(out)
}

/// What each byte is to `spans`: one table lookup a byte, brackets counted in the same loop.
const OTHER: u8 = 0;
const OPEN: u8 = 1;
const CLOSE: u8 = 2;
const COMMENT: u8 = 3;
const QUOTE: u8 = 4;
static CLASS: [u8; 256] = {
    let mut class = [OTHER; 256];
    class[b'(' as usize] = OPEN;
    class[b'[' as usize] = OPEN;
    class[b'{' as usize] = OPEN;
    class[b')' as usize] = CLOSE;
    class[b']' as usize] = CLOSE;
    class[b'}' as usize] = CLOSE;
    class[b'#' as usize] = COMMENT;
    class[b'\'' as usize] = QUOTE;
    class[b'"' as usize] = QUOTE;
    class
};

struct Prefix {
    len: usize,
    formatted: bool,
}

/// The string prefix (`r`, `b`, `f`, `rb`, `fr`, `t`...) just before the quote at `at`; an
/// identifier that is not one (`if"x"`) is no prefix.
fn string_prefix(src: &[u8], at: usize) -> Prefix {
    let none = Prefix {
        len: 0,
        formatted: false,
    };
    let letters = src[..at]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b >= 0x80)
        .count();
    if letters == 0 || letters > 2 {
        return none;
    }
    let word = src[at - letters..at].to_ascii_lowercase();
    let valid = matches!(
        word.as_slice(),
        b"r" | b"u" | b"b" | b"f" | b"t" | b"rb" | b"br" | b"fr" | b"rf" | b"tr" | b"rt"
    );
    if !valid {
        return none;
    }
    Prefix {
        len: letters,
        formatted: word.contains(&b'f') || word.contains(&b't'),
    }
}

fn is_triple(src: &[u8], at: usize) -> bool {
    let quote = src[at];
    src[at..].starts_with(&[quote, quote, quote])
}

/// The offset after the string literal whose opening quote is at `start` (a prefix such as
/// `rb` was skipped as an identifier); None if it does not end.
pub fn skip_string(src: &[u8], start: usize) -> Option<usize> {
    let quote = src[start];
    let triple = is_triple(src, start);
    let mut i = start + if triple { 3 } else { 1 };
    loop {
        // From one byte that matters to the next: a docstring is crossed in a few jumps.
        let rest = src.get(i..)?;
        i += if triple {
            memchr::memchr2(b'\\', quote, rest)?
        } else {
            memchr::memchr3(b'\\', b'\n', quote, rest)?
        };
        match src[i] {
            // An escaped character never ends the string (raw strings included).
            b'\\' => i += 2,
            b'\n' => return None,
            _ => match closes_at(src, i, triple) {
                Some(end) => return Some(end),
                None => i += 1,
            },
        }
    }
}

/// At a quote inside a string opened with it (tripled or not): the offset after the string
/// if it closes here; None for a lone quote inside a triple-quoted string.
fn closes_at(src: &[u8], i: usize, triple: bool) -> Option<usize> {
    if !triple {
        return Some(i + 1);
    }
    is_triple(src, i).then_some(i + 3)
}

/// The offset after the f-string whose opening quote is at `start`: its text ends at the
/// closing quote; its replacement fields (`{...}`, not `{{`) are code, with strings of their own.
fn skip_fstring(src: &[u8], start: usize, nesting: usize) -> Option<usize> {
    if nesting > MAX_NESTING {
        return None;
    }
    let quote = src[start];
    let triple = is_triple(src, start);
    let mut i = start + if triple { 3 } else { 1 };
    let mut fields = 0usize;
    while i < src.len() {
        let c = src[i];
        if fields == 0 {
            match c {
                b'\\' => i += 2,
                b'\n' if !triple => return None,
                b'{' if src.get(i + 1) == Some(&b'{') => i += 2,
                b'{' => {
                    fields = 1;
                    i += 1;
                }
                c if c == quote => match closes_at(src, i, triple) {
                    Some(end) => return Some(end),
                    None => i += 1,
                },
                _ => i += 1,
            }
            continue;
        }
        match c {
            b'{' | b'(' | b'[' => {
                fields += 1;
                i += 1;
            }
            b'}' | b')' | b']' => {
                fields -= 1;
                i += 1;
            }
            b'\'' | b'"' => {
                i = if string_prefix(src, i).formatted {
                    skip_fstring(src, i, nesting + 1)?
                } else {
                    skip_string(src, i)?
                };
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
    fn comments_and_strings_are_found_with_their_prefixes_and_quotes() {
        let src = "x = 'a' # print(1)\ny = rb\"b\\\"c\"\nz = '''\nprint(2)\n'''\nif\"k\": pass\n";
        assert_eq!(
            lexed(src).expect("lexed"),
            ["s:a", "c:# print(1)", "s:b\\\"c", "s:\nprint(2)\n", "s:k"]
        );
        let spans = spans(src.as_bytes()).expect("lexed");
        // The prefix belongs to the string; `if` before a quote is a keyword, not a prefix.
        assert_eq!(&src[spans[2].start..spans[2].start + 3], "rb\"");
        assert_eq!(&src[spans[4].start..spans[4].end], "\"k\"");
    }

    #[test]
    fn f_strings_are_code_and_end_where_python_ends_them() {
        // Nested strings in fields, the same quote nested (3.12), doubled braces, a format spec.
        let src =
            "a = f\"{d['k']} {x[\"y\"]} {{print}} {v:>{w}}\" + 'after'\nb = F'''{'''n'''}''' # c\n";
        assert_eq!(lexed(src).expect("lexed"), ["s:after", "c:# c"]);
    }

    #[test]
    fn what_it_cannot_follow_is_none() {
        assert!(spans(b"s = 'open\nprint(1)\n").is_none());
        assert!(spans(b"s = '''never closed\n").is_none());
        assert!(spans(b"x = (1,\n").is_none());
        assert!(spans(b"x = 1)\n").is_none());
        assert!(spans(b"s = f'{x'\n").is_none());
        assert_eq!(lexed("").expect("lexed"), Vec::<String>::new());
    }
}
