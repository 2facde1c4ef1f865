//! `sweep-report --format html` in a real browser: a real sweep of fixture servers (one with
//! script and markup in its id, its name and a tool's description), the page it gives, and
//! Debian's Chromium driven by `tests/fixtures/browser/check-sweep-page.js` (puppeteer-core,
//! axe-core; installed by `scripts/install-fixtures`). The script only observes; the checks
//! are here. Screenshots are kept under `target/tmp/sweep-html/` for review.

use crate::support::{fixture, mcpcheck, python_executable, repo};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const HOSTILE_ID: &str =
    "</script><script>window.__pwned='id'</script><img src=x onerror=\"window.__pwned='id-img'\">";
const HOSTILE_NAME: &str =
    "<script>window.__pwned='name'</script><img src=x onerror=\"window.__pwned='name-img'\">";

/// $CHROMIUM, else the browser `scripts/install-fixtures` found or installed.
fn chromium() -> PathBuf {
    let recorded = repo().join("tests/fixtures/browser/node_modules/.mcpcheck-chromium");
    let path = match std::env::var("CHROMIUM") {
        Ok(path) => PathBuf::from(path),
        Err(_) => PathBuf::from(
            std::fs::read_to_string(&recorded)
                .unwrap_or_else(|_| panic!("{} is missing: run scripts/install-fixtures (it installs Debian's chromium)", recorded.display()))
                .trim(),
        ),
    };
    assert!(
        path.exists(),
        "{} is missing: run scripts/install-fixtures",
        path.display()
    );
    path
}

fn browser_script() -> PathBuf {
    let dir = repo().join("tests/fixtures/browser");
    assert!(
        dir.join("node_modules/puppeteer-core").exists(),
        "{}/node_modules is missing: run scripts/install-fixtures",
        dir.display()
    );
    dir.join("check-sweep-page.js")
}

