//! The connect policy of `scan --live`, for a URL the guard is asked to dial (`guard --url`,
//! the Action's `url` input): loopback is fine; private, link-local and metadata addresses,
//! and credentials over cleartext, need the caller's explicit allowance.

use crate::session::http::HttpTarget;

/// Why the target must not be dialled, ending with `hint` (how to allow it, if one can).
pub fn refusal(target: &HttpTarget, allow_unsafe: bool, hint: &str) -> Option<String> {
    let credentials = target.url.contains('@')
        || target
            .headers
            .iter()
            .any(|(n, _)| crate::secrets::names_credential(n) || n.eq_ignore_ascii_case("cookie"));
    super::live::refuse_remote(&target.url, credentials, allow_unsafe, true)
        .map(|why| why.replace("pass --live-allow-unsafe to allow it", hint))
}

/// The same policy for URLs the target leads to on other origins (its authorization
/// metadata): they are fetched without credentials, so only the address is judged.
pub fn dial_policy(allow_unsafe: bool, hint: &'static str) -> crate::session::http::DialPolicy {
    crate::session::http::DialPolicy(std::sync::Arc::new(move |url: &str| {
        super::live::refuse_remote(url, false, allow_unsafe, true)
            .map(|why| why.replace("pass --live-allow-unsafe to allow it", hint))
    }))
}
