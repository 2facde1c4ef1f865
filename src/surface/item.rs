//! One listed item (tool, prompt, resource, resource template) and its text fields.
//!
//! A finding's logical location is `servers/<server>/<list>/<item>/<pointer>`: the list key
//! as in the listing (`tools`, `prompts`, `resources`, `resourceTemplates`), the item's name
//! (a resource without one by its URI; `#<index>` when there is neither), then the JSON
//! pointer of the field inside the item, e.g.
//! `servers/files/tools/read_file/inputSchema/properties/path/description`. Segments are
//! escaped as in JSON Pointer (`~` → `~0`, `/` → `~1`). The server's `initialize` result
//! (its `instructions`, `serverInfo`…) is addressed from the server: `servers/files/instructions`.

use super::{text, MAX_DEPTH, MAX_FIELDS_PER_ITEM, MAX_FIELD_BYTES};
use crate::finding::Location;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemKind {
    Tool,
    Prompt,
    Resource,
    ResourceTemplate,
    /// The `initialize` result: `instructions`, `serverInfo`, `capabilities`.
    Initialize,
}

impl ItemKind {
    /// The listed kinds (every kind but `Initialize`).
    pub const ALL: [ItemKind; 4] = [
        ItemKind::Tool,
        ItemKind::Prompt,
        ItemKind::Resource,
        ItemKind::ResourceTemplate,
    ];

    /// The key of the list in a listing and in logical paths.
    pub fn list_key(self) -> &'static str {
        match self {
            ItemKind::Tool => "tools",
            ItemKind::Prompt => "prompts",
            ItemKind::Resource => "resources",
            ItemKind::ResourceTemplate => "resourceTemplates",
            ItemKind::Initialize => "initialize",
        }
    }

    pub fn noun(self) -> &'static str {
        match self {
            ItemKind::Tool => "tool",
            ItemKind::Prompt => "prompt",
            ItemKind::Resource => "resource",
            ItemKind::ResourceTemplate => "resource template",
            ItemKind::Initialize => "initialize result",
        }
    }

    pub fn plural(self) -> &'static str {
        match self {
            ItemKind::Tool => "tools",
            ItemKind::Prompt => "prompts",
            ItemKind::Resource => "resources",
            ItemKind::ResourceTemplate => "resource templates",
            ItemKind::Initialize => "initialize results",
        }
    }
}

/// One string value or object key inside an item, bounded to [`MAX_FIELD_BYTES`].
#[derive(Debug, Clone)]
pub struct TextField {
    /// Escaped JSON pointer inside the item, without the leading `/`.
    pub pointer: String,
    /// The raw key of the member holding this string (`description`), or `None` in an array.
    pub key: Option<String>,
    pub text: String,
    /// An object key (a property name, say) rather than a string value.
    pub is_key: bool,
}

impl TextField {
    /// Prose a model reads as language: not a key, URI, MIME type or schema keyword value.
    pub fn is_prose(&self) -> bool {
        !self.is_key
            && !matches!(
                self.key.as_deref(),
                Some(
                    "uri"
                        | "uriTemplate"
                        | "mimeType"
                        | "type"
                        | "$schema"
                        | "$ref"
                        | "$id"
                        | "format"
                        | "pattern"
                        | "src"
                )
            )
    }

    /// What the field is, for messages: `description`, `field inputSchema/properties/path/description`.
    pub fn describe(&self) -> String {
        if self.is_key {
            format!("key {}", self.pointer)
        } else if self.pointer.contains('/') {
            format!("field {}", self.pointer)
        } else {
            self.pointer.clone()
        }
    }
}

#[derive(Debug)]
pub struct Item<'a> {
    pub kind: ItemKind,
    pub index: usize,
    /// The item's segment in logical paths.
    pub segment: String,
    server_segment: String,
    server_display: String,
    pub value: &'a Value,
    pub fields: Vec<TextField>,
    /// What the bounds left out of this item.
    pub skipped: Option<String>,
}

