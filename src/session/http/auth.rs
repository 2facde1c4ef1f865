//! After a 401: the discovery a client would do before an authorization flow, and no more.
//! The RFC 9728 protected resource metadata `WWW-Authenticate` names, then the RFC 8414
//! metadata of each authorization server it lists (OpenID discovery as the fallback the MCP
//! authorization spec gives). Other origins are dialled only when the connect policy allows
//! them, and never with the user's `--header` values: no request here carries them.

use super::post::Outgoing;
use super::{AuthDocument, AuthProblem, HttpTransport, MetadataCheck};
use serde_json::Value;
use std::net::{Ipv4Addr, Ipv6Addr};
use url::{Host, Url};

/// Enough for any real metadata document; a larger one is cut and reported as not JSON.
const MAX_DOCUMENT_BYTES: u64 = 256 * 1024;
/// Authorization servers fetched from one document; the rest are not dialled.
const MAX_AUTHORIZATION_SERVERS: usize = 4;

/// `resource_metadata="URL"` from a `WWW-Authenticate: Bearer ...` value.
pub fn resource_metadata_url(www_authenticate: &str) -> Option<String> {
    let at = www_authenticate.find("resource_metadata=")?;
    let rest = &www_authenticate[at + "resource_metadata=".len()..];
    let value = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?,
        None => rest.split([',', ' ']).next()?,
    };
    (!value.is_empty()).then(|| value.to_string())
}

/// An http(s) URL as a client reads it (WHATWG): the checks compare what is dialled.
fn parse(url: &str) -> Option<Url> {
    Url::parse(url.trim())
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
}

/// `scheme://host[:port]`, without user info, default port or path.
fn base(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(port) => format!("{}://{host}:{port}", url.scheme()),
        None => format!("{}://{host}", url.scheme()),
    }
}

pub(super) fn origin(url: &str) -> Option<String> {
    parse(url).map(|u| base(&u))
}

/// https://, or http:// to this machine (what the cleartext rule allows).
fn secure(url: &str) -> bool {
    parse(url).is_some_and(|u| {
        u.scheme() == "https"
            || match u.host() {
                Some(Host::Domain(name)) => name == "localhost",
                Some(Host::Ipv4(ip)) => ip == Ipv4Addr::LOCALHOST,
                Some(Host::Ipv6(ip)) => ip == Ipv6Addr::LOCALHOST,
                None => false,
            }
    })
}

/// The server URL is the resource, or lies under it (a resource that covers a path).
fn resource_covers(resource: &str, server: &str) -> bool {
    let (Some(r), Some(s)) = (parse(resource), parse(server)) else {
        return false;
    };
    let (rp, sp) = (
        r.path().trim_end_matches('/'),
        s.path().trim_end_matches('/'),
    );
    base(&r) == base(&s) && (rp == sp || sp.starts_with(&format!("{rp}/")))
}

/// Where an issuer's metadata may be, in the order the MCP authorization spec tries them:
/// RFC 8414 with the path inserted after the well-known prefix, then OpenID discovery
/// (inserted, then appended, for an issuer with a path).
pub fn authorization_server_urls(issuer: &str) -> Vec<String> {
    let Some(url) = parse(issuer) else {
        return Vec::new();
    };
    let base = base(&url);
    let path = url.path().trim_end_matches('/');
    if path.is_empty() {
        return vec![
            format!("{base}/.well-known/oauth-authorization-server"),
            format!("{base}/.well-known/openid-configuration"),
        ];
    }
    vec![
        format!("{base}/.well-known/oauth-authorization-server{path}"),
        format!("{base}/.well-known/openid-configuration{path}"),
        format!("{base}{path}/.well-known/openid-configuration"),
    ]
}

fn shown(url: &str) -> String {
    crate::finding::excerpt(&crate::secrets::redact(url), 120)
}

