//! Python's words: what a file must mention for a rule to match (the prefilter's needs),
//! which occurrences count, and the parts of a large file worth parsing (the window).

use super::prefilter::{called_with_other_fd, next_token, previous_on_line};
use super::prefilter::{unfollowed_member, FileTest, Occurrence, Prefilter, Region, Text};
use super::python_binds;
use super::python_window;

/// What a file must mention for a rule to match (see `prefilter`), from `module_member` and
/// the calls checked in `python_calls`: a module or name is bound only by spelling it.
pub(super) static PREFILTER: Prefilter = Prefilter::new(|| {
    vec![
        // print(), rich's print, logger.add(print); builtins.print (`.print` alone is a method)
        vec![vec!["print"]],
        vec![vec!["builtins"]],
        // sys.stdout and sys.__stdout__ (writes, handlers, basicConfig, loguru, ext://sys.stdout)
        vec![vec!["sys"], vec!["stdout", "__stdout__"]],
        // click.echo, typer.secho
        vec![vec!["click", "typer"], vec!["echo", "secho"]],
        // rich.console.Console, rich.logging.RichHandler
        vec![vec!["rich"]],
        // pprint.pprint, pprint.pp
        vec![vec!["pprint"]],
        // structlog's PrintLogger and WriteLogger (and their factories)
        vec![vec!["structlog"]],
        // os.write(1, ...)
        vec![vec!["os"], vec!["write"]],
    ]
})
.lexed(super::python_lex::spans)
.counting(counts)
.file_tested(FileTest {
    context: python_binds::file_context,
    counts: python_binds::counts_in_file,
});

/// Which occurrences of the words can lead to a finding. In a comment, none. In a string,
/// only `ext://sys.stdout` (a logging configuration). In code, all but: `print` after a dot
/// (a method; `builtins.print` and `rich.print` have needs of their own); a module name after
/// a dot (`pip._vendor.rich` is not `rich`: `module_member` knows top-level names only); a
/// member of stdout that `member` does not follow (`sys.stdout.isatty()`); `stdout` being
/// bound or passed by keyword (`run(cmd, stdout=PIPE)`, `def stdout(self)`); `write` called
/// with a first argument other than `1`.
fn counts(occurrence: &Occurrence<'_>) -> bool {
    let after_dot = || previous_on_line(occurrence.before()) == Some(b'.');
    if occurrence.region == Region::Code && defined(occurrence) {
        return false;
    }
    match occurrence.region {
        Region::Comment => false,
        Region::Text { .. } => matches!(
            (occurrence.word, occurrence.in_text()),
            ("stdout", Some((b"ext://sys.", b""))) | ("sys", Some((b"ext://", b".stdout")))
        ),
        Region::Code => match occurrence.word {
            "print" | "sys" | "rich" | "click" | "typer" | "pprint" | "structlog" | "os" => {
                !after_dot()
            }
            "builtins" => !after_dot() && builtins_may_print(occurrence),
            "stdout" | "__stdout__" => {
                !unfollowed_member(occurrence, STDOUT_MEMBERS) && !bound_name(occurrence)
            }
            "write" => !called_with_other_fd(occurrence, &[b"#"]),
            _ => true,
        },
    }
}

/// `builtins` in code, not after a dot: only its `print` matters (`module_member`). Not a
/// use that can reach it: `builtins.open` (another member read), `import builtins` (the name
/// itself, whose `builtins.print` counts where it is read), `from builtins import
/// frozendict` (other names, on one line). Anything else may (`builtins.print`, `import
/// builtins as b`, `b = builtins`, a from-import of print, of `*` or across lines).
fn builtins_may_print(occurrence: &Occurrence<'_>) -> bool {
    let src = occurrence.src;
    let after = occurrence.after();
    if let Some((dot, b'.')) = next_token(after) {
        let rest = &after[dot + 1..];
        return next_token(rest).is_none_or(|(at, _)| {
            let member = &rest[at..];
            let len = member
                .iter()
                .take_while(|b| python_window::is_ident(**b))
                .count();
            &member[..len] == b"print"
        });
    }
    if python_binds::after_from(occurrence.before()) {
        let line_end = memchr::memchr(b'\n', after).unwrap_or(after.len());
        let line = &after[..line_end];
        let names_print = python_window::whole_words(line, b"print").next().is_some();
        return names_print || line.iter().any(|b| matches!(b, b'*' | b'(' | b'\\'));
    }
    !python_binds::imported_as_itself(src, occurrence.start, occurrence.end)
}

