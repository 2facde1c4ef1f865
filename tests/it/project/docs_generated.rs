//! The parts of README.md and docs/ that the code knows are generated, and the committed
//! text equals what the code generates. `MCPCHECK_UPDATE_DOCS=1` rewrites them instead.

use crate::support;
use support::docs::{documents, shown};

#[test]
fn generated_sections_equal_what_the_code_generates() {
    let update = std::env::var_os("MCPCHECK_UPDATE_DOCS").is_some();
    let mut stale = Vec::new();
    let mut seen = Vec::new();
    for file in documents() {
        let text = std::fs::read_to_string(&file).expect("read");
        let (filled, found) = mcpcheck::app::docs::fill(&text);
        seen.extend(found.iter().map(|n| format!("{}:{n}", shown(&file))));
        if filled != text {
            if update {
                std::fs::write(&file, &filled).expect("write");
            } else {
                stale.push(shown(&file));
            }
        }
        assert!(
            !filled.contains("(unknown generated section"),
            "{}: a marker names a section the code does not generate",
            shown(&file)
        );
    }
    assert!(
        stale.is_empty(),
        "generated sections are stale in {stale:?}; run MCPCHECK_UPDATE_DOCS=1 cargo test --test it project::docs_generated"
    );
    // The README carries the usage lines; the guard's options and the code table are in docs/.
    for needed in [
        "README.md:usage",
        "docs/findings.md:codes",
        "docs/clients.md:clients",
        "docs/guard.md:options:guard",
        // Tables that name a code's risk, OWASP category, precision or severity.
        "docs/surface.md:rules:surface",
        "docs/scan.md:rules:scan",
        "docs/guard-http.md:rules:http",
        "docs/guard.md:rules:adversarial",
    ] {
        assert!(
            seen.iter().any(|s| s == needed),
            "{needed} is not generated; seen {seen:?}"
        );
    }
}

#[test]
fn every_code_of_a_rule_table_says_what_it_reports() {
    // A generated rule table gains a row for a new code with an empty last cell: write it.
    for (page, family) in [
        ("docs/surface.md", "surface"),
        ("docs/scan.md", "scan"),
        ("docs/guard-http.md", "http"),
    ] {
        let text = std::fs::read_to_string(support::repo().join(page)).expect("read");
        let open = format!("<!-- generated:rules:{family} -->");
        let table = text
            .split(&open)
            .nth(1)
            .and_then(|t| t.split("<!-- end:").next())
            .unwrap_or_else(|| panic!("{page}: no {open}"));
        let missing = mcpcheck::app::docs_rules::undescribed(family, table);
        assert!(missing.is_empty(), "{page}: describe {missing:?}");
    }
}

#[test]
fn every_subcommand_has_an_options_table_and_every_code_a_row() {
    let sections = mcpcheck::app::docs::sections();
    let codes = &sections
        .iter()
        .find(|(n, _)| n == "codes")
        .expect("codes")
        .1;
    for code in mcpcheck::catalog::ALL {
        let row = format!("| `{}` | {} |", code.as_str(), code.severity().as_str());
        assert!(codes.contains(&row), "no row {row}");
    }
    let guard = &sections
        .iter()
        .find(|(n, _)| n == "options:guard")
        .expect("guard options")
        .1;
    assert!(guard.contains("| `--timeout DURATION` | 5s |"), "{guard}");
    assert!(
        guard.contains("| `--adversarial-probes all\\|none\\|LIST` | none |"),
        "{guard}"
    );
    assert!(guard.contains("| `--settle DURATION` | 300ms |"), "{guard}");
    for sub in [
        "scan",
        "source",
        "surface",
        "proxy",
        "sweep",
        "sweep-report",
        "inventory",
    ] {
        assert!(
            sections.iter().any(|(n, _)| *n == format!("options:{sub}")),
            "no options table for {sub}"
        );
    }
}
