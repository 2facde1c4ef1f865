//! The connect policy for a URL about to be dialled (`scan --live`, `guard --url`, the
//! Action's `url` input, the sweep's remote servers): loopback is fine; private, link-local
//! and metadata addresses, and credentials over cleartext, need the caller's allowance.

use super::host::{self, Classified, HostClass};
use super::ParsedUrl;
use crate::session::http::{DialPolicy, HttpTarget};
use url::Host;

/// One caller's policy, and how its refusals end.
#[derive(Debug, Clone, Copy)]
pub struct ConnectPolicy {
    /// Dial private, link-local and metadata addresses, and cleartext with credentials.
    pub allow_unsafe: bool,
    /// Resolve a name and judge every address it resolves to (blocking: keep it off an
    /// async runtime's workers).
    pub resolve_names: bool,
    /// How to allow what is refused, if one can (`pass --url-allow-unsafe to allow it`);
    /// every refusal ends with it.
    pub hint: &'static str,
}

impl ConnectPolicy {
    /// Why `url` must not be dialled, or `None` to dial it.
    pub fn refusal(&self, url: &str, carries_credentials: bool) -> Option<String> {
        if self.allow_unsafe {
            return None;
        }
        let hint = self.hint;
        // Fail closed: a URL `url` cannot read may still be read, differently, by a client.
        let Some(parsed) = ParsedUrl::parse(url.trim()) else {
            return Some(format!(
                "refused to dial {}: it does not parse as a URL with a host; {hint}",
                crate::finding::excerpt(&crate::secrets::redact(url.trim()), 80)
            ));
        };
        let classes = self.classes(&parsed);
        if let Some(bad) = classes
            .iter()
            .find(|c| !matches!(c.class, HostClass::Loopback | HostClass::Other))
        {
            return Some(format!(
                "refused to dial {} ({}); {hint}",
                crate::finding::excerpt(&parsed.host, 80),
                bad.class.describe()
            ));
        }
        let loopback = classes.iter().all(|c| c.class == HostClass::Loopback);
        if parsed.url.scheme() == "http" && carries_credentials && !loopback {
            return Some(format!(
                "refused to send credentials over cleartext http://; {hint}"
            ));
        }
        None
    }

    /// The same for a remote session's target, which carries credentials when its URL has
    /// userinfo or a header names one.
    pub fn target_refusal(&self, target: &HttpTarget) -> Option<String> {
        let credentials = ParsedUrl::parse(target.url.trim()).is_some_and(|p| p.has_userinfo())
            || target.headers.iter().any(|(n, _)| {
                crate::secrets::names_credential(n) || n.eq_ignore_ascii_case("cookie")
            });
        self.refusal(&target.url, credentials)
    }

    /// The policy for URLs a target leads to on other origins (its authorization metadata):
    /// they are fetched without credentials, so only the address is judged.
    pub fn dial_policy(self) -> DialPolicy {
        DialPolicy(std::sync::Arc::new(move |url: &str| {
            self.refusal(url, false)
        }))
    }

    /// The host's class; a name is resolved (when asked) and every address judged.
    fn classes(&self, parsed: &ParsedUrl) -> Vec<Classified> {
        let named = parsed.classify();
        let is_name = matches!(parsed.url.host(), Some(Host::Domain(_)));
        if !(self.resolve_names && is_name && named.ip.is_none() && named.class == HostClass::Other)
        {
            return vec![named];
        }
        // What a client dials: the host `url` read, on its port or the scheme's default.
        match parsed.url.socket_addrs(|| None) {
            Ok(addrs) if !addrs.is_empty() => {
                addrs.iter().map(|a| host::classify_ip(a.ip())).collect()
            }
            _ => vec![named],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: ConnectPolicy = ConnectPolicy {
        allow_unsafe: false,
        resolve_names: false,
        hint: "pass --x to allow it",
    };

    #[test]
    fn the_hint_ends_each_refusal_as_given() {
        assert_eq!(
            POLICY.refusal("http://10.1.2.3/mcp", false).as_deref(),
            Some("refused to dial 10.1.2.3 (a private network address); pass --x to allow it")
        );
        assert_eq!(
            POLICY.refusal("http://0xa9fea9fe/mcp", false).as_deref(),
            Some("refused to dial 0xa9fea9fe (a cloud metadata endpoint); pass --x to allow it")
        );
        assert_eq!(
            POLICY.refusal("http://203.0.113.7/mcp", true).as_deref(),
            Some("refused to send credentials over cleartext http://; pass --x to allow it")
        );
        // A host that reads like a hint is shown as it is, the hint is not substituted in it.
        let other = ConnectPolicy {
            hint: "the Action dials only loopback and public addresses",
            ..POLICY
        };
        assert_eq!(
            other.refusal("http://10.0.0.1/", false).as_deref(),
            Some("refused to dial 10.0.0.1 (a private network address); the Action dials only loopback and public addresses")
        );
        assert_eq!(POLICY.refusal("http://127.0.0.1/", true), None);
        assert_eq!(POLICY.refusal("https://203.0.113.7/", true), None);
        let allowed = ConnectPolicy {
            allow_unsafe: true,
            ..POLICY
        };
        assert_eq!(allowed.refusal("http://169.254.169.254/", true), None);
    }

    #[test]
    fn bypass_forms_are_refused_for_the_address_a_client_dials() {
        for url in [
            "http://127.0.0.1@169.254.169.254/latest",
            "http://169.254.169.254\\@example.com/",
            "http://0xa9.0xfe.0xa9.0xfe/",
            "http://[::ffff:169.254.169.254]/",
            "http://%31%30.0.0.1/",
            "http://10.0.0.1./",
            "http://[fe80::1%25eth0]/",
        ] {
            assert!(POLICY.refusal(url, false).is_some(), "{url}");
        }
        // What a client dials here is public: the private-looking text is userinfo.
        assert_eq!(POLICY.refusal("http://10.0.0.1@203.0.113.7/", false), None);
    }
}
