//! `deprecated-package` needs `--registry`: packages are looked up in their registry (here a
//! local one serving npm and PyPI documents); an unreachable registry is a notice, not a hang.

mod support;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use support::scan::*;
use support::*;

struct Registry {
    child: Child,
    url: String,
}

impl Registry {
    fn start(hits: &std::path::Path) -> Self {
        let mut child = Command::new("python3")
            .arg(repo().join("tests/fixtures/registry/registry.py"))
            .env("HITS_FILE", hits)
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the registry fixture");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("port");
        let url = format!("http://127.0.0.1:{}/", line.trim());
        Self { child, url }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn scan_with_registry(registry: &str, args: &[&str]) -> ScanResult {
    parse(run(scan_command(&repo())
        .env("npm_config_registry", registry)
        .env("MCPCHECK_PYPI_URL", registry)
        .args(["scan", "--format", "json"])
        .args(args)))
}

#[test]
fn deprecated_and_yanked_packages_are_reported_with_registry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let hits = dir.path().join("hits");
    let registry = Registry::start(&hits);
    let fixture = config("deprecated_package.malicious.json");
    let r = scan_with_registry(&registry.url, &["--registry", &fixture]);
    assert_eq!(
        r.places(),
        places(&[
            (
                "deprecated-package",
                "medium",
                3,
                47,
                "/mcpServers/pad/args/1"
            ),
            (
                "deprecated-package",
                "medium",
                4,
                53,
                "/mcpServers/abandoned/args/1"
            ),
            (
                "unpinned-package",
                "medium",
                4,
                53,
                "/mcpServers/abandoned/args/1"
            ),
            (
                "deprecated-package",
                "medium",
                5,
                44,
                "/mcpServers/yanked/args/0"
            ),
            (
                "deprecated-package",
                "medium",
                6,
                46,
                "/mcpServers/inactive/args/0"
            ),
        ])
    );
    assert_eq!(
        r.issues(),
        pairs(&[
            ("deprecated-package", "warning"),
            ("deprecated-package", "warning"),
            ("unpinned-package", "warning"),
            ("deprecated-package", "warning"),
            ("deprecated-package", "warning"),
        ])
    );
    let message = |p: &str| {
        r.json["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .find(|i| i["location"]["logical"] == p && i["code"] == "deprecated-package")
            .map(|i| i["message"].as_str().expect("message").to_string())
            .expect("finding")
    };
    assert!(message("/mcpServers/pad/args/1")
        .contains("left-pad-ng 1.0.0 is deprecated in its registry: 1.0.0 mangles unicode input"));
    assert!(message("/mcpServers/abandoned/args/1").contains("@acme/abandoned 3.0.0 is deprecated"));
    assert!(message("/mcpServers/yanked/args/0")
        .contains("oldtool 0.1.0 is yanked in its registry: broken release"));
    assert!(message("/mcpServers/inactive/args/0").contains("sleepy-mcp is inactive"));
    assert_eq!(r.json["notices"], serde_json::json!([]));
    let requested = std::fs::read_to_string(&hits).expect("hits");
    assert!(
        requested.contains("/@acme%2fabandoned") && requested.contains("/pypi/oldtool/json"),
        "{requested}"
    );
}

#[test]
fn current_versions_and_unknown_packages_are_not_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Registry::start(&dir.path().join("hits"));
    let r = scan_with_registry(
        &registry.url,
        &["--registry", &config("deprecated_package.benign.json")],
    );
    assert_eq!(r.places(), places(&[]), "{:#}", r.json["issues"]);
    assert_eq!(r.json["notices"], serde_json::json!([]));
}

#[test]
fn without_registry_nothing_is_looked_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let hits = dir.path().join("hits");
    let registry = Registry::start(&hits);
    let r = scan_with_registry(
        &registry.url,
        &[&config("deprecated_package.malicious.json")],
    );
    assert!(r
        .issues()
        .iter()
        .all(|(code, _)| code != "deprecated-package"));
    assert!(!hits.exists(), "no request without --registry");
}

#[test]
fn an_unreachable_registry_is_skipped_with_a_notice() {
    // Nothing listens on port 1: the connection is refused at once, as when offline.
    let r = scan_with_registry(
        "http://127.0.0.1:1/",
        &["--registry", &config("deprecated_package.malicious.json")],
    );
    assert_eq!(
        r.places(),
        places(&[(
            "unpinned-package",
            "medium",
            4,
            53,
            "/mcpServers/abandoned/args/1"
        )])
    );
    let notices: Vec<&str> = r.json["notices"]
        .as_array()
        .expect("notices")
        .iter()
        .map(|n| n.as_str().expect("notice"))
        .collect();
    assert_eq!(notices.len(), 2, "{notices:?}");
    for n in &notices {
        assert!(
            n.starts_with("registry: http://127.0.0.1:1/ is unreachable ("),
            "{n}"
        );
        assert!(
            n.ends_with("deprecated-package was not checked for its packages"),
            "{n}"
        );
    }
    let human = String::from_utf8(
        run(scan_command(&repo())
            .env("npm_config_registry", "http://127.0.0.1:1/")
            .env("MCPCHECK_PYPI_URL", "http://127.0.0.1:1/")
            .args([
                "scan",
                "--registry",
                &config("deprecated_package.malicious.json"),
            ]))
        .stdout,
    )
    .expect("utf-8");
    assert!(
        human.contains("  note: registry: http://127.0.0.1:1/ is unreachable"),
        "{human}"
    );
}
