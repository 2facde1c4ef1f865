//! Text tests of a module (`transports`): whether its facts can make a write in it a note,
//! and if only an exit or `__main__` near the writes can, the parts that hold one.

use super::super::prefilter::Text;
use super::super::{transport_branches, Lang};
use super::{
    python, JS_BRANCH_WORDS, JS_HTTP_TRANSPORTS, PY_BRANCH_WORDS, PY_HTTP_CLASSES, PY_HTTP_METHODS,
};

/// Whole words without which a module's facts cannot make a write in it a note: no HTTP
/// server transport, port or FastMCP HTTP run (so not HTTP-only), no exit (so no exit
/// writes) and no branch condition. Each name the fact walks below compare with is one of
/// them, or ends in one.
const JS_DEMOTING_WORDS: &[&str] = &["listen", "exit"];
/// `_exit` for `os._exit`, where `exit` is not a word of its own.
const PY_DEMOTING_WORDS: &[&str] = &["exit", "_exit", "SystemExit", "uvicorn"];

/// Branch words (`JS_BRANCH_WORDS`, `PY_BRANCH_WORDS`) that the text test below looks for
/// otherwise, as the conditions read them:
/// - an environment variable's read makes no part off stdio by itself, only a selector does
///   (a variable whose test picks an HTTP transport, `transport_branches`), and a branch picks
///   one only if its text holds a quoted transport name (a word of the test) or one of
///   `transport_branches::PICKS_HTTP` (looked for instead);
/// - `http` is a transport only where the other side of the comparison holds `transport`,
///   and a FastMCP run serves HTTP only with a `transport=` argument: `transport` is looked
///   for in any word (`TRANSPORT_MODE`, `transportType`), as the conditions do;
/// - request headers are read in any word too (`headersList`).
const NOT_WHOLE_WORDS: &[&str] = &[
    "env",
    "getenv",
    "environ",
    "http",
    "transport",
    "transportType",
    "headers",
];
/// What the text test looks for within any word, in lower case (see `NOT_WHOLE_WORDS`).
const WITHIN_WORDS: &[&str] = &["transport", "headers"];

/// A text test before parsing a module for its facts: false only if no fact of it can turn
/// a write in it into a note (it may still matter as a module the stdio path loads). The
/// names are matched in any case, as conditions compare transport names
/// (`transport_branches::HTTP_NAMES`, which are among them).
pub fn may_demote(lang: Lang, src: &[u8]) -> bool {
    demoting_words(lang, src).1
}

/// Python's words whose facts leave off stdio only a part around them: an exit is the last
/// statement of the branch or function it leaves off stdio, or follows the writes it makes
/// exit writes, and `__main__` is in the condition of the `if __name__ == "__main__":` whose
/// block serves nothing. Such a part and its word lie in the outermost statement around the
/// write that is not a class, or in the exit writes after it (`python::local_parts`). The
/// other facts need a word that `may_demote` looks for anywhere: a transport, a port or a
/// condition (request headers only in a line that compares them, `python::compares_headers`).
const PY_LOCAL_WORDS: &[&str] = &["exit", "_exit", "SystemExit", "__main__"];

/// As `may_demote`, for a module whose writes (findings) start at the bytes `at`, and whose
/// scan parsed without a syntax error: a Python module's exits and `__main__` count only
/// around a write (`PY_LOCAL_WORDS`), and request headers only where a line compares them.
/// `tests/it/source/large.rs` compares the findings with this test (the prefilter) and
/// without it over real trees.
pub fn may_demote_at(lang: Lang, text: &Text<'_>, at: &[usize]) -> bool {
    demoting_parts(lang, text, at).is_some()
}

