//! The surface rules. Each rule overrides only the hooks it needs; adding a rule = one file
//! + one line in [`registry`] + its tests.

mod confusable_tool_name;
mod cross_server_tool_collision;
mod exfiltration_parameter;
mod invisible_characters;
mod misleading_tool_title;
mod mutating_tools_without_logging;
mod open_resource_template;
mod secret_in_tool_metadata;
mod sensitive_resource_uri;
mod tool_poisoning_instructions;
mod tool_shadowing;
mod unconfirmed_destructive_tool;
mod unrestricted_exec_input;

use super::item::{Item, TextField};
use super::Server;
use crate::catalog::Code;
use crate::finding::Finding;

/// One rule over advertised items. Every hook defaults to doing nothing.
pub trait SurfaceRule {
    fn code(&self) -> Code;

    /// Runs in `mcpcheck guard`: high precision, and about poisoning, hidden text or secrets.
    fn in_guard(&self) -> bool {
        false
    }

    /// Every text field (string value or object key) of every item, of every kind.
    fn check_text(&self, _item: &Item<'_>, _field: &TextField, _out: &mut Vec<Finding>) {}

    fn check_tool(&self, _server: &Server<'_>, _tool: &Item<'_>, _out: &mut Vec<Finding>) {}

    fn check_prompt(&self, _server: &Server<'_>, _prompt: &Item<'_>, _out: &mut Vec<Finding>) {}

    fn check_resource(&self, _server: &Server<'_>, _res: &Item<'_>, _out: &mut Vec<Finding>) {}

    fn check_resource_template(
        &self,
        _server: &Server<'_>,
        _template: &Item<'_>,
        _out: &mut Vec<Finding>,
    ) {
    }

    /// Once per server, after its items.
    fn check_server(&self, _server: &Server<'_>, _out: &mut Vec<Finding>) {}

    /// Once, over every server together (collisions and look-alikes across servers).
    fn check_servers(&self, _servers: &[Server<'_>], _out: &mut Vec<Finding>) {}
}

/// Every rule, in catalog order.
pub fn registry() -> Vec<Box<dyn SurfaceRule>> {
    vec![
        Box::new(tool_poisoning_instructions::ToolPoisoningInstructions),
        Box::new(invisible_characters::InvisibleCharacters),
        Box::new(tool_shadowing::ToolShadowing),
        Box::new(cross_server_tool_collision::CrossServerToolCollision),
        Box::new(confusable_tool_name::ConfusableToolName),
        Box::new(exfiltration_parameter::ExfiltrationParameter),
        Box::new(unrestricted_exec_input::UnrestrictedExecInput),
        Box::new(unconfirmed_destructive_tool::UnconfirmedDestructiveTool),
        Box::new(misleading_tool_title::MisleadingToolTitle),
        Box::new(secret_in_tool_metadata::SecretInToolMetadata),
        Box::new(sensitive_resource_uri::SensitiveResourceUri),
        Box::new(open_resource_template::OpenResourceTemplate),
        Box::new(mutating_tools_without_logging::MutatingToolsWithoutLogging),
    ]
}

/// The codes of the rules the guard runs, for its report.
pub fn guard_codes() -> Vec<Code> {
    registry()
        .iter()
        .filter(|r| r.in_guard())
        .map(|r| r.code())
        .collect()
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::super::{check, ServerSurface, SurfaceOptions};
    use crate::finding::Finding;
    use serde_json::Value;

    /// One server named `srv` listing `tools` (and nothing else).
    pub fn tools(tools: Vec<Value>) -> ServerSurface {
        ServerSurface {
            server: "srv".into(),
            tools,
            ..ServerSurface::default()
        }
    }

    /// Every finding of one code, over all rules.
    pub fn run(code: &str, surfaces: &[ServerSurface]) -> Vec<Finding> {
        check(surfaces, &SurfaceOptions::default())
            .into_iter()
            .filter(|f| f.code.as_str() == code)
            .collect()
    }

    /// `(logical path, message)` of every finding of one code.
    pub fn places(code: &str, surfaces: &[ServerSurface]) -> Vec<String> {
        run(code, surfaces)
            .into_iter()
            .map(|f| f.location.logical.unwrap_or_default())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Precision;

    #[test]
    fn rules_are_in_catalog_order_and_guard_rules_are_high_precision() {
        let rules = registry();
        let codes: Vec<Code> = rules.iter().map(|r| r.code()).collect();
        let mut sorted = codes.clone();
        sorted.sort();
        assert_eq!(codes, sorted, "registry order follows the catalog");
        for rule in &rules {
            let meta = rule.code().meta();
            assert_eq!(meta.class, crate::finding::IssueClass::Security);
            assert!(meta.owasp.is_some() && meta.risk.is_some(), "{}", meta.code);
            if rule.in_guard() {
                assert!(
                    matches!(meta.precision, Precision::VeryHigh | Precision::High),
                    "{} runs in the guard with {:?} precision",
                    meta.code,
                    meta.precision
                );
            }
        }
        assert_eq!(
            guard_codes(),
            [
                Code::ToolPoisoningInstructions,
                Code::InvisibleCharacters,
                Code::ConfusableToolName,
                Code::SecretInToolMetadata,
                Code::SensitiveResourceUri,
            ]
        );
    }
}
