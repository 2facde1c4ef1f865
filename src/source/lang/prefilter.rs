//! The text test before parsing. Each language states, next to its rules, what a file must
//! mention for one of them to match: a list of needs, each a list of groups of words, met when
//! every group has one of its words in the file as a whole word. A file that meets no need is
//! counted as scanned and never parsed.
//!
//! It is sound because the resolvers only follow names written in the file: an import, an
//! alias, a destructuring or a `use` has to spell the name it binds, so every finding's path
//! (`console.log`, `tracing_subscriber::fmt`, `sys.stdout.write`) has its words in the text.
//! One pass of aho-corasick over the bytes finds them all.

use aho_corasick::{AhoCorasick, MatchKind};
use std::sync::OnceLock;

/// What one rule (or family of rules) needs: one word of every group.
pub type Need = Vec<Vec<&'static str>>;

/// A language's needs, compiled on first use into one matcher.
pub struct Prefilter {
    needs: fn() -> Vec<Need>,
    /// An occurrence that does not count (`console.error`), given the word and what follows it.
    ignore: Option<fn(&str, &[u8]) -> bool>,
    compiled: OnceLock<Option<Compiled>>,
}

struct Compiled {
    matcher: AhoCorasick,
    words: Vec<&'static str>,
    /// Per need, one mask of word indices per group.
    needs: Vec<Vec<u64>>,
}

impl Prefilter {
    pub const fn new(needs: fn() -> Vec<Need>) -> Self {
        Self {
            needs,
            ignore: None,
            compiled: OnceLock::new(),
        }
    }

    pub const fn ignoring(mut self, ignore: fn(&str, &[u8]) -> bool) -> Self {
        self.ignore = Some(ignore);
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
                let matcher = AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&words)
                    .ok()?;
                Some(Compiled {
                    matcher,
                    words,
                    needs,
                })
            })
            .as_ref()
    }

    /// False only if no need is met, so no rule can match. True also if the words could not
    /// be compiled: a failure means "parse it", never "skip it".
    pub fn may_match(&self, src: &[u8]) -> bool {
        let Some(compiled) = self.compiled() else {
            return true;
        };
        let mut found = 0u64;
        for m in compiled.matcher.find_iter(src) {
            let index = m.pattern().as_usize();
            let bit = 1u64 << index;
            let word = compiled.words[index];
            let glued = (m.start() > 0 && is_ident(src[m.start() - 1]))
                || src.get(m.end()).is_some_and(|c| is_ident(*c));
            if found & bit != 0 || glued || self.ignore.is_some_and(|f| f(word, &src[m.end()..])) {
                continue;
            }
            found |= bit;
            let met = |groups: &Vec<u64>| groups.iter().all(|g| g & found != 0);
            if compiled.needs.iter().any(met) {
                return true;
            }
        }
        false
    }
}

fn is_word(word: &str) -> bool {
    word.bytes().all(is_ident)
}

fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$'
}

#[cfg(test)]
mod tests {
    use super::*;

    static TEST: Prefilter = Prefilter::new(|| {
        vec![
            vec![vec!["console"]],
            vec![vec!["fs"], vec!["write", "writeSync"]],
        ]
    })
    .ignoring(|word, rest| word == "console" && rest.starts_with(b".error"));

    #[test]
    fn a_need_is_met_only_when_every_group_has_a_whole_word() {
        assert!(TEST.may_match(b"x; console.log(1)"));
        assert!(!TEST.may_match(b"myconsole.log(1); console_x"));
        assert!(!TEST.may_match(b"console.error(1)"));
        assert!(TEST.may_match(b"console.error(1); console.log(2)"));
        assert!(!TEST.may_match(b"const fs = require('fs'); fs.readFileSync(p)"));
        assert!(!TEST.may_match(b"stream.write(x)"));
        assert!(TEST.may_match(b"import { writeSync } from 'node:fs'"));
        assert!(TEST.may_match(b"write(1, x); import * as fs from 'fs'"));
        assert!(!TEST.may_match(b""));
    }

    #[test]
    fn words_that_cannot_be_compiled_mean_parse_everything() {
        static BAD: Prefilter = Prefilter::new(|| vec![vec![vec!["System.out"]]]);
        assert!(BAD.may_match(b"nothing here"));
    }
}
