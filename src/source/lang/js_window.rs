//! Parsing less of a large JavaScript or TypeScript file: the inside of every large brace
//! block that mentions none of the scan's words is left out of the parse (tree-sitter's
//! included ranges), which leaves `{}` — valid wherever a block, body or object literal stands.
//! Names bound inside such a block are invisible outside it, so the findings do not change.
//! A light lexer finds the blocks (skipping strings, comments, templates and regular
//! expressions); when it is unsure the caller parses the whole file, and also when the
//! windowed parse has a syntax error.

use super::prefilter::Text;
use super::syntax::Words;
use std::cell::OnceCell;
use tree_sitter::{Point, Range};

/// Blocks smaller than this are kept: leaving them out saves less than it costs. (The
/// thresholds of both windows were measured together: bench/README.md, issue 42 item 4,
/// session thirteen.)
const MIN_LEFT_OUT: usize = 16;
/// Comments smaller than this are kept whole.
const MIN_COMMENT_LEFT_OUT: usize = 16;
/// Window only when at least this share of the file can be left out.
const MIN_SAVING_PERCENT: usize = 5;

/// A `{ ... }` pair at code level, by byte offset of each brace.
#[derive(Debug, Clone, Copy)]
struct Block {
    open: usize,
    close: usize,
}

/// What the lexer remembers about the previous significant token, to tell `/` apart.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Previous {
    /// Start of file or an operator: a `/` here starts a regular expression.
    Operator,
    /// An identifier, number, `)` or `]`: a `/` here divides.
    Operand,
}

/// Keywords after which `/` starts a regular expression, although they look like operands.
pub(super) const REGEX_AFTER: &[&[u8]] = &[
    b"return",
    b"typeof",
    b"case",
    b"do",
    b"else",
    b"in",
    b"of",
    b"new",
    b"delete",
    b"void",
    b"throw",
    b"instanceof",
    b"yield",
    b"await",
];

/// What the lexer found: code-level brace blocks (outermost first) and comment texts (the
/// bytes between `//` and the line end, or between `/*` and `*/`).
struct Lexed {
    blocks: Vec<Block>,
    comments: Vec<(usize, usize)>,
}

/// What the lexer finds in a file and the file's lines, found once for every window that
/// asks (the scan's, its widening, the facts').
struct Found {
    lexed: Option<Lexed>,
    lines: OnceCell<LineIndex>,
}

impl Found {
    fn of(src: &[u8]) -> Self {
        Self {
            lexed: lex(src),
            lines: OnceCell::new(),
        }
    }
}

/// Lexes a file; None if the lexer is unsure.
fn lex(src: &[u8]) -> Option<Lexed> {
    enum Open {
        Block(usize),
        Template,
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut found = Vec::new();
    let mut comments = Vec::new();
    let mut previous = Previous::Operator;
    let mut i = 0;
    if src.starts_with(b"#!") {
        i = memchr_from(src, b'\n', 0).unwrap_or(src.len());
    }
    while i < src.len() {
        let c = src[i];
        match c {
            b'/' if src.get(i + 1) == Some(&b'/') => {
                let end = memchr_from(src, b'\n', i).unwrap_or(src.len());
                comments.push((i + 2, end));
                i = end;
                continue;
            }
            b'/' if src.get(i + 1) == Some(&b'*') => {
                let end = find_from(src, b"*/", i + 2)?;
                comments.push((i + 2, end));
                i = end + 2;
                continue;
            }
            b'\'' | b'"' => {
                i = skip_string(src, i)?;
                previous = Previous::Operand;
                continue;
            }
            b'`' => {
                match skip_template(src, i + 1)? {
                    (end, false) => i = end,
                    (end, true) => {
                        stack.push(Open::Template);
                        i = end;
                        previous = Previous::Operator;
                        continue;
                    }
                }
                previous = Previous::Operand;
                continue;
            }
            b'/' if previous == Previous::Operator => {
                i = skip_regex(src, i + 1)?;
                previous = Previous::Operand;
                continue;
            }
            b'{' => {
                stack.push(Open::Block(i));
                previous = Previous::Operator;
            }
            b'}' => match stack.pop()? {
                Open::Block(open) => {
                    found.push(Block { open, close: i });
                    // After a block a `/` starts a regex; after an object literal it divides:
                    // the rare division after `}` makes the parse fail and the caller retry.
                    previous = Previous::Operator;
                }
                Open::Template => {
                    let (end, again) = skip_template(src, i + 1)?;
                    i = end;
                    if again {
                        stack.push(Open::Template);
                        previous = Previous::Operator;
                    } else {
                        previous = Previous::Operand;
                    }
                    continue;
                }
            },
            b')' | b']' => previous = Previous::Operand,
            c if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80 => {
                let start = i;
                while i < src.len()
                    && (src[i].is_ascii_alphanumeric()
                        || src[i] == b'_'
                        || src[i] == b'$'
                        || src[i] >= 0x80)
                {
                    i += 1;
                }
                previous = if REGEX_AFTER.contains(&&src[start..i]) {
                    Previous::Operator
                } else {
                    Previous::Operand
                };
                continue;
            }
            c if c.is_ascii_whitespace() => {}
            _ => previous = Previous::Operator,
        }
        i += 1;
    }
    if !stack.is_empty() {
        return None;
    }
    found.sort_by_key(|b| b.open);
    Some(Lexed {
        blocks: found,
        comments,
    })
}

/// End offsets of `word` where it is not part of a longer identifier.
fn whole_word_ends<'a>(src: &'a [u8], word: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
    memchr::memmem::find_iter(src, word)
        .filter(move |i| {
            (*i == 0 || !ident(src[i - 1])) && src.get(i + word.len()).is_none_or(|b| !ident(*b))
        })
        .map(move |i| i + word.len())
}