/// What fetching one document gave.
enum Fetched {
    Json(Value),
    /// Not dialled or not usable: the detail code and what happened.
    Failed(&'static str, String),
}

impl HttpTransport {
    /// GET `url` as JSON, with no header of the user's, if the connect policy allows it.
    async fn fetch_document(&self, url: &str) -> Fetched {
        if origin(url).is_none() {
            return Fetched::Failed("not-fetched", "it is not an http(s) URL".into());
        }
        if origin(url) != origin(&self.target.url) {
            let why = match &self.target.dial_policy {
                Some(policy) => policy.refusal(url),
                None => Some("no connect policy allows another origin here".into()),
            };
            if let Some(why) = why {
                let why = crate::finding::excerpt(&why, 160);
                return Fetched::Failed("not-fetched", format!("it was not fetched: {why}"));
            }
        }
        let out = Outgoing {
            method: "GET",
            url: url.to_string(),
            headers: vec![("Accept".into(), "application/json".into())],
            body: None,
            timeout: self.timeout,
            awaited: None,
            max_body_bytes: MAX_DOCUMENT_BYTES,
            max_event_bytes: MAX_DOCUMENT_BYTES as usize,
            max_events: 1,
        };
        match self.run(out).await {
            Err(e) => Fetched::Failed(
                "fetch-failed",
                format!(
                    "it could not be fetched: {}",
                    crate::finding::excerpt(&e.message, 160)
                ),
            ),
            Ok(r) if r.status != 200 => {
                Fetched::Failed("fetch-failed", format!("it answered HTTP {}", r.status))
            }
            Ok(r) => match r
                .messages
                .first()
                .and_then(|m| serde_json::from_slice::<Value>(m).ok())
                .filter(Value::is_object)
            {
                Some(doc) => Fetched::Json(doc),
                None => Fetched::Failed("not-json", "it is not a JSON object".into()),
            },
        }
    }

    /// The protected resource metadata and the authorization servers it names.
    pub(super) async fn authorization_metadata(&self, www: Option<&str>) -> MetadataCheck {
        let Some(url) = www.and_then(resource_metadata_url) else {
            return MetadataCheck {
                url: String::new(),
                problems: vec![AuthProblem::resource(
                    "no-resource-metadata",
                    "the 401 has no WWW-Authenticate resource_metadata parameter",
                )],
            };
        };
        let mut check = MetadataCheck {
            url: shown(&url),
            problems: Vec::new(),
        };
        let doc = match self.fetch_document(&url).await {
            Fetched::Json(doc) => doc,
            Fetched::Failed(detail, what) => {
                check.problems.push(AuthProblem::resource(detail, what));
                return check;
            }
        };
        match doc.get("resource").and_then(Value::as_str) {
            None => check
                .problems
                .push(AuthProblem::resource("no-resource", "it has no `resource`")),
            Some(r) if !resource_covers(r, &self.target.url) => {
                check.problems.push(AuthProblem::resource(
                    "resource-mismatch",
                    format!(
                        "its `resource` {} is not the server's URL {}",
                        shown(r),
                        shown(&self.target.url)
                    ),
                ))
            }
            Some(_) => {}
        }
        let servers: Vec<&str> = doc
            .get("authorization_servers")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if servers.is_empty() {
            check.problems.push(AuthProblem::resource(
                "no-authorization-servers",
                "it names no `authorization_servers`",
            ));
        }
        for issuer in servers.into_iter().take(MAX_AUTHORIZATION_SERVERS) {
            if !secure(issuer) {
                check.problems.push(AuthProblem::resource(
                    "insecure-authorization-server",
                    format!("its authorization server {} is not https://", shown(issuer)),
                ));
                continue;
            }
            self.check_authorization_server(issuer, &mut check.problems)
                .await;
        }
        check
    }

