//! Credentials in values (config entries, arguments, log fields), where a whole value may
//! be the token: the looser shapes count too, and masks do not name the kind.

use super::plausible::{is_placeholder, jwt_header_ok};
use super::shapes::{Shape, SHAPES};
use crate::gate::{Gated, GatedSet};
use std::sync::LazyLock;

const MASK: &str = "[REDACTED]";

static LOOSE: LazyLock<GatedSet> = LazyLock::new(|| {
    let gated = SHAPES
        .iter()
        .map(|s| {
            let source = s.loose.or(s.exact).unwrap_or_default();
            Gated::new(source.to_string(), vec![s.gate.to_vec()])
        })
        .collect();
    GatedSet::new(gated, false)
});

/// Each shape's exact pattern, anchored: whether a found token has the documented shape.
static VERIFIED: LazyLock<Vec<Option<regex::Regex>>> = LazyLock::new(|| {
    SHAPES
        .iter()
        .map(|s| {
            s.exact
                .and_then(|e| regex::Regex::new(&format!("^(?:{e})$")).ok())
        })
        .collect()
});

/// A provider token found in a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenMatch {
    pub provider: &'static str,
    pub start: usize,
    pub end: usize,
    /// The token has its provider's exact documented shape (prefix, length, alphabet), not
    /// only the looser one: it is almost certainly a live credential.
    pub verified: bool,
    /// Redacted evidence: provider, first four characters and length only.
    pub evidence: String,
}

/// Every provider token in a value, placeholders excepted, without overlaps: where two
/// overlap, the earlier shape in the table wins.
pub fn find_tokens(value: &str) -> Vec<TokenMatch> {
    let mut found: Vec<TokenMatch> = Vec::new();
    let hay = value.as_bytes();
    for i in LOOSE.candidates(hay) {
        let Shape { name, kind, .. } = SHAPES[i];
        let Some(re) = LOOSE.patterns[i].regex() else {
            continue;
        };
        for m in re.find_iter(hay) {
            if found.iter().any(|f| m.start() < f.end && f.start < m.end()) {
                continue;
            }
            // Unicode-mode patterns on valid UTF-8 match whole characters.
            let token = value.get(m.start()..m.end()).unwrap_or_default();
            if is_placeholder(token) || (kind == "jwt" && !jwt_header_ok(token)) {
                continue;
            }
            // Rows of one kind overlap (OpenAI has three): any of their exact shapes counts.
            let verified = SHAPES
                .iter()
                .zip(VERIFIED.iter())
                .any(|(s, re)| s.kind == kind && re.as_ref().is_some_and(|re| re.is_match(token)));
            found.push(TokenMatch {
                provider: name,
                start: m.start(),
                end: m.end(),
                verified,
                evidence: redacted(name, token),
            });
        }
    }
    found.sort_by_key(|f| f.start);
    found
}

/// `GitHub token ghp_… (40 characters)`: never more than the first four characters.
pub fn redacted(provider: &str, token: &str) -> String {
    let head: String = token.chars().take(4).collect();
    format!("{provider} {head}… ({} characters)", token.chars().count())
}

/// A long word that starts like a provider token (`ghp_…`, `sk-…`, `eyJ…`), whether or not
/// it has the full shape: in arguments and logs, masking a look-alike costs nothing.
pub fn looks_like_token(word: &str) -> bool {
    word.len() >= 16
        && SHAPES
            .iter()
            .flat_map(|s| s.prefixes)
            .any(|p| word.starts_with(p))
}

/// Free text with every provider token masked: each found by [`find_tokens`], and each
/// word that [`looks_like_token`].
pub fn mask_tokens(text: &str) -> String {
    let mut masked = String::with_capacity(text.len());
    let mut last = 0;
    for t in find_tokens(text) {
        masked.push_str(&text[last..t.start]);
        masked.push_str(MASK);
        last = t.end;
    }
    masked.push_str(&text[last..]);
    mask_token_words(&masked)
}

fn mask_token_words(text: &str) -> String {
    let is_token_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if !text
        .split(|c: char| !is_token_char(c))
        .any(looks_like_token)
    {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if looks_like_token(word) {
            out.push_str(MASK);
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if is_token_char(c) {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            // Every other character is kept as it came, NUL included: dropping one would
            // join the words around it, and could rebuild a token that was split to hide.
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_between_two_halves_is_kept_so_they_are_never_rejoined() {
        // Another word looks like a token, so the text is rewritten word by word.
        let text = "node s.js --k ghp_u8jEQ7sinUFIabcdefgh AKIABBR4QM\0W2WXFOGO4M";
        let masked = mask_token_words(text);
        assert!(!masked.contains("AKIABBR4QMW2WXFOGO4M"), "{masked:?}");
        assert!(masked.ends_with("AKIABBR4QM\0W2WXFOGO4M"), "{masked:?}");
        assert_eq!(masked.matches('\0').count(), 1);
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(LOOSE.all_compile());
        assert_eq!(LOOSE.patterns.len(), SHAPES.len());
    }

    #[test]
    fn provider_tokens_are_found_and_redacted() {
        let t = find_tokens("--token=ghp_Zx8Qm2Lr5Tn7Vb3Kc9Wd1Hy4Jf6Gs0Pa2Xe7");
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].provider, "GitHub token");
        assert_eq!(t[0].evidence, "GitHub token ghp_… (40 characters)");
        assert!(t[0].verified);
        // Longer than GitHub's documented 36 characters: a token by the looser shape only.
        assert!(!find_tokens("ghp_Zx8Qm2Lr5Tn7Vb3Kc9Wd1Hy4Jf6Gs0Pa2Xe7Qm2")[0].verified);
        assert!(find_tokens("ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx").is_empty());
        assert!(find_tokens("AKIAIOSFODNN7EXAMPLE").is_empty());
        assert_eq!(
            find_tokens("AKIAZ3MQ7RT2VX5LP4WN")[0].provider,
            "AWS access key ID"
        );
        assert!(find_tokens("-----BEGIN PUBLIC KEY-----").is_empty());
        assert_eq!(
            find_tokens("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl")[0].provider,
            "private key"
        );
    }

    #[test]
    fn masking_leaves_the_rest() {
        assert_eq!(
            mask_tokens("a npm_Zx8Qm2Lr5Tn7Vb3Kc9Wd1Hy4Jf6Gs0Pa2Xe7 b"),
            "a [REDACTED] b"
        );
        // A word that only starts like a token is masked too, a short one is not.
        assert_eq!(
            mask_tokens("use ghp_0123456789abcdefghij, not sk-short"),
            "use [REDACTED], not sk-short"
        );
        // A token with separators inside is masked whole.
        assert_eq!(
            mask_tokens("hook https://hooks.slack.com/services/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 now"),
            "hook [REDACTED] now"
        );
    }
}