/// Where the braces open after `import` (ending at `end`) in `import {`, `import type {` or
/// `import a, {`; None if no brace follows.
pub(super) fn import_braces(src: &[u8], end: usize) -> Option<usize> {
    let space = |mut i: usize| {
        while src.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let name = |mut i: usize| {
        while src
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$') || *b >= 0x80)
        {
            i += 1;
        }
        i
    };
    let mut i = space(end);
    // At most `type`, then a default binding and its comma.
    for _ in 0..2 {
        if src.get(i) == Some(&b'{') {
            return Some(i);
        }
        let after = name(i);
        if after == i {
            return None;
        }
        i = space(after);
        if src.get(i) == Some(&b',') {
            i = space(i + 1);
        }
    }
    (src.get(i) == Some(&b'{')).then_some(i)
}

/// Where each `import {` of code opens its braces, plus one: a window keeps those braces
/// (`included_ranges`), as the facts' window does (`transports_window::FactMentions`), so
/// that the facts' parse reuses the scan's tree there (an ES module's import list left out
/// of one window and kept in the other made tree-sitter parse the rest again).
fn import_brace_ends(text: &Text<'_>) -> Vec<usize> {
    let src = text.src;
    let spans = text.spans().unwrap_or_default();
    whole_word_ends(src, b"import")
        .filter(|end| super::prefilter::span_at(spans, end - b"import".len()).is_none())
        .filter_map(|end| import_braces(src, end))
        .map(|open| open + 1)
        .collect()
}

/// Where `name` occurs as a whole word in the parts of `src` outside `ranges` (tree-sitter's
/// included ranges: in order, apart), as (start, end).
pub fn left_out_mentions<'a>(
    src: &'a [u8],
    ranges: &'a [Range],
    name: &'a str,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    // The one range that can hold an occurrence ending at `end`: the first not ending before it.
    let inside = |end: usize| {
        let at = ranges.partition_point(|r| r.end_byte < end);
        ranges.get(at).is_some_and(|r| r.start_byte < end)
    };
    whole_word_ends(src, name.as_bytes())
        .filter(move |end| !inside(*end))
        .map(move |end| (end - name.len(), end))
}

/// True if `name` occurs as a whole word in the parts of `src` outside `ranges`.
pub fn used_outside(src: &[u8], ranges: &[Range], name: &str) -> bool {
    left_out_mentions(src, ranges, name).next().is_some()
}

fn memchr_from(src: &[u8], byte: u8, from: usize) -> Option<usize> {
    memchr::memchr(byte, &src[from..]).map(|p| p + from)
}

fn find_from(src: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    memchr::memmem::find(src.get(from..)?, needle).map(|p| p + from)
}

