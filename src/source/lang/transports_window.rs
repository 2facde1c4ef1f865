//! Parsing less of a large module for its transport facts: the same windows as the scan's
//! (`js_window`, `python_window`), keeping the parts that mention a fact word
//! (`fact_words`), so a module with findings is not parsed whole a second time.
//! A part left out mentions no fact word, so it holds no import, transport, listen, stdin
//! read or exit: the facts of the window are the whole file's (`transports::facts_in` keeps
//! a Python statement left out between a write and an exit from joining them). Python's
//! window is cut statement by statement (`FactMentions::ranges`). A part left out may still
//! name what the facts follow (a flag, an import's name): `taken_back` puts such parts back.

pub use super::fact_marks::Marks;
use super::js_window;
use super::prefilter::{span_at, Region, Span, Text};
use super::python_window;
use super::transport_branches::HTTP_NAMES;
use super::transports::{
    ModuleFacts, JS_BRANCH_WORDS, JS_HTTP_TRANSPORTS, PY_BRANCH_WORDS, PY_HTTP_CLASSES,
    PY_HTTP_METHODS,
};
use super::{Lang, FACTS_WINDOW_MIN_BYTES};
use tree_sitter::Range;

/// Python's fact words whose facts depend on the statements around them, not only on the
/// one that holds them: an exit (what the block ends with, the writes before it, whether the
/// block serves) and a branch's condition (which parts it leaves off stdio). A statement
/// that holds one is parsed whole in the facts' window (`FactMentions::ranges`); the other
/// words (a load, a server's call, stdin, a write) are facts of their own statement.
const PY_AROUND_CODE: &[&str] = &["exit", "_exit", "SystemExit"];

/// The words of code that make a JavaScript module serve (`transports::javascript`): a port
/// listened on, stdin read, a stdio transport created. The HTTP transports created are
/// `JS_HTTP_TRANSPORTS`, matched as names.
const JS_SERVING_CODE: &[&str] = &["listen", "stdin", "StdioServerTransport"];

/// Whole words without which a part of a module holds none of its facts: every name the fact
/// walks in `transports` compare with, or a word of it, the conditions of
/// `transport_branches`, and the keywords of the loads. First the words of code (keywords,
/// calls, writes), then the names a condition or a call may also hold as text
/// (`transport == "sse"`, `"__main__"`, `os.environ.get("HTTP")`), matched in any case, as
/// conditions compare transport names (`'SSE'`).
fn fact_words(lang: Lang) -> (&'static [&'static str], Vec<&'static str>) {
    let (code, names): (&'static [&'static str], &[&[&str]]) = match lang {
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => (
            &[
                "import",
                "export",
                "require",
                "listen",
                "connect",
                "exit",
                "stdin",
                "StdioServerTransport",
                // Writes, so a part that holds one keeps the branch around it.
                "console",
                "stdout",
                "write",
            ],
            &[JS_HTTP_TRANSPORTS, JS_BRANCH_WORDS, HTTP_NAMES],
        ),
        Lang::Python => (
            &[
                "import",
                "import_module",
                "uvicorn",
                "run",
                "run_stdio_async",
                "stdio_server",
                "stdin",
                "exit",
                // `os._exit`, where `exit` is not a word of its own.
                "_exit",
                "SystemExit",
                // Writes, so a part that holds one keeps the branch around it.
                "print",
                "stdout",
                "write",
                "echo",
            ],
            &[
                PY_HTTP_METHODS,
                PY_HTTP_CLASSES,
                PY_BRANCH_WORDS,
                HTTP_NAMES,
            ],
        ),
        _ => (&[], &[]),
    };
    (code, names.iter().flat_map(|n| n.iter()).copied().collect())
}

/// Where a module mentions a fact word (`fact_words`), as (start, end) in source order. A word
/// of code counts in code, or as a whole string literal (`getattr(sys, "stdout")`), but not in
/// a comment or in a longer string: a docstring's `>>> print(x)` or a comment's "import it"
/// holds no import, exit or write. A name counts anywhere. Where the language's lexer is
/// unsure (`js_lex`, `python_lex`), every mention counts.
pub struct FactMentions {
    at: Vec<(usize, usize)>,
    /// Python's mentions of the words whose facts depend on the statements around them
    /// (`PY_AROUND_CODE`; `PY_BRANCH_WORDS` and the transport names in any case), in source
    /// order.
    around: Vec<(usize, usize)>,
    /// Where a JavaScript `import {` opens its braces, plus one: the window keeps them (the
    /// names an import binds are facts). A scan's tree without them still holds the facts
    /// unless a part is off stdio (`taken_back`), so `held_by` does not ask for them.
    braces: Vec<usize>,
}

