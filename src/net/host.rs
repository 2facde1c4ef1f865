//! What a host is, for SSRF and transport checks: loopback, cloud metadata, private,
//! link-local, CGNAT, ULA, `*.internal`, and IPv4 addresses written in encoded forms.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use url::Host;

/// What a host is, for SSRF and transport rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostClass {
    Loopback,
    /// A cloud instance metadata endpoint.
    Metadata,
    LinkLocal,
    Private,
    /// Carrier-grade NAT, 100.64.0.0/10.
    Cgnat,
    /// IPv6 unique local, fc00::/7.
    UniqueLocal,
    /// 0.0.0.0 or ::, "this host" on most stacks.
    Unspecified,
    /// A `*.internal` name.
    InternalName,
    /// Anything else: public addresses and ordinary names.
    Other,
}

impl HostClass {
    pub fn describe(self) -> &'static str {
        match self {
            HostClass::Loopback => "a loopback address",
            HostClass::Metadata => "a cloud metadata endpoint",
            HostClass::LinkLocal => "a link-local address",
            HostClass::Private => "a private network address",
            HostClass::Cgnat => "a carrier-grade NAT address (100.64.0.0/10)",
            HostClass::UniqueLocal => "an IPv6 unique local address (fc00::/7)",
            HostClass::Unspecified => "the unspecified address (this host, on most systems)",
            HostClass::InternalName => "an internal (*.internal) name",
            HostClass::Other => "a public host",
        }
    }
}

/// A classified host. `encoded` is set when an IPv4 address was written in a
/// non-canonical form (decimal, octal, hex, or fewer than four parts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Classified {
    pub class: HostClass,
    pub encoded: bool,
    pub ip: Option<std::net::IpAddr>,
}

pub fn classify(host: &str) -> Classified {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let plain = |class| Classified {
        class,
        encoded: false,
        ip: None,
    };
    if host == "localhost" || host.ends_with(".localhost") {
        return plain(HostClass::Loopback);
    }
    if matches!(
        host.as_str(),
        "metadata" | "metadata.google.internal" | "metadata.goog" | "instance-data"
    ) || host == "instance-data.ec2.internal"
    {
        return plain(HostClass::Metadata);
    }
    if host.ends_with(".internal") || host == "internal" {
        return plain(HostClass::InternalName);
    }
    // Zone ids (fe80::1%eth0, %25 when percent-encoded) do not change the class.
    let bare = host.split('%').next().unwrap_or(&host);
    if let Ok(v6) = bare.parse::<Ipv6Addr>() {
        return classify_ip(IpAddr::V6(v6));
    }
    match parse_ipv4_loose(&host) {
        Some((v4, canonical)) => classify_v4(v4, !canonical),
        None => plain(HostClass::Other),
    }
}

/// A host as the `url` crate read it; `written` is its text in the URL, which tells an
/// address written in decimal, octal, hex or fewer parts (`url` reads them all as IPv4).
pub fn classify_host(host: &Host<&str>, written: &str) -> Classified {
    match host {
        Host::Ipv4(ip) => classify_v4(*ip, written.trim_end_matches('.') != ip.to_string()),
        Host::Ipv6(ip) => classify_ip(IpAddr::V6(*ip)),
        // An opaque host (a scheme `url` does not know, such as postgres://) is passed to the
        // resolver as written, and inet_aton reads numbers in it as IPv4.
        Host::Domain(name) => {
            classify(&percent_encoding::percent_decode_str(name).decode_utf8_lossy())
        }
    }
}

/// An address (one a name resolved to, or a literal).
pub fn classify_ip(ip: IpAddr) -> Classified {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4, false),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => Classified {
                ip: Some(ip),
                ..classify_v4(v4, false)
            },
            None => Classified {
                class: classify_v6(v6),
                encoded: false,
                ip: Some(ip),
            },
        },
    }
}

fn classify_v4(ip: Ipv4Addr, encoded: bool) -> Classified {
    let o = ip.octets();
    let class = if matches!(
        o,
        [169, 254, 169, 254] | [169, 254, 170, 2] | [100, 100, 100, 200] | [192, 0, 0, 192]
    ) {
        HostClass::Metadata
    } else if o[0] == 127 {
        HostClass::Loopback
    } else if o[0] == 0 {
        HostClass::Unspecified
    } else if o[0] == 169 && o[1] == 254 {
        HostClass::LinkLocal
    } else if o[0] == 10
        || (o[0] == 172 && (16..=31).contains(&o[1]))
        || (o[0] == 192 && o[1] == 168)
    {
        HostClass::Private
    } else if o[0] == 100 && (64..=127).contains(&o[1]) {
        HostClass::Cgnat
    } else {
        HostClass::Other
    };
    Classified {
        class,
        encoded,
        ip: Some(ip.into()),
    }
}

