//! Credentials in free text (tool descriptions, server names, messages): only exact shapes
//! count, and each is masked with its kind.

use super::names::{credential_param_endings, credential_param_pattern};
use super::plausible::{documentation_host, looks_real, url_value_is_real};
use super::shapes::SHAPES;
use crate::lazy_patterns::{Gated, GatedSet};
use std::sync::LazyLock;

/// A credential found in a text, by byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretMatch {
    pub start: usize,
    pub end: usize,
    pub kind: &'static str,
}

/// The exact shapes, with the kind each reports.
static EXACT: LazyLock<(Vec<&'static str>, GatedSet)> = LazyLock::new(|| {
    let (kinds, gated) = SHAPES
        .iter()
        .filter_map(|s| {
            let exact = s.exact?;
            Some((s.kind, Gated::new(exact.to_string(), vec![s.gate.to_vec()])))
        })
        .unzip();
    (kinds, GatedSet::new(gated, false))
});

/// Credentials inside URLs, where only the value (capture group 1) is the secret; gates
/// match in any case.
const URL_KINDS: [&str; 2] = ["url-password", "url-token"];

static URLS: LazyLock<GatedSet> = LazyLock::new(|| {
    let password = Gated::new(
        r"(?i)(?-u:\b)[a-z][a-z0-9+.-]{1,15}://[^\s/:@]+:([^\s/@]{8,})@([^\s/:?#@]*)".into(),
        vec![vec!["://"]],
    );
    let token = Gated::new(
        format!(
            r#"(?i)[?&](?:{})=([^&#\s"'<>]{{8,}})"#,
            credential_param_pattern()
        ),
        vec![credential_param_endings()],
    );
    GatedSet::new(vec![password, token], true)
});

/// Every credential in `text`, in order, overlaps merged into the earliest.
pub fn find(text: &str) -> Vec<SecretMatch> {
    // The shortest credential any pattern matches ("?key=" and 8 characters) is longer.
    if text.len() < 13 {
        return Vec::new();
    }
    let mut found: Vec<SecretMatch> = Vec::new();
    let hay = text.as_bytes();
    // Unicode-mode patterns on valid UTF-8 match whole characters, so every offset below
    // is a character boundary of `text`.
    let piece = |start: usize, end: usize| text.get(start..end).unwrap_or("");
    let (kinds, exact) = &*EXACT;
    for i in exact.candidates(hay) {
        let kind = kinds[i];
        let Some(re) = exact.patterns[i].regex() else {
            continue;
        };
        for m in re.find_iter(hay) {
            if looks_real(kind, piece(m.start(), m.end())) {
                found.push(SecretMatch {
                    start: m.start(),
                    end: m.end(),
                    kind,
                });
            }
        }
    }
    for i in URLS.candidates(hay) {
        let kind = URL_KINDS[i];
        let Some(re) = URLS.patterns[i].regex() else {
            continue;
        };
        for caps in re.captures_iter(hay) {
            let host = caps.get(2).map_or("", |h| piece(h.start(), h.end()));
            if let Some(value) = caps.get(1).filter(|v| {
                url_value_is_real(piece(v.start(), v.end())) && !documentation_host(host)
            }) {
                found.push(SecretMatch {
                    start: value.start(),
                    end: value.end(),
                    kind,
                });
            }
        }
    }
    found.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut merged: Vec<SecretMatch> = Vec::new();
    for s in found {
        match merged.last_mut() {
            Some(last) if s.start < last.end => last.end = last.end.max(s.end),
            _ => merged.push(s),
        }
    }
    merged
}

/// What replaces a credential in any output.
pub fn mask(kind: &str) -> String {
    format!("[REDACTED {kind}]")
}

/// `text` with every credential replaced by its mask.
///
/// Masking one credential can bring another to light (found by the secrets fuzz target: in
/// `http://h://u:p@x…mysql://root:pw@db`, the first match swallows the second, which is
/// whole again once the first is masked), so it masks until nothing more is found, a few
/// passes at most.
pub fn redact(text: &str) -> String {
    let found = find(text);
    if found.is_empty() {
        return text.to_string();
    }
    let mut out = redact_found(text, &found);
    for _ in 0..8 {
        let again = find(&out);
        if again.is_empty() {
            break;
        }
        out = redact_found(&out, &again);
    }
    out
}