impl FactMentions {
    /// The mentions in a file the prefilter has read (its lexer's spans are the ones
    /// `js_lex` or `python_lex` find; a test checks).
    pub fn of(lang: Lang, text: &Text<'_>) -> Self {
        let (code, names) = fact_words(lang);
        Self::of_words(lang, text, code, &names, true)
    }

    /// The mentions of what makes a JavaScript or TypeScript module serve HTTP or stdio
    /// (`JS_SERVING_CODE`, `JS_HTTP_TRANSPORTS`): a window of them has the whole file's
    /// `serves_http` and `serves_stdio`, and nothing else of its facts. None for Python, and
    /// for a module that mentions no port listened on nor HTTP transport (it cannot serve
    /// HTTP only).
    pub fn serving(lang: Lang, text: &Text<'_>) -> Option<Self> {
        if !matches!(lang, Lang::JavaScript | Lang::TypeScript | Lang::Tsx) {
            return None;
        }
        let mentions = Self::of_words(lang, text, JS_SERVING_CODE, JS_HTTP_TRANSPORTS, false);
        let stdio = |word: &[u8]| word == b"stdin" || word == b"StdioServerTransport";
        let http = mentions.at.iter().any(|&(s, e)| !stdio(&text.src[s..e]));
        http.then_some(mentions)
    }

