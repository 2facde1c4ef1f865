//! Recognising credentials in config values, and keeping them out of every output.

use regex::Regex;
use std::sync::OnceLock;

/// A provider token pattern.
struct Provider {
    name: &'static str,
    pattern: &'static str,
}

const PROVIDERS: &[Provider] = &[
    Provider {
        name: "GitHub fine-grained token",
        pattern: r"\bgithub_pat_[A-Za-z0-9_]{50,255}",
    },
    Provider {
        name: "GitHub token",
        pattern: r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b",
    },
    Provider {
        name: "Anthropic API key",
        pattern: r"\bsk-ant-[a-z]{3,6}\d{2}-[A-Za-z0-9_\-]{40,}",
    },
    Provider {
        name: "OpenAI API key",
        pattern: r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{16,}T3BlbkFJ[A-Za-z0-9_\-]{16,}",
    },
    Provider {
        name: "OpenAI API key",
        pattern: r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}",
    },
    Provider {
        name: "OpenAI API key",
        pattern: r"\bsk-[A-Za-z0-9]{48}\b",
    },
    Provider {
        name: "AWS access key ID",
        pattern: r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
    },
    Provider {
        name: "Slack token",
        pattern: r"\bxox[abposre]-[A-Za-z0-9\-]{10,}",
    },
    Provider {
        name: "Slack app token",
        pattern: r"\bxapp-\d-[A-Za-z0-9\-]{10,}",
    },
    Provider {
        name: "Slack webhook",
        pattern: r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_\-]{20,}",
    },
    Provider {
        name: "Google API key",
        pattern: r"\bAIza[0-9A-Za-z_\-]{35}",
    },
    Provider {
        name: "Stripe live key",
        pattern: r"\b(?:sk|rk)_live_[0-9A-Za-z]{20,}",
    },
    Provider {
        name: "GitLab token",
        pattern: r"\bgl(?:pat|dt|rt|ptt|cbt|ft|soat|oas)-[0-9A-Za-z_\-]{20,}",
    },
    Provider {
        name: "npm token",
        pattern: r"\bnpm_[A-Za-z0-9]{36}\b",
    },
    Provider {
        name: "Hugging Face token",
        pattern: r"\b(?:hf_|api_org_)[A-Za-z0-9]{30,}\b",
    },
    Provider {
        name: "JSON Web Token",
        pattern: r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{16,}",
    },
    Provider {
        name: "private key",
        pattern: r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
    },
];

fn compiled() -> &'static [(&'static str, Regex)] {
    static SET: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    SET.get_or_init(|| {
        PROVIDERS
            .iter()
            .filter_map(|p| Regex::new(p.pattern).ok().map(|r| (p.name, r)))
            .collect()
    })
}

/// A provider token found in a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenMatch {
    pub provider: &'static str,
    pub start: usize,
    pub end: usize,
    /// Redacted evidence: provider, first four characters and length only.
    pub evidence: String,
}

/// Every provider token in a value, placeholders excepted, without overlaps.
pub fn find_tokens(value: &str) -> Vec<TokenMatch> {
    let mut found: Vec<TokenMatch> = Vec::new();
    for (provider, re) in compiled() {
        for m in re.find_iter(value) {
            if found.iter().any(|f| m.start() < f.end && f.start < m.end()) {
                continue;
            }
            let token = m.as_str();
            if is_placeholder(token) || (*provider == "JSON Web Token" && !jwt_header_ok(token)) {
                continue;
            }
            found.push(TokenMatch {
                provider,
                start: m.start(),
                end: m.end(),
                evidence: redacted(provider, token),
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

/// Placeholders people leave in example configs.
pub fn is_placeholder(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "xxxx",
        "your",
        "example",
        "placeholder",
        "redacted",
        "changeme",
        "dummy",
        "<",
        ">",
        "***",
        "...",
        "replace",
        "insert",
    ];
    if WORDS.iter().any(|w| lower.contains(w)) {
        return true;
    }
    let body = token.rsplit(['_', '-']).next().unwrap_or(token);
    let mut distinct: Vec<char> = body.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    body.len() >= 8 && distinct.len() < 8
}

/// A JWT's first segment decodes to a JSON object naming its algorithm.
fn jwt_header_ok(token: &str) -> bool {
    let Some(head) = token.split('.').next() else {
        return false;
    };
    base64url_decode(head)
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .is_some_and(|v| v.get("alg").is_some() || v.get("typ").is_some())
}

fn base64url_decode(s: &str) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            b'=' => break,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
        }
    }
    Some(out)
}

fn reference_re() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"\$\{[^}]{1,200}\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%|\{\{[^}]{1,200}\}\}").ok()
    })
    .as_ref()
}

