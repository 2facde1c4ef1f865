//! hyper-util's legacy client over hyper-rustls (ring, native roots, HTTP/1), as octocrab's
//! default client builds it, on a tokio current-thread runtime. With `HYPER_ROOTS=bundle`
//! the roots come from the CA bundle file instead, as client.rs reads them for ureq: the
//! cold start of the stack apart from how the roots are found.
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use std::time::Duration;

/// `n` POSTs of `initialize` to `url`, each answer checked.
pub fn run(url: &str, n: u32) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let builder = hyper_rustls::HttpsConnectorBuilder::new();
        let builder = if std::env::var("HYPER_ROOTS").as_deref() == Ok("bundle") {
            builder.with_tls_config(bundle_config())
        } else {
            builder.with_native_roots().expect("native roots")
        };
        let https = builder.https_or_http().enable_http1().build();
        let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build(https);
        for _ in 0..n {
            let request = hyper::Request::post(url)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("User-Agent", "mcpcheck/0.1.0")
                .body(Full::new(Bytes::from_static(crate::INITIALIZE.as_bytes())))
                .expect("request");
            let response = tokio::time::timeout(Duration::from_secs(10), client.request(request))
                .await
                .expect("in time")
                .expect("POST");
            let status = response.status().as_u16();
            let body = response
                .into_body()
                .collect()
                .await
                .expect("read the answer")
                .to_bytes();
            crate::check(status, &body);
        }
    });
}

/// A client config trusting the distribution's CA bundle (one file, parsed at start-up).
fn bundle_config() -> rustls::ClientConfig {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::CertificateDer;
    let mut roots = rustls::RootCertStore::empty();
    if let Ok(certs) = CertificateDer::pem_file_iter("/etc/ssl/certs/ca-certificates.crt") {
        roots.add_parsable_certificates(certs.filter_map(Result::ok));
    }
    rustls::ClientConfig::builder_with_provider(rustls::crypto::ring::default_provider().into())
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_root_certificates(roots)
        .with_no_client_auth()
}
