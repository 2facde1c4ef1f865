//! Regexes built on first need. Each pattern names the words it cannot match without;
//! one Aho-Corasick pass finds which of those words a text holds, and only the patterns
//! whose words are all there are built and run. Honest descriptions rarely hold them, so
//! the guard does not pay for building dozens of automata it never uses.

use aho_corasick::AhoCorasick;
use regex::bytes::Regex;
use std::sync::OnceLock;

/// One pattern: its regex source and its gate, groups of words of which each group must
/// have at least one in the text (`[["tell", "inform"], ["user"]]`). An empty gate is open.
pub struct Gated {
    pub source: String,
    pub gate: Vec<Vec<&'static str>>,
    regex: OnceLock<Option<Regex>>,
}

impl Gated {
    pub fn new(source: String, gate: Vec<Vec<&'static str>>) -> Self {
        Self {
            source,
            gate,
            regex: OnceLock::new(),
        }
    }

    /// The compiled regex (`None` if the source does not compile; unit tests build all).
    pub fn regex(&self) -> Option<&Regex> {
        self.regex
            .get_or_init(|| Regex::new(&self.source).ok())
            .as_ref()
    }
}

/// Patterns sharing one pass over the text for their gate words.
pub struct GatedSet {
    pub patterns: Vec<Gated>,
    words: Vec<&'static str>,
    /// For each pattern, its gate as groups of indices into `words`.
    gates: Vec<Vec<Vec<usize>>>,
    finder: Option<AhoCorasick>,
}

impl GatedSet {
    /// `case_insensitive`: gate words match in any ASCII case.
    pub fn new(patterns: Vec<Gated>, case_insensitive: bool) -> Self {
        let mut words: Vec<&'static str> = patterns
            .iter()
            .flat_map(|p| p.gate.iter().flatten().copied())
            .collect();
        words.sort_unstable();
        words.dedup();
        let finder = AhoCorasick::builder()
            .ascii_case_insensitive(case_insensitive)
            .build(&words)
            .ok();
        let gates = patterns
            .iter()
            .map(|p| {
                p.gate
                    .iter()
                    .map(|group| {
                        group
                            .iter()
                            .filter_map(|w| words.binary_search(w).ok())
                            .collect()
                    })
                    .collect()
            })
            .collect();
        Self {
            patterns,
            words,
            gates,
            finder,
        }
    }

    /// The indices of the patterns whose gate the text passes, in order.
    pub fn candidates(&self, hay: &[u8]) -> Vec<usize> {
        let mut present = vec![false; self.words.len()];
        match &self.finder {
            Some(finder) => {
                for m in finder.find_overlapping_iter(hay) {
                    present[m.pattern().as_usize()] = true;
                }
            }
            // Without the finder every gate counts as passed: slower, never blind.
            None => present.iter_mut().for_each(|p| *p = true),
        }
        (0..self.patterns.len())
            .filter(|&i| {
                self.gates[i]
                    .iter()
                    .all(|group| group.iter().any(|&w| present[w]))
            })
            .collect()
    }

    /// Every pattern compiles (for unit tests).
    pub fn all_compile(&self) -> bool {
        self.finder.is_some() && self.patterns.iter().all(|p| p.regex().is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_patterns_whose_words_are_present_are_candidates() {
        let set = GatedSet::new(
            vec![
                Gated::new(
                    "(?-u)tell.*user".into(),
                    vec![vec!["tell", "inform"], vec!["user"]],
                ),
                Gated::new("(?-u)ghp_".into(), vec![vec!["ghp_"]]),
                Gated::new("(?-u)<".into(), vec![]),
            ],
            false,
        );
        assert!(set.all_compile());
        assert_eq!(set.candidates(b"please tell the user"), [0, 2]);
        assert_eq!(set.candidates(b"tell nobody"), [2]);
        assert_eq!(set.candidates(b"a ghp_ token"), [1, 2]);
    }
}
