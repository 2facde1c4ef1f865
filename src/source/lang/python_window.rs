//! Parsing less of a large Python file (tree-sitter's included ranges, whole lines at a
//! time), statement by statement: any statement the caller does not keep is left out, and a
//! kept compound statement is parsed as its headers and the statements of its bodies kept
//! in turn, or whole where the caller says so. The scan's window (`fine_ranges_by`): the
//! caller keeps every statement that can bind what the rules resolve
//! (`python_words::window`); uses in left-out parts of names bound elsewhere to what the
//! rules follow (`p = print`, `self.out = sys.stdout`) are checked after the parse
//! (`python::widen_ranges`). The facts' window (`facts_ranges_by`, `transports_window`):
//! each block also keeps its first and last statement.
//! A light lexer finds where statements start, skipping strings, comments, brackets and
//! continued lines; when it is unsure the caller parses the whole file, and also when the
//! windowed parse has a syntax error.

use super::js_window::LineIndex;
use super::prefilter::Text;
use super::python_lex::skip_string;
use tree_sitter::Range;

/// Window only when at least this share of the file can be left out.
const MIN_SAVING_PERCENT: usize = 5;

/// A statement that starts a line: where its line starts, its indentation, and what starts
/// it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Statement {
    pub(super) line: usize,
    pub(super) indent: usize,
    /// `class`.
    pub(super) class: bool,
    /// A decorator, of the definition below it.
    pub(super) decorator: bool,
    /// `elif`, `else`, `except` or `finally`: a clause of the statement before it.
    pub(super) clause: bool,
    /// `import ...` or `from ... import ...`.
    import: bool,
    /// A string alone (a docstring).
    string: bool,
}

/// Words that start a clause of the compound statement before them.
const CLAUSES: &[&[u8]] = &[b"elif", b"else", b"except", b"finally"];

/// Left-out parts smaller than this are parsed: a range costs more than a few lines.
const MIN_GAP: usize = 16;

/// The scan's window: a statement (with its clauses, and the
/// decorators of a definition) that `keep(start, end)` does not keep and that holds no
/// import is left out, at any depth; one it keeps is parsed whole if it has no body or
/// `whole(start, end)` says so, else as its headers (each clause's line up to its body)
/// and, within each body, the statements kept in turn. A body can be left empty:
/// tree-sitter reads it so, without an error (the caller parses whole on one). The caller's
/// `keep` must hold every statement that can bind a name the rules resolve (see
/// `python_words::window`).
pub fn fine_ranges_by(
    text: &Text<'_>,
    keep: impl Fn(usize, usize) -> bool,
    whole: impl Fn(usize, usize) -> bool,
) -> Option<Vec<Range>> {
    fine(text, keep, whole, false)
}

/// As `fine_ranges_by`, for the facts (`transports_window`): also kept, in each block of a
/// kept statement (not the module's), its first and its last statement, and `whole` never
/// holds a class whole (its methods are cut each on its own). What the facts read of a
/// block's shape then reads the same as in the whole file: the statement a block ends with
/// (an exit, a `return` that makes a guard, dead code after an exit) and whether a
/// function's body is one `return` (a flag's setter).
pub fn facts_ranges_by(
    text: &Text<'_>,
    keep: impl Fn(usize, usize) -> bool,
    whole: impl Fn(usize, usize) -> bool,
) -> Option<Vec<Range>> {
    fine(text, keep, whole, true)
}

