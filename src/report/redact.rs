//! Keeps secrets out of reports: argv values that look like credentials are masked.

const MASK: &str = "[REDACTED]";

/// Words that mark an option or variable as holding a credential.
const SECRET_WORDS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "apikey",
    "api-key",
    "api_key",
    "auth",
    "credential",
    "private-key",
    "private_key",
    "access-key",
    "access_key",
    "cookie",
    "session",
];

/// Prefixes of well-known provider tokens.
const TOKEN_PREFIXES: &[&str] = &[
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "sk-",
    "xoxb-",
    "xoxp-",
    "AKIA",
    "glpat-",
    "npm_",
    "hf_",
    "AIza",
    "sk_live_",
    "rk_live_",
    "eyJ",
];

/// Whether a key or option name suggests it holds a credential.
pub fn names_secret(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_WORDS.iter().any(|w| lower.contains(w))
}

/// Whether JSON text could hold anything `names_secret` or `mask_tokens` would act on once
/// parsed: a cheap test that may say yes for nothing, never no for something.
pub fn may_hold_secret(json_text: &str) -> bool {
    static WORDS: std::sync::OnceLock<Option<aho_corasick::AhoCorasick>> =
        std::sync::OnceLock::new();
    // An escape can spell any word; only parsing tells.
    if json_text.contains("\\u") {
        return true;
    }
    let words = WORDS.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(SECRET_WORDS.iter().chain(TOKEN_PREFIXES))
            .ok()
    });
    words.as_ref().is_none_or(|w| w.is_match(json_text))
}

fn looks_like_token(value: &str) -> bool {
    value.len() >= 16 && TOKEN_PREFIXES.iter().any(|p| value.starts_with(p))
}

/// Replaces provider tokens inside free text; `None` when there is none.
pub fn mask_tokens(text: &str) -> Option<String> {
    let is_token_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if !text
        .split(|c: char| !is_token_char(c))
        .any(looks_like_token)
    {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once('\0')) {
        if is_token_char(c) {
            word.push(c);
            continue;
        }
        if looks_like_token(&word) {
            out.push_str(MASK);
        } else {
            out.push_str(&word);
        }
        word.clear();
        if c != '\0' {
            out.push(c);
        }
    }
    Some(out)
}

/// Masks `--token X`, `--token=X`, `API_KEY=X` and bare provider tokens.
pub fn redact_argv(argv: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(argv.len());
    let mut mask_next = false;
    for arg in argv {
        if mask_next {
            out.push(MASK.to_string());
            mask_next = false;
            continue;
        }
        if let Some((name, value)) = arg.split_once('=') {
            if names_secret(name) || looks_like_token(value) {
                out.push(format!("{name}={MASK}"));
                continue;
            }
        } else if arg.starts_with('-') && names_secret(arg) {
            mask_next = true;
        } else if looks_like_token(arg) {
            out.push(MASK.to_string());
            continue;
        }
        out.push(arg.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn masks_credentials_in_every_form() {
        assert_eq!(
            redact_argv(&argv(&[
                "node",
                "server.js",
                "--api-key",
                "abc",
                "--token=xyz",
                "GITHUB_TOKEN=ghp_0123456789abcdefghij",
                "ghp_0123456789abcdefghij",
                "--port",
                "8080",
            ])),
            argv(&[
                "node",
                "server.js",
                "--api-key",
                MASK,
                "--token=[REDACTED]",
                "GITHUB_TOKEN=[REDACTED]",
                MASK,
                "--port",
                "8080",
            ])
        );
    }
}
