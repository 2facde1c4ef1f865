//! The text test before parsing. Each language states, next to its rules, what a file must
//! mention for one of them to match: a list of needs, each a list of groups of words, met when
//! every group has one of its words in the file as a whole word. A file that meets no need is
//! counted as scanned and never parsed.
//!
//! It is sound because the resolvers only follow names written in the file: an import, an
//! alias, a destructuring or a `use` has to spell the name it binds, so every finding's path
//! (`console.log`, `tracing_subscriber::fmt`, `sys.stdout.write`) has its words in the text.
//! One pass of aho-corasick over the bytes finds them all.
//!
//! Where a language has a lexer (Python, JavaScript), a file that meets a need is lexed once
//! more and only occurrences that can matter are counted: in code (not in a comment), or in a
//! string only where the rules read strings (a module specifier, `ext://sys.stdout`), and not
//! in a use that no rule follows (`sys.stdout.isatty()`, `stream.write(data)`). Each
//! language's `counts` says which, next to the rules it follows. A lexer that loses track of
//! the file (an unterminated string, unbalanced brackets) counts every occurrence, as before.

use aho_corasick::{AhoCorasick, MatchKind};
use std::cell::OnceCell;
use std::sync::OnceLock;

/// Words this long or shorter are searched one by one, not in the automaton (`Compiled`).
const SHORT: usize = 2;

/// What one rule (or family of rules) needs: one word of every group.
pub type Need = Vec<Vec<&'static str>>;

/// Where an occurrence of a word is, as the language's lexer sees the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    Code,
    Comment,
    /// In a string literal (or a template's text) whose content is `src[start..end]`.
    Text {
        start: usize,
        end: usize,
    },
}

/// A part of a file that is not code, as a lexer finds it: `src[start..end]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub region: Region,
}

/// One occurrence of a word, as a language's `counts` judges it.
pub struct Occurrence<'a> {
    pub word: &'static str,
    pub src: &'a [u8],
    pub start: usize,
    pub end: usize,
    pub region: Region,
}

impl Occurrence<'_> {
    /// What follows the word, up to the end of the file.
    pub fn after(&self) -> &[u8] {
        &self.src[self.end..]
    }

    /// What comes before the word.
    pub fn before(&self) -> &[u8] {
        &self.src[..self.start]
    }

    /// The string's content before and after the word, for an occurrence in a string.
    pub fn in_text(&self) -> Option<(&[u8], &[u8])> {
        match self.region {
            Region::Text { start, end } if start <= self.start && self.end <= end => {
                Some((&self.src[start..self.start], &self.src[self.end..end]))
            }
            _ => None,
        }
    }
}

/// A lexer: the spans of a file that are not code, in order; None when it cannot follow it.
pub type Lexer = fn(&[u8]) -> Option<Vec<Span>>;

/// A test of the whole file's need that reads the file beside the occurrence: `context`
/// reads what the file binds (flags of the language's own, from its bytes and its lexer's
/// spans, empty when the lexer lost track), and `counts` judges an occurrence that the
/// prefilter's own `counts` let through, asking for the flags only if it needs them (they
/// are read once a file, on the first ask). Only the file's test (`may_match`) asks it: the
/// windows keep what `counts` alone keeps.
#[derive(Clone, Copy)]
pub struct FileTest {
    pub context: fn(&[u8], &[Span]) -> u32,
    pub counts: fn(&Occurrence<'_>, &dyn Fn() -> u32) -> bool,
}

/// A language's needs, compiled on first use into one matcher.
pub struct Prefilter {
    needs: fn() -> Vec<Need>,
    /// Whether an occurrence counts (by default: only in code, and every one without a lexer).
    counts: fn(&Occurrence<'_>) -> bool,
    /// The parts of a file that are not code, in order; None when the lexer cannot follow it.
    lexer: Option<Lexer>,
    file_test: Option<FileTest>,
    compiled: OnceLock<Option<Compiled>>,
}

struct Compiled {
    /// The words longer than `SHORT` bytes, in one automaton, and the index in `words` of
    /// each of its patterns.
    matcher: AhoCorasick,
    long: Vec<usize>,
    /// Each word of at most `SHORT` bytes (`os`, `fs`) with its index, searched alone: in the
    /// automaton, a two-byte word makes its packed searcher stop at every two-byte
    /// fingerprint, four times slower over Python text than without one (`bench/README.md`).
    /// Whole words never overlap, so the searches' whole words are those of one automaton.
    short: Vec<(usize, memchr::memmem::Finder<'static>)>,
    /// One group of each need, the one whose shortest word is longest: a file none of whose
    /// words stands alone meets no need, and is ruled out by this smaller, faster search
    /// (`aho_corasick`'s packed searcher verifies fewer candidates for longer words: `os`
    /// and `fs` are in `close` and `offset`).
    anchors: AhoCorasick,
    words: Vec<&'static str>,
    /// Per need, one mask of word indices per group.
    needs: Vec<Vec<u64>>,
}

impl Prefilter {
    pub const fn new(needs: fn() -> Vec<Need>) -> Self {
        Self {
            needs,
            counts: in_code,
            lexer: None,
            file_test: None,
            compiled: OnceLock::new(),
        }
    }

