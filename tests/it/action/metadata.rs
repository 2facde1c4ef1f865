//! action.yml, its development twin and docs/action.md: the published image
//! is the crate's version, the docs list exactly the inputs the Action reads, and the
//! release's pinning script writes a tag-and-digest reference.

use crate::support;

use regex::Regex;
use std::process::Command;

fn read(path: &str) -> String {
    std::fs::read_to_string(support::repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `owner` of `https://github.com/owner/repo` in Cargo.toml.
fn owner() -> String {
    let repository = env!("CARGO_PKG_REPOSITORY");
    let rest = repository
        .strip_prefix("https://github.com/")
        .expect("a GitHub repository URL");
    rest.split('/').next().expect("owner").to_ascii_lowercase()
}

fn image_line(action: &str) -> String {
    let lines: Vec<&str> = action
        .lines()
        .filter(|l| l.starts_with("  image: "))
        .collect();
    assert_eq!(lines.len(), 1, "one runs.image line: {lines:?}");
    // Without a trailing comment (a linter's suppression).
    let value = &lines[0]["  image: ".len()..];
    value.split(" #").next().unwrap_or(value).to_string()
}

/// Input names declared under `inputs:` (two-space indented keys).
fn inputs_of(action: &str) -> Vec<String> {
    let block = action
        .split("\ninputs:\n")
        .nth(1)
        .expect("inputs:")
        .split("\noutputs:\n")
        .next()
        .expect("block");
    let key = Regex::new(r"(?m)^  ([a-z_]+):$").expect("regex");
    key.captures_iter(block).map(|c| c[1].to_string()).collect()
}

#[test]
fn the_action_runs_the_published_image_of_the_crate_version() {
    let image = image_line(&read("action.yml"));
    let pattern = format!(
        r"^docker://ghcr\.io/{}/mcpcheck:{}(@sha256:[0-9a-f]{{64}})?$",
        regex::escape(&owner()),
        regex::escape(env!("CARGO_PKG_VERSION"))
    );
    assert!(
        Regex::new(&pattern).expect("regex").is_match(&image),
        "action.yml runs {image:?}; want the image release.yml publishes for version {}",
        env!("CARGO_PKG_VERSION")
    );
}

/// The development action: action.yml with the image built from the checkout. It is
/// generated from action.yml (`MCPCHECK_UPDATE_DOCS=1` rewrites it), so an input is declared
/// in one file.
fn development_action(published: &str) -> String {
    let runs = published
        .rfind("\nruns:\n")
        .expect("a runs: block at the end");
    // The comment above `runs:` says where the published image comes from.
    let comment = published[..runs]
        .trim_end()
        .rsplit_once("\n\n")
        .map_or(runs, |(before, _)| before.len());
    format!(
        "# The repository's action.yml with the image built from the checkout (generated from it:\n\
         # MCPCHECK_UPDATE_DOCS=1 cargo test --test it action::metadata rewrites this file).\n\
         {}\n\n\
         # Built from this checkout's Dockerfile, for the project's own workflows (mcpcheck.yml):\n\
         # they test the code of the commit, not the last release. Everything above is action.yml's.\n\
         runs:\n  using: docker\n  image: ../../../Dockerfile # zizmor: ignore[unpinned-images] (built from this checkout)\n",
        &published[..comment]
    )
}

#[test]
fn the_development_action_is_action_yml_with_the_checkout_s_image() {
    let published = read("action.yml");
    let expected = development_action(&published);
    let path = support::repo().join(".github/actions/dev/action.yml");
    if std::env::var_os("MCPCHECK_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &expected).expect("write the development action");
    }
    let dev = read(".github/actions/dev/action.yml");
    assert_eq!(
        dev, expected,
        "the development action is stale; run MCPCHECK_UPDATE_DOCS=1 cargo test --test it action::metadata"
    );
    assert_eq!(image_line(&dev), "../../../Dockerfile");
    assert_eq!(inputs_of(&dev), inputs_of(&published));
}

#[test]
fn the_docs_list_exactly_the_inputs_the_action_reads() {
    let action = read("action.yml");
    let mut declared = inputs_of(&action);
    declared.sort();
    let readme = read("docs/action.md");
    let section = readme
        .split("\n## GitHub Action\n")
        .nth(1)
        .expect("the Action section")
        .split("\n### Outputs\n")
        .next()
        .expect("inputs table");
    let row = Regex::new(r"(?m)^\| `([a-z_]+)` \|").expect("regex");
    let mut documented: Vec<String> = row
        .captures_iter(section)
        .map(|c| c[1].to_string())
        .collect();
    documented.sort();
    assert_eq!(
        declared, documented,
        "action.yml inputs vs the table of docs/action.md"
    );
    let source = read("src/app/action/inputs.rs");
    // The guard's times and limits are read through the table that declares them.
    let tuning: Vec<&str> = mcpcheck::session::tuning::Tuning::SPECS
        .iter()
        .filter_map(|spec| spec.input)
        .collect();
    for name in &tuning {
        assert!(
            declared.iter().any(|d| d == name),
            "the tuning table gives the Action input `{name}` but action.yml does not declare it"
        );
    }
    assert!(
        source.contains("Tuning::SPECS"),
        "the Action reads the tuning table"
    );
    for name in &declared {
        assert!(
            source.contains(&format!("input(\"{name}\")"))
                || source.contains(&format!("flag(\"{name}\""))
                || tuning.contains(&name.as_str()),
            "action.yml declares `{name}` but src/app/action/inputs.rs never reads it"
        );
    }
    for (file, text) in [("action.yml", &action), ("docs/action.md", &readme)] {
        assert!(
            !text.contains("Not available in this build"),
            "{file} still says an input is not available"
        );
    }
}

#[test]
fn pin_image_writes_tag_and_digest_and_refuses_another_version() {
    let dir = tempfile::tempdir().expect("tempdir");
    let copy = dir.path().join("action.yml");
    std::fs::write(&copy, read("action.yml")).expect("copy");
    let pin = |version: &str, digest: &str| {
        Command::new(support::repo().join("scripts/pin-image"))
            .args([version, digest])
            .env("ACTION_YML", &copy)
            .output()
            .expect("run scripts/pin-image")
    };
    let version = env!("CARGO_PKG_VERSION");
    let first = format!("sha256:{}", "a".repeat(64));
    let second = format!("sha256:{}", "0123456789abcdef".repeat(4));
    for digest in [&first, &second] {
        let out = pin(version, digest);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let pinned = std::fs::read_to_string(&copy).expect("pinned");
        assert_eq!(
            image_line(&pinned),
            format!("docker://ghcr.io/{}/mcpcheck:{version}@{digest}", owner())
        );
    }
    let before = std::fs::read_to_string(&copy).expect("pinned");
    for (v, d) in [("9.9.9", first.as_str()), (version, "sha256:short")] {
        let out = pin(v, d);
        assert_eq!(out.status.code(), Some(2), "{v} {d}");
        assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
    }
    assert_eq!(std::fs::read_to_string(&copy).expect("unchanged"), before);
}

/// The tags release.yml pushes for `version`: each `--tag "$IMAGE:…"` of its
/// `imagetools create`, with `$VERSION` and `${VERSION%%.*}` (the major) expanded.
fn pushed_tags(release: &str, version: &str) -> Vec<String> {
    let major = version.split('.').next().expect("major");
    let tag = Regex::new(r#"--tag "\$IMAGE:([^"]+)""#).expect("regex");
    release
        .lines()
        .filter(|l| l.contains("imagetools create"))
        .flat_map(|l| {
            tag.captures_iter(l)
                .map(|c| c[1].to_string())
                .collect::<Vec<_>>()
        })
        .map(|t| {
            t.replace("${VERSION%%.*}", major)
                .replace("$VERSION", version)
        })
        .collect()
}

/// Every text file git tracks (or, outside a checkout, every file under the repository).
fn tracked_files() -> Vec<std::path::PathBuf> {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(support::repo())
        .output()
        .expect("git ls-files");
    assert!(out.status.success(), "git ls-files failed");
    out.stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| support::repo().join(String::from_utf8_lossy(p).as_ref()))
        .filter(|p| p.is_file())
        .collect()
}

#[test]
fn every_image_reference_names_a_tag_the_release_pushes() {
    let version = env!("CARGO_PKG_VERSION");
    let pushed = pushed_tags(&read(".github/workflows/release.yml"), version);
    assert!(
        pushed.contains(&version.to_string()),
        "release.yml pushes {pushed:?}, not the version {version}"
    );
    // Documentation placeholders stand for the pushed tags.
    let placeholders = ["<version>", "<major>"];
    let reference = Regex::new(&format!(
        r"ghcr\.io/(?:{}|<owner>)/mcpcheck(:[A-Za-z0-9_.<>${{}}%*-]+)?(@sha256:[0-9a-f.]+)?",
        regex::escape(&owner())
    ))
    .expect("regex");
    let mut bad = Vec::new();
    let mut seen = 0;
    for file in tracked_files() {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let shown = file
            .strip_prefix(support::repo())
            .unwrap_or(&file)
            .display()
            .to_string();
        for (n, line) in text.lines().enumerate() {
            for c in reference.captures_iter(line) {
                seen += 1;
                let tag = c.get(1).map(|t| &t.as_str()[1..]);
                let ok = match tag {
                    // By digest alone, or the repository named without a tag in prose.
                    None => true,
                    Some(t) if placeholders.contains(&t) => true,
                    // release.yml's own expressions.
                    Some(t) if t.starts_with('$') => shown == ".github/workflows/release.yml",
                    Some(t) => pushed.iter().any(|p| p == t),
                };
                if !ok {
                    bad.push(format!("{shown}:{}: {}", n + 1, &c[0]));
                }
            }
        }
    }
    assert!(seen >= 5, "found only {seen} image references");
    assert!(
        bad.is_empty(),
        "image tags release.yml never pushes (it pushes {pushed:?}):\n{}",
        bad.join("\n")
    );
}

/// macOS is built, published and tested: both darwin targets in the packages matrix on
/// macOS runners (with the hygiene tests run there), scripts/package knowing them, their
/// npm packages published, a macos-latest CI job running the suite, and the Linux suite's
/// portable pass and portable-only build.
#[test]
fn macos_packages_are_built_published_and_tested() {
    let packages = read(".github/workflows/packages.yml");
    let package = read("scripts/package");
    for (target, runner, npm) in [
        ("aarch64-apple-darwin", "macos-15", "darwin-arm64"),
        ("x86_64-apple-darwin", "macos-15-intel", "darwin-x64"),
    ] {
        let entry = format!("- {{ target: {target}, runner: {runner} }}");
        assert!(packages.contains(&entry), "packages.yml lacks {entry}");
        let case = format!("{target}) npm_platform={npm} ;;");
        assert!(package.contains(&case), "scripts/package lacks {case}");
    }
    assert!(
        packages.contains("if: runner.os == 'macOS'")
            && packages.contains("cargo test --locked --test it -- guard::runtime::"),
        "packages.yml runs the hygiene tests on macOS"
    );
    assert!(
        packages.contains(r#"dist/mcpcheck-darwin-*-"$version".tgz"#),
        "packages.yml publishes the darwin npm packages"
    );
    let ci = read(".github/workflows/ci.yml");
    let macos_job = ci
        .split("\n  macos:\n")
        .nth(1)
        .expect("ci.yml has a macos job");
    assert!(macos_job.contains("runs-on: macos-latest"), "{macos_job}");
    assert!(macos_job.contains("cargo test --locked"), "{macos_job}");
    let test = read("scripts/test");
    assert!(test.contains("MCPCHECK_TEST_PROCESS_BACKEND=portable cargo test"));
    assert!(test.contains("--features portable-only"));
}

#[test]
fn the_docs_say_what_the_image_carries() {
    // Issue 44 item 11: docs/action.md said the image carries git; the Dockerfile installs none.
    let dockerfile = read("Dockerfile");
    let installs_git = dockerfile
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .any(|l| l.split_whitespace().any(|w| w == "git"));
    let docs = read("docs/action.md");
    let carries = docs
        .split("\n\n")
        .find(|p| p.contains("The image carries"))
        .expect("docs/action.md says what the image carries")
        .replace('\n', " ");
    assert_eq!(
        carries.contains("carries no git"),
        !installs_git,
        "docs/action.md vs the Dockerfile: {carries}"
    );
    assert!(!carries.contains(", and git,"), "{carries}");
}
