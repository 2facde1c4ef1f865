//! `credential-in-url`: a password in a URL's userinfo, or a token in its query string.

use super::{describe_place, ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::scan::config_file::ServerEntry;
use crate::scan::{secrets, urls};

pub struct CredentialInUrl;

impl ConfigRule for CredentialInUrl {
    fn code(&self) -> Code {
        Code::CredentialInUrl
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        for leaf in &server.leaves {
            for url in urls::find_urls(&leaf.value.value) {
                let mut what = Vec::new();
                match url.parsed.password() {
                    Some(pass) if is_literal(&pass) => {
                        what.push("a password in user:password@".to_string())
                    }
                    None if !crate::secrets::find_tokens(&url.parsed.username()).is_empty() => {
                        what.push("a token as the user name".to_string())
                    }
                    _ => {}
                }
                for (name, value) in url.query_pairs() {
                    if crate::secrets::is_credential_param(&name) && is_literal(&value) {
                        what.push(format!(
                            "the query parameter {}",
                            crate::finding::excerpt(&name, 40)
                        ));
                    }
                }
                if what.is_empty() {
                    continue;
                }
                out.push(
                    cx.finding(
                        Code::CredentialInUrl,
                        &leaf.value,
                        format!(
                            "Server {:?}: the URL in {} carries {}; URLs end up in logs, proxies and process listings.",
                            crate::finding::excerpt(&server.name, 60),
                            describe_place(server, &leaf.value),
                            what.join(" and ")
                        ),
                    )
                    .evidence(&urls::mask_url(&url.text)),
                );
            }
        }
    }
}

/// A value that is literally there, not empty and not an environment reference.
fn is_literal(value: &str) -> bool {
    !value.is_empty() && !secrets::is_reference(value) && !value.starts_with("%24%7B")
}
