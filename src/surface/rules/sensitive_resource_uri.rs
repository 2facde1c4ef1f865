//! `sensitive-resource-uri`: a resource or template that points at a credential store.

use super::SurfaceRule;
use crate::catalog::Code;
use crate::finding::Finding;
use crate::lazy_patterns::{Gated, GatedSet};
use crate::surface::item::Item;
use crate::surface::{text, Server};
use std::sync::LazyLock;

pub struct SensitiveResourceUri;

/// `(detail, what, pattern, gate)` over the percent-decoded, lower-cased URI; the gate
/// lists literals a match must contain (see `surface::gate`).
const PLACES: &[(&str, &str, &str, &[&str])] = &[
    (
        "ssh",
        "SSH keys",
        r"/\.ssh(?:/|$)|\bid_(?:rsa|dsa|ecdsa|ed25519)(?:$|[^.\w])",
        &[".ssh", "id_"],
    ),
    (
        "cloud-credentials",
        "cloud or cluster credentials",
        r"/\.aws/(?:credentials|config)\b|/\.config/gcloud/|/\.azure/|/\.kube/config\b|/\.docker/config\.json\b",
        &[".aws/", ".config/gcloud/", ".azure/", ".kube/", ".docker/"],
    ),
    (
        "dotenv",
        "an environment file",
        r"/\.env(?:\.(?:local|production|prod|development|dev|staging|test))?(?:$|[?#])",
        &[".env"],
    ),
    (
        "credential-file",
        "a credential file",
        r"/\.(?:netrc|npmrc|pypirc|git-credentials|pgpass|my\.cnf|htpasswd)(?:$|[?#])|/\.gnupg(?:/|$)|/\.config/gh/hosts\.ya?ml\b|/(?:credentials|client_secrets?|service[-_]account(?:[-_]key)?)\.json(?:$|[?#])|\.kdbx(?:$|[?#])",
        &[
            ".netrc",
            ".npmrc",
            ".pypirc",
            ".git-credentials",
            ".pgpass",
            ".my.cnf",
            ".htpasswd",
            ".gnupg",
            ".config/gh/",
            "credentials.json",
            "client_secret",
            "service-account",
            "service_account",
            ".kdbx",
        ],
    ),
    (
        "system-secret",
        "system password or privilege files",
        r"/etc/(?:shadow|gshadow|sudoers|master\.passwd)(?:$|[?#/])",
        &["/etc/"],
    ),
    (
        "process-environment",
        "a process's environment or memory",
        r"/proc/(?:self|\d+|\{[^}]*\})/(?:environ|mem)\b",
        &["/proc/"],
    ),
    (
        "private-key-file",
        "a private key file",
        r"\.(?:key|p12|pfx|jks|keystore)(?:$|[?#])|(?:private|priv|secret)[\w.-]*\.pem(?:$|[?#])",
        &[".key", ".p12", ".pfx", ".jks", ".keystore", ".pem"],
    ),
    (
        "client-config",
        "an MCP client configuration (other servers' credentials)",
        r"/(?:\.cursor/mcp\.json|claude_desktop_config\.json|\.claude\.json)(?:$|[?#])",
        &["mcp.json", "claude_desktop_config.json", ".claude.json"],
    ),
    (
        "shell-history",
        "shell history",
        r"/\.(?:bash|zsh|sh)_history(?:$|[?#])",
        &["_history"],
    ),
    (
        "metadata-endpoint",
        "a cloud metadata endpoint",
        r"^[a-z][a-z0-9+.-]*://(?:169\.254\.169\.254|metadata\.google\.internal|100\.100\.100\.200|\[fd00:ec2::254\])(?:[:/]|$)",
        &[
            "169.254.169.254",
            "metadata.google.internal",
            "100.100.100.200",
            "fd00:ec2::254",
        ],
    ),
];

static COMPILED: LazyLock<GatedSet> = LazyLock::new(|| {
    let patterns = PLACES
        .iter()
        .map(|(_, _, p, gate)| Gated::new(format!("(?-u){p}"), vec![gate.to_vec()]))
        .collect();
    GatedSet::new(patterns, false)
});

