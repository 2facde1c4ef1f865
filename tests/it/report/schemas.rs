//! The published report schemas (schemas/reports/) are generated from the report types:
//! the committed files equal what the types generate. `MCPCHECK_UPDATE_SCHEMAS=1`
//! rewrites them instead. And every one of them checks real output somewhere in the suite.

use crate::support;

use mcpcheck::report::schemas::{file_text, generated};
use std::path::{Path, PathBuf};
use support::schema::ReportKind;

#[test]
fn committed_schemas_equal_what_the_report_types_generate() {
    let update = std::env::var_os("MCPCHECK_UPDATE_SCHEMAS").is_some();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/reports");
    let mut stale = Vec::new();
    for (file, schema) in generated() {
        let path = dir.join(file);
        let want = file_text(&schema);
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != want {
            if update {
                std::fs::write(&path, &want).expect("write schema");
            } else {
                stale.push(file);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "{stale:?} differ from what the report types generate; run MCPCHECK_UPDATE_SCHEMAS=1 cargo test --test report_schemas"
    );
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read tests") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each JSON output with a schema is validated against it by some test: its kind is named
/// outside the validator itself (tests/it/support/schema.rs), and every published schema has
/// a kind, so a new JSON output cannot ship a schema nothing checks.
#[test]
fn every_published_schema_validates_real_output_in_the_suite() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let kinds: Vec<&str> = ReportKind::ALL.iter().map(|k| k.file()).collect();
    for (file, _) in generated() {
        assert!(
            kinds.contains(&file),
            "{file} has no ReportKind in tests/it/support/schema.rs, so no test validates against it"
        );
    }
    let mut files = Vec::new();
    rust_files(&root.join("tests"), &mut files);
    let validator = root.join("tests/it/support/schema.rs");
    let sources: Vec<String> = files
        .iter()
        .filter(|f| **f != validator)
        .map(|f| std::fs::read_to_string(f).expect("read a test"))
        .collect();
    for kind in ReportKind::ALL {
        let name = format!("ReportKind::{kind:?}");
        assert!(
            sources.iter().any(|s| s.contains(&name)),
            "no test validates any output against {} ({name} is used nowhere)",
            kind.file()
        );
    }
}
