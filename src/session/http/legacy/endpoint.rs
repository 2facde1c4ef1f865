//! The `endpoint` event's URI reference, resolved against the URL and held to its origin.

/// A URL for a report: its query (a legacy endpoint's session id) left out, credentials
/// masked, cut.
pub(super) fn shown(url: &str) -> String {
    let (head, query) = match url.split_once('?') {
        Some((h, _)) => (h, "?…"),
        None => (url, ""),
    };
    let head = crate::finding::excerpt(&crate::secrets::redact(head), 120);
    format!("{head}{query}")
}

/// The endpoint's URI reference resolved against the URL (RFC 3986 §5.2, without dot
/// segments), or why it cannot be used: not-a-uri, or cross-origin (never followed).
pub fn resolve(base: &str, reference: &str) -> Result<String, (&'static str, &'static str)> {
    let r = reference.trim();
    if r.is_empty() || r.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(("not-a-uri", "is not a URI reference"));
    }
    let r = r.split('#').next().unwrap_or("");
    let scheme_end = r.find(':').filter(|&i| {
        r[..i]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && r[..i]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && !r[..i].contains(['/', '?'])
    });
    let base_origin = super::super::auth::origin(base).ok_or(("not-a-uri", "has no base URL"))?;
    let resolved = match scheme_end {
        Some(i) => {
            let scheme = r[..i].to_ascii_lowercase();
            if !matches!(scheme.as_str(), "http" | "https") || !r[i + 1..].starts_with("//") {
                return Err(("not-a-uri", "is not an http(s) URI reference"));
            }
            r.to_string()
        }
        None if r.starts_with("//") => {
            let scheme = base_origin.split("://").next().unwrap_or("http");
            format!("{scheme}:{r}")
        }
        None if r.starts_with('/') => format!("{base_origin}{r}"),
        None => {
            let path = base[base_origin.len().min(base.len())..]
                .split(['?', '#'])
                .next()
                .unwrap_or("");
            if let Some(query) = r.strip_prefix('?') {
                format!("{base_origin}{path}?{query}")
            } else {
                let dir = path.rfind('/').map_or("/", |i| &path[..=i]);
                format!("{base_origin}{dir}{r}")
            }
        }
    };
    match super::super::auth::origin(&resolved) {
        Some(o) if o == base_origin => Ok(resolved),
        Some(_) => Err((
            "cross-origin",
            "is on another origin than the URL; it was not followed",
        )),
        None => Err(("not-a-uri", "is not an http(s) URI reference")),
    }
}

#[cfg(test)]
mod tests {
    use super::resolve;

    const BASE: &str = "http://127.0.0.1:3001/sse";

    #[test]
    fn references_resolve_against_the_url() {
        let ok = |r: &str| resolve(BASE, r).expect(r);
        assert_eq!(
            ok("/messages?sessionId=1"),
            "http://127.0.0.1:3001/messages?sessionId=1"
        );
        assert_eq!(ok("messages"), "http://127.0.0.1:3001/messages");
        assert_eq!(ok("?s=2"), "http://127.0.0.1:3001/sse?s=2");
        assert_eq!(ok("//127.0.0.1:3001/m"), "http://127.0.0.1:3001/m");
        assert_eq!(ok("http://127.0.0.1:3001/m#x"), "http://127.0.0.1:3001/m");
        assert_eq!(
            resolve("https://a.example/v1/sse?k=1", "msg").as_deref(),
            Ok("https://a.example/v1/msg")
        );
    }

    #[test]
    fn other_origins_and_non_uris_are_refused() {
        let detail = |r: &str| resolve(BASE, r).expect_err(r).0;
        assert_eq!(detail("http://evil.example/messages"), "cross-origin");
        assert_eq!(detail("//evil.example/m"), "cross-origin");
        assert_eq!(detail("https://127.0.0.1:3001/m"), "cross-origin");
        assert_eq!(detail("http://127.0.0.1:3002/m"), "cross-origin");
        assert_eq!(detail("not a uri"), "not-a-uri");
        assert_eq!(detail(""), "not-a-uri");
        assert_eq!(detail("mailto:x@y"), "not-a-uri");
        assert_eq!(detail("javascript:alert(1)"), "not-a-uri");
    }
}
