//! Parsing less of a large module for its transport facts: the same windows as the scan's
//! (`js_window`, `python_window`), keeping the parts that mention a fact word
//! (`fact_words`), so a module with findings is not parsed whole a second time.
//! A part left out mentions no fact word, so it holds no import, transport, listen, stdin
//! read or exit: the facts of the window are the whole file's (`transports::facts_in` keeps
//! a Python statement left out between a write and an exit from joining them). Python's
//! window is cut statement by statement (`FactMentions::ranges`). A part left out may still
//! name what the facts follow (a flag, an import's name): `taken_back` puts such parts back.

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
        let src = text.src;
        let (code, names) = fact_words(lang);
        let dollar = matches!(lang, Lang::JavaScript | Lang::TypeScript | Lang::Tsx);
        let spans = text.spans().unwrap_or_default();
        // Names in any case, as conditions compare transport names (`'SSE'`).
        let lower = src.to_ascii_lowercase();
        let mut at: Vec<(usize, usize)> = names
            .iter()
            .map(|w| w.to_ascii_lowercase())
            .flat_map(|w| whole_words(&lower, w.as_bytes(), dollar).collect::<Vec<_>>())
            .collect();
        at.extend(
            code.iter()
                .flat_map(|w| whole_words(src, w.as_bytes(), dollar))
                .filter(|&(start, end)| counts_as_code(spans, start, end)),
        );
        let braces = if dollar {
            at.iter()
                .filter(|(start, end)| &src[*start..*end] == b"import")
                .filter_map(|(_, end)| import_braces(src, *end))
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

    /// True if a mention lies wholly in `src[start..end]`.
    fn within(&self, start: usize, end: usize) -> bool {
        within(&self.at, start, end)
    }

    /// The parts of `src` to parse for its facts, or None to parse it whole.
    pub fn ranges(&self, lang: Lang, src: &[u8]) -> Option<Vec<Range>> {
        if src.len() < FACTS_WINDOW_MIN_BYTES {
            return None;
        }
        match lang {
            Lang::JavaScript | Lang::TypeScript => {
                let ends = self.at.iter().map(|(_, e)| *e);
                js_window::included_ranges_at(
                    src,
                    ends.chain(self.braces.iter().copied()).collect(),
                )
            }
            // Statement by statement: a statement that mentions no fact word is left out, one
            // that mentions a word whose facts depend on what is around it is kept whole, and
            // each block keeps its first and last statement. A guard on a name set elsewhere
            // (`if not use_http: return`) holds no fact word: `trees::facts_in_part` parses
            // whole when such a name is read in a part left out.
            Lang::Python => python_window::facts_ranges_by(
                src,
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

/// The parts of a window to take back, if the facts of a tree parsed from `ranges` of `src`
/// (a window; empty: the whole file) may not be the whole file's: `ranges` with those parts
/// put back, for the caller to parse again (and whole if that is not enough). A part left
/// out holds no fact word, so no part off the stdio path starts there, but it may still hold
/// a name the facts follow:
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

/// Where the braces open after `import` (ending at `end`) in `import {`, `import type {` or
/// `import a, {`; None if no brace follows.
fn import_braces(src: &[u8], end: usize) -> Option<usize> {
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
    let ident =
        move |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80 || (dollar && b == b'$');
    memchr::memmem::find_iter(src, word)
        .filter(move |&i| {
            (i == 0 || !ident(src[i - 1])) && src.get(i + word.len()).is_none_or(|b| !ident(*b))
        })
        .map(move |i| (i, i + word.len()))
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

/// The parts of `src` to parse for its facts, or None to parse it whole.
pub fn ranges(lang: Lang, src: &[u8]) -> Option<Vec<Range>> {
    FactMentions::of(lang, &lang.text(src)).ranges(lang, src)
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
mod tests {
    use super::super::transports::{facts, facts_in, ModuleFacts};
    use super::super::{js_lex, python_lex};
    use super::*;

    /// The mentions take the spans of the prefilter's lexer: the language's own.
    #[test]
    fn the_mentions_read_the_spans_of_the_languages_lexer() {
        let src = b"# c\n// c\n/* c */ x = 'a' + \"b\" + `t${u}`; print(f'{y}')\n";
        for lang in Lang::ALL {
            let expected = match lang {
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx => js_lex::spans(src),
                Lang::Python => python_lex::spans(src),
                _ => None,
            };
            assert_eq!(lang.text(src).spans(), expected.as_deref(), "{lang:?}");
        }
    }

    fn holds_facts(lang: Lang, src: &[u8], ranges: &[Range]) -> bool {
        FactMentions::of(lang, &lang.text(src)).held_by(ranges, src.len())
    }

    fn parse(lang: Lang, src: &str, ranges: &[Range]) -> tree_sitter::Tree {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang.grammar()).expect("grammar");
        parser.set_included_ranges(ranges).expect("ranges");
        parser.parse(src, None).expect("parse")
    }

    fn summary(f: &ModuleFacts) -> String {
        let exits: Vec<usize> = f.exit_writes.iter().map(|r| r.start_point.row).collect();
        format!(
            "http {} stdio {} connects {} loads {:?} exits {:?}",
            f.serves_http, f.serves_stdio, f.connects, f.loads, exits
        )
    }

    /// The facts of the window and of the whole file, and the share of bytes the window left out.
    fn windowed_and_whole(lang: Lang, src: &str) -> (String, String, usize) {
        let ranges = ranges(lang, src.as_bytes()).expect("windowed");
        let part = parse(lang, src, &ranges);
        assert!(!part.root_node().has_error(), "{src}");
        let whole = parse(lang, src, &[]);
        let kept: usize = ranges.iter().map(|r| r.end_byte - r.start_byte).sum();
        (
            summary(&facts_in(lang, part.root_node(), src.as_bytes(), &ranges).expect("facts")),
            summary(&facts(lang, whole.root_node(), src.as_bytes()).expect("facts")),
            100 - kept * 100 / src.len(),
        )
    }

    #[test]
    fn a_python_window_has_the_whole_files_facts() {
        let (body, filler) = quiet_parts(Lang::Python);
        // A left-out definition between a write and the exit: not an exit write.
        let src = format!(
            "import sys\n{filler}def main():\n    import http_app\n{body}    if bad:\n        print('usage')\n        sys.exit(2)\n\n\
             print('a')\ndef between(x):\n{body}    return x\nsys.exit(1)\n\
             print('b')\nsys.exit(3)\n{filler}if __name__ == '__main__':\n    mcp.run(transport='sse')\n"
        );
        let (part, whole, left_out) = windowed_and_whole(Lang::Python, &src);
        assert_eq!(part, whole);
        assert!(left_out > 50, "{left_out}% left out");
        assert!(
            whole.contains("exits [") && !whole.contains("exits []"),
            "{whole}"
        );
    }

    #[test]
    fn a_javascript_window_has_the_whole_files_facts() {
        let (body, filler) = quiet_parts(Lang::JavaScript);
        let src = format!(
            "import {{ a }} from './a.js';\n{filler}function main() {{\n  if (bad) {{\n    console.log('usage');\n    process.exit(2);\n  }}\n{body}}}\n\
             async function http() {{\n  const m = await import('./http.js');\n{body}}}\n\
             {filler}app.listen(3000);\nprocess.stdin.on('data', f);\n"
        );
        let (part, whole, left_out) = windowed_and_whole(Lang::JavaScript, &src);
        assert_eq!(part, whole);
        assert!(left_out > 50, "{left_out}% left out");
    }

    /// A launcher that loads `./sse.js` for the names it binds and calls `call` in its branch
    /// for SSE, with quiet parts around: as `index.js` of the package in
    /// `tests/it/source/stdio_path.rs`.
    fn launcher(names: &str, helper: &str, call: &str) -> String {
        let (_, filler) = quiet_parts(Lang::JavaScript);
        format!(
            "import {{ StdioServerTransport }} from '@modelcontextprotocol/sdk/server/stdio.js';\n\
             import {{ {names} }} from './sse.js';\n{filler}{filler}{helper}\
             if (process.env.TRANSPORT === 'sse') {{\n  {call};\n}} else {{\n  \
             const t = new StdioServerTransport();\n  helper(1, 2);\n}}\n"
        )
    }

    /// A part left out that names what an import binds, or an import's names cut out, is put
    /// back (or the file parsed whole): the facts are the whole file's. The window alone has
    /// other facts: the names of `import {...}` left out, or a use of them left out.
    #[test]
    fn a_part_left_out_that_names_an_imports_bindings_is_taken_back() {
        let helper = "function helper(a, b) {\n  const x = a + b;\n  s(x);\n  return x;\n}\n";
        let cases = [
            // The names are a block of their own, left out: used only in the branch for SSE.
            (
                launcher("startSSEServer", "", "startSSEServer(1)"),
                "Some(TransportBranch)",
            ),
            // A name kept, used only in the branch for SSE, whose body holds no fact word.
            (
                launcher("s", "", "s(1, 2, 3, 4, 5)"),
                "Some(TransportBranch)",
            ),
            // Also used by a helper the stdio branch calls, whose body is left out: on the
            // stdio path.
            (launcher("s", helper, "s(1)"), "None"),
        ];
        for (src, off) in cases {
            let bytes = src.as_bytes();
            let lang = Lang::JavaScript;
            let window = ranges(lang, bytes).expect("windowed");
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&lang.grammar()).expect("grammar");
            let of = |ranges: Vec<Range>, parser: &mut tree_sitter::Parser| {
                let facts = crate::source::trees::facts_in_part(parser, lang, bytes, ranges, None)
                    .expect("parsed")
                    .expect("facts");
                summary(&facts)
            };
            let part = of(window.clone(), &mut parser);
            let whole = of(Vec::new(), &mut parser);
            assert_eq!(part, whole, "{src}");
            let sse = whole
                .split("\"./sse.js\"")
                .nth(1)
                .expect("the load of ./sse.js");
            assert!(sse.contains(&format!("off_stdio: {off}")), "{whole}");
            // The window alone: the names, or a use of them, left out.
            let alone = parse(lang, &src, &window);
            let alone = summary(&facts_in(lang, alone.root_node(), bytes, &window).expect("facts"));
            assert_ne!(alone, whole, "{src}");
            assert!(taken_back(
                &facts_in(lang, parse(lang, &src, &window).root_node(), bytes, &window)
                    .expect("facts"),
                bytes,
                &window
            )
            .is_some());
        }
    }

    /// A transport's name is a mention in any case and form a condition compares
    /// (`transport_branches::HTTP_NAMES`), so a branch on it is kept in the window.
    #[test]
    fn transport_names_are_mentions_in_any_case() {
        for lang in [Lang::JavaScript, Lang::Python] {
            for name in ["SSE", "Streamable_HTTP", "HTTP_Stream", "streamablehttp"] {
                let src = format!("x = mode == '{name}'\n");
                let mentions = FactMentions::of(lang, &lang.text(src.as_bytes()));
                let at = src.find(name).expect("in src");
                assert!(mentions.within(at, at + name.len()), "{lang:?} {src}");
                if lang == Lang::Python {
                    assert!(within(&mentions.around, at, at + name.len()), "{src}");
                }
            }
        }
    }

    /// The braces of an import's names are found after `import`, `import type` and a default
    /// binding, so the facts' window keeps them.
    #[test]
    fn an_imports_braces_are_found_after_its_keyword() {
        for (src, brace) in [
            ("import { a } from 'a'", Some(7)),
            ("import  type {a} from 'a'", Some(13)),
            ("import d, { a } from 'a'", Some(10)),
            ("import d,{a} from 'a'", Some(9)),
            ("import * as ns from 'a'", None),
            ("import d from 'a'", None),
            ("import('a')", None),
        ] {
            assert_eq!(import_braces(src.as_bytes(), 6), brace, "{src}");
        }
        let src = "import { aLongName, anotherLongName } from './a.js';\n";
        let mentions = FactMentions::of(Lang::JavaScript, &Lang::JavaScript.text(src.as_bytes()));
        assert_eq!(mentions.braces, [8]);
    }

    #[test]
    fn a_scan_window_holds_the_facts_only_if_its_left_out_parts_mention_none() {
        let src = b"a();\nfunction f() { x(); }\nfunction g() { process.exit(1); }\n";
        let range = |start: usize, end: usize| Range {
            start_byte: start,
            end_byte: end,
            start_point: tree_sitter::Point::default(),
            end_point: tree_sitter::Point::default(),
        };
        let inside = |block: &str| {
            let at = memchr::memmem::find(src, block.as_bytes()).expect("in src");
            [range(0, at), range(at + block.len(), src.len())]
        };
        // `x();` left out: no fact word in it.
        assert!(holds_facts(Lang::JavaScript, src, &inside(" x(); ")));
        assert!(!holds_facts(
            Lang::JavaScript,
            src,
            &inside(" process.exit(1); ")
        ));
        assert!(holds_facts(Lang::JavaScript, src, &[]));
    }

    /// The text of the parts a window keeps.
    fn kept(lang: Lang, src: &str) -> String {
        let ranges = ranges(lang, src.as_bytes()).expect("windowed");
        ranges
            .iter()
            .map(|r| &src[r.start_byte..r.end_byte])
            .collect()
    }

    /// A word of code in a docstring, a comment or a longer string keeps no part; in code, as
    /// a whole string literal, or a name in a string (a branch word) keeps its part. The facts
    /// of each window are the whole file's.
    #[test]
    fn a_word_of_code_keeps_a_part_only_in_code_or_as_a_whole_string() {
        let (body, filler) = quiet_parts(Lang::Python);
        let python = format!(
            "import sys\n{filler}def documented(x):\n    '''Use it so:\n    >>> import thing\n    >>> print(documented(1))\n    Then sys.exit.'''\n    # print(x) here would write to stdout\n    s = 'print it, write it, then exit'\n{body}    return x\n\n\
             def by_name(x):\n    w = getattr(sys, 'stdout')\n{body}    return w\n\n\
             def branch(x):\n    mode = 'sse'\n{body}    return mode\n\n{filler}"
        );
        let text = kept(Lang::Python, &python);
        assert!(!text.contains("def documented"), "{text}");
        assert!(
            text.contains("def by_name") && text.contains("def branch"),
            "{text}"
        );
        assert!(!text.contains("def quiet"), "{text}");
        let (part, whole, _) = windowed_and_whole(Lang::Python, &python);
        assert_eq!(part, whole);

        let (body, filler) = quiet_parts(Lang::JavaScript);
        let javascript = format!(
            "import {{ a }} from './a.js';\n{filler}function documented(x) {{\n  // console.log(x) would write to stdout, then process.exit\n  const s = 'require it, import it, write it';\n{body}  return s;\n}}\n\
             function byName(x) {{\n  const out = process['stdout'];\n{body}  return out;\n}}\n\
             function branch(x) {{\n  const mode = `sse`;\n{body}  return mode;\n}}\n{filler}"
        );
        let text = kept(Lang::JavaScript, &javascript);
        assert!(!text.contains("would write"), "{text}");
        assert!(
            text.contains("process['stdout']") && text.contains("`sse`"),
            "{text}"
        );
        let (part, whole, _) = windowed_and_whole(Lang::JavaScript, &javascript);
        assert_eq!(part, whole);

        // A scan window whose left-out part mentions words of code only in a docstring holds
        // the facts; one whose left-out part writes does not.
        let src =
            "def a():\n    '''>>> print(1); import x'''\n    return 1\ndef b():\n    print(1)\n";
        let gap = |part: &str| {
            let at = src.find(part).expect("in src");
            let range = |start: usize, end: usize| Range {
                start_byte: start,
                end_byte: end,
                start_point: tree_sitter::Point::default(),
                end_point: tree_sitter::Point::default(),
            };
            [range(0, at), range(at + part.len(), src.len())]
        };
        let docstring = "'''>>> print(1); import x'''";
        assert!(holds_facts(Lang::Python, src.as_bytes(), &gap(docstring)));
        assert!(!holds_facts(
            Lang::Python,
            src.as_bytes(),
            &gap("print(1)\n")
        ));
    }
}