/// A value that is only a reference to the environment or a prompted input:
/// `${X}`, `$X`, `%X%`, `${env:X}`, `${input:x}`.
pub fn is_reference(value: &str) -> bool {
    let v = value.trim();
    reference_re()
        .and_then(|re| re.find(v))
        .is_some_and(|m| m.start() == 0 && m.end() == v.len())
}

/// The value with every reference removed (what is left is literal).
pub fn without_references(value: &str) -> String {
    match reference_re() {
        Some(re) => re.replace_all(value, "").into_owned(),
        None => value.to_string(),
    }
}

/// `${X}` or `%X%` inside a longer value (a bare `$x` inside a literal is just a character).
pub fn has_embedded_reference(value: &str) -> bool {
    let braces = value.find("${").is_some_and(|i| value[i..].contains('}'));
    let percent = Regex::new(r"%[A-Za-z_][A-Za-z0-9_]*%").is_ok_and(|re| re.is_match(value));
    braces || percent
}

/// Shannon entropy in bits per character.
pub fn entropy(s: &str) -> f64 {
    let chars: Vec<char> = s.chars().collect();
    if chars.is_empty() {
        return 0.0;
    }
    let mut counts = std::collections::HashMap::new();
    for c in &chars {
        *counts.entry(*c).or_insert(0usize) += 1;
    }
    let n = chars.len() as f64;
    counts
        .values()
        .map(|&k| {
            let p = k as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// Splits a key into lowercase words: `OPENAI_API_KEY`, `apiKey`, `x-api-key`.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A key that names a credential (`GITHUB_TOKEN`, `apiKey`, `Authorization`), and not a
/// setting about one (`TOKEN_FILE`, `AUTH_URL`, `SECRET_NAME`).
pub fn names_credential(name: &str) -> bool {
    const CREDENTIAL: &[&str] = &[
        "token",
        "tokens",
        "secret",
        "secrets",
        "password",
        "passwd",
        "pwd",
        "pass",
        "passphrase",
        "apikey",
        "auth",
        "authorization",
        "credential",
        "credentials",
        "cookie",
        "bearer",
        "jwt",
        "privatekey",
        "accesskey",
        "secretkey",
        "pat",
        "session",
    ];
    const ABOUT: &[&str] = &[
        "file",
        "path",
        "dir",
        "url",
        "uri",
        "endpoint",
        "host",
        "port",
        "name",
        "type",
        "mode",
        "method",
        "header",
        "expiry",
        "expires",
        "ttl",
        "length",
        "scheme",
        "provider",
        "enabled",
        "required",
        "env",
        "id",
        "user",
        "username",
        "public",
        "pub",
        "sort",
        "partition",
        "primary",
        "foreign",
        "hash",
        "size",
        "alias",
        "ref",
        "format",
        "location",
        "store",
    ];
    let w = words(name);
    if w.iter().any(|x| ABOUT.contains(&x.as_str())) {
        return false;
    }
    w.iter().any(|x| CREDENTIAL.contains(&x.as_str()))
        || (w.iter().any(|x| x == "key") && w.len() >= 2)
        || w == ["key"]
}

/// Prefixes of keys that are meant to be public or are for test mode only.
const NOT_SECRET_PREFIXES: &[&str] = &["pk_live_", "pk_test_", "sk_test_", "rk_test_"];

/// A literal that looks random enough to be a real credential.
pub fn is_high_entropy_literal(value: &str) -> bool {
    let v = value.trim();
    let v = ["Bearer ", "bearer ", "Basic ", "basic ", "token ", "Token "]
        .iter()
        .find_map(|p| v.strip_prefix(p))
        .unwrap_or(v)
        .trim();
    if is_reference(v) || has_embedded_reference(v) {
        return false;
    }
    if v.len() < 16 || v.len() > 1024 || v.chars().any(char::is_whitespace) {
        return false;
    }
    if v.contains("://") || v.starts_with(['/', '.', '~']) || v.contains('\\') {
        return false;
    }
    if NOT_SECRET_PREFIXES.iter().any(|p| v.starts_with(p)) || is_placeholder(v) {
        return false;
    }
    let classes = [
        v.chars().any(|c| c.is_ascii_lowercase()),
        v.chars().any(|c| c.is_ascii_uppercase()),
        v.chars().any(|c| c.is_ascii_digit()),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    let is_hex = v.chars().all(|c| c.is_ascii_hexdigit());
    classes >= 2 && (entropy(v) >= 3.5 || (is_hex && v.len() >= 32 && entropy(v) >= 3.0))
}

/// Arguments as they may be shown: provider tokens and URL credentials masked, and the value
/// of every credential-named option or assignment (`--key X`, `--token=X`, `API_KEY=X`);
/// references (`${X}`) stay, since they are not secrets.
pub fn mask_args(args: &[String]) -> Vec<String> {
    let mut out: Vec<String> = args
        .iter()
        .map(|a| crate::scan::urls::mask_all(a))
        .collect();
    let mut i = 0;
    while i < out.len() {
        let arg = out[i].clone();
        if let Some((name, value)) = arg.split_once('=') {
            if names_credential(name) && !value.is_empty() && !is_reference(value) {
                out[i] = format!("{name}=[REDACTED]");
            }
        } else if arg.starts_with('-') && names_credential(&arg) {
            if let Some(next) = out.get_mut(i + 1) {
                if !next.starts_with('-') && !is_reference(next) {
                    *next = "[REDACTED]".into();
                    i += 1;
                }
            }
        }
        i += 1;
    }
    out
}

/// Masks every provider token in free text.
pub fn mask_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for t in find_tokens(text) {
        out.push_str(&text[last..t.start]);
        out.push_str("[REDACTED]");
        last = t.end;
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_tokens_are_found_and_redacted() {
        let t = find_tokens("--token=ghp_Zx8Qm2Lr5Tn7Vb3Kc9Wd1Hy4Jf6Gs0Pa2Xe7");
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].provider, "GitHub token");
        assert_eq!(t[0].evidence, "GitHub token ghp_… (40 characters)");
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
    fn references_are_not_literals() {
        for r in [
            "${GITHUB_TOKEN}",
            "$TOKEN",
            "%API_KEY%",
            "${env:X}",
            "${input:pat}",
        ] {
            assert!(is_reference(r), "{r}");
            assert!(!is_high_entropy_literal(r), "{r}");
        }
        assert!(!is_reference("abc${X}"));
    }

    #[test]
    fn credential_names() {
        for n in [
            "GITHUB_TOKEN",
            "apiKey",
            "x-api-key",
            "Authorization",
            "DB_PASSWORD",
            "OPENAI_API_KEY",
            "client_secret",
        ] {
            assert!(names_credential(n), "{n}");
        }
        for n in [
            "TOKEN_FILE",
            "AUTH_URL",
            "SECRET_NAME",
            "KEYBOARD",
            "MONKEY",
            "PATH",
            "AUTHOR",
        ] {
            assert!(!names_credential(n), "{n}");
        }
    }

    #[test]
    fn entropy_separates_random_from_words() {
        assert!(is_high_entropy_literal("q8Zr2LmX9vT4nB7kW1sD5fG3"));
        assert!(!is_high_entropy_literal("production-server-name"));
        assert!(!is_high_entropy_literal("sk_test_4eC39HqLyjWDarjtT1zdp7dc"));
    }

    #[test]
    fn argument_values_of_credential_options_are_masked() {
        let args: Vec<String> = [
            "--key",
            "q8Zr2LmX9vT4nB7kW1sD5fG3",
            "--secret=abc",
            "--token",
            "${T}",
            "--port",
            "80",
            "API_KEY=xyz",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            mask_args(&args),
            [
                "--key",
                "[REDACTED]",
                "--secret=[REDACTED]",
                "--token",
                "${T}",
                "--port",
                "80",
                "API_KEY=[REDACTED]"
            ]
        );
    }

    #[test]
    fn masking_leaves_the_rest() {
        assert_eq!(
            mask_tokens("a npm_Zx8Qm2Lr5Tn7Vb3Kc9Wd1Hy4Jf6Gs0Pa2Xe7 b"),
            "a [REDACTED] b"
        );
    }
}