    /// The language's test of an occurrence against what the whole file binds (`FileTest`).
    pub const fn file_tested(mut self, test: FileTest) -> Self {
        self.file_test = Some(test);
        self
    }

    /// The language's judgement of an occurrence (where it is, what is around it).
    pub const fn counting(mut self, counts: fn(&Occurrence<'_>) -> bool) -> Self {
        self.counts = counts;
        self
    }

    /// The language's lexer, which tells code from comments and strings.
    pub const fn lexed(mut self, lexer: Lexer) -> Self {
        self.lexer = Some(lexer);
        self
    }

    /// Every word, once, in the order first needed.
    pub fn words(&self) -> Vec<&'static str> {
        let mut words: Vec<&'static str> = Vec::new();
        for word in (self.needs)().into_iter().flatten().flatten() {
            if !words.contains(&word) {
                words.push(word);
            }
        }
        words
    }

    /// False if the words are not all identifiers or are too many (then every file is parsed).
    #[cfg(test)]
    pub fn compiles(&self) -> bool {
        self.compiled().is_some()
    }

    fn compiled(&self) -> Option<&Compiled> {
        self.compiled
            .get_or_init(|| {
                let words = self.words();
                // Words of identifier characters only: then a longer word never hides a
                // shorter one that stands alone (see `may_match`). One bit per word.
                if words.len() > 64 || !words.iter().all(|w| !w.is_empty() && is_word(w)) {
                    return None;
                }
                let bit = |w: &str| words.iter().position(|x| *x == w).map(|i| 1u64 << i);
                let needs = (self.needs)()
                    .iter()
                    .map(|groups| {
                        groups
                            .iter()
                            .map(|g| g.iter().filter_map(|w| bit(w)).fold(0, |a, b| a | b))
                            .collect()
                    })
                    .collect();
                let build = |words: &[&'static str]| {
                    AhoCorasick::builder()
                        .match_kind(MatchKind::LeftmostLongest)
                        .build(words)
                        .ok()
                };
                let long: Vec<usize> = (0..words.len())
                    .filter(|i| words[*i].len() > SHORT)
                    .collect();
                let matcher = build(&long.iter().map(|i| words[*i]).collect::<Vec<_>>())?;
                let short = words
                    .iter()
                    .enumerate()
                    .filter(|(_, w)| w.len() <= SHORT)
                    .map(|(i, w)| (i, memchr::memmem::Finder::new(w.as_bytes())))
                    .collect();
                let mut anchors: Vec<&'static str> = Vec::new();
                for need in (self.needs)() {
                    let shortest = |g: &Vec<&str>| g.iter().map(|w| w.len()).min().unwrap_or(0);
                    let anchor = need.iter().max_by_key(|g| shortest(g))?;
                    for word in anchor {
                        if !anchors.contains(word) {
                            anchors.push(word);
                        }
                    }
                }
                let anchors = build(&anchors)?;
                Some(Compiled {
                    matcher,
                    long,
                    short,
                    anchors,
                    words,
                    needs,
                })
            })
            .as_ref()
    }

    /// As `Text::may_match`, for the tests of a prefilter of their own.
    #[cfg(test)]
    fn may_match(&'static self, src: &[u8]) -> bool {
        Text::new(src, self).may_match()
    }
}

/// A file's bytes as one language's prefilter reads them, each pass made once however many
/// text tests ask: the whole-word occurrences of its words (one aho-corasick pass) and the
/// spans of its lexer. The worker holds one per file, from the prefilter's test to the
/// windows and the facts' mentions (`transports_window`).
pub struct Text<'a> {
    pub src: &'a [u8],
    prefilter: &'static Prefilter,
    occurrences: OnceCell<Vec<(usize, usize, usize)>>,
    spans: OnceCell<Option<Vec<Span>>>,
    /// What a language's windows find in the file and ask for again, for the scan's window,
    /// its widening and the facts' window (Python's statements, `python_window`;
    /// JavaScript's blocks and comments and the line index, `js_window`).
    kept: OnceCell<Box<dyn std::any::Any>>,
}

impl<'a> Text<'a> {
    pub fn new(src: &'a [u8], prefilter: &'static Prefilter) -> Self {
        Self {
            src,
            prefilter,
            occurrences: OnceCell::new(),
            spans: OnceCell::new(),
            kept: OnceCell::new(),
        }
    }

