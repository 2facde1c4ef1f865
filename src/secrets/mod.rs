//! Credentials: the one table of provider token shapes and the one test of credential
//! names, used by every engine that finds a secret and every output that hides one.
//!
//! Two strictnesses, because the inputs differ. In free text (advertised descriptions,
//! server names) only a credential's exact documented shape counts, so prose about a
//! format is not a leak ([`find`], [`redact`]). In a value (a config entry, an argument,
//! a log field) the whole value may be the token, so looser shapes count too
//! ([`find_tokens`], [`mask_tokens`]).

mod argv;
mod names;
mod plausible;
mod prose;
mod shapes;
mod userinfo;
mod values;

pub use argv::{argv_secrets, redact_argv, redact_argv_as, ArgSecret};
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
    use aho_corasick::{AhoCorasick, AhoCorasickKind};
    use std::sync::LazyLock;
    static NAMES: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
        AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .build(names::STEMS.iter().chain(names::WORDS).chain(&["key"]))
            .ok()
    });
    static TOKENS: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
        let literals = shapes::SHAPES
            .iter()
            .flat_map(|s| s.gate.iter().chain(s.prefixes));
        AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .ascii_case_insensitive(true)
            .build(literals)
            .ok()
    });
    // An escape makes a parsed string differ from its text, and beyond ASCII a name's
    // squashed form needs Unicode's idea of a letter: only parsing tells.
    if json.contains('\\') || !json.is_ascii() {
        return true;
    }
    // A URL's userinfo password is a credential whatever the key that holds it.
    if json.contains("://") && json.contains('@') {
        return true;
    }
    // Without escapes every key and string is a run of the text, so a name's squashed,
    // lower-cased form is a run of the text's, and a token's literals are in the text.
    let squashed: Vec<u8> = json
        .bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(|b| b.to_ascii_lowercase())
        .collect();
    let (Some(names), Some(tokens)) = (NAMES.as_ref(), TOKENS.as_ref()) else {
        return true;
    };
    names.is_match(&squashed) || tokens.is_match(json)
}
