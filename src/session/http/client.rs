//! The one HTTP client setup (registry look-ups, remote listing, the guard over HTTP):
//! bounded time, no redirects, and the system's trusted CAs (SSL_CERT_FILE or the
//! distribution bundle), so a network behind a corporate CA works as it does for curl and npm.

use std::sync::Arc;
use std::time::Duration;
use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};

/// Where distributions keep their CA bundle.
const SYSTEM_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/cert.pem",
    "/etc/ssl/ca-bundle.pem",
];

/// Certificates from SSL_CERT_FILE or the system bundle; `None` falls back to built-in roots.
fn system_roots() -> Option<RootCerts> {
    let candidates = std::env::var("SSL_CERT_FILE")
        .ok()
        .filter(|p| !p.is_empty())
        .into_iter()
        .chain(SYSTEM_BUNDLES.iter().map(|s| s.to_string()));
    for path in candidates {
        let Ok(pem) = std::fs::read(&path) else {
            continue;
        };
        let certs: Vec<Certificate<'static>> = ureq::tls::parse_pem(&pem)
            .filter_map(|item| match item {
                Ok(PemItem::Certificate(c)) => Some(c),
                _ => None,
            })
            .collect();
        if !certs.is_empty() {
            return Some(RootCerts::Specific(Arc::new(certs)));
        }
    }
    None
}

pub fn agent(timeout: Duration, connect_timeout: Duration) -> ureq::Agent {
    let mut tls = TlsConfig::builder();
    if let Some(roots) = system_roots() {
        tls = tls.root_certs(roots);
    }
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .timeout_connect(Some(connect_timeout))
        .timeout_resolve(Some(connect_timeout))
        .http_status_as_error(false)
        // A redirect could lead anywhere, including addresses --live refuses to dial.
        .max_redirects(0)
        .user_agent(concat!("mcpcheck/", env!("CARGO_PKG_VERSION")))
        .tls_config(tls.build())
        .build()
        .into()
}