fn fine(
    text: &Text<'_>,
    keep: impl Fn(usize, usize) -> bool,
    whole: impl Fn(usize, usize) -> bool,
    ends: bool,
) -> Option<Vec<Range>> {
    let src = text.src;
    // Parsed whole (None), as when the lexer is unsure, if the Text kept another type: only
    // these windows keep anything in it.
    let statements: &[Statement] = text.kept(statements)?.as_deref()?;
    // `after[i]`: the first statement after i and all it holds.
    let mut after = vec![statements.len(); statements.len()];
    let mut open: Vec<usize> = Vec::new();
    for (i, s) in statements.iter().enumerate() {
        while open
            .last()
            .is_some_and(|&o| statements[o].indent >= s.indent)
        {
            after[open.pop().unwrap_or_default()] = i;
        }
        open.push(i);
    }
    let mut fine = Fine {
        src_len: src.len(),
        statements,
        after: &after,
        keep,
        whole,
        ends,
        imports: statements
            .iter()
            .filter(|s| s.import)
            .map(|s| s.line)
            .collect(),
        left_out: Vec::new(),
    };
    fine.body(0, statements.len(), true);
    let mut left_out: Vec<(usize, usize)> = Vec::with_capacity(fine.left_out.len());
    for (start, end) in fine.left_out {
        match left_out.last_mut() {
            Some(last) if last.1 == start => last.1 = end,
            _ => left_out.push((start, end)),
        }
    }
    left_out.retain(|(start, end)| end - start >= MIN_GAP);
    ranges_around(src, &left_out)
}

/// The walk of `fine_ranges_by`: the parts left out so far, in order.
struct Fine<'s, K, W> {
    src_len: usize,
    statements: &'s [Statement],
    after: &'s [usize],
    keep: K,
    whole: W,
    /// Keep each block's first and last statement (`facts_ranges_by`).
    ends: bool,
    /// Where each import statement starts, in order.
    imports: Vec<usize>,
    left_out: Vec<(usize, usize)>,
}

impl<K: Fn(usize, usize) -> bool, W: Fn(usize, usize) -> bool> Fine<'_, K, W> {
    /// Where statement `i` starts, or the end of the file past the last.
    fn line(&self, i: usize) -> usize {
        self.statements.get(i).map_or(self.src_len, |s| s.line)
    }

    /// True if an import starts in `src[start..end]`: imports bind names, and are facts.
    fn imports(&self, start: usize, end: usize) -> bool {
        let first = self.imports.partition_point(|at| *at < start);
        self.imports.get(first).is_some_and(|at| *at < end)
    }

    /// The statements `from..to` of the module or of one block. The module's first
    /// statements are kept up to the first that is neither an import nor a string: a fix
    /// that adds an import places it before that one (`python_calls::import_point`).
    fn body(&mut self, from: usize, to: usize, module: bool) {
        // (The facts' window needs no place for an import.)
        let mut leading = module && !self.ends;
        let mut i = from;
        while i < to {
            let first = i;
            // A definition's decorators, then the statement, then its clauses.
            let mut main = i;
            while self.statements[main].decorator
                && main + 1 < to
                && self.statements[main + 1].indent == self.statements[first].indent
            {
                main += 1;
            }
            let mut clauses = vec![main];
            let mut next = self.after[main].min(to);
            while next < to
                && self.statements[next].clause
                && self.statements[next].indent == self.statements[first].indent
            {
                clauses.push(next);
                next = self.after[next].min(to);
            }
            let (start, end) = (self.line(first), self.line(next));
            let end_of_block = self.ends && !module && (first == from || next >= to);
            i = next;
            let kept =
                leading || end_of_block || self.imports(start, end) || (self.keep)(start, end);
            leading &= self.statements[main].import || self.statements[main].string;
            if !kept {
                self.left_out.push((start, end));
                continue;
            }
            let flat = clauses.iter().all(|&c| self.after[c].min(to) == c + 1);
            // For the facts, a class is never whole: its methods are cut each on its own.
            let whole = !(self.ends && self.statements[main].class) && (self.whole)(start, end);
            if flat || whole {
                continue;
            }
            for &c in &clauses {
                let body_end = self.after[c].min(to);
                if body_end > c + 1 {
                    self.body(c + 1, body_end, false);
                }
            }
        }
    }
}

/// Every statement that starts a line, in order (kept with the file's text); None if the
/// lexer is unsure.
pub(super) fn line_statements<'t>(text: &'t Text<'_>) -> Option<&'t [Statement]> {
    text.kept(statements)?.as_deref()
}

