//! Paging through an advertised list the way a client does, stopping on a cursor loop or
//! past the page cap.

use super::transcript::{ListKind, ListProbe, PagingProblem, Purpose};
use super::Session;
use serde_json::{json, Value};
use std::collections::HashSet;

impl Session {
    pub(super) async fn probe_list(&mut self, list: ListKind) {
        let mut probe = ListProbe {
            list,
            exchanges: Vec::new(),
            items: Vec::new(),
            paging_problem: None,
        };
        let mut seen = HashSet::new();
        let mut cursor: Option<String> = None;
        for page in 0.. {
            if page == self.plan.max_list_pages {
                probe.paging_problem = Some(PagingProblem::PageCap { pages: page });
                break;
            }
            let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
            let index = self
                .request(list.method(), params, Purpose::ListProbe { list, page })
                .await;
            probe.exchanges.push(index);
            let Some(result) = self.t.exchanges[index].outcome_result() else {
                break;
            };
            let items = result
                .get(list.items_key())
                .and_then(Value::as_array)
                .cloned();
            cursor = match result.get("nextCursor") {
                // Clients stop on an empty cursor as on a missing one.
                None | Some(Value::Null) => None,
                Some(Value::String(next)) if next.is_empty() => None,
                Some(Value::String(next)) => Some(next.clone()),
                Some(_) => {
                    probe.paging_problem = Some(PagingProblem::CursorNotString);
                    None
                }
            };
            if let Some(c) = cursor.as_ref().filter(|c| !seen.insert((*c).clone())) {
                // A page reached through a repeated cursor repeats items already collected.
                probe.paging_problem = Some(PagingProblem::CursorLoop { cursor: c.clone() });
                break;
            }
            probe.items.extend(items.into_iter().flatten());
            if cursor.is_none() || probe.paging_problem.is_some() {
                break;
            }
        }
        self.t.lists.push(probe);
    }
}
