//! Static rules on client configs, one file each. A rule overrides only the hooks it needs.

mod config_file_exposure;
mod credential_in_url;
mod deprecated_package;
mod filesystem_root_access;
mod hardcoded_secret;
mod high_entropy_secret;
mod insecure_transport;
mod invalid_server_entry;
mod listens_on_all_interfaces;
mod remote_script_execution;
mod shell_command_wrapper;
mod ssrf_reachable_target;
mod tls_verification_disabled;
mod unauthenticated_remote_endpoint;
mod unknown_server_entry;
mod unpinned_package;
mod vulnerable_package;

use super::config_file::{ConfigFile, ServerEntry, Str};
use super::package_registry::RegistryFacts;
use crate::catalog::Code;
use crate::finding::Finding;

/// What a rule may read besides the entry.
pub struct RuleContext<'a> {
    pub file: &'a ConfigFile,
    /// Registry facts, present only with `--registry`.
    pub registry: Option<&'a RegistryFacts>,
    /// Advisory facts, present only with `--advisories`.
    pub advisories: Option<&'a super::advisories::AdvisoryFacts>,
}

impl RuleContext<'_> {
    /// A finding of `code` at a config value.
    pub fn finding(&self, code: Code, at: &Str, message: impl Into<String>) -> Finding {
        Finding::new(code, message).at(self.file.at(at))
    }
}

pub trait ConfigRule: Sync {
    fn code(&self) -> Code;

    /// Other codes this rule reports (selected and ignored on their own).
    fn also_reports(&self) -> &'static [Code] {
        &[]
    }

    /// Once per file, for problems outside any one server.
    fn check_file(&self, _cx: &RuleContext<'_>, _out: &mut Vec<Finding>) {}

    /// Once per server entry (understood or not).
    fn check_server(&self, _cx: &RuleContext<'_>, _server: &ServerEntry, _out: &mut Vec<Finding>) {}
}

/// Every config rule. Adding a rule = one file + one line here.
pub fn registry() -> Vec<&'static dyn ConfigRule> {
    vec![
        &hardcoded_secret::HardcodedSecret,
        &high_entropy_secret::HighEntropySecret,
        &credential_in_url::CredentialInUrl,
        &shell_command_wrapper::ShellCommandWrapper,
        &remote_script_execution::RemoteScriptExecution,
        &unpinned_package::UnpinnedPackage,
        &deprecated_package::DeprecatedPackage,
        &vulnerable_package::VulnerablePackage,
        &filesystem_root_access::FilesystemRootAccess,
        &insecure_transport::InsecureTransport,
        &ssrf_reachable_target::SsrfReachableTarget,
        &tls_verification_disabled::TlsVerificationDisabled,
        &unauthenticated_remote_endpoint::UnauthenticatedRemoteEndpoint,
        &listens_on_all_interfaces::ListensOnAllInterfaces,
        &invalid_server_entry::InvalidServerEntry,
        &unknown_server_entry::UnknownServerEntry,
        &config_file_exposure::ConfigFileExposure,
    ]
}

/// Runs the selected rules on one file.
pub fn check(cx: &RuleContext<'_>, selected: &dyn Fn(Code) -> bool) -> Vec<Finding> {
    let mut out = Vec::new();
    for rule in registry()
        .into_iter()
        .filter(|r| selected(r.code()) || r.also_reports().iter().any(|c| selected(*c)))
    {
        rule.check_file(cx, &mut out);
        for server in &cx.file.servers {
            rule.check_server(cx, server, &mut out);
        }
    }
    out.retain(|f| selected(f.code));
    out
}

/// Where a value sits in its entry, for messages: `env GITHUB_TOKEN`, `args[2]`, `url`.
pub fn describe_place(server: &ServerEntry, value: &Str) -> String {
    let rel = value
        .pointer
        .strip_prefix(&server.pointer)
        .unwrap_or(&value.pointer)
        .trim_start_matches('/');
    let unescape = |s: &str| s.replace("~1", "/").replace("~0", "~");
    let mut parts = rel.splitn(2, '/');
    let head = parts.next().unwrap_or("");
    let rest = parts.next().map(unescape);
    match (head, rest) {
        ("env", Some(name)) => format!("env {name}"),
        ("headers", Some(name)) => format!("header {name}"),
        ("args", Some(i)) => format!("args[{i}]"),
        ("", _) => "the entry".into(),
        (h, None) => unescape(h),
        (h, Some(r)) => format!("{} {r}", unescape(h)),
    }
}

/// A value's own text after `--option=`, or the value itself.
pub fn option_value(arg: &str) -> (&str, Option<&str>) {
    match arg.split_once('=') {
        Some((name, value)) if name.starts_with('-') => (name, Some(value)),
        _ => (arg, None),
    }
}
