//! URL and host classification and masking, and the secrets module.

use crate::net::host::{classify, parse_ipv4_loose};
use crate::net::{policy::ConnectPolicy, ParsedUrl};
use crate::scan::urls::{find_urls, mask_all, parse};
use crate::secrets;

/// Invariants: each URL found is a slice of the text at its offset; masking leaves no URL
/// with a password shown and no provider token.
pub fn urls(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for u in find_urls(&text) {
        assert_eq!(
            text.get(u.start..u.start + u.text.len()),
            Some(u.text.as_str()),
            "a URL that is not where it was found"
        );
        assert!(!u.host().is_empty(), "a URL without a host");
        assert_eq!(parse(&u.text).map(|p| p.parsed), Some(u.parsed.clone()));
        let _ = u.parsed.classify();
        let _ = classify(u.host());
        let _ = parse_ipv4_loose(u.host());
    }
    let _ = classify(&text);
    // The policy never resolves names here (no network in a fuzzer); it must not panic.
    let policy = ConnectPolicy {
        allow_unsafe: false,
        resolve_names: false,
        hint: "hint",
    };
    let _ = policy.refusal(&text, true);
    let _ = ParsedUrl::http(&text);
    let masked = mask_all(&text);
    for u in find_urls(&masked) {
        if let Some(password) = u.parsed.password() {
            assert!(
                password == "[REDACTED]",
                "a password survives masking: {masked:?}"
            );
        }
    }
    assert_no_tokens("mask_all", &masked);
}

/// Invariants: nothing `find` detects survives `redact`, nothing `find_tokens` detects
/// survives `mask_tokens` or `redact_argv`, NUL bytes and all.
pub fn secrets(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let found = secrets::find(&text);
    for m in &found {
        assert!(
            m.start < m.end && m.end <= text.len(),
            "a match outside the text"
        );
        assert!(text.is_char_boundary(m.start) && text.is_char_boundary(m.end));
    }
    let redacted = secrets::redact(&text);
    let left = secrets::find(&redacted);
    assert!(
        left.is_empty(),
        "redact leaves {:?} in {redacted:?}",
        left.iter()
            .map(|m| &redacted[m.start..m.end])
            .collect::<Vec<_>>()
    );
    for t in secrets::find_tokens(&text) {
        assert!(
            t.start < t.end && t.end <= text.len(),
            "a token outside the text"
        );
        assert!(
            !t.evidence.contains(&text[t.start..t.end]),
            "evidence shows the token"
        );
    }
    assert_no_tokens("mask_tokens", &secrets::mask_tokens(&text));
    let argv: Vec<String> = text.split(['\n', ' ']).map(str::to_string).collect();
    for arg in secrets::redact_argv(&argv) {
        assert_no_tokens("redact_argv", &arg);
    }
}

fn assert_no_tokens(what: &str, masked: &str) {
    let left = secrets::find_tokens(masked);
    assert!(
        left.is_empty(),
        "{what} leaves {:?} in {masked:?}",
        left.iter()
            .map(|t| &masked[t.start..t.end])
            .collect::<Vec<_>>()
    );
}
