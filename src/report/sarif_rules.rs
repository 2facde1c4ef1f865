//! SARIF `tool.driver.rules[]` and the OWASP MCP Top 10 taxonomy, generated from the catalog.

use super::document::help_uri;
use super::{owasp, rule_docs};
use crate::catalog::CodeMeta;
use crate::finding::{IssueClass, Risk, Severity};
use serde_json::json;
use serde_sarif::sarif::{
    MultiformatMessageString, PropertyBag, ReportingConfiguration, ReportingDescriptor,
    ReportingDescriptorReference, ReportingDescriptorRelationship, ToolComponent,
    ToolComponentReference,
};
use std::collections::BTreeMap;

/// The SARIF level of a severity.
pub fn level(severity: Severity) -> &'static str {
    severity.as_str()
}

/// `stdout-non-json` → `StdoutNonJson`: SARIF's readable rule name.
pub fn rule_name(code: &str) -> String {
    code.split('-')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// Whether a rule is a security rule: it has a risk, or belongs to the security class.
pub fn is_security(meta: &CodeMeta) -> bool {
    meta.risk.is_some() || meta.class == IssueClass::Security
}

/// One descriptor per code, in catalog order, so `ruleIndex` is the code's catalog index.
pub fn rules(metas: &[(&CodeMeta, String)]) -> Vec<ReportingDescriptor> {
    metas
        .iter()
        .map(|(meta, help_uri)| rule(meta, help_uri))
        .collect()
}

/// Every catalog code with its help page URL.
pub fn catalog_metas() -> Vec<(&'static CodeMeta, String)> {
    crate::catalog::ALL
        .iter()
        .map(|c| (c.meta(), help_uri(*c)))
        .collect()
}

fn rule(meta: &CodeMeta, help_uri: &str) -> ReportingDescriptor {
    let mut tags = vec!["mcp".to_string(), meta.class.as_str().to_string()];
    let mut extra: BTreeMap<String, serde_json::Value> = BTreeMap::new();
    extra.insert("precision".into(), json!(meta.precision.as_str()));
    if is_security(meta) {
        if !tags.iter().any(|t| t == "security") {
            tags.push("security".into());
        }
        let score = meta.risk.map_or(5.5, Risk::score);
        // GitHub reads security-severity as a string holding a number.
        extra.insert("security-severity".into(), json!(format!("{score:.1}")));
    }
    if let Some(id) = meta.owasp {
        tags.push(format!("owasp-{}", id.to_ascii_lowercase()));
    }
    let properties = PropertyBag::builder()
        .tags(tags)
        .additional_properties(extra)
        .build();
    let relationships: Vec<ReportingDescriptorRelationship> = meta
        .owasp
        .filter(|id| owasp::name(id).is_some())
        .map(|id| {
            ReportingDescriptorRelationship::builder()
                .target(taxon_reference(id))
                .kinds(vec!["relevant".to_string()])
                .build()
        })
        .into_iter()
        .collect();
    let help = MultiformatMessageString::builder()
        .text(match crate::catalog::clients::line(meta.code) {
            Some(seen) => format!(
                "{}\n\nWhat real clients did: {seen}\n\nDocumentation: {help_uri}",
                meta.help
            ),
            None => format!("{}\n\nDocumentation: {help_uri}", meta.help),
        })
        .markdown(rule_docs::help_markdown(meta))
        .build();
    let base = ReportingDescriptor::builder()
        .id(meta.code)
        .name(rule_name(meta.code))
        .short_description(MultiformatMessageString::builder().text(meta.title).build())
        .full_description(MultiformatMessageString::builder().text(meta.help).build())
        .help(help)
        .help_uri(help_uri)
        .default_configuration(
            ReportingConfiguration::builder()
                .level(json!(level(meta.default_severity())))
                .build(),
        )
        .properties(properties);
    if relationships.is_empty() {
        base.build()
    } else {
        let mut descriptor = base.build();
        descriptor.relationships = Some(relationships);
        descriptor
    }
}

/// A reference to an OWASP MCP Top 10 category inside the run's taxonomy.
pub fn taxon_reference(id: &str) -> ReportingDescriptorReference {
    ReportingDescriptorReference::builder()
        .id(id)
        .tool_component(
            ToolComponentReference::builder()
                .name(owasp::TAXONOMY_NAME)
                .build(),
        )
        .build()
}

/// The OWASP MCP Top 10 as a SARIF taxonomy, when any rule maps to it.
pub fn taxonomy(metas: &[(&CodeMeta, String)]) -> Option<ToolComponent> {
    if !metas.iter().any(|(m, _)| m.owasp.is_some()) {
        return None;
    }
    let taxa: Vec<ReportingDescriptor> = owasp::CATEGORIES
        .iter()
        .map(|(id, name)| {
            ReportingDescriptor::builder()
                .id(*id)
                .name(*name)
                .short_description(MultiformatMessageString::builder().text(*name).build())
                .build()
        })
        .collect();
    Some(
        ToolComponent::builder()
            .name(owasp::TAXONOMY_NAME)
            .version(owasp::TAXONOMY_VERSION)
            .organization("OWASP")
            .information_uri(owasp::TAXONOMY_URI)
            .short_description(
                MultiformatMessageString::builder()
                    .text("OWASP Top 10 risks for Model Context Protocol servers and clients")
                    .build(),
            )
            .is_comprehensive(true)
            .taxa(taxa)
            .build(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Precision;

    #[test]
    fn rule_names_are_camel_case() {
        assert_eq!(rule_name("stdout-non-json"), "StdoutNonJson");
        assert_eq!(rule_name("a"), "A");
    }

    static SECRET_RULE: CodeMeta = CodeMeta {
        code: "config-secret-literal",
        title: "A secret is written into the config",
        class: IssueClass::Security,
        declared_severity: Severity::Error,
        help: "Move it into the environment.",
        precision: Precision::High,
        risk: Some(Risk::High),
        owasp: Some("MCP01"),
        rationale: None,
    };

    #[test]
    fn security_rules_carry_severity_tags_and_taxonomy() {
        let metas = vec![(&SECRET_RULE, "https://example.invalid/r.md".to_string())];
        let rules = rules(&metas);
        let v = serde_json::to_value(&rules[0]).expect("serialise");
        assert_eq!(v["properties"]["security-severity"], "8.0");
        assert_eq!(v["properties"]["precision"], "high");
        let tags = v["properties"]["tags"].as_array().expect("tags");
        assert!(tags.contains(&json!("security")) && tags.contains(&json!("owasp-mcp01")));
        assert_eq!(v["relationships"][0]["target"]["id"], "MCP01");
        assert_eq!(
            v["relationships"][0]["target"]["toolComponent"]["name"],
            owasp::TAXONOMY_NAME
        );
        let tax = serde_json::to_value(taxonomy(&metas).expect("taxonomy")).expect("serialise");
        assert_eq!(tax["taxa"].as_array().map(Vec::len), Some(10));
        assert_eq!(tax["taxa"][2]["name"], "Tool Poisoning");
        assert!(taxonomy(&catalog_metas()[..1]).is_none());
    }
}
