//! What a tool can do in a flow: read private data, bring in untrusted content, send data
//! out. Judged from its name (after confusable folding), annotations and parameters; a tool
//! is put on a side only by a verb and an object that say so together.

use crate::surface::text::{self, Folded};
use serde_json::Value;

/// What a tool can do in a flow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Roles {
    pub private_source: bool,
    pub untrusted_source: bool,
    pub sink: bool,
}

const READ_VERBS: &[&str] = &[
    "read", "get", "list", "search", "query", "find", "open", "cat", "view", "download", "fetch",
    "load", "export", "dump", "execute", "run",
];
const PRIVATE_OBJECTS: &[&str] = &[
    "file",
    "files",
    "directory",
    "directories",
    "dir",
    "folder",
    "tree",
    "email",
    "emails",
    "mail",
    "inbox",
    "database",
    "db",
    "table",
    "tables",
    "sql",
    "rows",
    "secret",
    "secrets",
    "password",
    "passwords",
    "credential",
    "credentials",
    "keychain",
    "vault",
    "env",
    "environment",
    "calendar",
    "contacts",
    "drive",
    "notes",
    "history",
];
const INBOUND_OBJECTS: &[&str] = &[
    "email",
    "emails",
    "mail",
    "inbox",
    "message",
    "messages",
    "issue",
    "issues",
    "comment",
    "comments",
    "review",
    "reviews",
    "discussion",
    "discussions",
    "ticket",
    "tickets",
];
const WEB_VERBS: &[&str] = &[
    "fetch", "browse", "navigate", "scrape", "crawl", "http", "request", "curl", "wget", "visit",
];
const SEND_VERBS: &[&str] = &[
    "send", "post", "publish", "upload", "reply", "tweet", "notify", "forward", "share", "dm",
    "webhook", "email", "mail", "push",
];
const CREATE_VERBS: &[&str] = &["create", "add", "post", "write", "submit", "leave"];
const PUBLIC_OBJECTS: &[&str] = &[
    "comment",
    "comments",
    "issue",
    "message",
    "messages",
    "post",
    "tweet",
    "review",
    "reply",
    "gist",
    "discussion",
    "pull",
    "pr",
];
const URL_PARAMS: &[&str] = &[
    "url", "uri", "href", "endpoint", "link", "address", "webhook",
];

/// The words of a name as it reads: look-alike characters folded to the ASCII they imitate
/// (`re\u{430}d_file` with a Cyrillic a is `read_file`) and hidden ones dropped, so a
/// homoglyph cannot hide a tool from the analysis.
pub fn words(name: &str) -> Vec<String> {
    text::words(&Folded::new(name).text)
}

/// The name as it reads, when that differs from the name as written.
pub fn reads_as(name: &str) -> Option<String> {
    let folded = Folded::new(name).text;
    (folded != name).then_some(folded)
}

fn any(words: &[String], set: &[&str]) -> bool {
    words.iter().any(|w| set.contains(&w.as_str()))
}

fn hint(tool: &Value, name: &str) -> Option<bool> {
    tool.pointer(&format!("/annotations/{name}"))
        .and_then(Value::as_bool)
}

fn has_url_parameter(tool: &Value) -> bool {
    tool.pointer("/inputSchema/properties")
        .and_then(Value::as_object)
        .is_some_and(|p| {
            p.keys()
                .any(|k| URL_PARAMS.iter().any(|u| words(k).iter().any(|w| w == u)))
        })
}

/// The roles of one advertised tool.
pub fn classify(tool: &Value) -> Roles {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    let w = words(name);
    let read_only = hint(tool, "readOnlyHint") == Some(true);
    let open_world = hint(tool, "openWorldHint");
    let url = has_url_parameter(tool);
    let reads = any(&w, READ_VERBS);
    let web = any(&w, WEB_VERBS) || (w.iter().any(|x| x == "web") && reads);
    // A web request both brings in what the page says and sends what its URL carries.
    let web_request = open_world != Some(false) && (web && (url || open_world == Some(true)));
    let private_source =
        reads && any(&w, PRIVATE_OBJECTS) && !web_request && open_world != Some(true);
    let untrusted_source = web_request || (reads && any(&w, INBOUND_OBJECTS));
    let sends =
        (any(&w, SEND_VERBS) && !reads) || (any(&w, CREATE_VERBS) && any(&w, PUBLIC_OBJECTS));
    let sink = web_request || (sends && !read_only && open_world != Some(false));
    Roles {
        private_source,
        untrusted_source,
        sink,
    }
}