/// Runs the browser script on a page and returns what it saw.
fn observe(page: &Path, shots: &Path, expand: &str, mode: Option<&str>) -> Value {
    let out = std::process::Command::new("node")
        .arg(browser_script())
        .arg(page)
        .arg(shots)
        .args(mode)
        .env("CHROMIUM", chromium())
        .env("EXPAND", expand)
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "check-sweep-page.js failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// A real sweep of four fixture servers, and its page.
fn swept_page(dir: &Path) -> PathBuf {
    let python = python_executable();
    let manifest = json!([
        {"id": HOSTILE_ID, "command": [python, fixture("markup_in_name_and_description")]},
        {"id": "hostile-output", "command": [python, fixture("hostile_output")]},
        {"id": "banner", "command": [python, fixture("banner_before_initialize")]},
        {"id": "clean", "command": [python, fixture("clean")]},
    ]);
    std::fs::write(dir.join("manifest.json"), manifest.to_string()).expect("manifest");
    let swept = mcpcheck()
        .current_dir(dir)
        .args([
            "sweep",
            "manifest.json",
            "--out",
            "results.jsonl",
            "--jobs",
            "2",
        ])
        .output()
        .expect("sweep");
    assert!(swept.status.success(), "{swept:?}");
    let report = mcpcheck()
        .current_dir(dir)
        .args(["sweep-report", "--format", "html", "--output", "page.html"])
        .arg("results.jsonl")
        .output()
        .expect("sweep-report");
    assert!(report.status.success(), "{report:?}");
    assert!(report.stdout.is_empty() && report.stderr.is_empty());
    dir.join("page.html")
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("an array: {v}"))
        .iter()
        .map(|s| s.as_str().unwrap_or_default().to_string())
        .collect()
}

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("rows")
        .iter()
        .map(|r| r["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn the_page_sorts_filters_expands_copies_and_runs_nothing_it_shows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let page = swept_page(dir.path());
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sweep-html");
    let seen = observe(&page, &shots, "banner", None);
    let i = &seen["interactive"];
    let nothing: Vec<Value> = Vec::new();

    // Nothing ran, nothing was requested, nothing complained.
    for key in ["consoleErrors", "pageErrors", "requests", "dialogs"] {
        assert_eq!(i[key], json!(nothing), "{key}: {:#}", i[key]);
    }
    let inert = json!({"pwned": null, "scripts": 3, "foreign": 0});
    assert_eq!(i["damage"], inert);
    assert_eq!(i["damageAfter"], inert);
    // Without the page's policy, escaping alone keeps it inert.
    assert_eq!(seen["audited"]["damage"], inert);
    assert_eq!(seen["audited"]["dialogs"], json!(nothing));
    assert_eq!(seen["audited"]["requests"], json!(nothing));
    // The hostile strings are on the page, as text.
    assert!(
        strings(&i["ids"]).contains(&HOSTILE_ID.to_string()),
        "{}",
        i["ids"]
    );
    assert!(
        strings(&i["names"]).contains(&HOSTILE_NAME.to_string()),
        "{}",
        i["names"]
    );
    assert!(
        strings(&i["evidence"])
            .iter()
            .any(|e| e.contains("</script><script>window.__pwned='description'")),
        "{}",
        i["evidence"]
    );

    // Every row, and the headline: 1 working (clean), 3 broken.
    assert_eq!(i["rows"], 4);
    assert_eq!(i["visible"].as_array().map(Vec::len), Some(4));
    assert_eq!(i["counts"], json!([1, 3, 0, 0]));

    // Sorting by id, one way then the other.
    let up = strings(&i["sortedUp"]);
    let plain: Vec<&String> = up.iter().filter(|id| !id.starts_with('<')).collect();
    assert_eq!(plain, ["banner", "clean", "hostile-output"]);
    assert_eq!(i["ariaSortUp"], "ascending");
    let mut down = strings(&i["sortedDown"]);
    down.reverse();
    assert_eq!(down, up);

    // Filters: by status, by code; search.
    assert_eq!(ids(&i["filteredPass"]), ["clean"]);
    assert_eq!(i["countText"], "1 of 4 servers match");
    let code = i["filteredCode"]["code"].as_str().expect("a code");
    let with_code = i["filteredCode"]["rows"].as_array().expect("rows");
    assert!(!with_code.is_empty());
    assert!(with_code
        .iter()
        .all(|codes| strings(codes).contains(&code.to_string())));
    assert_eq!(ids(&i["searched"]), ["clean"]);

    // The banner's row, expanded with the keyboard: findings, their fix and what clients
    // did, the command and its copy.
    let e = &i["expanded"];
    assert_eq!(e["id"], "banner");
    assert_eq!(
        (&e["aria"], &e["display"]),
        (&json!("true"), &json!("table-row")),
        "{e:#}"
    );
    assert!(e["findings"].as_u64() >= Some(1), "{e:#}");
    for line in strings(&e["clients"]) {
        assert!(
            line.starts_with("What real clients did: observed on")
                || line.starts_with("No real client was observed with"),
            "{line}"
        );
    }
    // A finding's usual fix is written once, in the codes table, and copied in on expanding.
    let fixes: Vec<&str> = e["fixes"]
        .as_array()
        .expect("fixes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(!fixes.is_empty(), "{e:#}");
    for fix in fixes {
        assert!(fix.starts_with("Fix: ") && fix.len() > 40, "{fix}");
    }
    let reproduce = e["reproduce"].as_str().expect("a reproduce command");
    assert!(reproduce.starts_with("mcpcheck guard"), "{reproduce}");
    assert_eq!(i["copyData"], reproduce);
    assert_eq!(i["copyState"], json!(["yes", "Copied"]));
    assert_eq!(i["clipboard"], reproduce, "{:#}", i);

    // The keyboard reaches the filters, the sort buttons and the rows.
    let stops = strings(&i["tabStops"]);
    for wanted in ["select[s]", "input[q]", "button:Status", "button.exp:"] {
        assert!(
            stops.iter().any(|s| s.starts_with(wanted)),
            "{wanted} in {stops:?}"
        );
    }

    // axe-core: WCAG 2.1 A and AA (contrast among them) and best practice, a row expanded.
    let axe = &seen["audited"]["axe"];
    assert_eq!(axe["violations"], json!(nothing), "{:#}", axe["violations"]);
    for rule in [
        "color-contrast",
        "label",
        "button-name",
        "select-name",
        "svg-img-alt",
    ] {
        assert!(
            strings(&axe["passes"]).contains(&rule.to_string()),
            "{rule}"
        );
    }

    // With scripts off: the same counts, every row and its details, both charts.
    let n = &seen["noScript"];
    assert_eq!(n["counts"], i["counts"]);
    assert_eq!(
        (&n["rowsDisplayed"], &n["detailsDisplayed"]),
        (&json!(4), &json!(4))
    );
    assert_eq!(n["charts"], 2);
    assert_eq!(n["filtersHidden"], true);
    assert_eq!(n["requests"], json!(nothing));

    for name in ["page.png", "row-expanded.png", "no-script.png"] {
        let png = std::fs::read(shots.join(name)).expect("a screenshot");
        assert!(
            png.starts_with(b"\x89PNG") && png.len() > 10_000,
            "{}/{name}",
            shots.display()
        );
    }
}

#[test]
fn a_catalogue_of_250_servers_shows_100_rows_a_page() {
    let dir = tempfile::tempdir().expect("tempdir");
    swept_page(dir.path());
    // The four real lines, each under 62 or 63 new ids.
    let lines: Vec<String> = std::fs::read_to_string(dir.path().join("results.jsonl"))
        .expect("results")
        .lines()
        .map(str::to_string)
        .collect();
    let many: String = (0..250)
        .map(|n| {
            let mut v: Value = serde_json::from_str(&lines[n % 4]).expect("a line");
            v["id"] = json!(format!("server-{n:03}"));
            format!("{v}\n")
        })
        .collect();
    std::fs::write(dir.path().join("many.jsonl"), many).expect("many");
    let report = mcpcheck()
        .current_dir(dir.path())
        .args([
            "sweep-report",
            "many.jsonl",
            "--format",
            "html",
            "--output",
            "many.html",
        ])
        .output()
        .expect("sweep-report");
    assert!(report.status.success(), "{report:?}");
    let seen = observe(
        &dir.path().join("many.html"),
        &dir.path().join("shots"),
        "",
        Some("--paging"),
    );
    let p = &seen["paging"];
    let shown = |state: &Value| state["shown"].as_array().map_or(0, Vec::len);
    assert_eq!(shown(&p["first"]), 100);
    assert_eq!(p["first"]["pager"], "Page 1 of 3 (1–100)");
    assert_eq!(shown(&p["next"]), 100);
    assert_eq!(p["next"]["pager"], "Page 2 of 3 (101–200)");
    assert_ne!(p["next"]["shown"][0], p["first"]["shown"][0]);
    assert_eq!(p["focusAfterNext"], "Next page");
    assert_eq!(shown(&p["last"]), 50);
    assert_eq!(p["last"]["pager"], "Page 3 of 3 (201–250)");
    assert_eq!(p["nextDisabled"], true);
    // A filter starts again at page 1: the passing servers (62 or 63, as the sweep wrote
    // its lines) fit on it, so no pager.
    let passing = (0..250)
        .filter(|n| {
            serde_json::from_str::<Value>(&lines[n % 4]).expect("a line")["status"] == "pass"
        })
        .count();
    assert!((62..=63).contains(&passing));
    assert_eq!(shown(&p["filtered"]), passing);
    assert_eq!(p["filtered"]["pager"], Value::Null);
    assert_eq!(p["consoleErrors"], json!([]));
}
