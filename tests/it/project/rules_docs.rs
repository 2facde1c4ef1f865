//! docs/rules/ is generated from the catalog; the committed pages must be what
//! `mcpcheck rules --markdown` writes today, page for page, with nothing extra.

use crate::support;

use std::collections::BTreeMap;
use std::path::Path;

fn pages(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .expect("read docs dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.file_name().expect("name").to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).expect("read page"),
            )
        })
        .collect()
}

#[test]
fn committed_rule_docs_match_the_catalog() {
    let generated = tempfile::tempdir().expect("tempdir");
    let out = support::mcpcheck()
        .args(["rules", "--markdown"])
        .arg(generated.path())
        .output()
        .expect("run mcpcheck rules");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fresh = pages(generated.path());
    assert_eq!(
        fresh.len(),
        mcpcheck::catalog::ALL.len() + 1,
        "one page per code plus README.md"
    );
    let committed = pages(&support::repo().join("docs/rules"));
    let stale: Vec<&String> = fresh
        .iter()
        .filter(|(name, text)| committed.get(*name) != Some(*text))
        .map(|(name, _)| name)
        .chain(committed.keys().filter(|name| !fresh.contains_key(*name)))
        .collect();
    assert!(
        stale.is_empty(),
        "docs/rules is out of date for {stale:?}; run `cargo run -- rules --markdown docs/rules` and commit"
    );
}

#[test]
fn a_rule_page_carries_the_catalog_metadata() {
    let page = mcpcheck::report::rule_docs::page(mcpcheck::catalog::Code::StdoutNonJson.meta());
    assert!(page.starts_with("# stdout-non-json\n"));
    for needle in [
        "**A line on stdout is not JSON**",
        "| Class | `stdioTransport` |",
        "| Default severity | error |",
        "| Precision | very-high |",
        "Send logs to stderr.",
    ] {
        assert!(page.contains(needle), "missing {needle} in\n{page}");
    }
}

#[test]
fn an_unwritable_docs_directory_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "x").expect("write");
    let out = support::mcpcheck()
        .args(["rules", "--markdown"])
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("mcpcheck: error: --markdown"),
        "{stderr}"
    );
}
