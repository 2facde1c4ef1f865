//! The published report schemas (schemas/reports/) are generated from the report types:
//! the committed files equal what the types generate. `MCPCHECK_UPDATE_SCHEMAS=1`
//! rewrites them instead.

use mcpcheck::report::schemas::{file_text, generated};
use std::path::Path;

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
