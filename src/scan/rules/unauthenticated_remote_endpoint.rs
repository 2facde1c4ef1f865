//! `unauthenticated-remote-endpoint`: a remote server configured with no credentials
//! (header, URL) and no OAuth block. Low: it may rely on OAuth discovery. Reported at the
//! entry, where the missing headers or OAuth settings would go; the URL is in the message.

use super::{ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::net::host::HostClass;
use crate::scan::config_file::ServerEntry;
use crate::scan::urls;
use crate::secrets::{self, is_credential_param};

pub struct UnauthenticatedRemoteEndpoint;

impl ConfigRule for UnauthenticatedRemoteEndpoint {
    fn code(&self) -> Code {
        Code::UnauthenticatedRemoteEndpoint
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        if !server.is_remote() || server.has_auth_block {
            return;
        }
        let Some(url_value) = &server.url else { return };
        let Some(url) = urls::parse(url_value.value.trim()) else {
            return;
        };
        if url.parsed.classify().class == HostClass::Loopback {
            return;
        }
        let header_auth = server.headers.iter().any(|h| {
            let n = h.name.to_ascii_lowercase();
            secrets::names_credential(&h.name)
                || n == "cookie"
                || n.starts_with("x-api")
                || n.contains("key")
        });
        let url_auth = url.parsed.has_userinfo()
            || url
                .query_pairs()
                .iter()
                .any(|(name, _)| is_credential_param(name));
        let env_auth = server
            .env
            .iter()
            .any(|e| secrets::names_credential(&e.name));
        if header_auth || url_auth || env_auth {
            return;
        }
        out.push(
            Finding::new(
                Code::UnauthenticatedRemoteEndpoint,
                format!(
                    "Remote server {:?} at {} is configured with no credentials and no OAuth settings.",
                    crate::finding::excerpt(&server.name, 60),
                    crate::finding::excerpt(url.host(), 80)
                ),
            )
            .at(cx.file.location(&server.pointer, server.span))
            .evidence(&urls::mask_url(&url_value.value)),
        );
    }
}