    async fn check_authorization_server(&self, issuer: &str, problems: &mut Vec<AuthProblem>) {
        let mut last = None;
        let mut found = None;
        let urls = authorization_server_urls(issuer);
        let tried = urls.len();
        for url in urls {
            match self.fetch_document(&url).await {
                Fetched::Json(doc) => {
                    found = Some((url, doc));
                    break;
                }
                // A refusal by the connect policy holds for every URL on that origin.
                Fetched::Failed("not-fetched", what) => {
                    problems.push(AuthProblem::server(issuer, "not-fetched", what));
                    return;
                }
                Fetched::Failed(_, what) => last = Some(what),
            }
        }
        let Some((url, doc)) = found else {
            let what = last.unwrap_or_default();
            problems.push(AuthProblem::server(
                issuer,
                "missing-document",
                format!(
                    "no RFC 8414 or OpenID metadata was found at its {tried} well-known URLs (the last: {what})"
                ),
            ));
            return;
        };
        let text = |key: &str| doc.get(key).and_then(Value::as_str);
        let listed = |key: &str, want: &str| {
            doc.get(key)
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(want)))
        };
        if text("issuer").map(|i| i.trim_end_matches('/')) != Some(issuer.trim_end_matches('/')) {
            let given = text("issuer").map_or("none".to_string(), shown);
            problems.push(AuthProblem::server(
                issuer,
                "issuer-mismatch",
                format!(
                    "the document at {} gives `issuer` {given}, not the authorization server's URL",
                    shown(&url)
                ),
            ));
        }
        for key in ["authorization_endpoint", "token_endpoint"] {
            match text(key) {
                None => problems.push(AuthProblem::server(
                    issuer,
                    if key == "token_endpoint" {
                        "no-token-endpoint"
                    } else {
                        "no-authorization-endpoint"
                    },
                    format!("it has no `{key}`"),
                )),
                Some(e) if !secure(e) => problems.push(AuthProblem::server(
                    issuer,
                    "insecure-endpoint",
                    format!("its `{key}` {} is not https://", shown(e)),
                )),
                Some(_) => {}
            }
        }
        if !listed("response_types_supported", "code") {
            problems.push(AuthProblem::server(
                issuer,
                "no-code-response-type",
                "its `response_types_supported` does not list `code`, the flow MCP clients use",
            ));
        }
        if doc.get("code_challenge_methods_supported").is_none() {
            problems.push(AuthProblem::server(
                issuer,
                "no-pkce",
                "it has no `code_challenge_methods_supported`, so MCP clients must take it as not supporting PKCE and refuse to proceed",
            ));
        } else if !listed("code_challenge_methods_supported", "S256") {
            problems.push(AuthProblem::server(
                issuer,
                "no-pkce-s256",
                "its `code_challenge_methods_supported` does not list `S256`, the PKCE method MCP clients must use",
            ));
        }
    }
}

impl AuthProblem {
    fn resource(detail: &'static str, message: impl Into<String>) -> Self {
        AuthProblem {
            document: AuthDocument::ProtectedResource,
            detail,
            message: message.into(),
        }
    }

    fn server(issuer: &str, detail: &'static str, message: impl Into<String>) -> Self {
        AuthProblem {
            document: AuthDocument::AuthorizationServer(shown(issuer)),
            detail,
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_urls_follow_rfc_8414_and_the_openid_fallback() {
        assert_eq!(
            authorization_server_urls("https://as.example/tenant1/"),
            [
                "https://as.example/.well-known/oauth-authorization-server/tenant1",
                "https://as.example/.well-known/openid-configuration/tenant1",
                "https://as.example/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            authorization_server_urls("https://AS.example"),
            [
                "https://as.example/.well-known/oauth-authorization-server",
                "https://as.example/.well-known/openid-configuration",
            ]
        );
        assert!(authorization_server_urls("ftp://as.example").is_empty());
    }

    #[test]
    fn resources_security_and_parameters() {
        assert!(resource_covers(
            "https://mcp.example/mcp",
            "https://MCP.example/mcp/"
        ));
        assert!(resource_covers(
            "https://mcp.example",
            "https://mcp.example/mcp"
        ));
        assert!(!resource_covers(
            "https://mcp.example/mc",
            "https://mcp.example/mcp"
        ));
        assert!(!resource_covers(
            "https://other.example/mcp",
            "https://mcp.example/mcp"
        ));
        assert!(secure("https://as.example"));
        assert!(secure("http://127.0.0.1:9000/x"));
        assert!(secure("http://[::1]/x"));
        assert!(!secure("http://as.example"));
        // The host a client dials, not the text before the last `@` or a backslash.
        assert!(!secure("http://127.0.0.1@as.example/"));
        assert!(!secure("http://as.example\\@localhost/"));
        assert!(secure("http://localhost\\@as.example/"));
        assert!(secure("http://as.example@127.0.0.1/"));
        assert_eq!(
            origin("http://u:p@AS.example:80/x").as_deref(),
            Some("http://as.example")
        );
        assert_ne!(
            origin("http://a.example\\@b.example/"),
            origin("http://b.example/")
        );
        assert_eq!(
            resource_metadata_url(
                r#"Bearer error="invalid_token", resource_metadata="https://a/b""#
            )
            .as_deref(),
            Some("https://a/b")
        );
        assert_eq!(
            resource_metadata_url("Bearer resource_metadata=https://a/b, scope=x").as_deref(),
            Some("https://a/b")
        );
        assert_eq!(resource_metadata_url("Bearer realm=x"), None);
    }
}
