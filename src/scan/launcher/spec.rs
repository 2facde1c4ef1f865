//! Package specifications of each ecosystem (`name@1.2.3`, `name==1.2.0`, `image@sha256:…`):
//! pinned or not, and the pinned form to suggest for each runner.

use super::runner::{Ecosystem, PackageRef, Pin, Runner};

fn is_exact_semver(v: &str) -> bool {
    let v = v.strip_prefix('=').unwrap_or(v);
    let v = v.strip_prefix('v').unwrap_or(v);
    let core = v.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

fn is_local_path(spec: &str) -> bool {
    spec.starts_with(['.', '/', '~'])
        || spec.starts_with("file:")
        || spec.contains('\\')
        || (spec.len() > 2
            && spec.as_bytes()[1] == b':'
            && spec.as_bytes()[0].is_ascii_alphabetic())
}

fn is_commit(s: &str) -> bool {
    s.len() == 40 && s.chars().all(|c| c.is_ascii_hexdigit())
}

/// `name`, `name@1.2.3`, `@scope/name@^1`, `github:o/r#sha`.
pub(super) fn npm_spec(spec: &str) -> (String, Option<String>, Pin) {
    if is_local_path(spec) {
        return (spec.to_string(), None, Pin::NotRegistry);
    }
    if spec.contains("://")
        || spec.starts_with("github:")
        || spec.starts_with("git+")
        || spec.starts_with("git@")
    {
        return match spec.rsplit_once('#') {
            Some((_, c)) if is_commit(c) => (spec.to_string(), Some(c.to_string()), Pin::Exact),
            _ if spec.ends_with(".tgz") => (spec.to_string(), None, Pin::NotRegistry),
            _ => (
                spec.to_string(),
                None,
                Pin::Unpinned("a git reference without a commit hash".into()),
            ),
        };
    }
    let (scope, rest) = match spec.strip_prefix('@') {
        Some(r) => ("@", r),
        None => ("", spec),
    };
    let (name, version) = match rest.split_once('@') {
        Some((n, v)) => (format!("{scope}{n}"), Some(v.to_string())),
        None => (spec.to_string(), None),
    };
    let pin = match version.as_deref() {
        None | Some("") => Pin::Unpinned("no version, so the newest release runs".into()),
        Some(v) if is_exact_semver(v) => Pin::Exact,
        Some(v)
            if v.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && !v.starts_with('v') =>
        {
            Pin::Unpinned(format!("the tag {v:?} moves with each release"))
        }
        Some(v) => Pin::Unpinned(format!("{v:?} is a range, not an exact version")),
    };
    (name, version, pin)
}

/// `name`, `name==1.2.0`, `name@1.2.0`, `name>=1`, `git+https://…@sha`.
pub(super) fn pypi_spec(spec: &str) -> (String, Option<String>, Pin) {
    let spec = spec.trim();
    if is_local_path(spec) {
        return (spec.to_string(), None, Pin::NotRegistry);
    }
    if spec.contains("://") || spec.starts_with("git+") {
        return match spec.rsplit_once('@') {
            Some((_, c)) if is_commit(c) => (spec.to_string(), Some(c.to_string()), Pin::Exact),
            _ => (
                spec.to_string(),
                None,
                Pin::Unpinned("a git reference without a commit hash".into()),
            ),
        };
    }
    let name_end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(spec.len());
    let name = spec[..name_end].to_string();
    let rest = spec[name_end..].trim();
    // Extras ([cli]) do not change the version.
    let rest = match rest.strip_prefix('[') {
        Some(r) => r.split_once(']').map_or("", |(_, after)| after).trim(),
        None => rest,
    };
    let exact = |v: &str| !v.is_empty() && !v.contains([',', '*', ' ', '<', '>', '~', '!', ';']);
    let (version, pin) = if rest.is_empty() {
        (
            None,
            Pin::Unpinned("no version, so the newest release runs".into()),
        )
    } else if let Some(v) = rest.strip_prefix("===").or_else(|| rest.strip_prefix("==")) {
        let v = v.trim();
        let pin = if exact(v) {
            Pin::Exact
        } else {
            Pin::Unpinned(format!("{rest:?} is not one exact version"))
        };
        (Some(v.to_string()), pin)
    } else if let Some(v) = rest.strip_prefix('@') {
        let v = v.trim();
        let pin = if v == "latest" {
            Pin::Unpinned("@latest runs the newest release".into())
        } else if exact(v) && v.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            Pin::Exact
        } else {
            Pin::Unpinned(format!("{v:?} is not an exact version"))
        };
        (Some(v.to_string()), pin)
    } else {
        (
            Some(rest.to_string()),
            Pin::Unpinned(format!("{rest:?} is a range, not an exact version")),
        )
    };
    (name, version, pin)
}

