//! Renderers. They read findings and the views engines export; they never know how a
//! finding was made. One module per output format, and the renderers of one engine together.

pub mod clients_doc;
pub mod document;
pub mod github;
pub mod guard;
pub mod human;
pub mod inventory;
pub mod issue;
pub mod markdown;
pub mod markdown_escape;
pub mod named;
pub mod owasp;
pub mod printed;
pub mod proxy;
pub mod repo;
pub mod rule_docs;
pub mod sarif;
mod sarif_pretty;
mod sarif_rules;
#[cfg(test)]
mod sarif_tests;
pub mod scan;
pub mod schemas;
pub mod source;
pub mod surface;
pub mod sweep;
