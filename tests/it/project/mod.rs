//! The project's own rules: layering, generated docs, catalogue coverage, wording, packages.

mod catalog_coverage;
mod docs_examples;
mod docs_generated;
mod layering;
mod packaging;
mod rules_docs;
mod wording;
