//! Credentials: the one table of provider token shapes and the one test of credential
//! names, used by every engine that finds a secret and every output that hides one.
//!
//! Two strictnesses, because the inputs differ. In free text (advertised descriptions,
//! server names) only a credential's exact documented shape counts, so prose about a
//! format is not a leak ([`find`], [`redact`]). In a value (a config entry, an argument,
//! a log field) the whole value may be the token, so looser shapes count too
//! ([`find_tokens`], [`mask_tokens`]).

mod argv;
pub mod known;
mod names;
mod plausible;
mod prose;
mod shapes;
mod userinfo;
mod values;

pub use argv::{argv_secrets, redact_argv, redact_argv_as, ArgSecret};
pub use known::KnownSecrets;
pub use names::{is_credential_param, might_name_credential, names_credential};
pub use plausible::is_placeholder;
pub use prose::{find, mask, redact, SecretMatch};
pub use userinfo::{mask_url_passwords, url_passwords};
pub use values::{
    find_tokens, looks_like_token, mask_spans, mask_tokens, redacted, secret_spans, TokenMatch,
};

/// Whether masking (of values under names that [`might_name_credential`], and of strings
/// by [`mask_tokens`]) could change anything in this JSON text once it is parsed: a cheap
/// test that lets clean JSON be copied as it came. It may say yes for nothing, never no
/// for something.
pub fn json_might_hold_credential(json: &str) -> bool {
    use std::cell::RefCell;
    use std::sync::LazyLock;
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
        // The lower-cased and the squashed text, reused from line to line.
        static TEXT: RefCell<(Vec<u8>, Vec<u8>)> = const { RefCell::new((Vec::new(), Vec::new())) };
    }
    // An escape makes a parsed string differ from its text, and beyond ASCII a name's
    // squashed form needs Unicode's idea of a letter: only parsing tells.
    if json.contains('\\') || !json.is_ascii() {
        return true;
    }
    // A URL's userinfo password is a credential whatever the key that holds it.
    if json.contains("://") && json.contains('@') {
        return true;
    }
    let (Some(names), Some(tokens)) = (NAMES.as_ref(), TOKENS.as_ref()) else {
        return true;
    };
    // Without escapes every key and string is a run of the text, so a name's squashed,
    // lower-cased form is a run of the text's, and a token's literals are in the text
    // (in any case: its lower-cased literals are in the lower-cased text).
    TEXT.with_borrow_mut(|(lower, squashed)| {
        lower.clear();
        lower.extend(json.bytes().map(|b| b.to_ascii_lowercase()));
        // Block by block, every byte is written and only letters and digits advance: no
        // branch and no bounds check per byte.
        squashed.clear();
        let mut block = [0u8; 64];
        for chunk in lower.chunks(block.len()) {
            let mut kept = 0;
            for &c in chunk {
                block[kept & 63] = c;
                kept += usize::from(ALPHANUMERIC[usize::from(c)]);
            }
            squashed.extend_from_slice(&block[..kept]);
        }
        names.is_match(squashed) || tokens.is_match(lower)
    })
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

    fn is_match(&self, haystack: &[u8]) -> bool {
        match self {
            Literals::Packed(s) => s.find(haystack).is_some(),
            Literals::Automaton(a) => a.is_match(haystack),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::json_might_hold_credential;

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
}
