//! Credentials in values (config entries, arguments, log fields), where a whole value may
//! be the token: the looser shapes count too, and masks do not name the kind.

use super::plausible::{is_placeholder, jwt_header_ok};
use super::shapes::{Shape, SHAPES};
use crate::lazy_patterns::{Gated, GatedSet};
use std::ops::Range;
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

/// Free text with every provider token masked: each found by [`find_tokens`], each
/// word that [`looks_like_token`], and every URL's userinfo password.
pub fn mask_tokens(text: &str) -> String {
    mask_spans(text, &secret_spans(text), MASK)
}

/// Where [`mask_tokens`] masks: sorted byte ranges that do not overlap.
pub fn secret_spans(text: &str) -> Vec<Range<usize>> {
    let mut spans: Vec<Range<usize>> = find_tokens(text).iter().map(|t| t.start..t.end).collect();
    spans.extend(token_word_spans(text));
    spans.extend(super::userinfo::url_passwords(text));
    spans.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for r in spans {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

/// `text` with each of `spans` (sorted, not overlapping) replaced by `mask`.
pub fn mask_spans(text: &str, spans: &[Range<usize>], mask: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for r in spans {
        out.push_str(&text[last..r.start]);
        out.push_str(mask);
        last = r.end;
    }
    out.push_str(&text[last..]);
    out
}

/// Words that [`looks_like_token`]. Every other character separates words, NUL included:
/// a token split by one is two words, and masking never joins what was around it.
fn token_word_spans(text: &str) -> Vec<Range<usize>> {
    let is_token_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (is_token_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if looks_like_token(&text[s..i]) {
                    spans.push(s..i);
                }
                start = None;
            }
            _ => {}
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_between_two_halves_is_kept_so_they_are_never_rejoined() {
        // Another word looks like a token, so the text is rewritten word by word.
        let text = "node s.js --k ghp_u8jEQ7sinUFIabcdefgh AKIABBR4QM\0W2WXFOGO4M";
        let masked = mask_tokens(text);
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
