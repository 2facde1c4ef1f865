//! The OWASP MCP Top 10 (2025, v0.1 beta): the taxonomy security rules map to.

pub const TAXONOMY_NAME: &str = "OWASP MCP Top 10";
pub const TAXONOMY_VERSION: &str = "2025 v0.1 beta";
pub const TAXONOMY_URI: &str = "https://owasp.org/www-project-mcp-top-10/";

/// Every category: id and name, exactly as OWASP publishes them.
pub const CATEGORIES: &[(&str, &str)] = &[
    ("MCP01", "Token Mismanagement & Secret Exposure"),
    ("MCP02", "Privilege Escalation via Scope Creep"),
    ("MCP03", "Tool Poisoning"),
    (
        "MCP04",
        "Software Supply Chain Attacks & Dependency Tampering",
    ),
    ("MCP05", "Command Injection & Execution"),
    ("MCP06", "Prompt Injection via Contextual Payloads"),
    ("MCP07", "Insufficient Authentication & Authorization"),
    ("MCP08", "Lack of Audit and Telemetry"),
    ("MCP09", "Shadow MCP Servers"),
    ("MCP10", "Context Injection & Over-Sharing"),
];

/// The name of a category id such as `MCP03`.
pub fn name(id: &str) -> Option<&'static str> {
    CATEGORIES.iter().find(|(i, _)| *i == id).map(|(_, n)| *n)
}