/// The members of `sys.stdout` that `member` follows.
const STDOUT_MEMBERS: &[&str] = &["write", "writelines", "buffer", "fileno"];

/// `f(stdout=PIPE)`, `def f(stdout=None)`, `stdout = x`: a name being bound or a keyword, not
/// a use. Binding it to sys.stdout takes the words again on the right.
fn bound_name(occurrence: &Occurrence<'_>) -> bool {
    let after = occurrence.after();
    let equals = match super::prefilter::next_token(after) {
        Some((at, b'=')) => after.get(at + 1) != Some(&b'='),
        _ => false,
    };
    equals && previous_on_line(occurrence.before()) != Some(b'.')
}

/// `def print(self)`, `class rich:`: the name of a definition, never a use.
fn defined(occurrence: &Occurrence<'_>) -> bool {
    let before = occurrence.before();
    let word = before.trim_ascii_end();
    let keyword = |k: &[u8]| {
        word.ends_with(k)
            && !word[..word.len() - k.len()]
                .last()
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    word.len() < before.len() && (keyword(b"def") || keyword(b"class"))
}

/// Words a statement must not mention (anywhere) to be left out of a windowed parse, beside
/// the words that keep it (`keeps_statement`): `mcpcheck` (suppressions) and the names the
/// caller asks for (aliases the parse found, used in left-out parts).
const WINDOW_KEEP: &[&str] = &["mcpcheck"];

/// Words that keep a statement whole once it is kept: `global` and `nonlocal` bind names in
/// another scope wherever the function assigns them.
const WHOLE_KEEP: &[&str] = &["global", "nonlocal"];

/// Prefilter words that name a module: read as a module's member (`sys.version_info`,
/// `os.path`) they bind nothing and lead nowhere on their own (a member that matters,
/// `stdout`, `write`, `echo`, keeps the statement itself).
const MODULE_WORDS: &[&str] = &[
    "sys",
    "builtins",
    "rich",
    "click",
    "typer",
    "pprint",
    "structlog",
    "os",
];

/// The names `python::module_member` resolves that are not prefilter words: as a member
/// (after a dot) they make a value the rules follow (`contextlib.redirect_stdout`,
/// `sys.stderr`), or as a module name (not after a dot, nor before one) they bind or pass one.
static RESOLVED: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
const RESOLVED_MEMBERS: &[&str] = &[
    "stderr",
    "__stderr__",
    "console",
    "Console",
    "logging",
    "RichHandler",
    "basicConfig",
    "StreamHandler",
    "logger",
    "dumps",
    "redirect_stdout",
    "pp",
    "PrintLoggerFactory",
    "PrintLogger",
    "WriteLoggerFactory",
    "WriteLogger",
];
const RESOLVED_MODULES: &[&str] = &["logging", "loguru", "json", "contextlib"];

/// An occurrence of a prefilter word that keeps its statement in a window: one that can
/// bind, rebind or pass a name the rules resolve, or that counts. Not: a module read for a
/// member (`sys.version_info`: a member that matters keeps the statement itself), nor a
/// member of a name that is not a module (`self.print`: if that name is bound to what the
/// rules follow, the parse finds it and its uses are brought in, see `python::widen_ranges`).
fn keeps_statement(occurrence: &Occurrence<'_>) -> bool {
    if occurrence.region != Region::Code {
        return counts(occurrence);
    }
    let after_dot = previous_on_line(occurrence.before()) == Some(b'.');
    let before_dot = matches!(
        super::prefilter::next_token(occurrence.after()),
        Some((_, b'.'))
    );
    if defined(occurrence) || (!after_dot && !before_dot) {
        return true;
    }
    if after_dot {
        return of_module(occurrence.src, occurrence.start);
    }
    !MODULE_WORDS.contains(&occurrence.word) && counts(occurrence)
}

/// For a member read after a dot at `start`: whether the dotted name it ends starts with a
/// module the rules know (`rich.console.Console`, `sys.stderr`), not with another name or a
/// call (`self.console`, `get_console().print`). A name split across lines (inside brackets)
/// is taken to start with one: the line before may end a comment with a dot.
fn of_module(src: &[u8], start: usize) -> bool {
    let ident = python_window::is_ident;
    // `src[..at]` without the blanks that end it, and whether they cross a line.
    let trimmed = |at: usize| {
        let kept = src[..at].trim_ascii_end();
        (kept, src[kept.len()..at].contains(&b'\n'))
    };
    let mut at = start;
    loop {
        // Back over the dot (and the spaces around it) to the name before it.
        let (before, crossed) = trimmed(at);
        let Some(dotless) = before.strip_suffix(b".") else {
            return false;
        };
        let (before, crossed_after_dot) = trimmed(dotless.len());
        if crossed || crossed_after_dot {
            return true;
        }
        let name_start = before.len() - before.iter().rev().take_while(|b| ident(**b)).count();
        if name_start == before.len() {
            return false; // `)`, `]` or a string before the dot
        }
        let (rest, crossed) = trimmed(name_start);
        if rest.last() != Some(&b'.') || crossed {
            if crossed && rest.last() == Some(&b'.') {
                return true;
            }
            let root = &before[name_start..];
            return MODULE_WORDS
                .iter()
                .chain(RESOLVED_MODULES)
                .any(|m| m.as_bytes() == root);
        }
        at = name_start;
    }
}

/// Where the names of `RESOLVED_MEMBERS` and `RESOLVED_MODULES` occur in code in a way that
/// keeps their statement, in order.
fn resolved_at(text: &Text<'_>) -> Vec<usize> {
    let matcher = RESOLVED.get_or_init(|| {
        let words: Vec<&str> = RESOLVED_MEMBERS
            .iter()
            .chain(RESOLVED_MODULES)
            .copied()
            .collect();
        aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .build(words)
            .expect("identifier words compile")
    });
    let src = text.src;
    let spans = text.spans().unwrap_or_default();
    let ident = python_window::is_ident;
    matcher
        .find_iter(src)
        .filter(|m| {
            let (start, end) = (m.start(), m.end());
            if (start > 0 && ident(src[start - 1])) || src.get(end).is_some_and(|b| ident(*b)) {
                return false;
            }
            if in_span(spans, start) {
                return false;
            }
            let word = &src[start..end];
            let after_dot = previous_on_line(&src[..start]) == Some(b'.');
            let before_dot = matches!(super::prefilter::next_token(&src[end..]), Some((_, b'.')));
            let member = RESOLVED_MEMBERS.iter().any(|w| w.as_bytes() == word);
            let module = RESOLVED_MODULES.iter().any(|w| w.as_bytes() == word);
            (member && after_dot && of_module(src, start)) || (module && !after_dot && !before_dot)
        })
        .map(|m| m.start())
        .collect()
}

/// Whether `at` is in a comment or a string, as the lexer's spans say.
fn in_span(spans: &[super::prefilter::Span], at: usize) -> bool {
    super::prefilter::span_at(spans, at).is_some()
}

/// Where any of `words` occurs as a whole word (in code or not), in order.
fn mentioned_at(src: &[u8], words: &[&str]) -> Vec<usize> {
    let mut at: Vec<usize> = words
        .iter()
        .flat_map(|w| python_window::whole_words(src, w.as_bytes()))
        .collect();
    at.sort_unstable();
    at
}

/// The parts of a large file worth parsing (see `python_window::fine_ranges_by`), or None
/// for all of it: statements with no occurrence that keeps them (`keeps_statement`,
/// `resolved_at`) and no mention of `WINDOW_KEEP` or `names` are left out.
pub(super) fn window(text: &Text<'_>, names: &[&str]) -> Option<Vec<tree_sitter::Range>> {
    let src = text.src;
    let mut keeping: Vec<usize> = text
        .counted_by(keeps_statement)?
        .into_iter()
        .map(|(_, start, _)| start)
        .collect();
    keeping.extend(resolved_at(text));
    let raw: Vec<&str> = WINDOW_KEEP.iter().chain(names).copied().collect();
    keeping.extend(mentioned_at(src, &raw));
    keeping.sort_unstable();
    // Keywords: in code only (a docstring's "module-global" declares nothing).
    let spans = text.spans().unwrap_or_default();
    let mut whole = mentioned_at(src, WHOLE_KEEP);
    whole.retain(|&at| !in_span(spans, at));
    let within = |at: &[usize], start: usize, end: usize| {
        let first = at.partition_point(|a| *a < start);
        at.get(first).is_some_and(|a| *a < end)
    };
    python_window::fine_ranges_by(
        text,
        |start, end| within(&keeping, start, end),
        |start, end| within(&whole, start, end),
    )
}

pub fn parse_ranges(text: &Text<'_>) -> Option<Vec<tree_sitter::Range>> {
    window(text, &[])
}

#[cfg(test)]
mod tests {
    use super::super::Lang;
    use super::*;

    /// Hits of a scan of `src`, parsed in part as the window says, and whole.
    fn windowed_and_whole(src: &str) -> (usize, usize, bool) {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&Lang::Python.grammar())
            .expect("grammar");
        let whole = parser.parse(src, None).expect("parse");
        let ranges = window(&Lang::Python.text(src.as_bytes()), &[]).expect("windowed");
        parser.set_included_ranges(&ranges).expect("ranges");
        let part = parser.parse(src, None).expect("parse");
        let hits = |t: &tree_sitter::Tree| Lang::Python.scan(t, src.as_bytes()).len();
        (hits(&part), hits(&whole), part.root_node().has_error())
    }

    /// The hits as the worker finds them (the window, widened at most twice, else the whole
    /// file), the hits of a whole parse, and the first window's text if it parsed cleanly.
    fn through_the_window(src: &str) -> (Vec<String>, Vec<String>, Option<String>) {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&Lang::Python.grammar())
            .expect("grammar");
        let bytes = src.as_bytes();
        let show = |hits: Vec<super::super::Hit>| -> Vec<String> {
            hits.iter().map(|h| format!("{h:?}")).collect()
        };
        let whole = parser.parse(src, None).expect("parse");
        let expected = show(Lang::Python.scan(&whole, bytes));
        let mut ranges = window(&Lang::Python.text(bytes), &[]).expect("windowed");
        let first: String = ranges
            .iter()
            .map(|r| &src[r.start_byte..r.end_byte])
            .collect();
        let mut first_clean = None;
        for attempt in 0..2 {
            if ranges.is_empty() {
                break;
            }
            parser.set_included_ranges(&ranges).expect("ranges");
            let tree = parser.parse(src, None).expect("parse");
            if tree.root_node().has_error() {
                break;
            }
            if attempt == 0 {
                first_clean = Some(first.clone());
            }
            match Lang::Python.widen_or_scan(&tree, &Lang::Python.text(bytes), &ranges) {
                Ok(hits) => return (show(hits), expected, first_clean),
                Err(wider) => ranges = wider,
            }
        }
        parser.set_included_ranges(&[]).expect("ranges");
        let tree = parser.parse(src, None).expect("parse");
        (show(Lang::Python.scan(&tree, bytes)), expected, first_clean)
    }

    /// `lines` statements of arithmetic at `indent`, none with a word the rules follow.
    fn quiet(indent: &str, lines: usize) -> String {
        (0..lines)
            .map(|i| format!("{indent}v{i} = v{i} * {i} + 1\n"))
            .collect()
    }

    #[test]
    fn a_window_keeps_statements_not_whole_definitions() {
        let filler = (0..8)
            .map(|i| format!("def quiet{i}(v0):\n{}    return v0\n\n", quiet("    ", 12)))
            .collect::<String>();
        // A loud statement deep in a definition: its headers and itself are parsed, the
        // quiet statements around it are not.
        let src = format!(
            "import sys\n\ndef run(v0, v1, v2, v3, v4, v5, v6, v7, v8, v9):\n{q}    for item in v0:\n{q8}        if item:\n            print(item)\n        else:\n{q12}    return v0\n\n{filler}",
            q = quiet("    ", 10),
            q8 = quiet("        ", 10),
            q12 = quiet("            ", 10),
        );
        let (found, expected, first) = through_the_window(&src);
        assert_eq!(found, expected);
        assert_eq!(found.len(), 1, "{found:?}");
        let first = first.expect("the first window parses cleanly");
        let kept =
            "def run(v0, v1, v2, v3, v4, v5, v6, v7, v8, v9):\n    for item in v0:\n        \
                    if item:\n            print(item)\n";
        assert!(
            first.starts_with(&format!("import sys\n\n{kept}")),
            "{first}"
        );
        assert!(
            !first.contains("v9 * 9") && !first.contains("def quiet"),
            "{first}"
        );
        // Only the `else` branch writes: the `if` and `elif` bodies are left empty, which
        // tree-sitter reads without an error (a syntax error would mean a whole parse).
        let src = format!(
            "def run(v0, v1, v2, v3, v4, v5, v6, v7, v8, v9):\n    if v0:\n{q}    elif v1:\n{q}    else:\n        print(v0)\n{filler}",
            q = quiet("        ", 10),
        );
        let (found, expected, first) = through_the_window(&src);
        assert_eq!((found.len(), found), (1, expected));
        let first = first.expect("a window with emptied branches parses cleanly");
        assert!(
            first.contains("    else:\n        print(v0)\n") && !first.contains("v5 * 5"),
            "{first}"
        );
    }

    /// What binds, rebinds or passes a name the rules resolve, in a statement with none of
    /// the prefilter's words, is kept or brought back: the window finds what a whole parse
    /// finds, case by case.
    #[test]
    fn a_window_keeps_what_the_resolver_follows_in_quiet_statements() {
        let q = quiet("    ", 12);
        let filler = (0..8)
            .map(|i| format!("def quiet{i}(v0):\n{}    return v0\n\n", quiet("    ", 12)))
            .collect::<String>();
        let cases = [
            // An alias of redirect_stdout: the print is redirected, not a finding.
            format!("import contextlib, sys\n\ndef run(v0):\n{q}    r = contextlib.redirect_stdout\n{q}    with r(sys.stderr):\n        print(v0)\n"),
            // stderr through a name: print(file=err) is not a finding.
            format!("import sys\n\ndef run(v0):\n    err = sys.stderr\n{q}    print(v0, file=err)\n"),
            // A module-level writer rebound in a function: its write there is to a file.
            format!("import sys\nout = sys.stdout\n\ndef run(v0):\n{q}    out = open(v0, 'w')\n{q}    out.write(v0)\n\ndef loud(v0):\n    out.write(v0)\n"),
            // A global assigned in one function, written in another.
            format!("import sys\nout = None\n\ndef setup(v0):\n    global out\n{q}    out = sys.stdout\n\ndef run(v0):\n{q}    out.write(v0)\n"),
            // A rich Console kept in a name: its print method writes to stdout.
            format!("from rich.console import Console\n\ndef run(v0):\n    c = Console()\n{q}    c.print(v0)\n"),
            // print shadowed by a parameter default and by a local assignment.
            format!("def run(v0, print=None):\n{q}    print(v0)\n\ndef other(v0):\n{q}    print = v0.log\n{q}    print(v0)\n"),
            // A comment ending with a dot on the line before `sys.stdout`: not a dotted name.
            format!("import sys\n\ndef run(v0):\n{q}    # Use write, not print.\n    sys.stdout.write(v0)\n{q}"),
            // A module whose first statement is quiet: the fix adds `import sys` before it.
            format!("\"\"\"A module.\"\"\"\n\ndef first(v0):\n{q}    return v0\n\ndef run(v0):\n    print(v0)\n"),
            // A logging import inside a statement with no word: the dictConfig check needs it.
            format!("try:\n    import logging.config\nexcept ImportError:\n    v0 = None\n\ndef run(v0):\n{q}    logging.config.dictConfig({{'version': 1, 'handlers': {{'h': {{'class': 'logging.StreamHandler', 'stream': 'ext://sys.stdout'}}}}}})\n"),
            // A local name for the sys module, and sys itself rebound.
            format!("import sys\n\ndef run(v0):\n    s = sys\n{q}    s.stdout.write(v0)\n\ndef other(v0):\n    sys = v0\n{q}    sys.stdout.write(v0)\n"),
        ];
        for case in cases {
            let src = format!("{case}\n{filler}");
            let (found, expected, first) = through_the_window(&src);
            assert_eq!(found, expected, "{src}");
            assert!(first.is_some(), "the first window parses cleanly:\n{src}");
        }
    }

    #[test]
    fn a_window_keeps_definitions_that_rebind_a_followed_name() {
        let body: String = (0..40).map(|i| format!("    x = x + {i}\n")).collect();
        let filler: String = (0..20)
            .map(|i| format!("def quiet{i}(x):\n{body}    return x\n\n"))
            .collect();
        // `def print` at the top shadows the builtin: the call below is not a finding.
        let src = format!("def print(*args):\n    '''Quiet.'''\n{body}\n{filler}print('x')\n");
        assert_eq!(windowed_and_whole(&src), (0, 0, false));
        // Docstring examples do not keep a definition; the top-level call is found. (The
        // module's first statement is kept, for where a fix adds an import: here `x = 0`.)
        let src = format!(
            "x = 0\n\ndef helper(x):\n    '''>>> print(x)'''\n{body}    return x\n\n{filler}print('x')\n"
        );
        let ranges = window(&Lang::Python.text(src.as_bytes()), &[]).expect("windowed");
        assert!(!ranges
            .iter()
            .any(|r| src[r.start_byte..r.end_byte].contains("def helper")));
        assert_eq!(windowed_and_whole(&src), (1, 1, false));
    }
}
