//! What the server sends unasked, judged the same way by the guard and the proxy: requests
//! for client capabilities the client never declared, and floods of notifications or
//! requests far beyond what a client can act on.

use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location};
use serde_json::Value;
use std::collections::BTreeMap;

/// Messages of one method within one second past which the server floods the client. A
/// client shows or acts on a few progress or log messages a second; real servers (even
/// server-everything's timers) send a handful a second at most.
pub const FLOOD_PER_SECOND: u64 = 1_000;
/// Distinct methods metered; further methods are metered together.
const MAX_METERED_METHODS: usize = 64;
const OTHER_METHODS: &str = "(other methods)";

/// What kind of unasked message a flood is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unasked {
    Notification,
    Request,
}

impl Unasked {
    fn plural(self) -> &'static str {
        match self {
            Unasked::Notification => "notifications",
            Unasked::Request => "requests",
        }
    }
}

/// Where the server sent a message: a stdout line, or its place among the messages that
/// came over HTTP (numbered as lines are, in the order they came).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageAt {
    pub line: u64,
    pub over_http: bool,
}

impl MessageAt {
    pub fn stdout(line: u64) -> Self {
        Self {
            line,
            over_http: false,
        }
    }
}

impl std::fmt::Display for MessageAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.over_http {
            write!(f, "message {} it sent over HTTP", self.line)
        } else {
            write!(f, "stdout line {}", self.line)
        }
    }
}

/// One method's traffic, in one-second windows from its first message.
#[derive(Debug, Clone, Default)]
struct MethodMeter {
    count: u64,
    window_start_ms: u64,
    in_window: u64,
    peak: u64,
    /// The line at which the window that first passed the threshold passed it.
    flood_line: Option<u64>,
}

/// Meters the server's notifications and requests per method, in bounded memory (a few
/// counters for each of at most [`MAX_METERED_METHODS`] methods).
#[derive(Debug, Clone, Default)]
pub struct FloodMeter {
    methods: BTreeMap<(Unasked, String), MethodMeter>,
    /// The method last metered as it came, and its key in `methods`: a flood repeats one
    /// method, and its key (an excerpt, cleaned of known secrets) need not be made again.
    last: Option<(String, (Unasked, String))>,
    /// The lines are messages that came over HTTP.
    pub over_http: bool,
}

impl FloodMeter {
    /// Counts one message; returns true when this message makes its method a flood (once).
    pub fn record(&mut self, kind: Unasked, method: &str, at_ms: u64, line: u64) -> bool {
        let same = matches!(&self.last, Some((raw, key)) if key.0 == kind && raw == method);
        if !same {
            let key = (kind, excerpt(method, 128));
            let key = if self.methods.len() < MAX_METERED_METHODS || self.methods.contains_key(&key)
            {
                key
            } else {
                (kind, OTHER_METHODS.to_string())
            };
            self.last = Some((method.to_string(), key));
        }
        let Some((_, key)) = &self.last else {
            return false;
        };
        let m = match self.methods.get_mut(key) {
            Some(m) => m,
            None => self.methods.entry(key.clone()).or_insert(MethodMeter {
                window_start_ms: at_ms,
                ..MethodMeter::default()
            }),
        };
        m.count += 1;
        if at_ms.saturating_sub(m.window_start_ms) >= 1000 {
            m.window_start_ms = at_ms;
            m.in_window = 0;
        }
        m.in_window += 1;
        m.peak = m.peak.max(m.in_window);
        if m.in_window > FLOOD_PER_SECOND && m.flood_line.is_none() {
            m.flood_line = Some(line);
            return true;
        }
        false
    }

    /// One finding per flooding method, in method order.
    pub fn findings(&self) -> Vec<Finding> {
        self.methods
            .iter()
            .filter_map(|((kind, method), m)| {
                m.flood_line
                    .map(|line| flood_finding(*kind, method, (m.count, m.peak), self.at(line)))
            })
            .collect()
    }

