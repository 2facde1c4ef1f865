//! Telling a real credential from a placeholder, a sample or a format description.

/// For free text: rejects documentation placeholders (`AKIA…EXAMPLE`, `ghp_xxxx…`,
/// `sk-0123456789…`). Real tokens are random: many distinct characters and no long
/// ascending runs.
pub(super) fn looks_real(kind: &str, token: &str) -> bool {
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
    distinct_chars(body) >= 10 && longest_ascending_run(body) < 8
}

/// For values: placeholders people leave in example configs.
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
    body.len() >= 8 && distinct_chars(body) < 8
}

/// A JWT's first segment decodes to a JSON object naming its algorithm.
pub(super) fn jwt_header_ok(token: &str) -> bool {
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

/// A password or token in a URL that looks generated, not a placeholder or a sample
/// (`${TOKEN}`, `<password>`, `xxxxxxxx`, `postgres`, `admin123`).
pub(super) fn url_value_is_real(value: &str) -> bool {
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
    let strong = (value.len() >= 12 && classes >= 2) || classes >= 3;
    strong && distinct_chars(value) >= 6 && longest_ascending_run(value) < 6
}

/// Hosts of documentation samples, where a `user:pass@` is an example, not a leak.
pub(super) fn documentation_host(host: &str) -> bool {
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

fn distinct_chars(s: &str) -> usize {
    let mut distinct: Vec<char> = s.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.len()
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