/// The ranges of `src` between the parts `left_out` (in order, apart), or None if they
/// save too little or leave nothing.
fn ranges_around(src: &[u8], left_out: &[(usize, usize)]) -> Option<Vec<Range>> {
    let saved: usize = left_out.iter().map(|(s, e)| e - s).sum();
    if saved * 100 < src.len() * MIN_SAVING_PERCENT {
        return None;
    }
    let lines = LineIndex::new(src);
    let mut ranges = Vec::with_capacity(left_out.len() + 1);
    let mut start = 0;
    for &(gap_start, gap_end) in left_out {
        if gap_start > start {
            ranges.push(lines.range(start, gap_start));
        }
        start = gap_end;
    }
    if start < src.len() {
        ranges.push(lines.range(start, src.len()));
    }
    // Nothing at all to parse: leave the whole file to the caller.
    (!ranges.is_empty()).then_some(ranges)
}

/// True if `word` occurs in `text` as a whole word.
#[cfg(test)]
fn mentions(text: &[u8], word: &[u8]) -> bool {
    whole_words(text, word).next().is_some()
}

/// Where `word` occurs in `text` as a whole word.
pub(super) fn whole_words<'a>(text: &'a [u8], word: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    memchr::memmem::find_iter(text, word).filter(move |&i| {
        (i == 0 || !is_ident(text[i - 1])) && text.get(i + word.len()).is_none_or(|b| !is_ident(*b))
    })
}

pub(super) fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte >= 0x80
}

/// Every statement that starts a line, in order; None if the lexer is unsure (an
/// unterminated string, unbalanced brackets, a tab or form feed in an indentation).
fn statements(src: &[u8]) -> Option<Vec<Statement>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut line_start = true;
    let mut continued = false;
    let mut i = 0;
    while i < src.len() {
        if line_start {
            line_start = false;
            let line = i;
            let indent = src[i..]
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t' | 0x0c))
                .count();
            let code = src
                .get(i + indent)
                .is_some_and(|c| !matches!(c, b'\r' | b'\n' | b'#'));
            if depth == 0 && !continued && code {
                if src[i..i + indent].iter().any(|b| *b != b' ') {
                    return None;
                }
                i += indent;
                let rest = &src[i..];
                out.push(Statement {
                    line,
                    indent,
                    class: starts_with_word(rest, b"class"),
                    decorator: src[i] == b'@',
                    clause: CLAUSES.iter().any(|w| starts_with_word(rest, w)),
                    import: starts_with_word(rest, b"import") || starts_with_word(rest, b"from"),
                    string: starts_string(rest),
                });
            }
            continued = false;
        }
        match src[i] {
            b'\n' => {
                line_start = true;
                i += 1;
            }
            b'\\' => {
                // A backslash outside strings continues the line.
                let next = &src[i + 1..];
                if next.starts_with(b"\n") || next.starts_with(b"\r\n") {
                    continued = true;
                    line_start = true;
                    i += if next[0] == b'\n' { 2 } else { 3 };
                } else {
                    i += 1;
                }
            }
            b'#' => i = memchr::memchr(b'\n', &src[i..]).map_or(src.len(), |p| i + p),
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            b'\'' | b'"' => i = skip_string(src, i)?,
            // Up to the next byte the match above acts on, a table lookup each.
            _ => {
                i += 1;
                while src.get(i).is_some_and(|b| !SPECIAL[*b as usize]) {
                    i += 1;
                }
            }
        }
    }
    (depth == 0).then_some(out)
}

/// The bytes `statements` acts on: a line's end, a continuation, a comment, a bracket, a quote.
static SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    let bytes = b"\n\\#()[]{}'\"";
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// A string literal, with or without a prefix (`r`, `b`, `f`, `u`, `rb`...).
fn starts_string(text: &[u8]) -> bool {
    let prefix = text
        .iter()
        .take(3)
        .take_while(|b| matches!(b.to_ascii_lowercase(), b'r' | b'b' | b'f' | b'u' | b't'))
        .count();
    matches!(text.get(prefix), Some(b'"' | b'\''))
}

