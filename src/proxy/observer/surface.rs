//! What the server advertises: its initialize result and every listing, collected across
//! pages, judged by the surface rules as they arrive and compared with the session's first.

use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location};
use crate::session::transcript::ListKind;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Items kept per page.
const MAX_PAGE_ITEMS: usize = 10_000;

pub(super) struct Listings {
    /// The version the initialize result negotiated.
    pub(super) negotiated: Option<String>,
    /// The server's initialize result: its instructions and capabilities are judged too.
    initialize: Option<Value>,
    /// Items of the listing being paged, per list.
    paging: HashMap<ListKind, Vec<Value>>,
    first_listing: HashMap<ListKind, Vec<Value>>,
    latest_listing: HashMap<ListKind, Vec<Value>>,
    /// Name for the server in surface findings.
    server_name: Option<String>,
}

impl Listings {
    pub(super) fn new() -> Self {
        Self {
            negotiated: None,
            initialize: None,
            paging: HashMap::new(),
            first_listing: HashMap::new(),
            latest_listing: HashMap::new(),
            server_name: None,
        }
    }

    pub(super) fn set_server_name(&mut self, name: &str) {
        self.server_name = Some(excerpt(name, 128));
    }

    /// Whether `after_result` reads the result of `method`.
    pub(super) fn reads_result(method: &str) -> bool {
        method == "initialize" || ListKind::ALL.iter().any(|l| l.method() == method)
    }

    /// What a successful answer to the client's `method` tells (`next_page`: the request had
    /// a cursor): the negotiated version, and listings to judge and to compare with the first
    /// (a mid-session rug pull).
    pub(super) fn after_result(
        &mut self,
        method: &str,
        next_page: bool,
        result: &Value,
    ) -> Vec<Finding> {
        if method == "initialize" {
            self.negotiated = result
                .get("protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_string);
            if let Some(name) = result.pointer("/serverInfo/name").and_then(Value::as_str) {
                if self.server_name.is_none() {
                    self.set_server_name(name);
                }
            }
            // Its instructions reach the model before any listing does.
            self.initialize = Some(result.clone());
            return self.check_surface();
        }
        let Some(list) = ListKind::ALL.iter().copied().find(|l| l.method() == method) else {
            return Vec::new();
        };
        let page = self.paging.entry(list).or_default();
        if !next_page {
            page.clear();
        }
        if let Some(items) = result.get(list.items_key()).and_then(Value::as_array) {
            page.extend(items.iter().take(MAX_PAGE_ITEMS).cloned());
        }
        if result
            .get("nextCursor")
            .is_some_and(|c| !c.is_null() && c != "")
        {
            return Vec::new();
        }
        let listing = std::mem::take(page);
        self.latest_listing.insert(list, listing.clone());
        let mut out = self.check_surface();
        match self.first_listing.get(&list) {
            None => {
                self.first_listing.insert(list, listing);
            }
            Some(first) => {
                if let Some(change) = describe_change(first, &listing) {
                    out.push(
                        Finding::new(
                            Code::SessionSurfaceDrift,
                            format!(
                                "`{}` changed since the first listing of the session: {change}.",
                                list.method()
                            ),
                        )
                        .at(Location::request(list.method())),
                    );
                }
            }
        }
        out
    }

    /// The live security rules over the latest complete listings (rescanned on every
    /// listing, so a list_changed that brings poisoned text is caught when it arrives).
    fn check_surface(&self) -> Vec<Finding> {
        let get = |k: ListKind| self.latest_listing.get(&k).cloned().unwrap_or_default();
        let surface = crate::surface::ServerSurface {
            server: self.server_name.clone().unwrap_or_else(|| "server".into()),
            tools: get(ListKind::Tools),
            prompts: get(ListKind::Prompts),
            resources: get(ListKind::Resources),
            resource_templates: get(ListKind::ResourceTemplates),
        };
        let options = crate::surface::SurfaceOptions {
            only_guard_rules: false,
        };
        let initialize = [self.initialize.clone()];
        crate::surface::check_with_initialize(&[surface], &initialize, &options)
    }
}

/// "added x; removed y; changed z" between two listings, by name; order alone is no change.
fn describe_change(first: &[Value], now: &[Value]) -> Option<String> {
    let by_name = |items: &[Value]| -> BTreeMap<String, Value> {
        items
            .iter()
            .map(|i| {
                let name = i
                    .get("name")
                    .or_else(|| i.get("uri"))
                    .or_else(|| i.get("uriTemplate"));
                (name.map(|n| n.to_string()).unwrap_or_default(), i.clone())
            })
            .collect()
    };
    let (a, b) = (by_name(first), by_name(now));
    let names = |keys: Vec<&String>| {
        keys.into_iter()
            .map(|k| excerpt(k.trim_matches('"'), 64))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let added: Vec<&String> = b.keys().filter(|k| !a.contains_key(*k)).collect();
    let removed: Vec<&String> = a.keys().filter(|k| !b.contains_key(*k)).collect();
    let changed: Vec<&String> = a
        .iter()
        .filter(|(k, v)| b.get(*k).is_some_and(|w| w != *v))
        .map(|(k, _)| k)
        .collect();
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!("added {}", names(added)));
    }
    if !removed.is_empty() {
        parts.push(format!("removed {}", names(removed)));
    }
    if !changed.is_empty() {
        parts.push(format!("changed {}", names(changed)));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}
