//! `--url` and `--header`: the remote server the session runs against over Streamable HTTP.

use super::layers::{Front, Origin, Setting};
use super::options::GuardRequest;
use crate::error::Error;
use crate::net::ParsedUrl;
use crate::process::ServerCommand;
use crate::session::http::HttpTarget;
use std::net::IpAddr;
use url::{Host, Url};

/// The HTTP target the flags name, or `None` for a stdio run.
pub fn target(args: &GuardRequest) -> Result<Option<HttpTarget>, Error> {
    let origin = Origin::Front(args.front);
    let (url_name, header_name) = (origin.name(Setting::Url), origin.name(Setting::Header));
    let Some(url) = args.url.as_deref().map(str::trim) else {
        if !args.headers.is_empty() {
            return Err(Error::Usage(format!(
                "{header_name} applies to a remote server: add {url_name}"
            )));
        }
        return Ok(None);
    };
    if !args.command.is_empty() {
        return Err(Error::Usage(match args.front {
            Front::Flags => "give either --url or a server command after `--`, not both".into(),
            Front::ActionInputs => "give either input `url` or input `command`, not both".into(),
        }));
    }
    // A control character is dropped by `url` (WHATWG) but not by every client: refused.
    let parsed = ParsedUrl::http(url).filter(|_| !url.bytes().any(|b| b.is_ascii_control()));
    let Some(parsed) = parsed else {
        return Err(Error::Usage(format!(
            "{}: not an http:// or https:// URL with a host; give one like http://127.0.0.1:3000/mcp",
            origin.given(
                Setting::Url,
                crate::finding::excerpt(&crate::secrets::redact(url), 80)
            )
        )));
    };
    let mut headers = Vec::new();
    for h in &args.headers {
        let Some((name, value)) = h.split_once('=') else {
            return Err(Error::Usage(format!(
                "{header_name} takes NAME=VALUE (for example Authorization=\"Bearer $TOKEN\")"
            )));
        };
        let name = name.trim();
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_!#$%&'*+.^`|~".contains(&b))
        {
            return Err(Error::Usage(format!(
                "{}: not a valid header name; use letters, digits and dashes",
                origin.given(Setting::Header, crate::finding::excerpt(name, 40))
            )));
        }
        if value.bytes().any(|b| b == b'\r' || b == b'\n') {
            return Err(Error::Usage(format!(
                "{}: the value holds a line break; give it on one line",
                origin.given(Setting::Header, name)
            )));
        }
        headers.push((name.to_string(), value.to_string()));
    }
    Ok(Some(HttpTarget {
        url: url.to_string(),
        headers,
        local: is_local(&parsed.url),
        dial_policy: None,
        legacy_sse: false,
        transport_probes: true,
    }))
}

/// Streamable HTTP got no answer to the handshake and GET opened a legacy stream (first
/// event `endpoint`): as the spec's backwards-compatibility section tells clients, the
/// session is run again over the legacy HTTP+SSE transport.
pub fn falls_back_to_legacy(t: &crate::session::transcript::Transcript) -> bool {
    let Some(http) = &t.http else {
        return false;
    };
    http.legacy.is_none()
        && t.initialize_result().is_none()
        && matches!(&http.probes.get, Some((_, true, Some(e))) if e == "endpoint")
}

/// What the report shows as the "command" of a remote run: the URL, credentials masked.
pub fn placeholder(target: &HttpTarget) -> ServerCommand {
    ServerCommand {
        program: crate::secrets::redact(&target.url),
        args: Vec::new(),
        cwd: None,
        env: Vec::new(),
        clear_env: false,
        unset_env: Vec::new(),
    }
}

/// Loopback or private: a page in the user's browser could reach it by DNS rebinding.
/// The host is the one `url` reads (what a client dials), resolved on its port.
fn is_local(url: &Url) -> bool {
    let addrs: Vec<IpAddr> = match url.host() {
        Some(Host::Domain(name)) if name == "localhost" || name.ends_with(".localhost") => {
            return true
        }
        Some(Host::Ipv4(ip)) => vec![ip.into()],
        Some(Host::Ipv6(ip)) => vec![ip.into()],
        Some(Host::Domain(_)) => url
            .socket_addrs(|| None)
            .map(|a| a.iter().map(|s| s.ip()).collect())
            .unwrap_or_default(),
        None => Vec::new(),
    };
    !addrs.is_empty() && addrs.iter().all(|ip| local_ip(*ip))
}

fn local_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_private() || v4.is_link_local(),
        IpAddr::V6(v6) => {
            v6.is_loopback()
                || (v6.segments()[0] & 0xfe00) == 0xfc00
                || (v6.segments()[0] & 0xffc0) == 0xfe80
                || v6
                    .to_ipv4_mapped()
                    .is_some_and(|v4| local_ip(IpAddr::V4(v4)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(url: &str) -> bool {
        is_local(&ParsedUrl::http(url).expect("an http URL").url)
    }

    #[test]
    fn locality_is_judged_on_the_host_a_client_dials() {
        assert!(local("http://127.0.0.1/"));
        assert!(local("http://10.1.2.3/"));
        assert!(local("http://[::1]:80/mcp"));
        assert!(local("http://localhost:3000/mcp"));
        assert!(!local("http://8.8.8.8/"));
        // Read as clients read them: the short, hex and mapped forms are loopback, and the
        // host after the userinfo is the one dialled.
        assert!(local("http://127.1/"));
        assert!(local("http://0x7f.0.0.1/"));
        assert!(local("http://[::ffff:127.0.0.1]/"));
        assert!(local("http://8.8.8.8@127.0.0.1/"));
        // A backslash ends the authority, as a slash does: the host is 8.8.8.8.
        assert!(!local("http://8.8.8.8\\@127.0.0.1/"));
    }

    #[test]
    fn only_http_urls_with_a_host_are_targets() {
        assert_eq!(
            ParsedUrl::http("https://Example.COM/x").map(|p| p.host),
            Some("example.com".to_string())
        );
        assert!(ParsedUrl::http("ftp://x").is_none());
        assert!(ParsedUrl::http("http://").is_none());
        assert!(ParsedUrl::http("not a url").is_none());
    }
}
