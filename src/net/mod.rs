//! URLs and hosts as clients read them, below every engine: URLs parsed by the `url` crate
//! (WHATWG, as browsers and HTTP clients parse them, so a check sees the host a client
//! dials), hosts classified, and the connect policy for URLs about to be dialled.

pub mod host;
pub mod policy;

use url::{Host, Url};

/// A URL with a host, read as a client reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedUrl {
    /// What a client dials: every decision is taken on this.
    pub url: Url,
    /// The host as written (lowercase, IPv6 without brackets), for messages: `0xa9fea9fe`
    /// where `url` reads 169.254.169.254. When the written text is not what `url` reads as
    /// the host, this is `url`'s reading.
    pub host: String,
}

impl ParsedUrl {
    /// `None` when `url` refuses the text or it has no host.
    pub fn parse(text: &str) -> Option<Self> {
        match Url::parse(text) {
            Ok(url) => Self::from_url(url, text),
            // An IPv6 zone id (`[fe80::1%25eth0]`): WHATWG refuses it, curl and others dial
            // it, and it does not change the address's class, so it is read without it.
            Err(url::ParseError::InvalidIpv6Address) => {
                let (head, rest) = text.split_once('[')?;
                let (inner, tail) = rest.split_once(']')?;
                let (address, _zone) = inner.split_once('%')?;
                Self::from_url(Url::parse(&format!("{head}[{address}]{tail}")).ok()?, text)
            }
            Err(_) => None,
        }
    }

    /// An `http://` or `https://` URL with a host, or `None`.
    pub fn http(text: &str) -> Option<Self> {
        Self::parse(text.trim()).filter(|p| matches!(p.url.scheme(), "http" | "https"))
    }

    /// `url`, read from `text` (which may differ from it, e.g. by a reference in the port).
    pub fn from_url(url: Url, text: &str) -> Option<Self> {
        let read = url.host()?;
        let shown = url
            .host_str()?
            .trim_matches(['[', ']'])
            .to_ascii_lowercase();
        if shown.is_empty() {
            return None;
        }
        let host = written_host(text)
            .filter(|w| {
                url.is_special() && Host::parse(&without_zone(w)).ok() == Some(read.to_owned())
            })
            .map_or(shown, |w| w.trim_matches(['[', ']']).to_ascii_lowercase());
        Some(Self { url, host })
    }

    pub fn classify(&self) -> host::Classified {
        match self.url.host() {
            Some(read) => host::classify_host(&read, &self.host),
            None => host::classify(&self.host),
        }
    }

    /// A user name or password is given (`user@`, `user:pass@`).
    pub fn has_userinfo(&self) -> bool {
        !self.url.username().is_empty() || self.url.password().is_some()
    }

    /// The user name, percent-decoded.
    pub fn username(&self) -> String {
        decode(self.url.username())
    }

    /// The password, percent-decoded; `None` when there is none (or it is empty).
    pub fn password(&self) -> Option<String> {
        self.url.password().map(decode)
    }
}

/// `[fe80::1%25eth0]` without its zone id; any other host as it is.
fn without_zone(host: &str) -> String {
    match (host.strip_prefix('['), host.split_once('%')) {
        (Some(_), Some((address, _))) => format!("{address}]"),
        _ => host.to_string(),
    }
}

fn decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// The host's text in a special-scheme URL, split as the WHATWG parser splits it (slashes
/// and backslashes, the last `@`, the port). Only to show the host as written and to tell
/// an encoded address: `ParsedUrl::from_url` keeps it only when `url` reads it as the host.
fn written_host(text: &str) -> Option<&str> {
    let rest = text.split_once(':')?.1.trim_start_matches(['/', '\\']);
    let authority = rest.split(['/', '\\', '?', '#']).next()?;
    let hostport = authority.rsplit('@').next()?;
    match hostport.strip_prefix('[') {
        Some(inner) => Some(&hostport[..inner.find(']')? + 2]),
        None => hostport.split(':').next(),
    }
}

#[cfg(test)]
mod tests {
    use super::host::HostClass;
    use super::*;

    fn read(text: &str) -> (String, HostClass, bool) {
        let p = ParsedUrl::parse(text).expect(text);
        let c = p.classify();
        (p.host, c.class, c.encoded)
    }

    #[test]
    fn hosts_are_the_ones_a_client_dials() {
        use HostClass::*;
        for (text, host, class, encoded) in [
            // Short, hex, octal and decimal IPv4: encoded forms of an address.
            ("http://127.1/", "127.1", Loopback, true),
            ("http://0x7f.0.0.1/", "0x7f.0.0.1", Loopback, true),
            (
                "http://0251.0376.0251.0376/",
                "0251.0376.0251.0376",
                Metadata,
                true,
            ),
            ("http://2852039166/latest", "2852039166", Metadata, true),
            // Percent-encoded, the host is decoded before it is read.
            ("http://%31%32%37.0.0.1/", "%31%32%37.0.0.1", Loopback, true),
            // IPv4-mapped IPv6 is the IPv4 address.
            (
                "http://[::ffff:127.0.0.1]/",
                "::ffff:127.0.0.1",
                Loopback,
                false,
            ),
            (
                "http://[::ffff:a9fe:a9fe]/",
                "::ffff:a9fe:a9fe",
                Metadata,
                false,
            ),
            // The userinfo ends at the last `@`: the host is what follows it.
            ("http://evil.com@127.0.0.1/", "127.0.0.1", Loopback, false),
            ("http://u:p@evil.com@10.0.0.1/", "10.0.0.1", Private, false),
            // A backslash ends the authority as a slash does: the host is a.com.
            ("http://a.com\\@127.0.0.1/", "a.com", Other, false),
            (
                "http://169.254.169.254\\@a.com/",
                "169.254.169.254",
                Metadata,
                false,
            ),
            // A trailing dot names the same host.
            (
                "http://169.254.169.254./",
                "169.254.169.254.",
                Metadata,
                false,
            ),
            ("http://localhost./", "localhost.", Loopback, false),
            (
                "http://METADATA.google.internal/",
                "metadata.google.internal",
                Metadata,
                false,
            ),
            // A scheme `url` does not know keeps its host as written; the resolver reads it.
            (
                "postgres://u@0x0a000001:5432/db",
                "0x0a000001",
                Private,
                true,
            ),
            ("redis://[fe80::1]:6379", "fe80::1", LinkLocal, false),
            // A zone id does not change the class (WHATWG refuses it; curl dials it).
            (
                "http://[fe80::1%25eth0]/",
                "fe80::1%25eth0",
                LinkLocal,
                false,
            ),
        ] {
            assert_eq!(read(text), (host.to_string(), class, encoded), "{text}");
        }
    }

    #[test]
    fn text_a_client_cannot_read_is_no_url() {
        for text in [
            "http://",
            "http://1.2.3.4.5/",
            "http://256.0.0.1/",
            "http://host:99999/",
            "not a url",
            "mailto:a@b.c",
        ] {
            assert_eq!(ParsedUrl::parse(text), None, "{text}");
        }
        assert_eq!(ParsedUrl::http("ftp://h/"), None);
    }
}