/// As `may_demote_at`: None if the module's facts cannot make a write at `at` a note; an
/// empty list if they may, from anywhere in the module; else only an exit or `__main__`
/// in the parts listed may (`python::local_parts`, those with such a word; sorted, apart):
/// the facts of those parts alone (`ModuleFacts::local`) decide the writes' notes.
pub fn demoting_parts(lang: Lang, text: &Text<'_>, at: &[usize]) -> Option<Vec<(usize, usize)>> {
    let src = text.src;
    let (other, any) = demoting_words(lang, src);
    let anywhere = || any.then(Vec::new);
    if lang != Lang::Python || other || python::compares_headers(text) {
        return anywhere();
    }
    let Some(mut around) = python::local_parts(text, at) else {
        return anywhere();
    };
    // Where the words are, found once (parts overlap, and a file may have many writes);
    // `__main__` within any word, as `exit_paths::script_only_block` reads the condition.
    let mut found: Vec<usize> = Vec::new();
    for w in PY_LOCAL_WORDS {
        match *w {
            "__main__" => found.extend(memchr::memmem::find_iter(src, w.as_bytes())),
            _ => found.extend(
                words_at(src, w.as_bytes(), false).filter(|&at| python_call(src, at, at + w.len())),
            ),
        }
    }
    found.sort_unstable();
    around.retain(|&(start, end)| {
        let first = found.partition_point(|&at| at < start);
        found.get(first).is_some_and(|&at| at < end)
    });
    around.sort_unstable();
    let mut parts: Vec<(usize, usize)> = Vec::with_capacity(around.len());
    for (start, end) in around {
        match parts.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => parts.push((start, end)),
        }
    }
    (!parts.is_empty()).then_some(parts)
}

/// What a module's text holds of the words of `may_demote`: (`other`, `any`), `other` if
/// one of them that is not Python's `PY_LOCAL_WORDS` (nor a request header read within a
/// word) occurs, `any` if one of them at all does. One pass over the text.
fn demoting_words(lang: Lang, src: &[u8]) -> (bool, bool) {
    let Some(words) = DemotingWords::of(lang) else {
        return (false, false);
    };
    let mut any = false;
    for m in words.matcher.find_overlapping_iter(src) {
        for role in &words.roles[m.pattern().as_usize()] {
            let found = &src[m.start()..m.end()];
            let counts = match role.how {
                How::Word => {
                    found == role.word.as_bytes()
                        && whole(src, m.start(), m.end(), words.dollar)
                        && (!words.python || python_call(src, m.start(), m.end()))
                }
                How::Name => whole(src, m.start(), m.end(), words.dollar),
                How::Within => true,
            };
            if !counts {
                continue;
            }
            if !role.local {
                return (true, true);
            }
            any = true;
        }
    }
    (false, any)
}

/// How a word of `demoting_words` is looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    /// As written, a whole word (`has_word`).
    Word,
    /// In any case, a whole word.
    Name,
    /// In any case, within any word.
    Within,
}

/// One way a pattern of `DemotingWords` counts: how, the word as written, and whether it
/// leaves off stdio only a part around it (Python's `PY_LOCAL_WORDS`, request headers read
/// within a word).
#[derive(Debug)]
struct Role {
    how: How,
    word: &'static str,
    local: bool,
}

/// A language's words of `may_demote`, in one automaton matching any case; each pattern's
/// roles say how it counts (a word may be listed twice: `exit` as written and as a name).
struct DemotingWords {
    matcher: aho_corasick::AhoCorasick,
    roles: Vec<Vec<Role>>,
    dollar: bool,
    /// Python: its words count only where they can be the call the facts read
    /// (`python_call`).
    python: bool,
}

static JS_DEMOTING: std::sync::OnceLock<DemotingWords> = std::sync::OnceLock::new();
static PY_DEMOTING: std::sync::OnceLock<DemotingWords> = std::sync::OnceLock::new();