    /// What `find` finds in the file, found on the first call and kept for the next; None if
    /// an earlier call kept something of another type (one language, one kind of thing).
    pub fn kept<T: 'static>(&self, find: impl FnOnce(&[u8]) -> T) -> Option<&T> {
        self.kept
            .get_or_init(|| Box::new(find(self.src)))
            .downcast_ref()
    }

    /// The spans of the language's lexer, or None without one or when it lost track.
    pub fn spans(&self) -> Option<&[Span]> {
        self.spans
            .get_or_init(|| self.prefilter.lexer.and_then(|lexer| lexer(self.src)))
            .as_deref()
    }

    /// Every whole-word occurrence of the prefilter's words: (index, start, end).
    fn occurrences(&self, compiled: &Compiled) -> &[(usize, usize, usize)] {
        self.occurrences
            .get_or_init(|| compiled.whole_words(self.src))
    }

    /// Every occurrence that `counts` judges to count, as (word, start, end) in order; None if
    /// the words could not be compiled (then nothing can be ruled out).
    pub fn counted_by(
        &self,
        counts: fn(&Occurrence<'_>) -> bool,
    ) -> Option<Vec<(&'static str, usize, usize)>> {
        let compiled = self.prefilter.compiled()?;
        let counted = self
            .judged(compiled, counts)
            .map(|(index, start, end)| (compiled.words[index], start, end))
            .collect();
        Some(counted)
    }

    /// False only if no need is met, so no rule can match. True also if the words could not
    /// be compiled: a failure means "parse it", never "skip it".
    pub fn may_match(&self) -> bool {
        let Some(compiled) = self.prefilter.compiled() else {
            return true;
        };
        // Most files hold none of the anchors (one group of each need) as a word, and are
        // ruled out by that smaller search alone.
        if !compiled.anchored(self.src) {
            return false;
        }
        // Every whole-word occurrence, next: most files meet no need even so, and are not lexed.
        let all = self
            .occurrences(compiled)
            .iter()
            .fold(0u64, |f, (i, _, _)| f | 1u64 << i);
        if !compiled.met(all) {
            return false;
        }
        let mut found = 0u64;
        let counts = self.prefilter.counts;
        let file_test = self.prefilter.file_test;
        // The file's flags, read once, on the first occurrence that asks for them.
        let context = OnceCell::new();
        let judge = |o: &Occurrence<'_>| {
            counts(o)
                && file_test.is_none_or(|test| {
                    let flags = || {
                        *context.get_or_init(|| {
                            (test.context)(self.src, self.spans().unwrap_or_default())
                        })
                    };
                    (test.counts)(o, &flags)
                })
        };
        for (index, _, _) in self.judged(compiled, judge) {
            found |= 1u64 << index;
            if compiled.met(found) {
                return true;
            }
        }
        false
    }

    /// The occurrences (word index, start, end) that `counts` judges to count, each placed by
    /// the language's lexer (without one, or when it lost track, every one is in code).
    fn judged<'t>(
        &'t self,
        compiled: &'t Compiled,
        counts: impl Fn(&Occurrence<'_>) -> bool + 't,
    ) -> impl Iterator<Item = (usize, usize, usize)> + 't {
        let words = &compiled.words[..];
        let src = self.src;
        let mut spans = self.spans().unwrap_or_default().iter().peekable();
        self.occurrences(compiled)
            .iter()
            .copied()
            .filter(move |&(index, start, end)| {
                while spans.next_if(|s| s.end <= start).is_some() {}
                let region = spans
                    .peek()
                    .filter(|s| s.start <= start && end <= s.end)
                    .map_or(Region::Code, |s| s.region);
                counts(&Occurrence {
                    word: words[index],
                    src,
                    start,
                    end,
                    region,
                })
            })
    }
}

impl Compiled {
    /// Whether one of the anchors stands alone somewhere: false means no need is met. (The
    /// words are identifier characters, so a leftmost-longest match that is not a whole word
    /// never hides one that is: see `compiled`.)
    fn anchored(&self, src: &[u8]) -> bool {
        self.anchors
            .find_iter(src)
            .any(|m| stands_alone(src, m.start(), m.end()))
    }

    /// Every occurrence of a word that is not part of a longer identifier: (index, start,
    /// end), in order.
    fn whole_words(&self, src: &[u8]) -> Vec<(usize, usize, usize)> {
        let mut found: Vec<(usize, usize, usize)> = self
            .matcher
            .find_iter(src)
            .filter(|m| stands_alone(src, m.start(), m.end()))
            .map(|m| (self.long[m.pattern().as_usize()], m.start(), m.end()))
            .collect();
        if self.short.is_empty() {
            return found;
        }
        for (index, finder) in &self.short {
            let len = finder.needle().len();
            found.extend(
                finder
                    .find_iter(src)
                    .filter(|at| stands_alone(src, *at, at + len))
                    .map(|at| (*index, at, at + len)),
            );
        }
        found.sort_unstable_by_key(|(_, start, _)| *start);
        found
    }