fn starts_with_word(text: &[u8], word: &[u8]) -> bool {
    text.starts_with(word) && text.get(word.len()).is_none_or(|b| !is_ident(*b))
}

#[cfg(test)]
mod tests {
    use super::super::Lang;
    use super::*;

    /// The text of the facts' window that keeps statements mentioning `print` or `stdout`,
    /// whole those mentioning `exit`.
    fn kept(src: &str) -> Option<String> {
        let words = |start: usize, end: usize, words: &[&str]| {
            words
                .iter()
                .any(|w| mentions(&src.as_bytes()[start..end], w.as_bytes()))
        };
        let ranges = facts_ranges_by(
            &Lang::Python.text(src.as_bytes()),
            |start, end| words(start, end, &["print", "stdout"]),
            |start, end| words(start, end, &["exit"]),
        )?;
        Some(
            ranges
                .iter()
                .map(|r| &src[r.start_byte..r.end_byte])
                .collect(),
        )
    }

    #[test]
    fn the_facts_window_keeps_each_blocks_ends_and_holds_what_exits_whole() {
        let filler = "    x = x + 1\n".repeat(40);
        let src = format!(
            "import sys\n\n@decorated\ndef a(x):\n{filler}    return x\n\ndef b(x):\n    x = 0\n{filler}    print(x)\n{filler}    return x\n\ndef c(x):\n    print(x)\n{filler}    sys.exit(1)\n"
        );
        let kept = kept(&src).expect("windowed");
        // `a` goes; `b` keeps its first and last statement and its write; `c` is whole.
        assert_eq!(
            kept,
            format!(
                "import sys\n\ndef b(x):\n    x = 0\n    print(x)\n    return x\n\ndef c(x):\n    print(x)\n{filler}    sys.exit(1)\n"
            )
        );
    }

    #[test]
    fn a_class_that_exits_somewhere_is_cut_method_by_method() {
        let filler = "        x = x + 1\n".repeat(40);
        let src = format!(
            "class B:\n    def loud(self):\n        print(1)\n\n    @property\n    def quiet(self):\n{filler}        return x\n\n    def tail(self):\n        sys.exit(2)\n"
        );
        let kept = kept(&src).expect("windowed");
        assert_eq!(
            kept,
            "class B:\n    def loud(self):\n        print(1)\n\n    def tail(self):\n        sys.exit(2)\n"
        );
    }

    #[test]
    fn strings_comments_brackets_and_continuations_hide_column_zero_text() {
        let filler = "    y = 2\n".repeat(40);
        let src = format!(
            "def a():\n    s = \"\"\"\ndef not_a_statement():\nprint(1)\n\"\"\"\n{filler}\nx = (1,\ndef_y)\nz = 1 + \\\ndef_w\n# def comment\ndef b():\n{filler}"
        );
        let statements = statements(src.as_bytes()).expect("lexed");
        let starts: Vec<&str> = statements
            .iter()
            .filter(|s| s.indent == 0)
            .map(|s| src[s.line..].lines().next().unwrap_or(""))
            .collect();
        assert_eq!(starts, ["def a():", "x = (1,", "z = 1 + \\", "def b():"]);
        // `print` inside the string keeps `a`; `b` goes.
        let kept = kept(&src).expect("windowed");
        assert!(
            kept.contains("def not_a_statement") && !kept.contains("def b"),
            "{kept}"
        );
    }

    #[test]
    fn the_lexer_gives_up_on_what_it_cannot_follow() {
        assert!(statements(b"s = 'open\ndef f(): pass\n").is_none());
        assert!(statements(b"x = (1,\n").is_none());
        assert!(statements(b"x = 1)\n").is_none());
        assert!(statements(b"s = '''never closed\n").is_none());
    }
}
