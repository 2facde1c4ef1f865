//! Which appenders an active logger writes through, directly or through appenders that
//! forward to others (async, failover, routing). Shared by logback and log4j2.

use std::collections::{HashMap, VecDeque};

/// A logger (or the root) that is not turned off, and the appenders it names.
pub struct ActiveLogger {
    /// How messages name it: `<root>` (line 12), `rootLogger`.
    pub described: String,
    pub refs: Vec<String>,
}

/// How an active logger reaches an appender.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    pub logger: String,
    /// The appender that forwards to it, when the logger does not name it itself.
    pub via: Option<String>,
}

impl Reach {
    /// `<root> (line 12) logs through it` or `... through `ASYNC``.
    pub fn phrase(&self) -> String {
        match &self.via {
            None => format!("{} logs through it", self.logger),
            Some(via) => format!(
                "{} logs through it via `{}`",
                self.logger,
                super::shown(via)
            ),
        }
    }
}

/// Every appender name reachable from `loggers`, with the first way found (breadth first).
pub fn reached(
    loggers: &[ActiveLogger],
    forwards: &HashMap<String, Vec<String>>,
) -> HashMap<String, Reach> {
    let mut out: HashMap<String, Reach> = HashMap::new();
    let mut queue = VecDeque::new();
    for logger in loggers {
        for name in &logger.refs {
            if !out.contains_key(name) {
                out.insert(
                    name.clone(),
                    Reach {
                        logger: logger.described.clone(),
                        via: None,
                    },
                );
                queue.push_back(name.clone());
            }
        }
    }
    // Each name is queued once, so cycles (A forwards to B forwards to A) end.
    while let Some(name) = queue.pop_front() {
        let Some(targets) = forwards.get(&name) else {
            continue;
        };
        let logger = out[&name].logger.clone();
        for target in targets {
            if !out.contains_key(target) {
                out.insert(
                    target.clone(),
                    Reach {
                        logger: logger.clone(),
                        via: Some(name.clone()),
                    },
                );
                queue.push_back(target.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarding_is_followed_and_cycles_end() {
        let loggers = [ActiveLogger {
            described: "<root>".into(),
            refs: vec!["ASYNC".into()],
        }];
        let forwards = HashMap::from([
            ("ASYNC".to_string(), vec!["CONSOLE".to_string()]),
            ("CONSOLE".to_string(), vec!["ASYNC".to_string()]),
        ]);
        let reach = reached(&loggers, &forwards);
        assert_eq!(reach.len(), 2);
        assert_eq!(reach["CONSOLE"].via.as_deref(), Some("ASYNC"));
        assert_eq!(reach["ASYNC"].via, None);
        assert!(!reached(&[], &forwards).contains_key("CONSOLE"));
    }
}
