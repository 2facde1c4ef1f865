//! The cheap test that lets clean JSON be copied as it came instead of being parsed and
//! masked: whether masking could change anything in it.

use super::{names, shapes};
use std::cell::RefCell;
use std::sync::LazyLock;

/// Whether masking (of values under names that [`super::might_name_credential`], and of
/// strings by [`super::mask_tokens`]) could change anything in this JSON text once it is
/// parsed: a cheap test that lets clean JSON be copied as it came. It may say yes for
/// nothing, never no for something.
pub fn json_might_hold_credential(json: &str) -> bool {
    json_might_hold_credentials(&[json.as_bytes()]) != [false]
}

/// [`json_might_hold_credential`] of each text (as bytes: only ASCII can be clean), each
/// search run once over all the texts instead of once a text (a search's set-up cost as
/// much as a short text): its haystack holds every text, each followed by a newline, which
/// nothing searched for holds, so a match lies in one text. The answers are the ones each
/// text gets alone.
pub fn json_might_hold_credentials(texts: &[&[u8]]) -> Vec<bool> {
    // Both search lower-cased text for lower-cased literals, case-sensitively: a SIMD
    // searcher can then skip most of each line (an automaton reads every byte).
    static NAMES: LazyLock<Option<Literals>> = LazyLock::new(|| {
        Literals::new(
            names::STEMS
                .iter()
                .chain(names::WORDS)
                .chain(&["key"])
                .map(|l| l.to_string()),
        )
    });
    static TOKENS: LazyLock<Option<Literals>> = LazyLock::new(|| {
        Literals::new(
            shapes::SHAPES
                .iter()
                .flat_map(|s| s.gate.iter().chain(s.prefixes))
                .map(|l| l.to_ascii_lowercase()),
        )
    });
    thread_local! {
        // The lower-cased and the squashed texts, and where each text starts in them,
        // reused from batch to batch.
        static TEXT: RefCell<Haystacks> = RefCell::new(Haystacks::default());
    }
    let (Some(names), Some(tokens)) = (NAMES.as_ref(), TOKENS.as_ref()) else {
        return vec![true; texts.len()];
    };
    // Beyond ASCII a name's squashed form needs Unicode's idea of a letter: only parsing
    // tells.
    let mut answers: Vec<bool> = texts.iter().map(|json| !json.is_ascii()).collect();
    TEXT.with_borrow_mut(|h| {
        h.clear();
        for (i, json) in texts.iter().enumerate() {
            if !answers[i] {
                h.push(i, json);
            }
        }
        // Each search runs over all the texts; lower-casing changes neither a backslash
        // nor an at sign.
        let byte =
            |b: u8| move |hay: &[u8], at: usize| memchr::memchr(b, &hay[at..]).map(|i| at + i);
        // An escape makes a parsed string differ from its text.
        for i in h.matching(&h.lower, |s| s.lower, byte(b'\\')) {
            answers[i] = true;
        }
        // A URL's userinfo password is a credential whatever the key that holds it.
        for i in h.matching(&h.lower, |s| s.lower, byte(b'@')) {
            if memchr::memmem::find(texts[i], b"://").is_some() {
                answers[i] = true;
            }
        }
        // Without escapes every key and string is a run of the text, so a name's squashed,
        // lower-cased form is a run of the text's, and a token's literals are in the text
        // (in any case: its lower-cased literals are in the lower-cased text).
        for i in h.matching(
            &h.squashed,
            |s| s.squashed,
            |hay, at| names.find_from(hay, at),
        ) {
            answers[i] = true;
        }
        for i in h.matching(&h.lower, |s| s.lower, |hay, at| tokens.find_from(hay, at)) {
            answers[i] = true;
        }
    });
    answers
}

/// Where one text starts in each haystack.
#[derive(Clone, Copy)]
struct Start {
    text: usize,
    lower: usize,
    squashed: usize,
}

/// The texts lower-cased, and lower-cased with all but letters and digits left out, each
/// followed by a newline.
#[derive(Default)]
struct Haystacks {
    lower: Vec<u8>,
    squashed: Vec<u8>,
    starts: Vec<Start>,
}

impl Haystacks {
    fn clear(&mut self) {
        self.lower.clear();
        self.squashed.clear();
        self.starts.clear();
    }

    fn push(&mut self, text: usize, json: &[u8]) {
        self.starts.push(Start {
            text,
            lower: self.lower.len(),
            squashed: self.squashed.len(),
        });
        let from = self.lower.len();
        self.lower.extend_from_slice(json);
        self.lower[from..].make_ascii_lowercase();
        // Block by block, every byte is written and only letters and digits advance: no
        // branch and no bounds check per byte.
        let mut block = [0u8; 64];
        for chunk in self.lower[from..].chunks(block.len()) {
            let mut kept = 0;
            for &c in chunk {
                block[kept & 63] = c;
                kept += usize::from(ALPHANUMERIC[usize::from(c)]);
            }
            self.squashed.extend_from_slice(&block[..kept]);
        }
        self.lower.push(b'\n');
        self.squashed.push(b'\n');
    }

