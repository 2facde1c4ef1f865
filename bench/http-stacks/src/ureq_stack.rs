//! ureq 3 with rustls on ring, configured as src/session/http/client.rs configures it
//! (the system's CA bundle, bounded time, no redirects).
use std::io::Read;
use std::sync::Arc;
use std::time::Duration;
use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};

/// As client.rs: the distribution's bundle, parsed at start-up, else ureq's built-in roots.
fn system_roots() -> Option<RootCerts> {
    let pem = std::fs::read("/etc/ssl/certs/ca-certificates.crt").ok()?;
    let certs: Vec<Certificate<'static>> = ureq::tls::parse_pem(&pem)
        .filter_map(|item| match item {
            Ok(PemItem::Certificate(c)) => Some(c),
            _ => None,
        })
        .collect();
    (!certs.is_empty()).then(|| RootCerts::Specific(Arc::new(certs)))
}

/// `n` POSTs of `initialize` to `url`, each answer checked.
pub fn run(url: &str, n: u32) {
    let mut tls = TlsConfig::builder();
    if let Some(roots) = system_roots() {
        tls = tls.root_certs(roots);
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(10)))
        .timeout_connect(Some(Duration::from_secs(10)))
        .timeout_resolve(Some(Duration::from_secs(10)))
        .http_status_as_error(false)
        .max_redirects(0)
        .user_agent("mcpcheck/0.1.0")
        .tls_config(tls.build())
        .build()
        .into();
    for _ in 0..n {
        let response = agent
            .post(url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .send(crate::INITIALIZE.as_bytes())
            .expect("POST");
        let status = response.status().as_u16();
        let mut body = Vec::new();
        response
            .into_body()
            .into_reader()
            .read_to_end(&mut body)
            .expect("read the answer");
        crate::check(status, &body);
    }
}
