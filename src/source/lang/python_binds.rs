//! What a Python file binds, for the prefilter's test of the whole file (`FileTest`): a
//! use of `stdout` can be sys.stdout only through a name the file binds to it.

use super::prefilter::{next_token, previous_on_line, span_at};
use super::prefilter::{Occurrence, Region, Span};
use super::python_window;

/// `sys` stands somewhere as a value (bound to another name, passed, imported from a
/// package), not only read for a member (`sys.stdout`) or imported as itself (`import sys`):
/// then any name may be the module.
const SYS_VALUE: u32 = 1;
/// `from sys import ...` or a star import: a bare `stdout` may be sys.stdout.
const STDOUT_IMPORTED: u32 = 2;

/// What the file binds, for `counts_in_file`: `SYS_VALUE`, `STDOUT_IMPORTED`. Read where
/// the lexer says code (everywhere if it lost track: `spans` is then empty, which sets more
/// flags, never fewer).
pub(super) fn file_context(src: &[u8], spans: &[Span]) -> u32 {
    let in_code = |at: &usize| span_at(spans, *at).is_none();
    let mut flags = 0;
    for at in python_window::whole_words(src, b"sys").filter(in_code) {
        if matches!(next_token(&src[at + 3..]), Some((_, b'.'))) {
            continue;
        }
        if after_from(&src[..at]) {
            flags |= STDOUT_IMPORTED;
        } else if !imported_as_itself(src, at, at + 3) {
            flags |= SYS_VALUE;
        }
    }
    for at in python_window::whole_words(src, b"import").filter(in_code) {
        if matches!(next_token(&src[at + 6..]), Some((_, b'*'))) {
            flags |= STDOUT_IMPORTED;
        }
    }
    flags
}

/// The name at `src[at..end]` is one of a line `import a, b.c, sys`, not followed by `as`.
pub(super) fn imported_as_itself(src: &[u8], at: usize, end: usize) -> bool {
    let line_start = memchr::memrchr(b'\n', &src[..at]).map_or(0, |i| i + 1);
    let Some(names) = src[line_start..at]
        .trim_ascii_start()
        .strip_prefix(b"import")
    else {
        return false;
    };
    let listed = names.first().is_some_and(|b| matches!(b, b' ' | b'\t'))
        && names
            .iter()
            .all(|b| python_window::is_ident(*b) || matches!(b, b'.' | b',' | b' ' | b'\t'));
    let rest = &src[end..];
    let after = rest.iter().find(|b| !matches!(b, b' ' | b'\t'));
    listed && after.is_none_or(|b| matches!(b, b'\n' | b'\r' | b',' | b';' | b'#'))
}

/// The file's test of an occurrence `counts` let through (`FileTest`): a use of `stdout` or
/// `__stdout__` can be the module's only through a name bound to it, so it counts only where
/// the file can have bound one. Read for a member of a name (`process.stdout`), only if that
/// name is `sys`, or `sys` stands somewhere as a value (`SYS_VALUE`: `import sys as s`,
/// `out = sys`); a bare name (`stdout, err = run()`, a parameter), only after `from sys
/// import` or a star import (`STDOUT_IMPORTED`). Binding it from sys.stdout itself spells
/// that, which counts.
pub(super) fn counts_in_file(occurrence: &Occurrence<'_>, flags: &dyn Fn() -> u32) -> bool {
    if occurrence.region != Region::Code || !matches!(occurrence.word, "stdout" | "__stdout__") {
        return true;
    }
    let before = occurrence.before();
    if previous_on_line(before) != Some(b'.') {
        return flags() & STDOUT_IMPORTED != 0;
    }
    let blank = |b: &u8| matches!(b, b' ' | b'\t');
    let trim = |t: &'_ [u8]| -> usize { t.len() - t.iter().rev().take_while(|b| blank(b)).count() };
    let dot = trim(before);
    let end = trim(&before[..dot.saturating_sub(1)]);
    let object = &before[..end];
    let name_len = object
        .iter()
        .rev()
        .take_while(|b| python_window::is_ident(**b))
        .count();
    let name = &object[end - name_len..];
    // `f().stdout`, `x[0].stdout`: not a name; counted.
    name.is_empty() || name == b"sys" || flags() & SYS_VALUE != 0
}

/// `before` ends with the keyword `from` (and blanks): what follows is the module of a
/// from-import.
pub(super) fn after_from(before: &[u8]) -> bool {
    let before = before.trim_ascii_end();
    before.ends_with(b"from")
        && !before[..before.len() - 4]
            .last()
            .is_some_and(|b| python_window::is_ident(*b))
}