fn classify_v6(ip: Ipv6Addr) -> HostClass {
    let s = ip.segments();
    if ip.is_loopback() {
        HostClass::Loopback
    } else if ip.is_unspecified() {
        HostClass::Unspecified
    } else if s == [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254] {
        HostClass::Metadata
    } else if s[0] & 0xffc0 == 0xfe80 {
        HostClass::LinkLocal
    } else if s[0] & 0xfe00 == 0xfc00 {
        HostClass::UniqueLocal
    } else {
        HostClass::Other
    }
}

/// Parses an IPv4 address the way `inet_aton` does (and so do browsers and HTTP
/// clients): one to four parts, each decimal, octal (leading 0) or hex (0x).
/// Returns the address and whether it was written canonically (a.b.c.d, decimal).
pub fn parse_ipv4_loose(host: &str) -> Option<(Ipv4Addr, bool)> {
    let parts: Vec<&str> = host.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut values = Vec::with_capacity(parts.len());
    let mut canonical = parts.len() == 4;
    for p in &parts {
        let (digits, radix) = if let Some(h) = p.strip_prefix("0x").or_else(|| p.strip_prefix("0X"))
        {
            (h, 16)
        } else if p.len() > 1 && p.starts_with('0') {
            (&p[1..], 8)
        } else {
            (*p, 10)
        };
        if radix != 10 {
            canonical = false;
        }
        if digits.is_empty() && radix == 16 {
            values.push(0u64);
            continue;
        }
        if digits.is_empty() || digits.len() > 12 {
            return None;
        }
        values.push(u64::from_str_radix(digits, radix).ok()?);
    }
    let (last, head) = values.split_last()?;
    if head.iter().any(|v| *v > 255) {
        return None;
    }
    let last_bits = 8 * (4 - head.len() as u32);
    if *last >= 1u64 << last_bits {
        return None;
    }
    let mut n: u64 = 0;
    for (i, v) in head.iter().enumerate() {
        n |= v << (24 - 8 * i as u32);
    }
    n |= last;
    Some((Ipv4Addr::from(n as u32), canonical))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_ipv4_forms_decode() {
        let metadata = Ipv4Addr::new(169, 254, 169, 254);
        for form in [
            "2852039166",
            "0xa9fea9fe",
            "0251.0376.0251.0376",
            "0xA9.0xFE.0xA9.0xFE",
            "169.254.43518",
        ] {
            assert_eq!(parse_ipv4_loose(form), Some((metadata, false)), "{form}");
            assert_eq!(classify(form).class, HostClass::Metadata, "{form}");
        }
        assert_eq!(
            parse_ipv4_loose("10.0.0.1"),
            Some((Ipv4Addr::new(10, 0, 0, 1), true))
        );
        assert_eq!(parse_ipv4_loose("1.2.3.4.5"), None);
        assert_eq!(parse_ipv4_loose("example"), None);
        assert_eq!(parse_ipv4_loose("256.1.1.1"), None);
    }

    #[test]
    fn classes() {
        assert_eq!(classify("127.0.0.1").class, HostClass::Loopback);
        assert_eq!(classify("localhost").class, HostClass::Loopback);
        assert_eq!(classify("::1").class, HostClass::Loopback);
        assert_eq!(classify("10.1.2.3").class, HostClass::Private);
        assert_eq!(classify("172.31.0.1").class, HostClass::Private);
        assert_eq!(classify("172.32.0.1").class, HostClass::Other);
        assert_eq!(classify("100.64.0.1").class, HostClass::Cgnat);
        assert_eq!(classify("100.128.0.1").class, HostClass::Other);
        assert_eq!(classify("fd12:3456::1").class, HostClass::UniqueLocal);
        assert_eq!(classify("fe80::1%25eth0").class, HostClass::LinkLocal);
        assert_eq!(
            classify("::ffff:169.254.169.254").class,
            HostClass::Metadata
        );
        assert_eq!(classify("0.0.0.0").class, HostClass::Unspecified);
        assert_eq!(classify("db.internal").class, HostClass::InternalName);
        assert_eq!(
            classify("internal-tools.example.com").class,
            HostClass::Other
        );
        assert_eq!(
            classify("metadata.google.internal").class,
            HostClass::Metadata
        );
    }
}
