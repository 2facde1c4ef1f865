//! URLs in config values: finding them and reading them as clients do (the `url` crate,
//! WHATWG), and masking their credentials. Hosts are classified by `crate::net::host`.

use crate::net::ParsedUrl;
use regex::Regex;
use std::sync::OnceLock;

/// A URL found in a value, as byte offsets into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundUrl {
    pub start: usize,
    /// As written.
    pub text: String,
    /// As a client reads it, with the host as written for messages.
    pub parsed: ParsedUrl,
}

impl FoundUrl {
    pub fn scheme(&self) -> &str {
        self.parsed.url.scheme()
    }

    /// The host as written (lowercase, IPv6 without brackets), for messages.
    pub fn host(&self) -> &str {
        &self.parsed.host
    }

    /// The query's parameters, percent-decoded, as a server reads them.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        self.parsed
            .url
            .query_pairs()
            .map(|(n, v)| (n.into_owned(), v.into_owned()))
            .collect()
    }
}

fn url_re() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#"(?i)\b[a-z][a-z0-9+.\-]{1,20}://[^\s"'<>`|]+"#).ok())
        .as_ref()
}

/// Every `scheme://…` URL in a value that a client can read.
pub fn find_urls(value: &str) -> Vec<FoundUrl> {
    let Some(re) = url_re() else {
        return Vec::new();
    };
    re.find_iter(value)
        .filter_map(|m| {
            parse(m.as_str()).map(|u| FoundUrl {
                start: m.start(),
                ..u
            })
        })
        .collect()
}

/// Reads one URL. `None` when `url` refuses it or it has no host.
pub fn parse(text: &str) -> Option<FoundUrl> {
    let parsed = match ParsedUrl::parse(text) {
        Some(parsed) => parsed,
        // Clients substitute `${PORT}` before they parse; the host is what the checks need.
        None if url::Url::parse(text) == Err(url::ParseError::InvalidPort)
            && text.contains("${") =>
        {
            let substituted = super::secrets::without_references(text);
            ParsedUrl::from_url(url::Url::parse(&substituted).ok()?, text)?
        }
        None => return None,
    };
    Some(FoundUrl {
        start: 0,
        text: text.to_string(),
        parsed,
    })
}

/// Free text with every URL's credentials and every provider token masked. Every
/// `scheme://…` is masked, including those `url` refuses: a client may be less strict.
pub fn mask_all(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for m in url_re().into_iter().flat_map(|re| re.find_iter(text)) {
        out.push_str(&text[last..m.start()]);
        out.push_str(&mask_url(m.as_str()));
        last = m.end();
    }
    out.push_str(&text[last..]);
    crate::secrets::mask_tokens(&out)
}

/// The URL with the password and credential parameter values masked.
pub fn mask_url(text: &str) -> String {
    let Some((scheme, rest)) = text.split_once("://") else {
        return crate::secrets::mask_tokens(text);
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let authority = match authority.rsplit_once('@') {
        Some((info, host)) => match info.split_once(':') {
            Some((user, _)) => format!("{user}:[REDACTED]@{host}"),
            None => format!("{}@{host}", crate::secrets::mask_tokens(info)),
        },
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let (query, frag) = match query.split_once('#') {
                Some((q, f)) => (q, format!("#{f}")),
                None => (query, String::new()),
            };
            let masked: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((n, _)) if crate::secrets::is_credential_param(n) => {
                        format!("{n}=[REDACTED]")
                    }
                    _ => pair.to_string(),
                })
                .collect();
            format!("{path}?{}{frag}", masked.join("&"))
        }
        None => tail.to_string(),
    };
    crate::secrets::mask_tokens(&format!("{scheme}://{authority}{tail}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masking_hides_url_credentials_in_free_text() {
        assert_eq!(
            mask_all("pg postgres://app:S3cret@db:5432/x and https://h/?token=abc&x=1"),
            "pg postgres://app:[REDACTED]@db:5432/x and https://h/?token=[REDACTED]&x=1"
        );
    }

    #[test]
    fn urls_split() {
        let u = &find_urls("x https://u:p@[fe80::1]:8080/a?token=t#f y")[0];
        assert_eq!(u.host(), "fe80::1");
        assert_eq!(u.parsed.username(), "u");
        assert_eq!(u.parsed.password().as_deref(), Some("p"));
        assert_eq!(u.query_pairs(), [("token".to_string(), "t".to_string())]);
        assert_eq!(u.start, 2);
        // A reference in the port is filled in by the client; the host is still read.
        let u = &find_urls("http://10.0.0.5:${PORT}/mcp")[0];
        assert_eq!(u.host(), "10.0.0.5");
    }
}