/// `image`, `image:tag`, `image@sha256:…`.
pub(super) fn docker_spec(spec: &str) -> (String, Option<String>, Pin) {
    if let Some((name, digest)) = spec.split_once('@') {
        let ok = digest
            .strip_prefix("sha256:")
            .is_some_and(|h| h.len() == 64 && h.chars().all(|c| c.is_ascii_hexdigit()));
        let pin = if ok {
            Pin::Exact
        } else {
            Pin::Unpinned(format!("{digest:?} is not a sha256 digest"))
        };
        return (name.to_string(), Some(digest.to_string()), pin);
    }
    // A colon after the last slash separates the tag (a registry may have host:port/).
    let last = spec.rsplit('/').next().unwrap_or(spec);
    match last.rsplit_once(':') {
        Some((_, tag)) => {
            let name = spec[..spec.len() - tag.len() - 1].to_string();
            let why = if tag == "latest" {
                "the tag \"latest\" moves with each release".to_string()
            } else {
                format!("the tag {tag:?} can be re-pushed; only a digest is immutable")
            };
            (name, Some(tag.to_string()), Pin::Unpinned(why))
        }
        None => (
            spec.to_string(),
            None,
            Pin::Unpinned("no tag or digest, so :latest runs".into()),
        ),
    }
}

/// The command to suggest, valid for that runner.
pub fn pinned_example(p: &PackageRef<'_>) -> String {
    let n = &p.name;
    let cmd = p.command_word.as_deref().unwrap_or(n);
    match p.runner {
        Runner::Npx if p.via_option => format!("npx -y --package={n}@1.2.3 {cmd}"),
        Runner::Npx => format!("npx -y {n}@1.2.3"),
        Runner::Bunx if p.via_option => format!("bunx --package {n}@1.2.3 {cmd}"),
        Runner::Bunx => format!("bunx {n}@1.2.3"),
        Runner::PnpmDlx if p.via_option => format!("pnpm --package={n}@1.2.3 dlx {cmd}"),
        Runner::PnpmDlx => format!("pnpm dlx {n}@1.2.3"),
        Runner::YarnDlx if p.via_option => format!("yarn dlx -p {n}@1.2.3 {cmd}"),
        Runner::YarnDlx => format!("yarn dlx {n}@1.2.3"),
        Runner::NpmExec if p.via_option => format!("npm exec --yes --package={n}@1.2.3 -- {cmd}"),
        Runner::NpmExec => format!("npm exec --yes -- {n}@1.2.3"),
        Runner::Uvx if p.via_option => format!("uvx --from '{n}==1.2.3' {cmd}"),
        Runner::Uvx => format!("uvx {n}@1.2.3"),
        Runner::PipxRun => format!("pipx run --spec '{n}==1.2.3' {cmd}"),
        Runner::DockerRun => format!("docker run … {n}@sha256:<digest>"),
    }
}

/// Where to look up the exact version to pin.
pub fn version_hint(p: &PackageRef<'_>) -> String {
    let n = &p.name;
    match p.runner.ecosystem() {
        Ecosystem::Npm => format!("`npm view {n} version` prints the current version"),
        Ecosystem::PyPI => format!("`pip index versions {n}` lists the versions"),
        Ecosystem::Docker => format!(
            "`docker buildx imagetools inspect {n}:{}` prints the digest",
            p.version.as_deref().unwrap_or("latest")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npm_specs() {
        assert_eq!(
            npm_spec("@scope/pkg@1.2.3"),
            ("@scope/pkg".into(), Some("1.2.3".into()), Pin::Exact)
        );
        assert_eq!(npm_spec("pkg@v2.0.0-beta.1").2, Pin::Exact);
        for unpinned in [
            "pkg",
            "pkg@latest",
            "pkg@next",
            "pkg@^1.2.0",
            "pkg@~1.2",
            "pkg@1",
            "pkg@1.x",
            "pkg@*",
            "github:o/r",
        ] {
            assert!(
                matches!(npm_spec(unpinned).2, Pin::Unpinned(_)),
                "{unpinned}"
            );
        }
        assert_eq!(npm_spec("./local").2, Pin::NotRegistry);
        assert_eq!(
            npm_spec("github:o/r#0123456789abcdef0123456789abcdef01234567").2,
            Pin::Exact
        );
    }

    #[test]
    fn pypi_specs() {
        assert_eq!(
            pypi_spec("pkg==1.2.0"),
            ("pkg".into(), Some("1.2.0".into()), Pin::Exact)
        );
        assert_eq!(pypi_spec("pkg[cli]==1.2.0").2, Pin::Exact);
        assert_eq!(pypi_spec("pkg@1.2.0").2, Pin::Exact);
        for unpinned in [
            "pkg",
            "pkg@latest",
            "pkg>=1",
            "pkg~=1.2",
            "pkg==1.*",
            "pkg>1,<2",
        ] {
            assert!(
                matches!(pypi_spec(unpinned).2, Pin::Unpinned(_)),
                "{unpinned}"
            );
        }
        assert_eq!(
            pypi_spec("git+https://g/o/r@0123456789abcdef0123456789abcdef01234567").2,
            Pin::Exact
        );
    }

    #[test]
    fn docker_specs() {
        let digest = format!("img@sha256:{}", "a".repeat(64));
        assert_eq!(docker_spec(&digest).2, Pin::Exact);
        assert!(matches!(docker_spec("img").2, Pin::Unpinned(_)));
        assert!(matches!(docker_spec("img:latest").2, Pin::Unpinned(_)));
        assert_eq!(
            docker_spec("localhost:5000/img:1.0").0,
            "localhost:5000/img"
        );
        assert_eq!(docker_spec("localhost:5000/img").1, None);
    }
}
