//! Provider credential patterns: found in advertised text, and redacted from every output.

use super::gate::{Gated, GatedSet};
use std::sync::LazyLock;

/// A credential found in a text, by byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretMatch {
    pub start: usize,
    pub end: usize,
    pub kind: &'static str,
}

/// `(kind, pattern, gate)`: the gate lists literals a match must contain, so a pattern is
/// built and run only for texts that hold one (see `surface::gate`). Bodies are exact
/// lengths where the provider documents them, so prose that merely names a prefix (`ghp_…`)
/// never matches. Word boundaries are ASCII (`(?-u:\b)`) and long bodies unbounded
/// (`{n,}`): both keep the automata small.
const PATTERNS: &[(&str, &str, &[&str])] = &[
    (
        "github-token",
        r"(?-u:\b)(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}(?-u:\b)",
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
    ),
    (
        "github-token",
        r"(?-u:\b)github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}(?-u:\b)",
        &["github_pat_"],
    ),
    (
        "anthropic-key",
        r"(?-u:\b)sk-ant-[a-z]{3,10}\d{2}-[A-Za-z0-9_-]{80,}",
        &["sk-ant-"],
    ),
    (
        "openai-key",
        r"(?-u:\b)sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}",
        &["sk-proj-", "sk-svcacct-", "sk-admin-"],
    ),
    (
        "openai-key",
        r"(?-u:\b)sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}(?-u:\b)",
        &["T3BlbkFJ"],
    ),
    (
        "openai-key",
        r"(?-u:\b)sk-[A-Za-z0-9]{48}(?-u:\b)",
        &["sk-"],
    ),
    (
        "aws-access-key",
        r"(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?-u:\b)",
        &["AKIA", "ASIA", "ABIA", "ACCA"],
    ),
    (
        "slack-token",
        r"(?-u:\b)xox[abposr]-(?:\d+-)+[A-Za-z0-9]{20,40}(?-u:\b)",
        &["xox"],
    ),
    (
        "slack-webhook",
        r"https://hooks\.slack\.com/services/T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/[A-Za-z0-9]{24}",
        &["hooks.slack.com"],
    ),
    (
        "google-api-key",
        r"(?-u:\b)AIza[0-9A-Za-z_-]{35}(?:(?-u:\b)|$)",
        &["AIza"],
    ),
    (
        "stripe-live-key",
        r"(?-u:\b)(?:sk|rk)_live_[0-9A-Za-z]{24,}(?-u:\b)",
        &["sk_live_", "rk_live_"],
    ),
    (
        "gitlab-token",
        r"(?-u:\b)glpat-[0-9A-Za-z_-]{20,}",
        &["glpat-"],
    ),
    (
        "npm-token",
        r"(?-u:\b)npm_[A-Za-z0-9]{36}(?-u:\b)",
        &["npm_"],
    ),
    (
        "huggingface-token",
        r"(?-u:\b)hf_[A-Za-z0-9]{34}(?-u:\b)",
        &["hf_"],
    ),
    (
        "jwt",
        r"(?-u:\b)eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,}",
        &["eyJ"],
    ),
    (
        "private-key",
        r"-----BEGIN[A-Z ]{0,20} PRIVATE KEY(?: BLOCK)?-----(?:\s|\\n)*(?:[A-Za-z0-9-]+: [^\n]*(?:\s|\\n)*)*[A-Za-z0-9+/=]{40,}",
        &["PRIVATE KEY"],
    ),
];

/// Credentials inside URLs, where only the value (capture group 1) is the secret; gates
/// match in any case.
const URL_PATTERNS: &[(&str, &str, &[&str])] = &[
    (
        "url-password",
        r"(?i)(?-u:\b)[a-z][a-z0-9+.-]{1,15}://[^\s/:@]+:([^\s/@]{8,})@([^\s/:?#@]*)",
        &["://"],
    ),
    (
        "url-token",
        r#"(?i)[?&](?:access_token|token|api_key|apikey|api-key|secret|client_secret|password|passwd|pwd|auth_token|private_token|sig|signature|x-amz-signature|x-goog-signature)=([^&#\s"'<>]{8,})"#,
        &[
            "token=",
            "key=",
            "secret=",
            "password=",
            "passwd=",
            "pwd=",
            "sig=",
            "signature=",
        ],
    ),
];

fn gated(patterns: &[(&str, &str, &'static [&'static str])], case_insensitive: bool) -> GatedSet {
    let gated = patterns
        .iter()
        .map(|(_, p, gate)| Gated::new(p.to_string(), vec![gate.to_vec()]))
        .collect();
    GatedSet::new(gated, case_insensitive)
}