    /// The mentions of words of `code` and of `names`, and with `headers` the reads of
    /// request headers within longer words.
    fn of_words(
        lang: Lang,
        text: &Text<'_>,
        code: &[&'static str],
        names: &[&'static str],
        headers: bool,
    ) -> Self {
        let src = text.src;
        let dollar = matches!(lang, Lang::JavaScript | Lang::TypeScript | Lang::Tsx);
        let spans = text.spans().unwrap_or_default();
        // Names in any case, as conditions compare transport names (`'SSE'`).
        let lower = src.to_ascii_lowercase();
        let names: Vec<String> = names.iter().map(|w| w.to_ascii_lowercase()).collect();
        let mut at: Vec<(usize, usize)> = names
            .iter()
            .flat_map(|w| whole_words(&lower, w.as_bytes(), dollar))
            .collect();
        at.extend(
            code.iter()
                .flat_map(|w| whole_words(src, w.as_bytes(), dollar))
                .filter(|&(start, end)| counts_as_code(spans, start, end)),
        );
        // Request headers are read within any word (`headersList`, `request_headers`), as
        // `transport_branches` reads them; whole words are mentions already.
        if headers {
            at.extend(
                occurrences(&lower, b"headers", dollar)
                    .filter_map(|(start, end, whole)| (!whole).then_some((start, end))),
            );
        }
        let braces = if dollar {
            at.iter()
                .filter(|(start, end)| &src[*start..*end] == b"import")
                .filter_map(|(_, end)| js_window::import_braces(src, *end))
                .map(|open| open + 1)
                .collect()
        } else {
            Vec::new()
        };
        at.sort_unstable();
        let around = if lang == Lang::Python {
            let word = |at: &(usize, usize)| &src[at.0..at.1];
            at.iter()
                .filter(|m| {
                    PY_AROUND_CODE.iter().any(|w| w.as_bytes() == word(m))
                        || PY_BRANCH_WORDS
                            .iter()
                            .chain(HTTP_NAMES)
                            .any(|w| w.as_bytes().eq_ignore_ascii_case(word(m)))
                })
                .copied()
                .collect()
        } else {
            Vec::new()
        };
        Self { at, around, braces }
    }

    /// Where the `import {` braces open, plus one, as the window keeps them.
    #[cfg(test)]
    pub fn braces(&self) -> &[usize] {
        &self.braces
    }

    /// The mentions that mark the nodes the walk for the facts acts on (`fact_marks`).
    pub fn marks(&self, lang: Lang, src: &[u8]) -> Marks {
        Marks::new(lang, src, &self.at)
    }

    /// True if a mention lies wholly in `src[start..end]`.
    fn within(&self, start: usize, end: usize) -> bool {
        within(&self.at, start, end)
    }

    /// The parts of `src` to parse for its facts, or None to parse it whole.
    pub fn ranges(&self, lang: Lang, text: &Text<'_>) -> Option<Vec<Range>> {
        let src = text.src;
        if src.len() < FACTS_WINDOW_MIN_BYTES {
            return None;
        }
        match lang {
            Lang::JavaScript | Lang::TypeScript => {
                let ends = self.at.iter().map(|(_, e)| *e);
                js_window::included_ranges_at(
                    text,
                    ends.chain(self.braces.iter().copied()).collect(),
                )
            }
            // Statement by statement: a statement that mentions no fact word is left out, one
            // that mentions a word whose facts depend on what is around it is kept whole, and
            // each block keeps its first and last statement. A guard on a name set elsewhere
            // (`if not use_http: return`) holds no fact word: `trees::facts_in_part` parses
            // whole when such a name is read in a part left out.
            Lang::Python => python_window::facts_ranges_by(
                text,
                |s, e| self.within(s, e),
                |s, e| within(&self.around, s, e),
            ),
            _ => None,
        }
    }

    /// True if the parts of `src` left out of `ranges` (a window of the scan's) mention no
    /// fact word, so a tree parsed from `ranges` has the whole file's facts.
    pub fn held_by(&self, ranges: &[Range], len: usize) -> bool {
        if ranges.is_empty() {
            return true;
        }
        let mut start = 0;
        for r in ranges {
            if start < r.start_byte && self.within(start, r.start_byte) {
                return false;
            }
            start = r.end_byte;
        }
        !(start < len && self.within(start, len))
    }
}

/// A Python window of `parts` (sorted, apart; `transports::demoting_parts`): the statements
/// in them whole, and the headers of those around them (a class's, for a method), cut as
/// the facts' windows are (`python_window::facts_ranges_by`). None to parse the whole file.
pub fn local_ranges(text: &Text<'_>, parts: &[(usize, usize)]) -> Option<Vec<Range>> {
    // The part that ends after `start`, if any: the only one a statement from there can
    // overlap or lie in.
    let part = |start: usize| {
        let i = parts.partition_point(|&(_, end)| end <= start);
        parts.get(i).copied()
    };
    python_window::facts_ranges_by(
        text,
        |s, e| part(s).is_some_and(|(ps, _)| ps < e),
        |s, e| part(s).is_some_and(|(ps, pe)| ps <= s && e <= pe),
    )
}

/// The parts of a window to take back, if the facts of a tree parsed from `ranges` of `src`
/// (a window; empty: the whole file) may not be the whole file's: `ranges` with those parts
/// put back, for the caller to parse again (and whole if that is not enough). A part left
/// out holds no fact word (no load, exit, transport or condition on one), but it may still
/// hold a name the facts follow:
/// - it reads a flag (a name set from a condition that holds only off stdio): a guard
///   (`if not use_http: return`) or a branch on the flag holds no fact word;
/// - with parts off stdio in the window: it cuts a JavaScript `import` statement (the names
///   it binds went with it), or names what an `import` binds. A load whose names are used
///   only off stdio is off it too (`transports::bindings_used_off_stdio`); a use left out is
///   not seen (the body of a branch off stdio is left out if it holds no fact word), and a
///   name left out may be no use at all (a key, a comment).
pub fn taken_back(facts: &ModuleFacts, src: &[u8], ranges: &[Range]) -> Option<Vec<Range>> {
    if ranges.is_empty() {
        return None;
    }
    let mut names: Vec<&str> = facts.flags.iter().map(String::as_str).collect();
    let mut imports = Vec::new();
    if !facts.off_stdio.is_empty() {
        names.extend(
            facts
                .loads
                .iter()
                .flat_map(|l| l.bindings.iter().map(String::as_str)),
        );
        imports.extend(
            facts
                .loads
                .iter()
                .filter(|l| l.end > l.at)
                .map(|l| (l.at, l.end)),
        );
    }
    let mut back: Vec<(usize, usize)> = names
        .iter()
        .flat_map(|name| js_window::left_out_mentions(src, ranges, name))
        .chain(imports)
        .collect();
    if back.is_empty() {
        return None;
    }
    back.sort_unstable();
    // Each part left out between two kept ones (tree-sitter's ranges: in order, apart).
    // A part is wanted if one of `back` overlaps it: of those starting before its end, the
    // furthest end (an import's span may hold a name's mention) is past its start.
    let furthest: Vec<usize> = back
        .iter()
        .scan(0, |far, (_, e)| {
            *far = (*far).max(*e);
            Some(*far)
        })
        .collect();
    let wanted = |start: usize, end: usize| {
        let before = back.partition_point(|(s, _)| *s < end);
        before > 0 && furthest[before - 1] > start
    };
    let mut out: Vec<Range> = Vec::with_capacity(ranges.len());
    let mut changed = false;
    for r in ranges {
        match out.last_mut() {
            Some(last) if wanted(last.end_byte, r.start_byte) => {
                last.end_byte = r.end_byte;
                last.end_point = r.end_point;
                changed = true;
            }
            _ => out.push(*r),
        }
    }
    // What comes before the first range and after the last is left out too.
    let first = out
        .first()
        .is_some_and(|r| r.start_byte > 0 && wanted(0, r.start_byte));
    let last = out
        .last()
        .is_some_and(|r| r.end_byte < src.len() && wanted(r.end_byte, src.len()));
    if first || last {
        // Rare (a window starts at the file's start and ends at its end): the whole file.
        return Some(Vec::new());
    }
    changed.then_some(out)
}

/// True if one of `at` (mentions in source order) lies wholly in `start..end`.
fn within(at: &[(usize, usize)], start: usize, end: usize) -> bool {
    let first = at.partition_point(|(s, _)| *s < start);
    at.get(first).is_some_and(|(_, e)| *e <= end)
}

/// Whole-word occurrences of `word`: no identifier byte (ASCII letters and digits, `_`, any
/// non-ASCII byte and, in JavaScript, `$`) right before or after it.
fn whole_words<'a>(
    src: &'a [u8],
    word: &'a [u8],
    dollar: bool,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    occurrences(src, word, dollar).filter_map(|(start, end, whole)| whole.then_some((start, end)))
}

/// Every occurrence of `word`, and whether it is a whole word (as `whole_words` says).
fn occurrences<'a>(
    src: &'a [u8],
    word: &'a [u8],
    dollar: bool,
) -> impl Iterator<Item = (usize, usize, bool)> + 'a {
    let ident =
        move |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80 || (dollar && b == b'$');
    memchr::memmem::find_iter(src, word).map(move |i| {
        let end = i + word.len();
        let whole = (i == 0 || !ident(src[i - 1])) && src.get(end).is_none_or(|b| !ident(*b));
        (i, end, whole)
    })
}

