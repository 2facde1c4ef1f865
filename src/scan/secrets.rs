//! Config values that are credentials without a provider's shape: literals random enough
//! to be secrets, references to the environment, and arguments masked for display.
//! Provider tokens and credential names come from [`crate::secrets`].

use crate::secrets::{is_placeholder, names_credential};
use regex::Regex;
use std::sync::OnceLock;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
