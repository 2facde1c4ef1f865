//! What the server sends unasked, judged the same way by the guard and the proxy: requests
//! for client capabilities the client never declared.

use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location, Severity};
use serde_json::Value;

/// The client capability a server request needs, for the requests the spec gates on one.
/// `ping` and methods the spec does not define need none.
pub fn required_client_capability(method: &str) -> Option<&'static str> {
    match method {
        "sampling/createMessage" => Some("sampling"),
        "roots/list" => Some("roots"),
        "elicitation/create" => Some("elicitation"),
        "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel" => Some("tasks"),
        _ => None,
    }
}

/// The capability `method` needs that the client's declared `capabilities` (the
/// `capabilities` of its initialize params) lack.
pub fn undeclared_capability(method: &str, capabilities: &Value) -> Option<&'static str> {
    let needed = required_client_capability(method)?;
    let declared = capabilities
        .get(needed)
        .is_some_and(|c| !c.is_null() && c != &Value::Bool(false));
    (!declared).then_some(needed)
}

/// The server sent `count` requests of `method`, first at stdout line `first_line`, that
/// need `capability`, which the client did not declare. Under 2024-11-05 the lifecycle says
/// SHOULD (a warning); from 2025-03-26 on it says MUST (an error).
pub fn undeclared_capability_finding(
    method: &str,
    capability: &str,
    count: u64,
    first_line: u64,
    negotiated: Option<&str>,
) -> Finding {
    let times = if count == 1 {
        "once".to_string()
    } else {
        format!("{count} times")
    };
    let message = format!(
        "The server sent `{}` {times} (first at stdout line {first_line}), which needs the client capability `{capability}`, but the client declared no `{capability}` capability; the client answered -32601. A server may use only the capabilities the client declared in initialize.",
        excerpt(method, 80),
    );
    let mut location = Location::request(method);
    location.stdout_line = Some(first_line);
    let f = Finding::new(Code::ServerRequestUndeclaredCapability, message).at(location);
    if negotiated == Some("2024-11-05") {
        f.severity(Severity::Warning)
    } else {
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_spec_requests_need_a_capability_and_a_declared_one_is_enough() {
        let none = json!({});
        assert_eq!(undeclared_capability("ping", &none), None);
        assert_eq!(undeclared_capability("fixture/custom", &none), None);
        assert_eq!(
            undeclared_capability("sampling/createMessage", &none),
            Some("sampling")
        );
        let declared = json!({"sampling": {}, "roots": {"listChanged": true}});
        assert_eq!(
            undeclared_capability("sampling/createMessage", &declared),
            None
        );
        assert_eq!(undeclared_capability("roots/list", &declared), None);
        assert_eq!(
            undeclared_capability("elicitation/create", &declared),
            Some("elicitation")
        );
    }

    #[test]
    fn the_2024_revision_only_says_should() {
        let f = undeclared_capability_finding("roots/list", "roots", 2, 5, Some("2024-11-05"));
        assert_eq!(f.severity, Severity::Warning);
        let f = undeclared_capability_finding("roots/list", "roots", 2, 5, Some("2025-11-25"));
        assert_eq!(f.severity, Severity::Error);
        assert!(f
            .message
            .contains("`roots/list` 2 times (first at stdout line 5)"));
    }
}
