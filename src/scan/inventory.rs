//! Facts about servers for the human lists of `mcpcheck inventory` (the JSON shape of a
//! server belongs to the renderers).

use crate::finding::excerpt;
use crate::session::transcript::ListKind;
use serde_json::Value;

/// The short name of an item for human lists.
pub fn item_label(kind: ListKind, item: &Value) -> String {
    let get = |k: &str| item.get(k).and_then(Value::as_str);
    let name = get("name").unwrap_or("?");
    match kind {
        ListKind::Resources => format!(
            "{} ({})",
            excerpt(name, 60),
            excerpt(get("uri").unwrap_or("?"), 100)
        ),
        ListKind::ResourceTemplates => format!(
            "{} ({})",
            excerpt(name, 60),
            excerpt(get("uriTemplate").unwrap_or("?"), 100)
        ),
        _ => excerpt(name, 80),
    }
}
