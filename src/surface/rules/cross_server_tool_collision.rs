//! `cross-server-tool-collision`: the same tool name on two servers.

use super::SurfaceRule;
use crate::catalog::Code;
use crate::finding::Finding;
use crate::surface::item::Item;
use crate::surface::Server;
use std::collections::HashMap;

pub struct CrossServerToolCollision;

impl SurfaceRule for CrossServerToolCollision {
    fn code(&self) -> Code {
        Code::CrossServerToolCollision
    }

    fn check_servers(&self, servers: &[Server<'_>], out: &mut Vec<Finding>) {
        // The first server (in the given order) to advertise each name.
        let mut first: HashMap<&str, (usize, &Item<'_>)> = HashMap::new();
        for server in servers {
            let mut seen_here: Vec<&str> = Vec::new();
            for tool in server.tools() {
                let Some(name) = tool.name().filter(|n| !n.is_empty()) else {
                    continue;
                };
                if seen_here.contains(&name) {
                    continue; // A duplicate within one server is the guard's tool-name-duplicate.
                }
                seen_here.push(name);
                match first.get(name) {
                    Some(&(owner, earlier)) if owner != server.index => out.push(
                        Finding::new(
                            self.code(),
                            format!(
                                "Servers {:?} and {:?} both advertise a tool named {:?}; a client may call {} when the model meant the other.",
                                servers[owner].display(),
                                server.display(),
                                tool.display_name(),
                                tool.label()
                            ),
                        )
                        .detail("same-name")
                        .at(tool.location("name"))
                        .evidence(&format!("{} and {}", earlier.logical("name"), tool.logical("name"))),
                    ),
                    Some(_) => {}
                    None => {
                        first.insert(name, (server.index, tool));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::surface::rules::test_support::places;
    use crate::surface::ServerSurface;
    use serde_json::json;

    fn server(name: &str, tools: &[&str]) -> ServerSurface {
        ServerSurface {
            server: name.into(),
            tools: tools.iter().map(|n| json!({"name": n})).collect(),
            ..ServerSurface::default()
        }
    }

    #[test]
    fn reports_each_later_server_once() {
        assert_eq!(
            places(
                "cross-server-tool-collision",
                &[
                    server("a", &["search", "x"]),
                    server("b", &["search", "search"]),
                    server("c", &["search"])
                ]
            ),
            ["servers/b/tools/search/name", "servers/c/tools/search/name"]
        );
    }

    #[test]
    fn distinct_names_and_a_single_server_are_fine() {
        assert_eq!(
            places(
                "cross-server-tool-collision",
                &[server("a", &["search"]), server("b", &["search_issues"])]
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            places(
                "cross-server-tool-collision",
                &[server("a", &["search", "search"])]
            ),
            Vec::<String>::new()
        );
    }
}
