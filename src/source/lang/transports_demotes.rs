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
    demoting_words(lang, src, false)
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
    let anywhere = |demotes: bool| demotes.then(Vec::new);
    if lang != Lang::Python || demoting_words(lang, src, true) || python::compares_headers(text) {
        return anywhere(may_demote(lang, src));
    }
    let Some(mut around) = python::local_parts(text, at) else {
        return anywhere(may_demote(lang, src));
    };
    // Where the words are, found once (parts overlap, and a file may have many writes);
    // `__main__` within any word, as `exit_paths::script_only_block` reads the condition.
    let mut found: Vec<usize> = Vec::new();
    for w in PY_LOCAL_WORDS {
        match *w {
            "__main__" => found.extend(memchr::memmem::find_iter(src, w.as_bytes())),
            _ => found.extend(words_at(src, w.as_bytes(), false)),
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

/// The words of `may_demote`, without Python's `PY_LOCAL_WORDS` if `not_local`.
fn demoting_words(lang: Lang, src: &[u8], not_local: bool) -> bool {
    let (words, names, dollar): (&[&str], &[&[&str]], bool) = match lang {
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => (
            JS_DEMOTING_WORDS,
            &[
                JS_HTTP_TRANSPORTS,
                JS_BRANCH_WORDS,
                transport_branches::HTTP_NAMES,
            ],
            true,
        ),
        Lang::Python => (
            PY_DEMOTING_WORDS,
            &[
                PY_HTTP_METHODS,
                PY_HTTP_CLASSES,
                PY_BRANCH_WORDS,
                transport_branches::HTTP_NAMES,
            ],
            false,
        ),
        _ => return false,
    };
    let counted = |w: &&&str| !(not_local && PY_LOCAL_WORDS.contains(*w));
    // Python's header reads, with `not_local`, are `python::compares_headers`'.
    let within = |w: &&&str| !(not_local && **w == "headers");
    if words
        .iter()
        .filter(counted)
        .any(|w| has_word(src, w.as_bytes(), dollar))
    {
        return true;
    }
    let lower = src.to_ascii_lowercase();
    names
        .iter()
        .flat_map(|n| n.iter())
        .filter(|w| !NOT_WHOLE_WORDS.contains(w))
        .filter(counted)
        .any(|w| has_word(&lower, w.to_ascii_lowercase().as_bytes(), dollar))
        || transport_branches::PICKS_HTTP
            .iter()
            .chain(WITHIN_WORDS.iter().filter(within))
            .any(|part| memchr::memmem::find(&lower, part.as_bytes()).is_some())
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
    let letter = move |b: u8| b.is_ascii_alphabetic() || b == b'_' || (dollar && b == b'$');
    memchr::memmem::find_iter(src, word).filter(move |&at| {
        let before = at.checked_sub(1).map(|i| src[i]);
        let after = src.get(at + word.len()).copied();
        !before.is_some_and(letter) && !after.is_some_and(|b| letter(b) || b.is_ascii_digit())
    })
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
