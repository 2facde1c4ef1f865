//! `mcpcheck sweep` over two fixture servers (its results lines and closing summary), and
//! `mcpcheck sweep-report` in every format over those results.

use crate::support::sarif::validate_sarif;
use crate::support::schema::{validate_text, ReportKind};
use crate::support::snapshot::{exact_settings, run, settings};
use crate::support::{mcpcheck, python_executable, repo};

/// Gives every line a fixed start and wall time (distinct per line, so the slowest-first
/// order is fixed too): the report's figures are then computed from known input.
fn fixed_times(results: &str) -> String {
    let started = regex::Regex::new(r#""startedAt":"[^"]*""#).expect("regex");
    let wall = regex::Regex::new(r#""wallMs":\d+"#).expect("regex");
    results
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let line =
                started.replace(line, format!(r#""startedAt":"2026-01-01T00:00:0{i}.000Z""#));
            let line = wall.replace(&line, format!(r#""wallMs":{}"#, 1500 + 1000 * i));
            format!("{line}\n")
        })
        .collect()
}

/// The page without its stylesheet and script (src/report/sweep/html/page.{css,js}) and
/// their hashes, one element a line.
fn readable_page(page: &str) -> String {
    let style = regex::Regex::new(r"(?s)<style>.*?</style>").expect("regex");
    let script = regex::Regex::new(r"(?s)<script>\(function.*?</script>").expect("regex");
    let hash = regex::Regex::new(r"'sha256-[A-Za-z0-9+/=]+'").expect("regex");
    let page = style.replace(page, "<style>[page.css]</style>");
    let page = script.replace(&page, "<script>[page.js]</script>");
    hash.replace_all(&page, "'sha256-[hash]'")
        .replace("><", ">\n<")
}

#[test]
fn sweep_results_summary_and_every_sweep_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let python = python_executable();
    let servers = repo().join("tests/fixtures/servers");
    let manifest = serde_json::json!([
        {"id": "clean", "command": [python, servers.join("clean.py")]},
        {"id": "banner", "command": [python, servers.join("banner_before_initialize.py")]},
    ]);
    std::fs::write(dir.path().join("manifest.json"), manifest.to_string()).expect("manifest");
    // Only PATH reaches the sweep, so the environment names each result lists are fixed.
    let path = std::env::var_os("PATH").expect("PATH");
    let swept = run(mcpcheck()
        .env_clear()
        .env("PATH", path)
        .current_dir(dir.path())
        .args([
            "sweep",
            "manifest.json",
            "--out",
            "results.jsonl",
            "--jobs",
            "1",
        ]));
    assert_eq!(swept.exit, 0, "{}", swept.stderr);
    let results_file = dir.path().join("results.jsonl");
    let results = std::fs::read_to_string(&results_file).expect("results");
    assert_eq!(results.lines().count(), 2, "{results}");
    for line in results.lines() {
        validate_text(ReportKind::SweepResultLine, line);
    }

    let mut live = settings(&[dir.path()]);
    live.add_filter(&regex::escape(python), "[python]");
    live.add_filter(r#"(/[^/"]+)*/mcpcheck-sweep-[A-Za-z0-9]+"#, "[sandbox]");
    // The slowest-first list orders the servers by their measured time.
    live.add_filter(r"(?m)^  slowest: .*$", "  slowest: [by measured time]");
    live.bind(|| {
        insta::assert_snapshot!("sweep_results_jsonl", results);
        insta::assert_snapshot!("sweep_summary", swept.stdout);
    });

    std::fs::write(&results_file, fixed_times(&results)).expect("fixed times");
    let mut fixed = exact_settings(&[dir.path()]);
    fixed.add_filter(&regex::escape(python), "[python]");
    fixed.bind(|| {
        for format in ["human", "json", "markdown", "sarif", "html"] {
            let r = run(mcpcheck().current_dir(dir.path()).args([
                "sweep-report",
                "results.jsonl",
                "--format",
                format,
            ]));
            assert_eq!(r.exit, 0, "{format}: {}", r.stderr);
            assert_eq!(r.stderr, "", "{format}");
            if format == "sarif" {
                validate_sarif(&r.stdout);
            }
            if format == "json" {
                validate_text(ReportKind::SweepReport, &r.stdout);
            }
            let shown = if format == "html" {
                readable_page(&r.stdout)
            } else {
                r.stdout
            };
            insta::assert_snapshot!(format!("sweep_report_{format}"), shown);
        }
    });
}
