//! `secret-in-tool-metadata`: a provider credential anywhere in an advertised item.

use super::SurfaceRule;
use crate::catalog::Code;
use crate::finding::Finding;
use crate::secrets;
use crate::surface::item::{Item, TextField};
use crate::surface::text;

pub struct SecretInToolMetadata;

impl SurfaceRule for SecretInToolMetadata {
    fn code(&self) -> Code {
        Code::SecretInToolMetadata
    }

    fn in_guard(&self) -> bool {
        true
    }

    fn check_text(&self, item: &Item<'_>, field: &TextField, out: &mut Vec<Finding>) {
        let found = secrets::find(&field.text);
        let Some(first) = found.first() else {
            return;
        };
        let mut kinds: Vec<&str> = found.iter().map(|s| s.kind).collect();
        kinds.dedup();
        out.push(
            Finding::new(
                self.code(),
                format!(
                    "The {} of {} contains {} ({}), first at character {}. Every client that lists the server receives it: revoke it.",
                    field.describe(),
                    item.label(),
                    if found.len() == 1 {
                        "a credential".to_string()
                    } else {
                        format!("{} credentials", found.len())
                    },
                    kinds.join(", "),
                    text::char_position(&field.text, first.start)
                ),
            )
            .detail(first.kind)
            .at(item.location(&field.pointer))
            .evidence(&text::evidence(&field.text, first.start)),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::surface::rules::test_support::{run, tools};
    use serde_json::json;

    #[test]
    fn finds_a_token_in_a_schema_default_and_never_shows_it() {
        let token = format!("ghp_{}", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6");
        let found = run(
            "secret-in-tool-metadata",
            &[tools(vec![
                json!({"name": "gh", "inputSchema": {"type": "object", "properties": {
                "token": {"type": "string", "default": token}}}}),
            ])],
        );
        assert_eq!(found.len(), 1);
        let f = &found[0];
        assert_eq!(
            f.location.logical.as_deref(),
            Some("servers/srv/tools/gh/inputSchema/properties/token/default")
        );
        assert_eq!(f.detail_code, Some("github-token"));
        let rendered = serde_json::to_string(f).unwrap_or_default();
        assert!(!rendered.contains("aB3dE6gH9"), "{rendered}");
        assert_eq!(f.evidence.as_deref(), Some("[REDACTED github-token]"));
    }

    #[test]
    fn a_secret_used_as_a_name_is_redacted_from_the_path_too() {
        let token = format!("npm_{}", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6");
        let found = run(
            "secret-in-tool-metadata",
            &[tools(vec![json!({"name": token})])],
        );
        assert_eq!(found.len(), 1);
        let rendered = serde_json::to_string(&found).unwrap_or_default();
        assert!(!rendered.contains("aB3dE6gH9"), "{rendered}");
        assert_eq!(
            found[0].location.logical.as_deref(),
            Some("servers/srv/tools/[REDACTED npm-token]/name")
        );
    }

    #[test]
    fn format_descriptions_are_not_secrets() {
        let found = run(
            "secret-in-tool-metadata",
            &[tools(vec![json!({"name": "gh", "description":
                "Needs a GitHub token (ghp_…) or an AWS key such as AKIAIOSFODNN7EXAMPLE."})])],
        );
        assert_eq!(found, vec![]);
    }
}
