//! Every finding code has an integration test that expects it exactly.

use crate::support;

#[test]
fn every_code_is_expected_by_an_integration_test() {
    // Every test module of every area (tests/it/AREA/*.rs and tests/it/*.rs); not the
    // support module, which expects nothing, nor this file, which names every code.
    let mut sources = String::new();
    let mut dirs = vec![support::repo().join("tests/it")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("tests dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                if !path.ends_with("support") {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs")
                && !path.ends_with("catalog_coverage.rs")
            {
                sources.push_str(&std::fs::read_to_string(&path).expect("read test"));
            }
        }
    }
    let missing: Vec<&str> = mcpcheck::catalog::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|code| !sources.contains(&format!("(\"{code}\", \"")))
        .collect();
    assert!(
        missing.is_empty(),
        "codes without an exact-findings test: {missing:?}"
    );
}

#[test]
fn the_findings_page_lists_every_code() {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/findings.md"),
    )
    .expect("docs/findings.md");
    let missing: Vec<&str> = mcpcheck::catalog::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|code| !readme.contains(&format!("| `{code}` |")))
        .collect();
    assert!(
        missing.is_empty(),
        "codes missing from the code table of docs/findings.md: {missing:?}"
    );
}
