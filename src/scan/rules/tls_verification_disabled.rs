//! `tls-verification-disabled`: certificate checks turned off through the environment
//! (NODE_TLS_REJECT_UNAUTHORIZED=0, PYTHONHTTPSVERIFY=0…) or a flag (--insecure…).

use super::{describe_place, option_value, ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::scan::config_file::{ServerEntry, Str};

pub struct TlsVerificationDisabled;

const FLAGS: &[&str] = &[
    "--insecure",
    "--no-check-certificate",
    "--no-verify-ssl",
    "--ignore-certificate-errors",
    "--ignore-ssl-errors",
    "--skip-tls-verify",
    "--tls-skip-verify",
    "--insecure-skip-tls-verify",
    "--disable-ssl-verification",
    "--disable-tls-verification",
    "--ssl-no-verify",
    "--no-ssl-verify",
    "--no-tls-verify",
    "--allow-insecure",
    "--trust-all-certs",
    "--accept-invalid-certs",
    "--danger-accept-invalid-certs",
    "--insecure-tls",
];
/// Options that turn verification off when set to false.
const VERIFY_OPTIONS: &[&str] = &[
    "--verify",
    "--ssl-verify",
    "--verify-ssl",
    "--tls-verify",
    "--tls-verification",
    "--check-certificate",
    "--strict-ssl",
    "--reject-unauthorized",
    "--verify-certificates",
];

/// Boolean settings (any client's or server's own) that turn verification off.
fn flag_disables(key: &str, value: bool) -> bool {
    let k: String = key
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    const OFF_WHEN_FALSE: &[&str] = &[
        "rejectunauthorized",
        "verify",
        "verifyssl",
        "sslverify",
        "tlsverify",
        "verifytls",
        "strictssl",
        "checkcertificate",
        "verifycertificate",
        "verifycertificates",
        "tlsverification",
        "sslverification",
    ];
    const OFF_WHEN_TRUE: &[&str] = &[
        "insecure",
        "skipverify",
        "skiptlsverify",
        "tlsskipverify",
        "insecureskipverify",
        "allowinsecure",
        "ignorecertificateerrors",
        "ignoresslerrors",
        "disablesslverification",
        "disabletlsverification",
        "trustallcerts",
        "acceptinvalidcerts",
        "dangerouslyacceptinvalidcerts",
    ];
    (!value && OFF_WHEN_FALSE.contains(&k.as_str()))
        || (value && OFF_WHEN_TRUE.contains(&k.as_str()))
}

fn truthy(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

fn falsy(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "0" | "false" | "no" | "off"
    )
}

/// Why an environment variable disables verification, if it does.
fn env_disables(name: &str, value: &str) -> bool {
    let n = name.to_ascii_uppercase();
    match n.as_str() {
        "NODE_TLS_REJECT_UNAUTHORIZED" | "PYTHONHTTPSVERIFY" => falsy(value),
        "GIT_SSL_NO_VERIFY" | "CURL_INSECURE" => truthy(value) || value.is_empty(),
        "REQUESTS_CA_BUNDLE" | "CURL_CA_BUNDLE" => value.trim().is_empty(),
        "NPM_CONFIG_STRICT_SSL" | "YARN_STRICT_SSL" => falsy(value),
        _ => {
            let off = (n.contains("INSECURE")
                || (n.contains("SKIP")
                    && (n.contains("VERIFY") || n.contains("TLS") || n.contains("SSL"))))
                && truthy(value);
            let no_verify = (n.ends_with("VERIFY")
                || n.ends_with("VERIFY_SSL")
                || n.ends_with("VERIFY_TLS")
                || n.ends_with("SSL_VERIFY")
                || n.ends_with("TLS_VERIFY")
                || n.ends_with("REJECT_UNAUTHORIZED"))
                && falsy(value);
            off || no_verify
        }
    }
}

impl ConfigRule for TlsVerificationDisabled {
    fn code(&self) -> Code {
        Code::TlsVerificationDisabled
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        let mut report = |at: &Str, shown: String| {
            out.push(
                cx.finding(
                    Code::TlsVerificationDisabled,
                    at,
                    format!(
                        "Server {:?}: {} turns off TLS certificate verification, so any machine on the path can impersonate the servers it talks to.",
                        crate::finding::excerpt(&server.name, 60),
                        describe_place(server, at)
                    ),
                )
                .evidence(&shown),
            );
        };
        for env in &server.env {
            if env_disables(&env.name, &env.value.value) {
                report(
                    &env.value,
                    format!(
                        "{}={}",
                        crate::finding::excerpt(&env.name, 60),
                        crate::finding::excerpt(&env.value.value, 20)
                    ),
                );
            }
        }
        for flag in &server.flags {
            if flag
                .key
                .as_deref()
                .is_some_and(|k| flag_disables(k, flag.value))
            {
                let at = Str {
                    value: flag.value.to_string(),
                    pointer: flag.pointer.clone(),
                    span: flag.span,
                };
                let key = flag.key.as_deref().unwrap_or("");
                report(
                    &at,
                    format!("{}: {}", crate::finding::excerpt(key, 60), flag.value),
                );
            }
        }
        for arg in &server.args {
            let (name, inline) = option_value(&arg.value);
            let lower = name.to_ascii_lowercase();
            let flagged = match inline {
                None => FLAGS.contains(&lower.as_str()),
                Some(v) => {
                    (FLAGS.contains(&lower.as_str()) && truthy(v))
                        || (VERIFY_OPTIONS.contains(&lower.as_str()) && falsy(v))
                }
            };
            if flagged {
                report(arg, crate::finding::excerpt(&arg.value, 60));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::env_disables;

    #[test]
    fn boolean_settings() {
        assert!(super::flag_disables("rejectUnauthorized", false));
        assert!(!super::flag_disables("rejectUnauthorized", true));
        assert!(super::flag_disables("insecure_skip_verify", true));
        assert!(!super::flag_disables("insecure", false));
        assert!(!super::flag_disables("disabled", true));
    }

    #[test]
    fn environment_settings() {
        assert!(env_disables("NODE_TLS_REJECT_UNAUTHORIZED", "0"));
        assert!(!env_disables("NODE_TLS_REJECT_UNAUTHORIZED", "1"));
        assert!(env_disables("PYTHONHTTPSVERIFY", "0"));
        assert!(env_disables("GIT_SSL_NO_VERIFY", "true"));
        assert!(env_disables("REQUESTS_CA_BUNDLE", ""));
        assert!(!env_disables("REQUESTS_CA_BUNDLE", "/etc/ssl/ca.pem"));
        assert!(!env_disables("NODE_EXTRA_CA_CERTS", "/etc/ssl/corp.pem"));
        assert!(env_disables("API_INSECURE", "true"));
        assert!(!env_disables("API_INSECURE", "false"));
        assert!(env_disables("SSL_VERIFY", "false"));
    }
}