/// An occurrence at `start..end` is in code, or is a whole string literal's content.
fn counts_as_code(spans: &[Span], start: usize, end: usize) -> bool {
    match span_at(spans, start) {
        Some(span) if end <= span.end => match span.region {
            Region::Code => true,
            Region::Comment => false,
            Region::Text { start: s, end: e } => s == start && e == end,
        },
        _ => true,
    }
}

/// The parts of `src` to parse for its facts, or None to parse it whole (the tests' way to
/// ask; `reach` asks `ranges_and_marks`).
#[cfg(test)]
pub fn ranges(lang: Lang, src: &[u8]) -> Option<Vec<Range>> {
    let text = lang.text(src);
    FactMentions::of(lang, &text).ranges(lang, &text)
}

/// As `ranges`, with the marks of the nodes the walk for the facts acts on.
pub fn ranges_and_marks(lang: Lang, src: &[u8]) -> (Option<Vec<Range>>, Marks) {
    let text = lang.text(src);
    let mentions = FactMentions::of(lang, &text);
    (mentions.ranges(lang, &text), mentions.marks(lang, src))
}

/// For tests of windows: a body of 30 quiet statements, and six quiet functions of it in
/// Python or JavaScript, large enough to be left out of a window.
#[cfg(test)]
pub fn quiet_parts(lang: Lang) -> (String, String) {
    if lang == Lang::Python {
        let body = "    x = x + 1\n".repeat(30);
        let filler = (0..6)
            .map(|i| format!("def quiet{i}(x):\n{body}    return x\n\n"))
            .collect();
        (body, filler)
    } else {
        let body = "  x = x + 1;\n".repeat(30);
        let filler = (0..6)
            .map(|i| format!("function quiet{i}(x) {{\n{body}  return x;\n}}\n"))
            .collect();
        (body, filler)
    }
}

#[cfg(test)]
#[path = "transports_window_tests.rs"]
mod tests;