/// `%2e%73%73%68` → `.ssh`; invalid escapes stay as they are.
fn percent_decode(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Public keys and known hosts live in ~/.ssh too, and are not secrets.
fn public_ssh_file(uri: &str) -> bool {
    let path = uri.split(['?', '#']).next().unwrap_or(uri);
    let last = path.rsplit('/').next().unwrap_or(path);
    last.ends_with(".pub") || last == "known_hosts"
}

fn inspect(item: &Item<'_>, key: &str, out: &mut Vec<Finding>) {
    let Some(field) = item.fields.iter().find(|f| !f.is_key && f.pointer == key) else {
        return;
    };
    // Windows paths: match `C:\Users\me\.ssh` like `/Users/me/.ssh`.
    let decoded = percent_decode(&field.text).replace('\\', "/");
    // Lower-cased in ASCII only, so offsets stay those of `decoded`.
    let lower = decoded.to_ascii_lowercase();
    let Some((detail, what, at)) = COMPILED
        .candidates(lower.as_bytes())
        .into_iter()
        .find_map(|i| {
            let (d, w, ..) = PLACES[i];
            let m = COMPILED.patterns[i].regex()?.find(lower.as_bytes())?;
            Some((d, w, m.start()))
        })
        .filter(|(d, _, _)| !(*d == "ssh" && public_ssh_file(&lower)))
    else {
        return;
    };
    out.push(
        Finding::new(
            Code::SensitiveResourceUri,
            format!(
                "The {key} of {} points at {what}: any client may read it and hand it to the model.",
                item.label()
            ),
        )
        .detail(detail)
        .at(item.location(&field.pointer))
        .evidence(&text::evidence(&decoded, at)),
    );
}

impl SurfaceRule for SensitiveResourceUri {
    fn code(&self) -> Code {
        Code::SensitiveResourceUri
    }

    fn in_guard(&self) -> bool {
        true
    }

    fn check_resource(&self, _server: &Server<'_>, res: &Item<'_>, out: &mut Vec<Finding>) {
        inspect(res, "uri", out);
    }

    fn check_resource_template(&self, _: &Server<'_>, template: &Item<'_>, out: &mut Vec<Finding>) {
        inspect(template, "uriTemplate", out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::rules::test_support::run;
    use crate::surface::ServerSurface;
    use serde_json::json;

    fn details(uris: &[&str], templates: &[&str]) -> Vec<(String, String)> {
        let surface = ServerSurface {
            server: "srv".into(),
            resources: uris.iter().map(|u| json!({"uri": u, "name": u})).collect(),
            resource_templates: templates
                .iter()
                .map(|u| json!({"uriTemplate": u, "name": "t"}))
                .collect(),
            ..ServerSurface::default()
        };
        run("sensitive-resource-uri", &[surface])
            .into_iter()
            .map(|f| {
                (
                    f.detail_code.unwrap_or_default().to_string(),
                    f.location.logical.unwrap_or_default(),
                )
            })
            .collect()
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(COMPILED.all_compile());
    }

    #[test]
    fn finds_credential_stores() {
        for (uri, detail) in [
            ("file:///home/ada/.ssh/id_ed25519", "ssh"),
            ("file:///home/ada/%2Essh/config", "ssh"),
            ("file:///srv/app/.env", "dotenv"),
            ("file:///srv/app/.env.production", "dotenv"),
            ("file:///root/.aws/credentials", "cloud-credentials"),
            ("file:///etc/shadow", "system-secret"),
            ("file:///proc/self/environ", "process-environment"),
            ("file:///srv/tls/server.key", "private-key-file"),
            ("file:///home/ada/.cursor/mcp.json", "client-config"),
            (
                "http://169.254.169.254/latest/meta-data/",
                "metadata-endpoint",
            ),
            ("file:///home/ada/.netrc", "credential-file"),
            ("file:///C:\\Users\\ada\\.ssh\\id_rsa", "ssh"),
            ("file:///srv/app/service-account.json", "credential-file"),
        ] {
            assert_eq!(
                details(&[uri], &[]),
                [(
                    detail.to_string(),
                    format!(
                        "servers/srv/resources/{}/uri",
                        crate::surface::item::segment(uri)
                    )
                )],
                "{uri}"
            );
        }
        assert_eq!(
            details(&[], &["file:///home/{user}/.ssh/{key}"]),
            [(
                "ssh".to_string(),
                "servers/srv/resourceTemplates/t/uriTemplate".to_string()
            )]
        );
    }

    #[test]
    fn leaves_look_alikes_alone() {
        let benign = [
            "file:///srv/app/.env.example",
            "file:///home/ada/.ssh-notes.md",
            "file:///home/ada/.ssh/id_ed25519.pub",
            "file:///srv/app/environment.md",
            "file:///etc/passwd.md",
            "file:///srv/tls/cert.pem",
            "demo://resource/static/document/architecture.md",
            "memory://knowledge-graph",
            "https://example.com/keys",
        ];
        assert_eq!(
            details(&benign, &["file:///fixture/notes/{name}.txt"]),
            vec![]
        );
    }
}