    /// The finding for `method` as it stands, if it floods.
    pub fn finding(&self, kind: Unasked, method: &str) -> Option<Finding> {
        let key = (kind, excerpt(method, 128));
        let m = self
            .methods
            .get(&key)
            .or_else(|| self.methods.get(&(kind, OTHER_METHODS.to_string())))?;
        m.flood_line
            .map(|line| flood_finding(kind, &key.1, (m.count, m.peak), self.at(line)))
    }

    fn at(&self, line: u64) -> MessageAt {
        MessageAt {
            line,
            over_http: self.over_http,
        }
    }
}

fn flood_finding(kind: Unasked, method: &str, (count, peak): (u64, u64), at: MessageAt) -> Finding {
    let line = at.line;
    let message = format!(
        "The server flooded the client with `{}` {}: {count} in all, up to {peak} within one second (past {FLOOD_PER_SECOND} a second, first at {at}). No client can act on that many; it must still read and dispatch each one, which starves the answers it waits for.",
        excerpt(method, 80),
        kind.plural(),
    );
    let mut location = Location::request(method);
    location.stdout_line = Some(line);
    Finding::new(Code::ServerMessageFlood, message)
        .detail(match kind {
            Unasked::Notification => "notification-flood",
            Unasked::Request => "request-flood",
        })
        .at(location)
}

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

/// The server sent `count` requests of `method`, first at `first`, that
/// need `capability`, which the client did not declare.
pub fn undeclared_capability_finding(
    method: &str,
    capability: &str,
    count: u64,
    first: MessageAt,
) -> Finding {
    let times = if count == 1 {
        "once".to_string()
    } else {
        format!("{count} times")
    };
    let message = format!(
        "The server sent `{}` {times} (first at {first}), which needs the client capability `{capability}`, but the client declared no `{capability}` capability; the client answered -32601. A server may use only the capabilities the client declared in initialize.",
        excerpt(method, 80),
    );
    let mut location = Location::request(method);
    location.stdout_line = Some(first.line);
    Finding::new(Code::ServerRequestUndeclaredCapability, message).at(location)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Severity;
    use serde_json::json;

    #[test]
    fn a_flood_is_a_second_past_the_threshold_and_a_steady_trickle_is_not() {
        let mut meter = FloodMeter::default();
        // Ten a second for five minutes: busy, but what a client can use.
        for i in 0..3000u64 {
            assert!(!meter.record(Unasked::Notification, "notifications/progress", i * 100, i));
        }
        assert!(meter.findings().is_empty());
        let mut flood = 0;
        for i in 0..5000u64 {
            if meter.record(Unasked::Request, "ping", 10 + i / 10, 5000 + i) {
                flood += 1;
            }
        }
        assert_eq!(flood, 1, "reported once");
        let found = meter.findings();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].detail_code, Some("request-flood"));
        assert!(
            found[0]
                .message
                .contains("`ping` requests: 5000 in all, up to 5000 within one second"),
            "{}",
            found[0].message
        );
        assert_eq!(found[0].location.stdout_line, Some(6000));
    }

    #[test]
    fn the_meter_holds_a_bounded_number_of_methods() {
        let mut meter = FloodMeter::default();
        for i in 0..10_000u64 {
            meter.record(Unasked::Notification, &format!("m/{i}"), 0, i);
        }
        assert_eq!(meter.methods.len(), MAX_METERED_METHODS + 1);
        let other = meter.findings();
        assert_eq!(other.len(), 1, "the unmetered methods flood together");
    }

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
    fn the_finding_counts_the_requests_and_names_the_first() {
        // A warning whatever the revision: the official clients answer -32601 and go on
        // (data/client-impact.json), though 2025-03-26 on says MUST.
        let f = undeclared_capability_finding("roots/list", "roots", 2, MessageAt::stdout(5));
        assert_eq!(f.severity, Severity::Warning);
        assert!(f
            .message
            .contains("`roots/list` 2 times (first at stdout line 5)"));
        let at = MessageAt {
            line: 3,
            over_http: true,
        };
        let f = undeclared_capability_finding("roots/list", "roots", 1, at);
        assert!(f
            .message
            .contains("`roots/list` once (first at message 3 it sent over HTTP)"));
    }
}
