//! Whether a name (an env variable, a config or JSON key, an option, a URL query
//! parameter) says that its value is a credential.

/// Words that name a credential even inside a longer word (`xauthtoken`, `--api-key`).
pub(super) const STEMS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "apikey",
    "auth",
    "credential",
    "privatekey",
    "accesskey",
    "cookie",
    "session",
];

/// Words that name a credential only as a whole word of the name (`pat`, not `path`).
pub(super) const WORDS: &[&str] = &[
    "tokens",
    "secrets",
    "pwd",
    "pass",
    "passphrase",
    "authorization",
    "credentials",
    "bearer",
    "jwt",
    "secretkey",
    "pat",
];

/// Words that make a name about a credential rather than the credential itself.
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

/// Query parameters that carry credentials, `-` written as `_`.
const PARAMS: &[&str] = &[
    "token",
    "access_token",
    "accesstoken",
    "auth_token",
    "authtoken",
    "id_token",
    "refresh_token",
    "api_key",
    "apikey",
    "key",
    "secret",
    "client_secret",
    "password",
    "passwd",
    "pwd",
    "pass",
    "auth",
    "sig",
    "signature",
    "x_api_key",
    "private_token",
    "session",
    "sessionid",
    "jwt",
    "x_amz_signature",
    "x_goog_signature",
    "sas",
    "sv_token",
];

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
/// setting about one (`TOKEN_FILE`, `AUTH_URL`, `SECRET_NAME`): precise enough for findings.
pub fn names_credential(name: &str) -> bool {
    let w = words(name);
    if w.iter().any(|x| ABOUT.contains(&x.as_str())) {
        return false;
    }
    w.iter()
        .any(|x| STEMS.contains(&x.as_str()) || WORDS.contains(&x.as_str()))
        || (w.iter().any(|x| x == "key") && w.len() >= 2)
        || w == ["key"]
}

/// A name whose value is masked in any output: a credential's name, or one holding a
/// credential word anywhere (`AUTH_URL`, `--api-key`, `sessionCookie`). Errs toward masking.
pub fn might_name_credential(name: &str) -> bool {
    let squashed: String = name
        .chars()
        .filter(|c| c.is_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    STEMS.iter().any(|s| squashed.contains(s)) || names_credential(name)
}

/// A URL query parameter that carries a credential (`api_key`, `X-Amz-Signature`).
pub fn is_credential_param(name: &str) -> bool {
    let n = name.to_ascii_lowercase().replace('-', "_");
    PARAMS.contains(&n.as_str())
}

/// Every credential query parameter as a regex alternative, `-` or `_` between words.
pub(super) fn credential_param_pattern() -> String {
    PARAMS
        .iter()
        .map(|p| p.replace('_', "[-_]"))
        .collect::<Vec<_>>()
        .join("|")
}

/// A literal every credential query parameter ends with (its last word).
pub(super) fn credential_param_endings() -> Vec<&'static str> {
    let mut endings: Vec<&'static str> =
        PARAMS.iter().filter_map(|p| p.rsplit('_').next()).collect();
    endings.sort_unstable();
    endings.dedup();
    endings
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn masking_errs_toward_hiding() {
        for n in [
            "--api-key",
            "--token",
            "API_TOKEN",
            "sessionCookie",
            "--private_key",
            "AUTH_URL",
            "--key",
            "PAT",
        ] {
            assert!(might_name_credential(n), "{n}");
        }
        for n in ["--port", "PATH", "--public-key", "KEYBOARD", "query"] {
            assert!(!might_name_credential(n), "{n}");
        }
    }

    #[test]
    fn credential_params_in_either_spelling() {
        for p in [
            "api_key",
            "API-KEY",
            "X-Amz-Signature",
            "x_goog_signature",
            "key",
        ] {
            assert!(is_credential_param(p), "{p}");
        }
        assert!(!is_credential_param("page_token"));
        assert!(credential_param_endings().contains(&"signature"));
    }
}
