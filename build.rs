//! One name for "the Linux backend is compiled in": Linux, unless the `portable-only`
//! feature asks for exactly what macOS builds. And the git ref the reports' rule links
//! point at: one that exists for this build (`MCPCHECK_SOURCE_REF`).
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(subreaper)");
    println!("cargo::rerun-if-changed=build.rs");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    let portable_only = std::env::var_os("CARGO_FEATURE_PORTABLE_ONLY").is_some();
    if linux && !portable_only {
        println!("cargo::rustc-cfg=subreaper");
    }
    println!("cargo::rustc-env=MCPCHECK_SOURCE_REF={}", source_ref());
    println!(
        "cargo::rustc-env=MCPCHECK_SOURCE_COMMIT={}",
        source_commit()
    );
}

/// The commit this build was made from: the release's (`MCPCHECK_RELEASE_COMMIT`, which
/// packages.yml passes), else the checkout's, else none.
fn source_commit() -> String {
    println!("cargo::rerun-if-env-changed=MCPCHECK_RELEASE_COMMIT");
    std::env::var("MCPCHECK_RELEASE_COMMIT")
        .ok()
        .or_else(|| git(&["rev-parse", "HEAD"]))
        .map(|c| c.trim().to_string())
        .filter(|c| c.len() == 40 && c.bytes().all(|b| b.is_ascii_hexdigit()))
        .unwrap_or_default()
}

/// The release tag a release build is given (`MCPCHECK_RELEASE_TAG`), else the tag
/// `v<version>` when the checkout is at it, else the commit the checkout is at, else
/// `main` (a build without git, such as the image built from a checkout's Dockerfile).
fn source_ref() -> String {
    println!("cargo::rerun-if-env-changed=MCPCHECK_RELEASE_TAG");
    if let Some(tag) = std::env::var("MCPCHECK_RELEASE_TAG")
        .ok()
        .filter(|t| !t.trim().is_empty())
    {
        return tag.trim().to_string();
    }
    // A new commit or a checkout of another one changes the ref.
    for path in ["HEAD", "packed-refs"] {
        watch(git(&[
            "rev-parse",
            "--path-format=absolute",
            "--git-path",
            path,
        ]));
    }
    if let Some(branch) = git(&["rev-parse", "--symbolic-full-name", "HEAD"]) {
        watch(git(&[
            "rev-parse",
            "--path-format=absolute",
            "--git-path",
            &branch,
        ]));
    }
    let release = format!(
        "v{}",
        std::env::var("CARGO_PKG_VERSION").unwrap_or_default()
    );
    let tagged =
        git(&["tag", "--points-at", "HEAD"]).is_some_and(|tags| tags.lines().any(|t| t == release));
    if tagged {
        return release;
    }
    git(&["rev-parse", "HEAD"])
        .filter(|c| c.len() == 40 && c.bytes().all(|b| b.is_ascii_hexdigit()))
        .unwrap_or_else(|| "main".into())
}

/// Rebuilds when `path` changes, if it exists (a missing one would rerun every build).
fn watch(path: Option<String>) {
    if let Some(path) = path.filter(|p| std::path::Path::new(p).exists()) {
        println!("cargo::rerun-if-changed={path}");
    }
}

/// What git prints for `args` in this package's directory, trimmed; none when it fails.
fn git(args: &[&str]) -> Option<String> {
    let dir = std::env::var("CARGO_MANIFEST_DIR").ok()?;
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}