    /// The texts in which `find` finds something in `haystack` (one of this one's, in
    /// which `start` says where each text starts), each once, in order. `find` looks from a
    /// place on and tells where what it found starts; nothing it finds spans two texts.
    fn matching<'a>(
        &'a self,
        haystack: &'a [u8],
        start: fn(&Start) -> usize,
        find: impl Fn(&[u8], usize) -> Option<usize> + 'a,
    ) -> impl Iterator<Item = usize> + 'a {
        let mut at = 0;
        std::iter::from_fn(move || {
            if at >= haystack.len() {
                return None;
            }
            let found = find(haystack, at)?;
            // The text it starts in: the last one starting at or before it.
            let k = self.starts.partition_point(|s| start(s) <= found) - 1;
            at = self.starts.get(k + 1).map_or(haystack.len(), start);
            self.starts.get(k).map(|s| s.text)
        })
    }
}

/// Whether each byte is an ASCII letter or digit, by table.
static ALPHANUMERIC: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    table
};

/// A set of literals searched for: with SIMD where the machine has it, else an automaton.
enum Literals {
    Packed(aho_corasick::packed::Searcher),
    Automaton(aho_corasick::AhoCorasick),
}

impl Literals {
    fn new(literals: impl Iterator<Item = String>) -> Option<Self> {
        let literals: Vec<String> = literals.collect();
        let packed = aho_corasick::packed::Config::new()
            .builder()
            .extend(&literals)
            .build();
        match packed {
            Some(searcher) => Some(Literals::Packed(searcher)),
            None => aho_corasick::AhoCorasick::builder()
                .kind(Some(aho_corasick::AhoCorasickKind::DFA))
                .build(&literals)
                .ok()
                .map(Literals::Automaton),
        }
    }

    /// Where the first match at or after `at` starts: the leftmost (packed) or the one
    /// that ends first (automaton); either way no text before it holds one.
    fn find_from(&self, haystack: &[u8], at: usize) -> Option<usize> {
        let found = match self {
            Literals::Packed(s) => {
                s.find_in(haystack, aho_corasick::Span::from(at..haystack.len()))
            }
            Literals::Automaton(a) => a.find(aho_corasick::Input::new(haystack).range(at..)),
        };
        found.map(|m| m.start())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name is found in the squashed text wherever it is split, block boundaries included.
    #[test]
    fn a_name_split_by_punctuation_is_found_at_any_offset() {
        for pad in 0..140 {
            let filler = "x".repeat(pad);
            let split = format!(r#"{{"{filler}":1,"to":"ken","n":1}}"#);
            assert!(json_might_hold_credential(&split), "{split}");
            let clean = format!(r#"{{"{filler}":1,"to":"ben","n":1}}"#);
            assert!(!json_might_hold_credential(&clean), "{clean}");
        }
    }

    /// The test as it was before texts were searched together, one text at a time: the
    /// oracle for [`json_might_hold_credentials`].
    fn alone(json: &str) -> bool {
        if json.contains('\\') || !json.is_ascii() {
            return true;
        }
        if json.contains("://") && json.contains('@') {
            return true;
        }
        let names = Literals::new(
            names::STEMS
                .iter()
                .chain(names::WORDS)
                .chain(&["key"])
                .map(|l| l.to_string()),
        )
        .expect("names");
        let tokens = Literals::new(
            shapes::SHAPES
                .iter()
                .flat_map(|s| s.gate.iter().chain(s.prefixes))
                .map(|l| l.to_ascii_lowercase()),
        )
        .expect("tokens");
        let lower: Vec<u8> = json.bytes().map(|b| b.to_ascii_lowercase()).collect();
        let squashed: Vec<u8> = lower
            .iter()
            .copied()
            .filter(u8::is_ascii_alphanumeric)
            .collect();
        names.find_from(&squashed, 0).is_some() || tokens.find_from(&lower, 0).is_some()
    }

    /// Searched together, texts get the answers each gets alone: names and tokens cut
    /// between two texts are found in neither, a text's match is its own wherever it lies,
    /// and texts of every length (short ones below the SIMD searcher's minimum) mix.
    #[test]
    fn texts_searched_together_get_the_answers_each_gets_alone() {
        let pieces = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"message 1"}}}"#,
            r#"{"a":"to"#,
            r#"ken"}"#,
            r#"{"t":"gh"#,
            r#"p_x"}"#,
            r#"{"Api-Key":1}"#,
            r#"{"x":"PA"#,
            r#"T"}"#,
            "{\"u\":\"https://a:b@c\"}",
            "{\"u\":\"mail a@b\"}",
            "{\"e\":\"\\u0074oken\"}",
            "{\"h\":\"h\u{e9}llo\"}",
            r#"{"k":"AKIAZ3MQ7RT2VX5LP4WN"}"#,
            r#"{"k":"Sk-Proj-abc"}"#,
            r#"{"k":"BEGIN PRIVATE KEY"}"#,
            r#"{"session":"s"}"#,
            "",
            "x",
            "{}",
            r#"{"pat":"h"}"#,
            r#"{"path":"/a"}"#,
            r#"{"n":"e"}"#,
            r#"{"y":"J"}"#,
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..3_000 {
            let texts: Vec<String> = (0..next(40))
                .map(|_| {
                    let filler = "q".repeat(next(3) * next(70));
                    let mut text = String::new();
                    for _ in 0..=next(3) {
                        text.push_str(pieces[next(pieces.len())]);
                        if next(2) == 0 {
                            text.push_str(&filler);
                        }
                    }
                    text
                })
                .collect();
            let texts: Vec<&[u8]> = texts.iter().map(String::as_bytes).collect();
            let expected: Vec<bool> = texts
                .iter()
                .map(|t| alone(std::str::from_utf8(t).expect("utf-8")))
                .collect();
            assert_eq!(json_might_hold_credentials(&texts), expected, "{texts:?}");
        }
    }
}