fn redact_found(text: &str, found: &[SecretMatch]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for s in found {
        out.push_str(&text[pos..s.start]);
        out.push_str(&mask(s.kind));
        pos = s.end;
    }
    out.push_str(&text[pos..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Test tokens are assembled at run time so no scanner mistakes this file for a leak.
    pub(crate) fn token(prefix: &str, body: &str) -> String {
        format!("{prefix}{body}")
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(EXACT.1.all_compile() && URLS.all_compile());
        assert_eq!(EXACT.1.patterns.len(), 16);
    }

    #[test]
    fn finds_credentials_in_urls_and_masks_only_the_value() {
        let text = "https://deploy:Xq7pL2mZ9vR4@db.acme-corp.io/x and https://api.acme-corp.io/v1?api_key=k8Jd93nQpZ2x&page=2";
        assert_eq!(
            redact(text),
            "https://deploy:[REDACTED url-password]@db.acme-corp.io/x and https://api.acme-corp.io/v1?api_key=[REDACTED url-token]&page=2"
        );
        for benign in [
            "https://user:password@host/",
            "https://user:${DB_PASSWORD}@host/",
            "https://api.example.com/v1?api_key=<your-key>",
            "https://api.example.com/v1?api_key={apiKey}",
            "https://example.com/search?q=abcdefgh12345&page_token=next",
            "https://example.com/?token=12345678",
            "postgresql://postgres:postgres@db.acme-corp.io/app",
            "mysql://admin:admin123@db.acme-corp.io/app",
            "https://deploy:Xq7pL2mZ9vR4@db.example.com/x",
            "redis://default:Xq7pL2mZ9vR4@localhost:6379",
            "https://api.nasa.gov/planetary/apod?api_key=DEMO_KEY",
        ] {
            assert_eq!(find(benign), vec![], "{benign}");
        }
    }

    #[test]
    fn finds_every_provider() {
        let r36 = "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6";
        let cases = [
            (token("ghp_", r36), "github-token"),
            (token("ghs_", r36), "github-token"),
            (
                token(
                    "github_pat_",
                    "11ABCDEFG0aB3dE6gH9jK2_mN5pQ8sT1vW4yZ7bC0eF3hJ6kL9nP2rS5uV8xA1cD4fG7iJ0lM3oR6tU9wQ",
                ),
                "github-token",
            ),
            (
                token("sk-ant-api03-", &"aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6-_".repeat(3)),
                "anthropic-key",
            ),
            (token("sk-proj-", &r36.repeat(2)), "openai-key"),
            (token("sk-", "aB3dE6gH9jK2mN5pQ8sTT3BlbkFJ1vW4yZ7bC0eF3hJ6kL9n"), "openai-key"),
            (token("sk-", "aB3dE6gH9jK2mN5pQ8sTx1vW4yZ7bC0eF3hJ6kL9nP2rS5uV"), "openai-key"),
            (token("AKIA", "Q3EGRT5HNZ7KX2LM"), "aws-access-key"),
            (
                token("https://hooks.slack.com/services/", "T0ABCD1EF/B0GH2IJKL/aB3dE6gH9jK2mN5pQ8sT1vW4"),
                "slack-webhook",
            ),
            (token("xoxb-", "1234567890-1234567890123-aB3dE6gH9jK2mN5pQ8sT1vW4"), "slack-token"),
            (token("AIza", "SyB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3h"), "google-api-key"),
            (token("sk_live_", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ"), "stripe-live-key"),
            (token("glpat-", "aB3dE6gH9jK2mN5pQ8sT"), "gitlab-token"),
            (token("npm_", r36), "npm-token"),
            (token("hf_", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3h"), "huggingface-token"),
            (
                token(
                    "eyJ",
                    "hbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1LTgzZjEiLCJyb2xlIjoiYWRtaW4ifQ.Qm9vbTZrR3pYcFd2N0xtZkp0Y0hVc2FOZQ",
                ),
                "jwt",
            ),
            (
                format!("-----BEGIN OPENSSH {}-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", "PRIVATE KEY"),
                "private-key",
            ),
        ];
        for (secret, kind) in cases {
            let text = format!("see {secret} here");
            let found = find(&text);
            assert_eq!(found.len(), 1, "{kind}: {found:?}");
            assert_eq!(found[0].kind, kind);
            assert_eq!(&text[found[0].start..found[0].end], secret);
            let redacted = redact(&text);
            assert_eq!(redacted, format!("see [REDACTED {kind}] here"));
            // The looser value shapes find everything the exact ones do.
            assert!(!crate::secrets::find_tokens(&text).is_empty(), "{kind}");
        }
    }

    #[test]
    fn ignores_placeholders_and_prose_about_formats() {
        for text in [
            "GitHub tokens start with ghp_ and are 40 characters long.",
            &token("AKIA", "IOSFODNN7EXAMPLE"),
            &token("ghp_", &"x".repeat(36)),
            &token("ghp_", &"X".repeat(36)),
            &token("sk-", "0123456789012345678901234567890123456789abcdefgh"),
            "-----BEGIN PRIVATE KEY----- (paste yours here)",
            "a header only: eyJhbGciOiJIUzI1NiJ9",
            "sk_test_ keys are fine, pk_live_ keys are public",
        ] {
            assert_eq!(find(text), vec![], "{text}");
        }
    }
}
