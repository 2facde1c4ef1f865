//! `ssrf-reachable-target`: a URL in an entry points at a cloud metadata endpoint, a private,
//! link-local, CGNAT or IPv6 unique-local address, 0.0.0.0, or a `*.internal` name,
//! and any IPv4 host written in decimal, octal, hex or mixed notation, whatever it encodes:
//! the encoding itself is the evasion, so an encoded loopback or public address counts too.

use super::{describe_place, ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::{Finding, Risk};
use crate::net::host::HostClass;
use crate::scan::config_file::ServerEntry;
use crate::scan::urls;

pub struct SsrfReachableTarget;

impl ConfigRule for SsrfReachableTarget {
    fn code(&self) -> Code {
        Code::SsrfReachableTarget
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        for leaf in &server.leaves {
            for url in urls::find_urls(&leaf.value.value) {
                let c = url.parsed.classify();
                // Plain 127.0.0.1 and localhost are the user's own machine; written as
                // 2130706433 or 0x7f000001 they are a filter evasion.
                if !c.encoded && matches!(c.class, HostClass::Loopback | HostClass::Other) {
                    continue;
                }
                let decoded = match (c.encoded, c.ip) {
                    (true, Some(ip)) => format!(
                        " (an encoded form of {ip}; writing an address in decimal, octal or hex is how filters are evaded)"
                    ),
                    _ => String::new(),
                };
                let mut f = cx
                    .finding(
                        Code::SsrfReachableTarget,
                        &leaf.value,
                        format!(
                            "Server {:?}: {} points at {}{decoded}, {}.",
                            crate::finding::excerpt(&server.name, 60),
                            describe_place(server, &leaf.value),
                            crate::finding::excerpt(url.host(), 80),
                            c.class.describe()
                        ),
                    )
                    .evidence(&urls::mask_url(&url.text));
                if c.class == HostClass::Metadata || c.encoded {
                    f = f.risk(Risk::High);
                }
                if c.encoded {
                    f = f.detail("encoded-address");
                }
                out.push(f);
            }
        }
    }
}
