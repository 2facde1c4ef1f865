//! `open-resource-template`: a URI template whose variable can be any file or any host.
//!
//! RFC 6570 simple expansion (`{name}`) percent-encodes `/`, so it stays in one path
//! segment. Reserved (`{+path}`), fragment (`{#x}`) and exploded path (`{/path*}`)
//! expansions can carry `/` and `..`; a variable in the scheme or host can point anywhere.

use super::SurfaceRule;
use crate::catalog::Code;
use crate::finding::Finding;
use crate::surface::item::Item;
use crate::surface::{text, Server};

pub struct OpenResourceTemplate;

/// Schemes whose authority is a network host.
const NETWORK_SCHEMES: &[&str] = &[
    "http", "https", "ws", "wss", "ftp", "ftps", "sftp", "smb", "ldap", "gopher", "dict",
];

/// Why a template is open, and the byte offset of the expression.
fn openness(template: &str) -> Option<(&'static str, &'static str, usize)> {
    let scheme_end = template.find("://");
    let scheme = scheme_end.map(|e| template[..e].to_ascii_lowercase());
    let authority_end = scheme_end.map(|e| {
        let rest = e + 3;
        template[rest..]
            .find('/')
            .map_or(template.len(), |i| rest + i)
    });
    let query_start = template.find('?').unwrap_or(template.len());
    let mut i = 0;
    while let Some(open) = template[i..].find('{').map(|o| i + o) {
        let Some(close) = template[open..].find('}').map(|c| open + c) else {
            break;
        };
        let expr = &template[open + 1..close];
        i = close + 1;
        if open >= query_start {
            continue;
        }
        if scheme_end.is_none_or(|e| open < e) {
            return Some((
                "variable-scheme",
                "lets the client choose the scheme (any kind of resource)",
                open,
            ));
        }
        let in_authority = authority_end.is_some_and(|a| open < a);
        let is_file = scheme.as_deref() == Some("file");
        let is_network = scheme
            .as_deref()
            .is_some_and(|s| NETWORK_SCHEMES.contains(&s));
        if in_authority && is_network {
            return Some((
                "variable-host",
                "lets the client choose the host (any address, internal ones included)",
                open,
            ));
        }
        let reserved = expr.starts_with(['+', '#']);
        let exploded_path = expr.starts_with('/') && expr.contains('*');
        // Right after `file:///`, the variable names any entry of the filesystem root.
        let at_root = template[..open].eq_ignore_ascii_case("file:///");
        if is_file && (reserved || exploded_path || in_authority || at_root) {
            return Some((
                "any-file-path",
                "lets the client name any file path, `..` and `/` included",
                open,
            ));
        }
    }
    None
}

impl SurfaceRule for OpenResourceTemplate {
    fn code(&self) -> Code {
        Code::OpenResourceTemplate
    }

    fn check_resource_template(&self, _: &Server<'_>, template: &Item<'_>, out: &mut Vec<Finding>) {
        let Some(field) = template
            .fields
            .iter()
            .find(|f| !f.is_key && f.pointer == "uriTemplate")
        else {
            return;
        };
        let Some((detail, what, at)) = openness(&field.text) else {
            return;
        };
        out.push(
            Finding::new(
                self.code(),
                format!(
                    "The uriTemplate of {} {what} (character {}).",
                    template.label(),
                    text::char_position(&field.text, at)
                ),
            )
            .detail(detail)
            .at(template.location("uriTemplate"))
            .evidence(&text::evidence(&field.text, 0)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_open_templates() {
        for (t, detail) in [
            ("file:///{+path}", "any-file-path"),
            ("file:///srv/{/path*}", "any-file-path"),
            ("file://{host}/etc", "any-file-path"),
            ("file:///{path}", "any-file-path"),
            ("{+uri}", "variable-scheme"),
            ("{scheme}://example.com/x", "variable-scheme"),
            ("https://{host}/api/v1", "variable-host"),
            ("http://{+target}", "variable-host"),
        ] {
            assert_eq!(openness(t).map(|o| o.0), Some(detail), "{t}");
        }
    }

    #[test]
    fn scoped_templates_are_fine() {
        for t in [
            "file:///fixture/notes/{name}.txt",
            "demo://resource/dynamic/text/{resourceId}",
            "repo://{owner}/{repo}/contents{/path*}",
            "https://api.example.com/users/{id}{?fields}",
            "file:///srv/{name}",
            "https://example.com/search{?q}",
        ] {
            assert_eq!(openness(t), None, "{t}");
        }
    }

    #[test]
    fn reports_at_the_template() {
        use crate::surface::rules::test_support::places;
        use crate::surface::ServerSurface;
        let surface = ServerSurface {
            server: "srv".into(),
            resource_templates: vec![
                serde_json::json!({"name": "any", "uriTemplate": "file:///{+path}"}),
            ],
            ..ServerSurface::default()
        };
        assert_eq!(
            places("open-resource-template", &[surface]),
            ["servers/srv/resourceTemplates/any/uriTemplate"]
        );
    }
}
