//! `insecure-transport`: a server reached over cleartext http:// (or ws://) on a host
//! other than this machine.

use super::{describe_place, ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::{Finding, Risk};
use crate::net::host::HostClass;
use crate::scan::config_file::{ServerEntry, Str};
use crate::scan::urls;
use crate::secrets;

pub struct InsecureTransport;

impl ConfigRule for InsecureTransport {
    fn code(&self) -> Code {
        Code::InsecureTransport
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        let mut values: Vec<&Str> = server.url.iter().collect();
        values.extend(server.args.iter());
        let sends_credentials = server
            .headers
            .iter()
            .any(|h| secrets::names_credential(&h.name) || h.name.eq_ignore_ascii_case("cookie"));
        for v in values {
            for url in urls::find_urls(&v.value) {
                if !matches!(url.scheme(), "http" | "ws") {
                    continue;
                }
                let class = url.parsed.classify().class;
                if matches!(class, HostClass::Loopback | HostClass::Unspecified) {
                    continue;
                }
                let is_endpoint = server.url.as_ref().is_some_and(|u| u.pointer == v.pointer);
                let carries = url.parsed.has_userinfo() || (is_endpoint && sends_credentials);
                let mut f = cx
                    .finding(
                        Code::InsecureTransport,
                        v,
                        format!(
                            "Server {:?}: {} uses cleartext {}:// to {}{}; anyone on the network path can read and change the traffic.",
                            crate::finding::excerpt(&server.name, 60),
                            describe_place(server, v),
                            url.scheme(),
                            crate::finding::excerpt(url.host(), 80),
                            if carries { ", with credentials" } else { "" }
                        ),
                    )
                    .evidence(&urls::mask_url(&url.text))
                    .fix(format!("Use {}s:// (TLS) for this host.", url.scheme()));
                if carries {
                    f = f.risk(Risk::High);
                }
                out.push(f);
            }
        }
    }
}