impl<'a> Item<'a> {
    /// `server` is the server's raw name; untrusted like everything else.
    pub fn new(server: &str, kind: ItemKind, index: usize, value: &'a Value) -> Self {
        let key = identity(kind, value);
        let item_segment = match key {
            Some(k) => segment(k),
            None => format!("#{index}"),
        };
        let mut walk = Walk::default();
        walk.value(value, &mut String::new(), None, 0);
        let skipped = walk.skipped().map(|what| {
            format!(
                "{} {:?}: {what}",
                kind.noun(),
                key.map_or_else(|| format!("#{index}"), |k| text::display(k, 64))
            )
        });
        Self {
            kind,
            index,
            segment: item_segment,
            server_segment: segment(server),
            server_display: text::display(server, 64),
            value,
            fields: walk.fields,
            skipped,
        }
    }

    /// The item's `name`, when it is a string.
    pub fn name(&self) -> Option<&'a str> {
        self.value.get("name").and_then(Value::as_str)
    }

    pub fn str_field(&self, key: &str) -> Option<&'a str> {
        self.value.get(key).and_then(Value::as_str)
    }

    /// `tool "read_file" of server "files"`, for messages.
    pub fn label(&self) -> String {
        if self.kind == ItemKind::Initialize {
            return format!("the initialize result of server {:?}", self.server_display);
        }
        format!(
            "{} {:?} of server {:?}",
            self.kind.noun(),
            self.display_name(),
            self.server_display
        )
    }

    /// The item's name (or URI) for messages: bounded, escaped, secrets redacted.
    pub fn display_name(&self) -> String {
        identity(self.kind, self.value)
            .map_or_else(|| format!("#{}", self.index), |k| text::display(k, 64))
    }

    /// The logical path of a pointer inside this item (empty pointer = the item itself).
    pub fn logical(&self, pointer: &str) -> String {
        if self.kind == ItemKind::Initialize {
            return match pointer {
                "" => format!("servers/{}", self.server_segment),
                p => format!("servers/{}/{p}", self.server_segment),
            };
        }
        let base = format!(
            "servers/{}/{}/{}",
            self.server_segment,
            self.kind.list_key(),
            self.segment
        );
        if pointer.is_empty() {
            base
        } else {
            format!("{base}/{pointer}")
        }
    }

    pub fn location(&self, pointer: &str) -> Location {
        Location::logical(self.logical(pointer))
    }

    /// The fields holding prose, with their text.
    pub fn prose(&self) -> impl Iterator<Item = &TextField> {
        self.fields.iter().filter(|f| f.is_prose())
    }
}

/// What names an item: its name, or for resources and templates their URI.
fn identity(kind: ItemKind, value: &Value) -> Option<&str> {
    let named = value
        .get("name")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    let fallback = match kind {
        ItemKind::Resource => "uri",
        ItemKind::ResourceTemplate => "uriTemplate",
        ItemKind::Tool | ItemKind::Prompt => return named,
        ItemKind::Initialize => return None,
    };
    named.or_else(|| {
        value
            .get(fallback)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    })
}

/// A logical-path segment from untrusted text: secrets redacted, bounded, controls and
/// hidden characters visible, `~` and `/` escaped as in JSON Pointer.
pub fn segment(raw: &str) -> String {
    let shown = text::display(raw, 128);
    if shown.is_empty() {
        return "#empty".into();
    }
    shown.replace('~', "~0").replace('/', "~1")
}

/// Collects the text fields of an item within the bounds.
#[derive(Default)]
struct Walk {
    fields: Vec<TextField>,
    dropped_fields: usize,
    truncated_fields: usize,
    too_deep: bool,
}