impl DemotingWords {
    fn of(lang: Lang) -> Option<&'static Self> {
        match lang {
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
                Some(JS_DEMOTING.get_or_init(|| {
                    Self::new(
                        JS_DEMOTING_WORDS,
                        &[
                            JS_HTTP_TRANSPORTS,
                            JS_BRANCH_WORDS,
                            transport_branches::HTTP_NAMES,
                        ],
                        true,
                    )
                }))
            }
            Lang::Python => Some(PY_DEMOTING.get_or_init(|| {
                Self::new(
                    PY_DEMOTING_WORDS,
                    &[
                        PY_HTTP_METHODS,
                        PY_HTTP_CLASSES,
                        PY_BRANCH_WORDS,
                        transport_branches::HTTP_NAMES,
                    ],
                    false,
                )
            })),
            _ => None,
        }
    }

    /// `words` as written, `names` in any case (but `NOT_WHOLE_WORDS`, looked for within
    /// words instead: `transport_branches::PICKS_HTTP` and `WITHIN_WORDS`).
    fn new(words: &[&'static str], names: &[&[&'static str]], dollar: bool) -> Self {
        let local = |w: &str| PY_LOCAL_WORDS.contains(&w);
        let mut roles: Vec<(&'static str, Role)> = words
            .iter()
            .map(|&word| {
                (
                    word,
                    Role {
                        how: How::Word,
                        word,
                        local: local(word),
                    },
                )
            })
            .collect();
        roles.extend(
            names
                .iter()
                .flat_map(|n| n.iter())
                .filter(|w| !NOT_WHOLE_WORDS.contains(w))
                .map(|&word| {
                    (
                        word,
                        Role {
                            how: How::Name,
                            word,
                            local: local(word),
                        },
                    )
                }),
        );
        roles.extend(
            transport_branches::PICKS_HTTP
                .iter()
                .chain(WITHIN_WORDS)
                .map(|&word| {
                    let local = word == "headers";
                    (
                        word,
                        Role {
                            how: How::Within,
                            word,
                            local,
                        },
                    )
                }),
        );
        let mut patterns: Vec<String> = Vec::new();
        let mut by_pattern: Vec<Vec<Role>> = Vec::new();
        for (word, role) in roles {
            let pattern = word.to_ascii_lowercase();
            match patterns.iter().position(|p| *p == pattern) {
                Some(i) => by_pattern[i].push(role),
                None => {
                    patterns.push(pattern);
                    by_pattern.push(vec![role]);
                }
            }
        }
        let matcher = aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&patterns)
            .expect("demoting words compile");
        Self {
            matcher,
            roles: by_pattern,
            dollar,
            python: !dollar,
        }
    }
}

/// Whether a Python word of `PY_DEMOTING_WORDS` at `src[start..end]` can be the callee of
/// the call the facts read, its text exactly that and its arguments after it:
/// - an exit (`exit_paths::is_exit`): `exit(`, `sys.exit(`, `os._exit(`, `SystemExit(` (after
///   `raise`); not `except SystemExit:`, `ctx.exit()`, `atexit`'s `exit` nor a docstring's
///   "exit";
/// - `uvicorn.run(`, the only `uvicorn` the facts read (`transports_python`); not an import
///   of uvicorn's modules nor its own code.
///
/// Other words count anywhere.
fn python_call(src: &[u8], start: usize, end: usize) -> bool {
    let before = &src[..start];
    let after_dot = before.last() == Some(&b'.');
    let prefixed = |module: &[u8]| {
        before.len() > module.len()
            && before[..before.len() - 1].ends_with(module)
            && !before[..before.len() - 1 - module.len()]
                .last()
                .is_some_and(|b| {
                    b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.' || *b >= 0x80
                })
    };
    let mut end = end;
    let callee = match &src[start..end] {
        b"exit" => !after_dot || prefixed(b"sys"),
        b"_exit" => after_dot && prefixed(b"os"),
        b"SystemExit" => !after_dot,
        b"uvicorn" => {
            let run = src[end..].starts_with(b".run")
                && !src
                    .get(end + 4)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b >= 0x80);
            end += 4;
            !after_dot && run
        }
        _ => return true,
    };
    // Between a callee and its arguments: spaces, a line continued by a backslash, or (in
    // brackets) line breaks and comments.
    let mut at = end.min(src.len());
    while let Some(&b) = src.get(at) {
        match b {
            b' ' | b'\t' | b'\\' | b'\r' | b'\n' | 0x0c => at += 1,
            b'#' => at = memchr::memchr(b'\n', &src[at..]).map_or(src.len(), |p| at + p),
            _ => break,
        }
    }
    callee && src.get(at) == Some(&b'(')
}

/// Whether `src[start..end]` is a whole word (`has_word`).
fn whole(src: &[u8], start: usize, end: usize, dollar: bool) -> bool {
    let letter = |b: u8| b.is_ascii_alphabetic() || b == b'_' || (dollar && b == b'$');
    let before = start.checked_sub(1).map(|i| src[i]);
    let after = src.get(end).copied();
    !before.is_some_and(letter) && !after.is_some_and(|b| letter(b) || b.is_ascii_digit())
}

/// `word` where a lexer reads it as a name of its own: no ASCII letter, `_` (or, in
/// JavaScript, `$`) right before it, nor those or a digit right after. Anything else next
/// to it (a digit before, a non-ASCII character) is let through, so the test never says no
/// where a parser could read the word.
fn has_word(src: &[u8], word: &[u8], dollar: bool) -> bool {
    words_at(src, word, dollar).next().is_some()
}

