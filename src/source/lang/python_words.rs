//! Python's words: what a file must mention for a rule to match (the prefilter's needs),
//! which occurrences count, and the parts of a large file worth parsing (the window).

use super::prefilter::{called_with_other_fd, previous_on_line, unfollowed_member};
use super::prefilter::{Occurrence, Prefilter, Region, Text};
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
.counting(counts);

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
            "print" | "sys" | "builtins" | "rich" | "click" | "typer" | "pprint" | "structlog"
            | "os" => !after_dot(),
            "stdout" | "__stdout__" => {
                !unfollowed_member(occurrence, STDOUT_MEMBERS) && !bound_name(occurrence)
            }
            "write" => !called_with_other_fd(occurrence, &[b"#"]),
            _ => true,
        },
    }
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

/// Words a definition must not mention (anywhere) to be left out of a windowed parse, beside
/// the prefilter's words where they count: `logging` (an import of it enables the
/// dictConfig check), `global` (a definition that assigns module names) and `mcpcheck`
/// (suppressions).
const WINDOW_KEEP: &[&str] = &["logging", "global", "mcpcheck"];

/// Prefilter words that alone do not keep a definition: module names that bind nothing a
/// left-out definition could use (a use of theirs that matters also has `stdout`, `echo` or
/// `write`, which count).
const MODULES_ALONE: &[&str] = &["sys", "click", "typer", "os"];

/// An occurrence that keeps a definition in a window: one that counts (but not a module name
/// alone), or the definition's own name (`def print(...)` at the top binds `print` for the
/// whole module, though it is never a finding itself).
fn counts_in_window(occurrence: &Occurrence<'_>) -> bool {
    (occurrence.region == Region::Code && defined(occurrence))
        || (counts(occurrence) && !MODULES_ALONE.contains(&occurrence.word))
}

/// The parts of a large file worth parsing (see `python_window`), or None for all of it:
/// definitions with no occurrence of the prefilter's words that counts, and none of
/// `WINDOW_KEEP` or `names`, are left out.
pub(super) fn window(src: &[u8], names: &[&str]) -> Option<Vec<tree_sitter::Range>> {
    window_of(&super::prefilter::Text::new(src, &PREFILTER), names)
}

/// As `window`, of a file the prefilter has read.
fn window_of(text: &Text<'_>, names: &[&str]) -> Option<Vec<tree_sitter::Range>> {
    let src = text.src;
    let counted: Vec<usize> = text
        .counted_by(counts_in_window)?
        .into_iter()
        .map(|(_, start, _)| start)
        .collect();
    python_window::included_ranges_by(src, |start, end| {
        let first = counted.partition_point(|at| *at < start);
        counted.get(first).is_some_and(|at| *at < end)
            || WINDOW_KEEP
                .iter()
                .chain(names)
                .any(|w| python_window::mentions(&src[start..end], w.as_bytes()))
    })
}

pub fn parse_ranges(text: &Text<'_>) -> Option<Vec<tree_sitter::Range>> {
    window_of(text, &[])
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
        let ranges = window(src.as_bytes(), &[]).expect("windowed");
        parser.set_included_ranges(&ranges).expect("ranges");
        let part = parser.parse(src, None).expect("parse");
        let hits = |t: &tree_sitter::Tree| Lang::Python.scan(t, src.as_bytes()).len();
        (hits(&part), hits(&whole), part.root_node().has_error())
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
        // Docstring examples do not keep a definition; the top-level call is found.
        let src = format!(
            "def helper(x):\n    '''>>> print(x)'''\n{body}    return x\n\n{filler}print('x')\n"
        );
        let ranges = window(src.as_bytes(), &[]).expect("windowed");
        assert!(!ranges
            .iter()
            .any(|r| src[r.start_byte..r.end_byte].contains("def helper")));
        assert_eq!(windowed_and_whole(&src), (1, 1, false));
    }
}
