//! What the server sent unasked: requests for client capabilities the guard never declared.

use super::{Check, CheckContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::server_traffic::{undeclared_capability, undeclared_capability_finding};
use serde_json::json;

pub struct ServerTraffic;

impl Check for ServerTraffic {
    fn name(&self) -> &'static str {
        "serverTraffic"
    }

    fn codes(&self) -> &'static [Code] {
        &[Code::ServerRequestUndeclaredCapability]
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        let t = cx.transcript;
        // The guard's initialize declares no client capabilities (`"capabilities": {}`).
        let declared = json!({});
        let version = t.session_version();
        for (method, seen) in &t.server_requests.by_method {
            if let Some(capability) = undeclared_capability(method, &declared) {
                out.push(undeclared_capability_finding(
                    method,
                    capability,
                    seen.count,
                    seen.first_line,
                    version.as_deref(),
                ));
            }
        }
    }
}