/// The offset after a quoted string starting at `start`; None if a line ends inside it.
fn skip_string(src: &[u8], start: usize) -> Option<usize> {
    let quote = src[start];
    let mut i = start + 1;
    while i < src.len() {
        match src[i] {
            b'\\' => i += 2,
            b'\n' => return None,
            c if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Scans template text from `from`: (offset after the closing backtick, false), or
/// (offset after `${`, true) when a substitution opens.
fn skip_template(src: &[u8], from: usize) -> Option<(usize, bool)> {
    let mut i = from;
    while i < src.len() {
        match src[i] {
            b'\\' => i += 2,
            b'`' => return Some((i + 1, false)),
            b'$' if src.get(i + 1) == Some(&b'{') => return Some((i + 2, true)),
            _ => i += 1,
        }
    }
    None
}

/// The offset after a regular expression whose body starts at `from` (flags included).
fn skip_regex(src: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    let mut in_class = false;
    while i < src.len() {
        match src[i] {
            b'\\' => i += 1,
            b'\n' => return None,
            b'[' => in_class = true,
            b']' => in_class = false,
            b'/' if !in_class => {
                i += 1;
                while i < src.len() && src[i].is_ascii_alphabetic() {
                    i += 1;
                }
                return Some(i);
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The ranges to parse, or None to parse the whole file. A block that mentions one of
/// `keep` or of `names` is kept.
pub fn included_ranges(text: &Text<'_>, keep: &Words, names: &[String]) -> Option<Vec<Range>> {
    let src = text.src;
    let mut mentions: Vec<usize> = import_brace_ends(text);
    keep.any_where(src, |_, end| {
        mentions.push(end);
        false
    });
    for name in names {
        mentions.extend(whole_word_ends(src, name.as_bytes()));
    }
    included_ranges_at(text, mentions)
}

/// As `included_ranges`, a block being kept if one of `mentions` (the end of a mention of a
/// word that counts) falls inside it.
pub fn included_ranges_at(text: &Text<'_>, mut mentions: Vec<usize>) -> Option<Vec<Range>> {
    let src = text.src;
    let owned;
    let found = match text.kept(Found::of) {
        Some(found) => found,
        None => {
            owned = Found::of(src);
            &owned
        }
    };
    let Lexed { blocks, comments } = found.lexed.as_ref()?;
    mentions.sort_unstable();
    let mentioned = |block: &Block| {
        let first = mentions.partition_point(|m| *m <= block.open);
        mentions.get(first).is_some_and(|m| *m <= block.close)
    };
    // Outermost first: once a block is left out, everything inside it goes with it.
    let mut left_out: Vec<(usize, usize)> = Vec::new();
    for block in blocks {
        let inside_left_out = left_out
            .last()
            .is_some_and(|(start, end)| *start <= block.open && block.close <= *end);
        if inside_left_out || block.close - block.open < MIN_LEFT_OUT || mentioned(block) {
            continue;
        }
        left_out.push((block.open + 1, block.close));
    }
    // Comment texts go too (`//` and `/**/` stay valid), except suppressions.
    let in_left_out_block = |at: usize| {
        let next = left_out.partition_point(|(start, _)| *start <= at);
        next > 0 && at < left_out[next - 1].1
    };
    let comment_gaps: Vec<(usize, usize)> = comments
        .iter()
        .copied()
        .filter(|(start, end)| {
            end - start >= MIN_COMMENT_LEFT_OUT
                && !in_left_out_block(*start)
                && memchr::memmem::find(&src[*start..*end], b"mcpcheck").is_none()
        })
        .collect();
    left_out.extend(comment_gaps);
    left_out.sort_unstable();
    let saved: usize = left_out.iter().map(|(s, e)| e - s).sum();
    if saved * 100 < src.len() * MIN_SAVING_PERCENT {
        return None;
    }
    let lines = found.lines.get_or_init(|| LineIndex::new(src));
    let mut ranges = Vec::with_capacity(left_out.len() + 1);
    let mut start = 0;
    for (gap_start, gap_end) in left_out {
        ranges.push(lines.range(start, gap_start));
        start = gap_end;
    }
    ranges.push(lines.range(start, src.len()));
    Some(ranges)
}

/// Byte offset to row and column, for the ranges tree-sitter needs.
pub(super) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(super) fn new(src: &[u8]) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', src).map(|i| i + 1));
        Self { starts }
    }

    fn point(&self, byte: usize) -> Point {
        let row = self
            .starts
            .partition_point(|s| *s <= byte)
            .saturating_sub(1);
        Point {
            row,
            column: byte - self.starts[row],
        }
    }

    pub(super) fn range(&self, start: usize, end: usize) -> Range {
        Range {
            start_byte: start,
            end_byte: end,
            start_point: self.point(start),
            end_point: self.point(end),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each byte's row and column, as tree-sitter counts them (a column in bytes after the
    /// last `\n`; `\r` is a byte of the line), against a count made one byte at a time.
    #[test]
    fn a_line_index_places_every_byte_as_a_count_byte_by_byte_does() {
        for src in [
            "",
            "a",
            "\n",
            "ab\ncd",
            "ab\r\ncd\r\n",
            "\n\n x\n",
            "é\nà b\n\n",
        ] {
            let lines = LineIndex::new(src.as_bytes());
            let (mut row, mut column) = (0, 0);
            for (at, byte) in src.bytes().chain([b' ']).enumerate() {
                let range = lines.range(at, at);
                assert_eq!(range.start_point, Point { row, column }, "{src:?} at {at}");
                assert_eq!(range.end_point, range.start_point);
                if byte == b'\n' {
                    (row, column) = (row + 1, 0);
                } else {
                    column += 1;
                }
            }
        }
    }

    static WORDS: Words = Words::new(&["console"]);

    fn kept(src: &str) -> Option<String> {
        let ranges = included_ranges(
            &super::super::Lang::JavaScript.text(src.as_bytes()),
            &WORDS,
            &[],
        )?;
        Some(
            ranges
                .iter()
                .map(|r| &src[r.start_byte..r.end_byte])
                .collect(),
        )
    }

    /// One lex serves every window asked of a file (the scan's, its widening, the facts'):
    /// asked in turn of one text, with other mentions each time, each window is the one a
    /// fresh text gives.
    #[test]
    fn windows_asked_in_turn_of_one_text_are_those_of_fresh_texts() {
        let filler = "x = x + 1;\n".repeat(100);
        let src = format!(
            "function a() {{\n{filler}}}\nfunction b() {{\n{filler}}}\n// {filler}\nfunction c() {{\n{filler}}}\n"
        );
        let at = |name: &str| src.find(name).expect("in src") + name.len();
        let javascript = super::super::Lang::JavaScript;
        let text = javascript.text(src.as_bytes());
        let asked = [
            vec![at("b()") + 2],
            vec![at("b()") + 2, at("c()") + 2],
            Vec::new(),
            vec![at("a()") + 2],
        ];
        let mut windows: Vec<Vec<Range>> = Vec::new();
        for mentions in asked {
            let fresh = included_ranges_at(&javascript.text(src.as_bytes()), mentions.clone());
            let again = included_ranges_at(&text, mentions);
            assert_eq!(again, fresh);
            windows.push(fresh.expect("windowed"));
        }
        // The mentions made different windows.
        for (i, window) in windows.iter().enumerate() {
            assert!(!windows[..i].contains(window), "{i}: {windows:?}");
        }
    }

    #[test]
    fn large_blocks_without_the_words_are_left_out() {
        let filler = "x = x + 1;\n".repeat(100);
        let src = format!(
            "function a() {{\n{filler}}}\nfunction b() {{\n  console.log(1);\n{filler}}}\n"
        );
        let kept = kept(&src).expect("windowed");
        assert!(
            kept.starts_with("function a() {}\nfunction b() {\n  console.log(1);"),
            "{kept}"
        );
    }

    #[test]
    fn an_import_keeps_its_braces_as_the_facts_window_does() {
        let filler = "x = x + 1;\n".repeat(100);
        let names = "Alpha, Beta, Gamma, Delta, Epsilon";
        let src = format!(
            "import {{ {names} }} from './a.js';\nimport type {{ {names} }} from './b.js';\n// import {{ {names} }}\nconst s = 'import {{ {names} }}';\nfunction f() {{\n{filler}}}\nconsole.log(1);\n"
        );
        let kept = kept(&src).expect("windowed");
        // Both imports' lists stay (each a block without a word, left out before), and the
        // string (no block); the comment's text goes.
        assert_eq!(kept.matches(names).count(), 3, "{kept}");
        assert!(kept.contains("function f() {}"), "{kept}");
        // The facts' window keeps the same braces.
        let text = super::super::Lang::JavaScript.text(src.as_bytes());
        let mentions = super::super::transports_window::FactMentions::of(
            super::super::Lang::JavaScript,
            &text,
        );
        assert_eq!(import_brace_ends(&text), mentions.braces());
    }

    #[test]
    fn strings_comments_templates_and_regexes_do_not_confuse_the_braces() {
        let filler = "y();\n".repeat(200);
        let src = format!(
            "const s = \"{{\"; // }}\n/* {{ */ const r = /[{{]/g;\nconst t = `${{ {{ a: 1 }} }} }}`;\nfunction f() {{\n{filler}}}\nconsole.log(s);\n"
        );
        let kept = kept(&src).expect("windowed");
        assert!(kept.contains("function f() {}"), "{kept}");
        assert!(kept.contains("const t = `${ { a: 1 } } }`;"), "{kept}");
    }

    #[test]
    fn long_comments_are_emptied_but_suppressions_stay() {
        let doc = format!("/**\n{}*/\n", " * explains the code.\n".repeat(40));
        let src = format!(
            "{doc}// {}\nconsole.log(1); // mcpcheck: ignore -- {}\n",
            "x".repeat(80),
            "y".repeat(80)
        );
        let kept = kept(&src).expect("windowed");
        assert_eq!(
            kept,
            format!(
                "/**/\n//\nconsole.log(1); // mcpcheck: ignore -- {}\n",
                "y".repeat(80)
            )
        );
    }

    #[test]
    fn unsure_or_unbalanced_files_are_parsed_whole() {
        assert!(kept("function f() { console.log('unterminated) }").is_none());
        assert!(kept("function f() {").is_none());
        assert!(
            kept("console.log(1)").is_none(),
            "nothing worth leaving out"
        );
    }
}
