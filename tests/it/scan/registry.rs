//! `deprecated-package` needs `--registry`: packages are looked up in their registry (here a
//! local one serving npm and PyPI documents); an unreachable registry is a notice, not a hang.
//! `vulnerable-package` needs `--advisories`: the same stand-in answers OSV's query API with
//! its record shapes; offline and rate-limited services are findings, not silent passes.

use crate::support;
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
        Self::refusing(hits, "")
    }

    /// With `status` (403, 429), every advisory query is refused with it.
    fn refusing(hits: &std::path::Path, status: &str) -> Self {
        let mut child = Command::new("python3")
            .arg(repo().join("tests/fixtures/registry/registry.py"))
            .env("HITS_FILE", hits)
            .env("OSV_STATUS", status)
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
        .env("MCPCHECK_OSV_URL", registry)
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
    // The note follows the verdict's closing counts (issue 28 item 2).
    let counts = human.find(" at or above ").expect("the closing counts");
    let note = human
        .find("\nnote: registry: http://127.0.0.1:1/ is unreachable")
        .expect("the note");
    assert!(note > counts, "{human}");
}

fn messages(r: &ScanResult, code: &str) -> Vec<(String, String)> {
    r.json["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .filter(|i| i["code"] == code)
        .map(|i| {
            (
                i["message"].as_str().expect("message").to_string(),
                i["fix"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn vulnerable_package_names_each_advisory_its_severity_fix_and_upgrade() {
    let dir = tempfile::tempdir().expect("tempdir");
    let hits = dir.path().join("hits");
    let registry = Registry::start(&hits);
    let r = scan_with_registry(
        &registry.url,
        &["--advisories", &config("vulnerable_package.malicious.json")],
    );
    assert_eq!(
        r.places(),
        places(&[
            (
                "vulnerable-package",
                "high",
                3,
                54,
                "/mcpServers/kubernetes/args/1"
            ),
            (
                "vulnerable-package",
                "high",
                4,
                48,
                "/mcpServers/playwright/args/0"
            ),
            (
                "vulnerable-package",
                "high",
                6,
                54,
                "/mcpServers/k8s-latest/args/1"
            ),
            (
                "vulnerable-package",
                "medium",
                5,
                41,
                "/mcpServers/git/args/0"
            ),
            (
                "unpinned-package",
                "medium",
                6,
                54,
                "/mcpServers/k8s-latest/args/1"
            ),
        ])
    );
    assert_eq!(r.exit, 1);
    assert_eq!(
        r.issues(),
        pairs(&[
            ("vulnerable-package", "error"),
            ("vulnerable-package", "error"),
            ("vulnerable-package", "error"),
            ("vulnerable-package", "warning"),
            ("unpinned-package", "warning"),
        ])
    );
    let found = messages(&r, "vulnerable-package");
    assert_eq!(
        found[0].0,
        "Server \"kubernetes\": mcp-server-kubernetes 2.4.0 has 1 known vulnerability: GHSA-test-k8s1-0001 (CVE-2025-53355, high, fixed in 2.5.0): mcp-server-kubernetes vulnerable to command injection in several tools."
    );
    assert_eq!(
        found[0].1,
        "Upgrade to mcp-server-kubernetes 2.5.0 or later and pin it (npx -y mcp-server-kubernetes@2.5.0)."
    );
    assert!(
        found[1].0.contains("@playwright/mcp 0.0.39 has 1 known vulnerability: GHSA-test-pwmc-0001 (CVE-2025-9611, high, fixed in 0.0.40)"),
        "{}",
        found[1].0
    );
    // Unpinned: checked at the registry's latest version, and the finding says so.
    assert!(
        found[2].0.starts_with("Server \"k8s-latest\": mcp-server-kubernetes is not pinned, and its latest version 2.4.0, which the runner fetches today, has 1 known vulnerability: GHSA-test-k8s1-0001"),
        "{}",
        found[2].0
    );
    // Two advisories: both named, the upgrade is the version that fixes both.
    assert!(
        found[3].0.contains("mcp-server-git 2025.7.1 has 2 known vulnerabilities: GHSA-test-git1-0001 (CVE-2025-68143, moderate, fixed in 2025.9.25)")
            && found[3].0.contains("GHSA-test-git1-0002 (CVE-2025-68145, moderate, fixed in 2025.12.18)"),
        "{}",
        found[3].0
    );
    assert!(
        found[3]
            .1
            .starts_with("Upgrade to mcp-server-git 2025.12.18 or later"),
        "{}",
        found[3].1
    );
    assert_eq!(r.json["notices"], serde_json::json!([]));
    // One query per distinct package and version (the two kubernetes entries share one).
    let requested = std::fs::read_to_string(&hits).expect("hits");
    let queries: Vec<&str> = requested
        .lines()
        .filter(|l| l.starts_with("POST /v1/query "))
        .collect();
    assert_eq!(queries.len(), 3, "{requested}");
    assert!(requested.contains("POST /v1/query {\"package\": {\"ecosystem\": \"PyPI\", \"name\": \"mcp-server-git\"}, \"version\": \"2025.7.1\"}"), "{requested}");
    assert!(
        requested.contains("/mcp-server-kubernetes\n"),
        "the latest version was asked of npm: {requested}"
    );
}

#[test]
fn fixed_versions_are_not_reported_and_images_are_named_as_unchecked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Registry::start(&dir.path().join("hits"));
    let r = scan_with_registry(
        &registry.url,
        &["--advisories", &config("vulnerable_package.benign.json")],
    );
    assert_eq!(
        r.places(),
        places(&[(
            "unpinned-package",
            "medium",
            6,
            51,
            "/mcpServers/browser/args/1"
        )])
    );
    assert_eq!(
        r.json["notices"],
        serde_json::json!(["advisories: 1 container image not checked; vulnerable-package covers npm and PyPI packages"])
    );
}

#[test]
fn without_advisories_nothing_is_asked_of_the_advisory_service() {
    let dir = tempfile::tempdir().expect("tempdir");
    let hits = dir.path().join("hits");
    let registry = Registry::start(&hits);
    let r = scan_with_registry(
        &registry.url,
        &[&config("vulnerable_package.malicious.json")],
    );
    assert!(r
        .issues()
        .iter()
        .all(|(code, _)| code != "vulnerable-package"));
    assert!(!hits.exists(), "no request without --advisories");
}

fn assert_each_unchecked(r: &ScanResult, why: &str) {
    assert_eq!(
        r.places(),
        places(&[
            (
                "unpinned-package",
                "medium",
                6,
                54,
                "/mcpServers/k8s-latest/args/1"
            ),
            (
                "advisory-lookup-failed",
                "info",
                3,
                54,
                "/mcpServers/kubernetes/args/1"
            ),
            (
                "advisory-lookup-failed",
                "info",
                4,
                48,
                "/mcpServers/playwright/args/0"
            ),
            (
                "advisory-lookup-failed",
                "info",
                5,
                41,
                "/mcpServers/git/args/0"
            ),
            (
                "advisory-lookup-failed",
                "info",
                6,
                54,
                "/mcpServers/k8s-latest/args/1"
            ),
        ])
    );
    assert_eq!(
        r.issues()[1..],
        pairs(&[
            ("advisory-lookup-failed", "note"),
            ("advisory-lookup-failed", "note"),
            ("advisory-lookup-failed", "note"),
            ("advisory-lookup-failed", "note"),
        ])
    );
    for (message, _) in messages(r, "advisory-lookup-failed") {
        assert!(
            message.contains("was not checked for known vulnerabilities: "),
            "{message}"
        );
        assert!(message.contains(why), "{message}");
    }
    let notices: Vec<&str> = r.json["notices"]
        .as_array()
        .expect("notices")
        .iter()
        .map(|n| n.as_str().expect("notice"))
        .collect();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].starts_with("advisories: 4 packages not checked for known vulnerabilities ("),
        "{}",
        notices[0]
    );
}

#[test]
fn an_offline_advisory_service_is_a_finding_per_package_never_a_silent_pass() {
    // Nothing listens on port 1: refused at once, as when offline.
    let r = scan_with_registry(
        "http://127.0.0.1:1/",
        &["--advisories", &config("vulnerable_package.malicious.json")],
    );
    assert_each_unchecked(&r, "http://127.0.0.1:1/ is unreachable (");
    assert_eq!(
        r.exit, 0,
        "an outage is a note, not a failure at the default threshold"
    );
}

#[test]
fn a_rate_limited_advisory_service_is_a_finding_per_package() {
    for status in ["429", "403"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let hits = dir.path().join("hits");
        let registry = Registry::refusing(&hits, status);
        let r = scan_with_registry(
            &registry.url,
            &["--advisories", &config("vulnerable_package.malicious.json")],
        );
        assert_each_unchecked(
            &r,
            &format!("HTTP status {status}, rate-limited or refused"),
        );
        // After the first refusal the service is not asked again.
        let requested = std::fs::read_to_string(&hits).expect("hits");
        assert_eq!(
            requested.lines().filter(|l| l.starts_with("POST ")).count(),
            1,
            "{requested}"
        );
    }
}