    /// True if the words found (a mask) meet one of the needs.
    fn met(&self, found: u64) -> bool {
        let met = |groups: &Vec<u64>| groups.iter().all(|g| g & found != 0);
        self.needs.iter().any(met)
    }
}

/// Whether `src[start..end]` is a whole word: not part of a longer identifier.
fn stands_alone(src: &[u8], start: usize, end: usize) -> bool {
    !((start > 0 && is_ident(src[start - 1])) || src.get(end).is_some_and(|c| is_ident(*c)))
}

/// The default judgement: an occurrence counts in code (everywhere, for a language without a
/// lexer), not in a comment or a string.
fn in_code(occurrence: &Occurrence<'_>) -> bool {
    occurrence.region == Region::Code
}

/// The span of `spans` (a lexer's, in order) that holds the byte at `at`, if any.
pub fn span_at(spans: &[Span], at: usize) -> Option<&Span> {
    let i = spans.partition_point(|s| s.end <= at);
    spans.get(i).filter(|s| s.start <= at)
}

/// The next byte that is not a space, a tab, a line break or a form feed, and its offset.
pub fn next_token(text: &[u8]) -> Option<(usize, u8)> {
    text.iter()
        .position(|b| !b.is_ascii_whitespace())
        .map(|i| (i, text[i]))
}

/// The last byte before the end of `text` on the same line that is not a space or a tab
/// (None at the start of a line: what is on the line before may be a comment).
pub fn previous_on_line(text: &[u8]) -> Option<u8> {
    text.iter()
        .rev()
        .find(|b| !matches!(b, b' ' | b'\t'))
        .copied()
        .filter(|b| !matches!(b, b'\n' | b'\r'))
}

/// The identifier at the start of `text`.
pub fn identifier(text: &[u8]) -> &[u8] {
    let len = text.iter().take_while(|b| is_ident(**b)).count();
    &text[..len]
}

/// A member read after the word (`.isatty`), when it is one the rules never follow: then
/// the occurrence leads nowhere. `followed`: the members the resolver knows for the word.
pub fn unfollowed_member(occurrence: &Occurrence<'_>, followed: &[&str]) -> bool {
    let after = occurrence.after();
    let Some((dot, b'.')) = next_token(after) else {
        return false;
    };
    let rest = &after[dot + 1..];
    let Some((at, _)) = next_token(rest) else {
        return false;
    };
    let member = identifier(&rest[at..]);
    !member.is_empty() && !followed.iter().any(|f| f.as_bytes() == member)
}

/// For a write to a file descriptor (`os.write(1, ...)`, `fs.writeSync(1, ...)`): the word is
/// called with a first argument other than a literal `1`, so it cannot be a write to stdout
/// by that rule. A use that is not a call (an alias, an import) is not ruled out; nor is a
/// call with a comment before its first argument. `comment`: how a comment starts.
pub fn called_with_other_fd(occurrence: &Occurrence<'_>, comments: &[&[u8]]) -> bool {
    let after = occurrence.after();
    let Some((open, b'(')) = next_token(after) else {
        return false;
    };
    let rest = &after[open + 1..];
    let Some((at, _)) = next_token(rest) else {
        return false;
    };
    let first = &rest[at..];
    if comments.iter().any(|c| first.starts_with(c)) {
        return false;
    }
    let one =
        first.first() == Some(&b'1') && !first.get(1).is_some_and(|b| is_ident(*b) || *b == b'.');
    if one {
        // `1,` or `1)` is fd 1; `1 + x` is another expression (its text is not `1`).
        return matches!(next_token(&first[1..]), Some((_, b)) if b != b',' && b != b')');
    }
    true
}

fn is_word(word: &str) -> bool {
    word.bytes().all(is_ident)
}

fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$'
}

/// The text of each span a lexer gives, marked c (comment) or s (string content), or None
/// if the lexer cannot follow `src`: what the lexers' tests compare.
#[cfg(test)]
pub fn lexed(lexer: Lexer, src: &str) -> Option<Vec<String>> {
    let spans = lexer(src.as_bytes())?;
    Some(
        spans
            .iter()
            .map(|s| match s.region {
                Region::Comment => format!("c:{}", &src[s.start..s.end]),
                Region::Text { start, end } => format!("s:{}", &src[start..end]),
                Region::Code => format!("code:{}", &src[s.start..s.end]),
            })
            .collect(),
    )
}

#[cfg(test)]
#[path = "prefilter_tests.rs"]
mod tests;