static PROVIDERS: LazyLock<GatedSet> = LazyLock::new(|| gated(PATTERNS, false));
static URLS: LazyLock<GatedSet> = LazyLock::new(|| gated(URL_PATTERNS, true));

/// Every credential in `text`, in order, overlaps merged into the earliest.
pub fn find(text: &str) -> Vec<SecretMatch> {
    // The shortest credential any pattern matches ("?token=" and 8 characters) is longer.
    if text.len() < 15 {
        return Vec::new();
    }
    let mut found: Vec<SecretMatch> = Vec::new();
    let hay = text.as_bytes();
    // Unicode-mode patterns on valid UTF-8 match whole characters, so every offset below
    // is a character boundary of `text`.
    let piece = |start: usize, end: usize| text.get(start..end).unwrap_or("");
    for i in PROVIDERS.candidates(hay) {
        let (kind, ..) = PATTERNS[i];
        let Some(re) = PROVIDERS.patterns[i].regex() else {
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
        let (kind, ..) = URL_PATTERNS[i];
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
pub fn redact(text: &str) -> String {
    let found = find(text);
    if found.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for s in &found {
        out.push_str(&text[pos..s.start]);
        out.push_str(&mask(s.kind));
        pos = s.end;
    }
    out.push_str(&text[pos..]);
    out
}

/// Rejects documentation placeholders: `AKIA…EXAMPLE`, `ghp_xxxx…`, `sk-0123456789…`.
/// Real tokens are random: many distinct characters and no long ascending runs.
fn looks_real(kind: &str, token: &str) -> bool {
    if kind == "private-key" {
        return true;
    }
    let upper = token.to_ascii_uppercase();
    if [
        "EXAMPLE",
        "XXXXXX",
        "YOUR",
        "REPLACE",
        "PLACEHOLDER",
        "DUMMY",
        "REDACTED",
    ]
    .iter()
    .any(|w| upper.contains(w))
    {
        return false;
    }
    let last = token.rsplit(['_', '-']).next().unwrap_or(token);
    let body = if last.len() >= 16 { last } else { token };
    let mut distinct: Vec<char> = body.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.len() >= 10 && longest_ascending_run(body) < 8
}

/// A password or token in a URL that looks generated, not a placeholder or a sample
/// (`${TOKEN}`, `<password>`, `xxxxxxxx`, `postgres`, `admin123`).
fn url_value_is_real(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    if value.contains(['$', '{', '<', '*']) || lower.contains("%7b") || lower.contains("%24") {
        return false;
    }
    if [
        "password",
        "passwd",
        "secret",
        "token",
        "example",
        "xxxx",
        "your",
        "changeme",
        "redacted",
        "placeholder",
        "...",
    ]
    .iter()
    .any(|w| lower.contains(w))
    {
        return false;
    }
    let classes = [
        value.chars().any(|c| c.is_ascii_lowercase()),
        value.chars().any(|c| c.is_ascii_uppercase()),
        value.chars().any(|c| c.is_ascii_digit()),
        value.chars().any(|c| !c.is_ascii_alphanumeric()),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    let mut distinct: Vec<char> = value.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    let strong = (value.len() >= 12 && classes >= 2) || classes >= 3;
    strong && distinct.len() >= 6 && longest_ascending_run(value) < 6
}

/// Hosts of documentation samples, where a `user:pass@` is an example, not a leak.
fn documentation_host(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    matches!(
        host.as_str(),
        "localhost" | "127.0.0.1" | "host" | "hostname" | "server" | "db" | "database"
    ) || host.ends_with(".example")
        || ["example.com", "example.org", "example.net"]
            .iter()
            .any(|d| host == *d || host.ends_with(&format!(".{d}")))
        || host.ends_with(".local")
        || host.starts_with("your")
}

/// The longest run of characters that each follow the previous by one (`0123`, `abcd`).
fn longest_ascending_run(s: &str) -> usize {
    let (mut best, mut run, mut prev) = (0, 0, None::<u32>);
    for c in s.chars().map(u32::from) {
        run = if prev.is_some_and(|p| p + 1 == c) {
            run + 1
        } else {
            1
        };
        best = best.max(run);
        prev = Some(c);
    }
    best
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
        assert!(PROVIDERS.all_compile() && URLS.all_compile());
        assert_eq!(PROVIDERS.patterns.len(), 16);
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
