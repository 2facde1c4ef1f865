//! `--live` for a remote entry: whether to dial it (the connect policy), and the session
//! target it is listed through. The listing itself is the session layer's, as for stdio.

use super::config_file::{ServerEntry, Transport};
use super::{secrets, urls};
use crate::net::host::HostClass;
use crate::net::policy::ConnectPolicy;
use crate::process::ServerCommand;
use crate::secrets::{is_credential_param, names_credential};
use crate::session::http::{HttpFact, HttpTarget};
use crate::session::transcript::{Outcome, Transcript};

/// Why a remote entry is not dialled (shown as the listing's "not asked" reason).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotAsked(pub String);

/// A remote server to list, and what the connect policy needs to judge it again once its
/// name is resolved.
#[derive(Debug, Clone)]
pub struct RemoteTarget {
    pub session: HttpTarget,
    pub carries_credentials: bool,
    pub allow_unsafe: bool,
}

/// `scan --live`'s connect policy; names are resolved on the listing's own task, so a slow
/// resolver never holds up planning.
fn policy(allow_unsafe: bool, resolve_names: bool) -> ConnectPolicy {
    ConnectPolicy {
        allow_unsafe,
        resolve_names,
        hint: "pass --live-allow-unsafe to allow it",
    }
}

/// Decides whether to dial a remote entry; `Err` says why it is not asked.
pub fn plan(
    entry: &ServerEntry,
    allow_unsafe: bool,
) -> Result<(RemoteTarget, Vec<String>), NotAsked> {
    let Some(url) = &entry.url else {
        return Err(NotAsked("no url".into()));
    };
    let parsed = urls::parse(url.value.trim()).ok_or(NotAsked("the url has no host".into()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(NotAsked(format!(
            "{}:// is not an HTTP URL",
            crate::finding::excerpt(parsed.scheme(), 20)
        )));
    }
    let mut headers = Vec::new();
    let mut withheld = Vec::new();
    for h in &entry.headers {
        if secrets::without_references(&h.value.value) != h.value.value {
            withheld.push(h.name.clone());
        } else {
            headers.push((h.name.clone(), h.value.value.clone()));
        }
    }
    let credentials = parsed.parsed.has_userinfo()
        || headers
            .iter()
            .any(|(n, _)| names_credential(n) || n.eq_ignore_ascii_case("cookie"))
        || parsed
            .query_pairs()
            .iter()
            .any(|(name, _)| is_credential_param(name));
    if let Some(why) = policy(allow_unsafe, false).refusal(&url.value, credentials) {
        return Err(NotAsked(why));
    }
    let local = matches!(
        parsed.parsed.classify().class,
        HostClass::Loopback | HostClass::Private | HostClass::LinkLocal | HostClass::UniqueLocal
    );
    let session = HttpTarget {
        url: url.value.trim().to_string(),
        headers,
        local,
        // Without transport probes nothing is fetched from another origin; were it, the
        // same policy would judge it.
        dial_policy: Some(policy(allow_unsafe, true).dial_policy()),
        legacy_sse: entry.transport == Some(Transport::Sse),
        // Listing only: no Origin, version or session probes.
        transport_probes: false,
    };
    Ok((
        RemoteTarget {
            session,
            carries_credentials: credentials,
            allow_unsafe,
        },
        withheld,
    ))
}

impl RemoteTarget {
    /// Why not to dial, judged on every address the name resolves to. Blocking.
    pub fn refusal(&self) -> Option<String> {
        policy(self.allow_unsafe, true).refusal(&self.session.url, self.carries_credentials)
    }

    /// What the session is handed for a command: the URL, credentials masked.
    pub fn placeholder(&self) -> ServerCommand {
        ServerCommand {
            program: crate::secrets::redact(&self.session.url),
            args: Vec::new(),
            cwd: None,
            env: Vec::new(),
            clear_env: false,
            unset_env: Vec::new(),
        }
    }
}

/// Why a remote server's `initialize` got no answer, from what HTTP did; else the session's
/// own reason (the legacy transport's endpoint problems, for one).
pub fn initialize_unanswered(t: &Transcript, outcome: &Outcome) -> String {
    let mut facts = t.http.iter().flat_map(|h| &h.facts);
    let from_http = facts.find_map(|fact| match fact {
        // GET opens the legacy transport's stream, before initialize.
        HttpFact::Unreachable { method, cause } if method == "initialize" || method == "GET" => {
            Some(crate::finding::excerpt(
                &format!("HTTP request failed: {}", cause.message),
                200,
            ))
        }
        HttpFact::Refused {
            method,
            status,
            message,
        } if method == "initialize" => Some(format!("initialize: HTTP status {status}: {message}")),
        HttpFact::Status { method, status } if method == "initialize" => {
            Some(format!("initialize: HTTP status {status}"))
        }
        HttpFact::Unauthorized { .. } => Some("initialize: HTTP status 401 (unauthorized)".into()),
        _ => None,
    });
    if let Some(reason) = from_http {
        return reason;
    }
    match outcome {
        Outcome::SendFailed(e) => crate::finding::excerpt(e, 200),
        Outcome::Timeout => "no answer to initialize in time".into(),
        _ => "no answer to initialize".into(),
    }
}
