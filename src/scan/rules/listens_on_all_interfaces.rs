//! `listens-on-all-interfaces`: the server is told to bind 0.0.0.0 or ::, or docker
//! publishes its port on every interface.

use super::{describe_place, option_value, ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::launch::Launcher;
use crate::scan::config_file::{ServerEntry, Str};
use crate::scan::entry_command;

pub struct ListensOnAllInterfaces;

const BIND_OPTIONS: &[&str] = &[
    "--host",
    "--bind",
    "--listen",
    "--address",
    "--addr",
    "--hostname",
    "--ip",
    "--interface",
    "--bind-address",
    "--listen-address",
    "--http-host",
    "--server-host",
    "-H",
];

/// 0.0.0.0, ::, [::], *, each with an optional :PORT.
fn all_interfaces(v: &str) -> bool {
    let v = v.trim();
    let host = if let Some(rest) = v.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else if v.matches(':').count() == 1 {
        v.split(':').next().unwrap_or("")
    } else {
        v
    };
    matches!(host, "0.0.0.0" | "::" | "*" | "0:0:0:0:0:0:0:0")
}

/// A host-side binding of docker `-p`: `8080:80` and `8080` bind every interface.
fn publishes_everywhere(spec: &str) -> bool {
    let parts: Vec<&str> = spec.rsplitn(3, ':').collect();
    match parts.len() {
        1 | 2 => true,
        _ => all_interfaces(parts[2]) || parts[2].is_empty(),
    }
}

impl ConfigRule for ListensOnAllInterfaces {
    fn code(&self) -> Code {
        Code::ListensOnAllInterfaces
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        let mut report = |at: &Str, shown: String| {
            out.push(
                cx.finding(
                    Code::ListensOnAllInterfaces,
                    at,
                    format!(
                        "Server {:?}: {} makes it listen on every network interface, reachable from other machines.",
                        crate::finding::excerpt(&server.name, 60),
                        describe_place(server, at)
                    ),
                )
                .evidence(&shown),
            );
        };
        let docker = entry_command::packages(server)
            .iter()
            .any(|p| p.launcher == Launcher::DockerRun);
        let mut previous: Option<&str> = None;
        for arg in &server.args {
            let (name, inline) = option_value(&arg.value);
            let value = match (inline, previous) {
                (Some(v), _) if BIND_OPTIONS.contains(&name) => Some((name, v)),
                (None, Some(p)) if BIND_OPTIONS.contains(&p) => Some((p, name)),
                _ => None,
            };
            if let Some((_, v)) = value.filter(|(_, v)| all_interfaces(v)) {
                report(
                    arg,
                    crate::finding::excerpt(&format!("{} {v}", value.map_or("", |x| x.0)), 80),
                );
            }
            if docker {
                let publish = match (inline, previous) {
                    (Some(v), _) if matches!(name, "-p" | "--publish") => Some(v),
                    (None, Some("-p" | "--publish")) => Some(name),
                    _ => None,
                };
                if publish.is_some_and(publishes_everywhere)
                    || matches!(name, "-P" | "--publish-all")
                {
                    report(arg, crate::finding::excerpt(&arg.value, 80));
                }
            }
            previous = Some(&arg.value);
        }
        for env in &server.env {
            let n = env.name.to_ascii_uppercase();
            let bind_name = n.ends_with("HOST")
                || n.contains("BIND")
                || n.contains("LISTEN")
                || n.ends_with("ADDR")
                || n.ends_with("ADDRESS")
                || n.ends_with("_IP");
            if bind_name && all_interfaces(&env.value.value) {
                report(
                    &env.value,
                    format!(
                        "{}={}",
                        crate::finding::excerpt(&env.name, 60),
                        crate::finding::excerpt(&env.value.value, 40)
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bind_values() {
        for v in ["0.0.0.0", "0.0.0.0:8080", "::", "[::]:8080", "*"] {
            assert!(all_interfaces(v), "{v}");
        }
        for v in ["127.0.0.1", "localhost:8080", "::1", "10.0.0.2"] {
            assert!(!all_interfaces(v), "{v}");
        }
        assert!(publishes_everywhere("8080:80"));
        assert!(publishes_everywhere("0.0.0.0:8080:80"));
        assert!(!publishes_everywhere("127.0.0.1:8080:80"));
    }
}