impl Walk {
    fn value(&mut self, v: &Value, pointer: &mut String, key: Option<&str>, depth: usize) {
        if depth > MAX_DEPTH {
            self.too_deep = true;
            return;
        }
        match v {
            Value::String(s) => self.push(pointer, key, s, false),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = pointer.len();
                    push_segment(pointer, &i.to_string());
                    self.value(item, pointer, None, depth + 1);
                    pointer.truncate(len);
                }
            }
            Value::Object(map) => {
                for (k, item) in map {
                    let len = pointer.len();
                    push_segment(pointer, k);
                    self.push(pointer, Some(k), k, true);
                    self.value(item, pointer, Some(k), depth + 1);
                    pointer.truncate(len);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    fn push(&mut self, pointer: &str, key: Option<&str>, text: &str, is_key: bool) {
        if self.fields.len() >= MAX_FIELDS_PER_ITEM {
            self.dropped_fields += 1;
            return;
        }
        let text = if text.len() > MAX_FIELD_BYTES {
            self.truncated_fields += 1;
            let mut end = MAX_FIELD_BYTES;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            &text[..end]
        } else {
            text
        };
        self.fields.push(TextField {
            pointer: pointer.to_string(),
            key: key.map(str::to_string),
            text: text.to_string(),
            is_key,
        });
    }

    fn skipped(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.dropped_fields > 0 {
            parts.push(format!(
                "{} text fields past the first {MAX_FIELDS_PER_ITEM}",
                self.dropped_fields
            ));
        }
        if self.truncated_fields > 0 {
            parts.push(format!(
                "the text past {MAX_FIELD_BYTES} bytes in {} fields",
                self.truncated_fields
            ));
        }
        if self.too_deep {
            parts.push(format!("values nested deeper than {MAX_DEPTH} levels"));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// Appends one escaped pointer segment; the visible form of a key is bounded like any text.
fn push_segment(pointer: &mut String, raw: &str) {
    if !pointer.is_empty() {
        pointer.push('/');
    }
    pointer.push_str(&segment(raw));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_carry_escaped_pointers_and_keys() {
        let tool = json!({
            "name": "read_file",
            "inputSchema": {"properties": {"a/b~c": {"description": "The path."}}},
            "annotations": {"title": "Read"}
        });
        let item = Item::new("srv", ItemKind::Tool, 0, &tool);
        let desc = item
            .fields
            .iter()
            .find(|f| f.text == "The path.")
            .expect("description field");
        assert_eq!(desc.pointer, "inputSchema/properties/a~1b~0c/description");
        assert_eq!(
            item.logical(&desc.pointer),
            "servers/srv/tools/read_file/inputSchema/properties/a~1b~0c/description"
        );
        assert!(desc.is_prose());
        let key = item.fields.iter().find(|f| f.text == "a/b~c").expect("key");
        assert!(key.is_key && !key.is_prose());
    }

    #[test]
    fn resources_are_named_by_name_then_uri_then_index() {
        let named = json!({"uri": "file:///a/b", "name": "B"});
        let unnamed = json!({"uri": "file:///a/b"});
        let bare = json!({});
        assert_eq!(Item::new("s", ItemKind::Resource, 0, &named).segment, "B");
        assert_eq!(
            Item::new("s", ItemKind::Resource, 0, &unnamed).segment,
            "file:~1~1~1a~1b"
        );
        assert_eq!(Item::new("s", ItemKind::Tool, 7, &bare).segment, "#7");
    }

    #[test]
    fn bounds_are_reported_not_silently_applied() {
        let long = "x".repeat(MAX_FIELD_BYTES + 10);
        let tool = json!({"name": "t", "description": long});
        let item = Item::new("s", ItemKind::Tool, 0, &tool);
        let desc = item
            .fields
            .iter()
            .find(|f| f.pointer == "description" && !f.is_key)
            .expect("description");
        assert_eq!(desc.text.len(), MAX_FIELD_BYTES);
        assert!(item.skipped.expect("skipped").contains("past 65536 bytes"));

        let mut deep = json!("bottom");
        for _ in 0..(MAX_DEPTH + 5) {
            deep = json!({ "d": deep });
        }
        let item = Item::new("s", ItemKind::Tool, 0, &deep);
        assert!(item.skipped.expect("skipped").contains("nested deeper"));
    }

    #[test]
    fn the_initialize_result_is_addressed_from_the_server() {
        let init = json!({"instructions": "Hi", "serverInfo": {"name": "x"}});
        let item = Item::new("srv", ItemKind::Initialize, 0, &init);
        assert_eq!(item.logical("instructions"), "servers/srv/instructions");
        assert_eq!(item.label(), "the initialize result of server \"srv\"");
        assert!(item
            .fields
            .iter()
            .any(|f| f.pointer == "serverInfo/name" && !f.is_key));
    }

    #[test]
    fn segments_are_bounded_and_visible() {
        assert_eq!(segment("a\u{200b}b"), "a\\u{200b}b");
        assert_eq!(segment(""), "#empty");
        assert!(segment(&"n".repeat(500)).chars().count() <= 129);
    }
}