/// Server names that suggest a role, for when no listing exists: (fragment, roles).
pub(super) const NAME_GUESSES: &[(&str, Roles)] = &[
    ("filesystem", PRIVATE),
    ("postgres", PRIVATE),
    ("sqlite", PRIVATE),
    ("mysql", PRIVATE),
    ("gdrive", PRIVATE),
    ("obsidian", PRIVATE),
    ("gmail", ALL),
    ("fetch", WEB),
    ("puppeteer", WEB),
    ("playwright", WEB),
    ("browser", WEB),
    (
        "slack",
        Roles {
            private_source: false,
            untrusted_source: true,
            sink: true,
        },
    ),
];
const PRIVATE: Roles = Roles {
    private_source: true,
    untrusted_source: false,
    sink: false,
};
const WEB: Roles = Roles {
    private_source: false,
    untrusted_source: true,
    sink: true,
};
const ALL: Roles = Roles {
    private_source: true,
    untrusted_source: true,
    sink: true,
};

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use serde_json::json;

    /// A tool's roles: (private source, untrusted source, sink).
    pub(in crate::scan::toxic_flow) fn roles(tool: Value) -> (bool, bool, bool) {
        let r = classify(&tool);
        (r.private_source, r.untrusted_source, r.sink)
    }

    #[test]
    fn tools_are_classified_by_verb_and_object_together() {
        assert_eq!(
            roles(json!({"name": "read_text_file", "annotations": {"readOnlyHint": true}})),
            (true, false, false)
        );
        assert_eq!(
            roles(json!({"name": "listDirectory"})),
            (true, false, false)
        );
        assert_eq!(
            roles(json!({"name": "fetch", "inputSchema": {"properties": {"url": {}}}})),
            (false, true, true)
        );
        assert_eq!(roles(json!({"name": "send_email"})), (false, false, true));
        assert_eq!(roles(json!({"name": "search_emails"})), (true, true, false));
        assert_eq!(
            roles(json!({"name": "create_issue_comment"})),
            (false, false, true)
        );
        // Look-alikes: no object, or annotations that say otherwise.
        assert_eq!(roles(json!({"name": "add"})), (false, false, false));
        assert_eq!(
            roles(
                json!({"name": "get_doc_page", "annotations": {"readOnlyHint": true, "openWorldHint": false}})
            ),
            (false, false, false)
        );
        assert_eq!(
            roles(json!({"name": "send_notification", "annotations": {"openWorldHint": false}})),
            (false, false, false)
        );
        assert_eq!(roles(json!({"name": "write_file"})), (false, false, false));
        assert_eq!(
            roles(json!({"name": "fetch_docs", "annotations": {"openWorldHint": false}})),
            (false, false, false)
        );
    }

    #[test]
    fn a_confusable_name_is_classified_as_the_name_it_imitates() {
        assert_eq!(
            roles(json!({"name": "re\u{430}d_file", "annotations": {"readOnlyHint": true}})),
            (true, false, false)
        );
        assert_eq!(
            roles(json!({"name": "s\u{435}nd_\u{435}mail"})),
            (false, false, true)
        );
        assert_eq!(reads_as("re\u{430}d_file").as_deref(), Some("read_file"));
        assert_eq!(reads_as("read_file"), None);
    }

    #[test]
    fn opening_a_pull_request_or_pushing_files_sends_data_out() {
        assert_eq!(
            roles(json!({"name": "create_pull_request"})),
            (false, false, true)
        );
        assert_eq!(roles(json!({"name": "push_files"})), (false, false, true));
        assert_eq!(
            roles(json!({"name": "get_issue", "annotations": {"readOnlyHint": true}})),
            (false, true, false)
        );
        assert_eq!(
            roles(json!({"name": "get_file_contents", "annotations": {"readOnlyHint": true}})),
            (true, false, false)
        );
    }
}