/// Where `has_word` finds `word`.
fn words_at<'a>(src: &'a [u8], word: &'a [u8], dollar: bool) -> impl Iterator<Item = usize> + 'a {
    memchr::memmem::find_iter(src, word).filter(move |&at| whole(src, at, at + word.len(), dollar))
}

/// The whole words without which a Python module serves no stdio (what `python::python`
/// reads as `serves_stdio`: `stdio_server`, `sys.stdin`, `run_stdio_async`, a `run()` call).
const PY_STDIO_WORDS: &[&str] = &["stdio_server", "stdin", "run_stdio_async", "run"];

/// Whether a Python module may serve stdio, by its text (`PY_STDIO_WORDS`): without one of
/// them its facts' `serves_stdio` is false, whatever part of it was parsed.
pub fn python_may_serve_stdio(src: &[u8]) -> bool {
    PY_STDIO_WORDS
        .iter()
        .any(|w| has_word(src, w.as_bytes(), false))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `demoting_words` as a search for each word in turn (`not_local` leaving out Python's
    /// `PY_LOCAL_WORDS` and request headers read within a word).
    fn word_by_word(lang: Lang, src: &[u8], not_local: bool) -> bool {
        let (words, names, dollar): (&[&str], Vec<&str>, bool) = match lang {
            Lang::Python => (
                PY_DEMOTING_WORDS,
                [
                    PY_HTTP_METHODS,
                    PY_HTTP_CLASSES,
                    PY_BRANCH_WORDS,
                    transport_branches::HTTP_NAMES,
                ]
                .concat(),
                false,
            ),
            _ => (
                JS_DEMOTING_WORDS,
                [
                    JS_HTTP_TRANSPORTS,
                    JS_BRANCH_WORDS,
                    transport_branches::HTTP_NAMES,
                ]
                .concat(),
                true,
            ),
        };
        let counted = |w: &str| !(not_local && PY_LOCAL_WORDS.contains(&w));
        let lower = src.to_ascii_lowercase();
        // Python's words count only as the calls the facts read.
        let exit = |w: &str, at: usize| dollar || python_call(src, at, at + w.len());
        words
            .iter()
            .filter(|w| counted(w))
            .any(|w| words_at(src, w.as_bytes(), dollar).any(|at| exit(w, at)))
            || names
                .iter()
                .filter(|w| !NOT_WHOLE_WORDS.contains(w) && counted(w))
                .any(|w| has_word(&lower, w.to_ascii_lowercase().as_bytes(), dollar))
            || transport_branches::PICKS_HTTP
                .iter()
                .chain(
                    WITHIN_WORDS
                        .iter()
                        .filter(|w| !(not_local && **w == "headers")),
                )
                .any(|part| memchr::memmem::find(&lower, part.as_bytes()).is_some())
    }

    /// Every word of every list, as written, in upper and lower case, alone and glued to
    /// what makes it part of a longer word or not (a letter, `_`, `$`, a digit, a dot), on
    /// its own and two together: the one pass says what a search word by word says.
    #[test]
    fn one_pass_finds_what_a_search_for_each_word_finds() {
        let all: Vec<&str> = [
            JS_DEMOTING_WORDS,
            PY_DEMOTING_WORDS,
            PY_LOCAL_WORDS,
            JS_HTTP_TRANSPORTS,
            JS_BRANCH_WORDS,
            PY_HTTP_METHODS,
            PY_HTTP_CLASSES,
            PY_BRANCH_WORDS,
            transport_branches::HTTP_NAMES,
            transport_branches::PICKS_HTTP,
            WITHIN_WORDS,
            NOT_WHOLE_WORDS,
        ]
        .concat();
        let mut texts: Vec<String> = vec![String::new(), "print('x')\n".into()];
        for exit in [
            "sys.exit(1)",
            "exit (0)",
            "os._exit(0)",
            "raise SystemExit(2)",
            "except SystemExit:",
            "ctx.exit()",
            "_exit(1)",
            "os.exit(1)",
            "atexit.register(sys.exit)",
            "uvicorn.run(app)",
            "import uvicorn",
            "from uvicorn.config import Config",
            "uvicorn.runner()",
            "x.uvicorn.run(a)",
        ] {
            texts.push(format!("print(1)\n{exit}\n"));
        }
        for word in &all {
            for cased in [word.to_string(), word.to_uppercase(), word.to_lowercase()] {
                for (before, after) in [
                    ("", ""),
                    ("x", ""),
                    ("", "x"),
                    ("_", ""),
                    ("", "_"),
                    ("$", ""),
                    ("", "$"),
                    ("", "1"),
                    ("1", ""),
                    ("a.", "()"),
                    ("'", "'"),
                ] {
                    texts.push(format!("{before}{cased}{after}"));
                }
            }
        }
        let singles = texts.len();
        for (i, word) in all.iter().enumerate() {
            texts.push(format!("{word}x = 1\n{}.y", all[(i * 7 + 3) % all.len()]));
        }
        for lang in [Lang::Python, Lang::JavaScript] {
            let mut found = 0;
            for text in &texts {
                let src = text.as_bytes();
                let expected = (
                    word_by_word(lang, src, true),
                    word_by_word(lang, src, false),
                );
                assert_eq!(demoting_words(lang, src), expected, "{lang:?}: {text:?}");
                found += usize::from(expected.1);
            }
            // Both answers occur: the comparison is not of empty results.
            assert!(
                found > 100 && found < texts.len() - 100,
                "{lang:?}: {found} of {singles}"
            );
        }
    }

    fn python_parser() -> tree_sitter::Parser {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&Lang::Python.grammar())
            .expect("grammar");
        parser
    }

    /// The shapes of an exit's call: the text test counts an exit word where the walk reads
    /// the statement as an exit (`exit_paths::is_exit`), and not where it does not.
    #[test]
    fn an_exit_word_counts_where_its_statement_is_an_exit() {
        let mut parser = python_parser();
        for (statement, exits) in [
            ("sys.exit(1)", true),
            ("exit(0)", true),
            ("exit (0)", true),
            ("os._exit(0)", true),
            ("raise SystemExit(2)", true),
            ("sys.exit \\\n(1)", true),
            ("raise SystemExit", false),
            ("ctx.exit()", false),
            ("_exit(1)", false),
            ("os.exit(1)", false),
            ("mysys.exit(1)", false),
            ("a.sys.exit(1)", false),
            ("sys. exit(1)", false),
            ("atexit.register(sys.exit)", false),
            ("x = 'exit(1)'", false),
        ] {
            let src = format!("{statement}\n");
            let tree = parser.parse(&src, None).expect("parse");
            let first = tree.root_node().named_child(0).expect("statement");
            assert_eq!(
                super::super::super::exit_paths::is_exit(first, src.as_bytes()),
                exits,
                "walk: {statement}"
            );
            let found = PY_LOCAL_WORDS
                .iter()
                .filter(|w| **w != "__main__")
                .flat_map(|w| {
                    words_at(src.as_bytes(), w.as_bytes(), false)
                        .filter(|&at| python_call(src.as_bytes(), at, at + w.len()))
                })
                .count();
            // A string's "exit(" and a callee split by a space are let through (the text test
            // never says no where a parser could read an exit): the walk decides.
            let expected = exits || statement.starts_with("x = ") || statement == "sys. exit(1)";
            assert_eq!(found > 0, expected, "text: {statement}");
        }
    }
    /// `uvicorn` counts only as `uvicorn.run(`, the call that makes the facts' module serve
    /// HTTP: an import of uvicorn, or its own modules, have no fact read for it.
    #[test]
    fn uvicorn_counts_where_it_runs_a_server() {
        let mut parser = python_parser();
        for (src, serves) in [
            ("import uvicorn\nuvicorn.run(app)\n", true),
            ("import uvicorn\nuvicorn.run (app, port=1)\n", true),
            // In brackets a comment may stand between a callee and its arguments.
            (
                "import uvicorn\nrun = [uvicorn.run  # now\n    (app)]\n",
                true,
            ),
            (
                "import uvicorn\nfrom uvicorn.config import Config\nConfig(app)\n",
                false,
            ),
            ("import uvicorn\nuvicorn.runner(app)\n", false),
            ("import uvicorn\nx.uvicorn.run(app)\n", false),
            (
                "import uvicorn\nserver = uvicorn.Server(c)\nserver.run()\n",
                false,
            ),
        ] {
            let tree = parser.parse(src, None).expect("parse");
            let facts =
                super::super::facts(Lang::Python, tree.root_node(), src.as_bytes()).expect("facts");
            assert_eq!(facts.serves_http, serves, "walk: {src}");
            assert_eq!(
                demoting_words(Lang::Python, src.as_bytes()),
                (serves, serves),
                "text: {src}"
            );
        }
    }
}
