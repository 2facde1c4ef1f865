//! `--url` and `--header`: the remote server the session runs against over Streamable HTTP.

use super::options::GuardRequest;
use crate::error::Error;
use crate::process::ServerCommand;
use crate::session::http::HttpTarget;
use std::net::{IpAddr, ToSocketAddrs};

/// The HTTP target the flags name, or `None` for a stdio run.
pub fn target(args: &GuardRequest) -> Result<Option<HttpTarget>, Error> {
    let Some(url) = args.url.as_deref().map(str::trim) else {
        if !args.headers.is_empty() {
            return Err(Error::Usage(
                "--header applies to a remote server: add --url URL".into(),
            ));
        }
        return Ok(None);
    };
    if !args.command.is_empty() {
        return Err(Error::Usage(
            "give either --url or a server command after `--`, not both".into(),
        ));
    }
    let Some(host) = host_of(url) else {
        return Err(Error::Usage(format!(
            "--url {}: not an http:// or https:// URL with a host; give one like http://127.0.0.1:3000/mcp",
            crate::finding::excerpt(&crate::secrets::redact(url), 80)
        )));
    };
    let mut headers = Vec::new();
    for h in &args.headers {
        let Some((name, value)) = h.split_once('=') else {
            return Err(Error::Usage(
                "--header takes NAME=VALUE (for example --header Authorization=\"Bearer $TOKEN\")"
                    .into(),
            ));
        };
        let name = name.trim();
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_!#$%&'*+.^`|~".contains(&b))
        {
            return Err(Error::Usage(format!(
                "--header {}: not a valid header name; use letters, digits and dashes",
                crate::finding::excerpt(name, 40)
            )));
        }
        if value.bytes().any(|b| b == b'\r' || b == b'\n') {
            return Err(Error::Usage(format!(
                "--header {name}: the value holds a line break; give it on one line"
            )));
        }
        headers.push((name.to_string(), value.to_string()));
    }
    Ok(Some(HttpTarget {
        url: url.to_string(),
        headers,
        local: is_local(&host, url.starts_with("https")),
        dial_policy: None,
        legacy_sse: false,
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

/// The host of an http(s) URL, without brackets or port.
pub fn host_of(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let hostport = authority.rsplit('@').next()?;
    let host = match hostport.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?,
        None => hostport.split(':').next()?,
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Loopback or private: a page in the user's browser could reach it by DNS rebinding.
fn is_local(host: &str, https: bool) -> bool {
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    let addrs: Vec<IpAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![ip],
        Err(_) => (host, if https { 443 } else { 80 })
            .to_socket_addrs()
            .map(|a| a.map(|s| s.ip()).collect())
            .unwrap_or_default(),
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

    #[test]
    fn hosts_and_locality() {
        assert_eq!(host_of("http://u:p@[::1]:80/mcp").as_deref(), Some("::1"));
        assert_eq!(
            host_of("https://Example.COM/x").as_deref(),
            Some("example.com")
        );
        assert_eq!(host_of("ftp://x"), None);
        assert!(is_local("127.0.0.1", false));
        assert!(is_local("10.1.2.3", false));
        assert!(is_local("::1", false));
        assert!(!is_local("8.8.8.8", false));
    }
}
