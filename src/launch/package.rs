//! A package as a launcher is given it (`name@1.2.3`, `name==1.2.0`, `image@sha256:…`), read
//! as that ecosystem's clients read it: its name, the version asked for, and whether that
//! pins one release; and the spec to give a launcher for a name at a version.

/// Where a launcher's packages come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ecosystem {
    Npm,
    PyPI,
    Docker,
}

/// Whether a package spec names one release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pin {
    /// An exact version or a digest.
    Exact,
    /// No version, a tag or a range; the reason says which.
    Unpinned(String),
    /// Not from a registry (a local path, a URL, a git commit).
    NotRegistry,
}

/// A package a launcher fetches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    pub ecosystem: Ecosystem,
    /// The spec as written: `@scope/name@1.2.3`, `name==1.0`, `image:tag`, `git+https://…`.
    pub spec: String,
    /// The name a registry knows (`@scope/name`, `name`, `ghcr.io/o/image`); the whole spec
    /// for a git repository, a URL or a local path.
    pub name: String,
    /// The version, range, tag, digest or commit asked for, as written.
    pub version: Option<String>,
    pub pin: Pin,
    /// Fetched from the ecosystem's registry, not from a git repository, a URL or a path.
    pub from_registry: bool,
}

impl Package {
    /// `spec` read as the ecosystem's launchers read it.
    pub fn read(ecosystem: Ecosystem, spec: &str) -> Self {
        let (name, version, pin, from_registry) = match ecosystem {
            Ecosystem::Npm => npm_spec(spec),
            Ecosystem::PyPI => pypi_spec(spec),
            Ecosystem::Docker => docker_spec(spec),
        };
        Self {
            ecosystem,
            spec: spec.to_string(),
            name,
            version,
            pin,
            from_registry,
        }
    }

    /// The spec a launcher is given for `name` at `version`: `name@1.2.3` (npm),
    /// `name==1.2.3` (PyPI), `image:1.2.3` (an image that names no tag or digest of its own);
    /// the name alone when `version` is empty.
    pub fn spec_of(ecosystem: Ecosystem, name: &str, version: &str) -> String {
        let last = name.rsplit('/').next().unwrap_or(name);
        match ecosystem {
            _ if version.is_empty() => name.to_string(),
            Ecosystem::Npm => format!("{name}@{version}"),
            Ecosystem::PyPI => format!("{name}=={version}"),
            Ecosystem::Docker if name.contains('@') || last.contains(':') => name.to_string(),
            Ecosystem::Docker => format!("{name}:{version}"),
        }
    }
}

type Read = (String, Option<String>, Pin, bool);

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

/// `name`, `name@1.2.3`, `@scope/name@^1`, `alias@npm:name@1`, `github:o/r#sha`: the name
/// ends at the first `@` after the scope, as npm reads it.
fn npm_spec(spec: &str) -> Read {
    if is_local_path(spec) {
        return (spec.to_string(), None, Pin::NotRegistry, false);
    }
    if spec.contains("://")
        || spec.starts_with("github:")
        || spec.starts_with("git+")
        || spec.starts_with("git@")
    {
        let (version, pin) = match spec.rsplit_once('#') {
            Some((_, c)) if is_commit(c) => (Some(c.to_string()), Pin::Exact),
            _ if spec.ends_with(".tgz") => (None, Pin::NotRegistry),
            _ => (
                None,
                Pin::Unpinned("a git reference without a commit hash".into()),
            ),
        };
        return (spec.to_string(), version, pin, false);
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
    (name, version, pin, true)
}

/// `name`, `name==1.2.0`, `name@1.2.0`, `name>=1`, `git+https://…@sha`.
fn pypi_spec(spec: &str) -> Read {
    let spec = spec.trim();
    if is_local_path(spec) {
        return (spec.to_string(), None, Pin::NotRegistry, false);
    }
    if spec.contains("://") || spec.starts_with("git+") {
        let (version, pin) = match spec.rsplit_once('@') {
            Some((_, c)) if is_commit(c) => (Some(c.to_string()), Pin::Exact),
            _ => (
                None,
                Pin::Unpinned("a git reference without a commit hash".into()),
            ),
        };
        return (spec.to_string(), version, pin, false);
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
    (name, version, pin, true)
}

/// `image`, `image:tag`, `image@sha256:…`.
fn docker_spec(spec: &str) -> Read {
    if let Some((name, digest)) = spec.split_once('@') {
        let ok = digest
            .strip_prefix("sha256:")
            .is_some_and(|h| h.len() == 64 && h.chars().all(|c| c.is_ascii_hexdigit()));
        let pin = if ok {
            Pin::Exact
        } else {
            Pin::Unpinned(format!("{digest:?} is not a sha256 digest"))
        };
        return (name.to_string(), Some(digest.to_string()), pin, true);
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
            (name, Some(tag.to_string()), Pin::Unpinned(why), true)
        }
        None => (
            spec.to_string(),
            None,
            Pin::Unpinned("no tag or digest, so :latest runs".into()),
            true,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(e: Ecosystem, spec: &str) -> (String, Option<String>, Pin) {
        let p = Package::read(e, spec);
        (p.name, p.version, p.pin)
    }

    #[test]
    fn npm_specs() {
        let npm = |s: &str| read(Ecosystem::Npm, s);
        assert_eq!(
            npm("@scope/pkg@1.2.3"),
            ("@scope/pkg".into(), Some("1.2.3".into()), Pin::Exact)
        );
        assert_eq!(npm("pkg@v2.0.0-beta.1").2, Pin::Exact);
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
            assert!(matches!(npm(unpinned).2, Pin::Unpinned(_)), "{unpinned}");
        }
        assert_eq!(npm("./local").2, Pin::NotRegistry);
        assert_eq!(
            npm("github:o/r#0123456789abcdef0123456789abcdef01234567").2,
            Pin::Exact
        );
    }

    #[test]
    fn pypi_specs() {
        let pypi = |s: &str| read(Ecosystem::PyPI, s);
        assert_eq!(
            pypi("pkg==1.2.0"),
            ("pkg".into(), Some("1.2.0".into()), Pin::Exact)
        );
        assert_eq!(pypi("pkg[cli]==1.2.0").2, Pin::Exact);
        assert_eq!(pypi("pkg@1.2.0").2, Pin::Exact);
        for unpinned in [
            "pkg",
            "pkg@latest",
            "pkg>=1",
            "pkg~=1.2",
            "pkg==1.*",
            "pkg>1,<2",
        ] {
            assert!(matches!(pypi(unpinned).2, Pin::Unpinned(_)), "{unpinned}");
        }
        assert_eq!(
            pypi("git+https://g/o/r@0123456789abcdef0123456789abcdef01234567").2,
            Pin::Exact
        );
    }

    #[test]
    fn docker_specs() {
        let docker = |s: &str| read(Ecosystem::Docker, s);
        let digest = format!("img@sha256:{}", "a".repeat(64));
        assert_eq!(docker(&digest).2, Pin::Exact);
        assert!(matches!(docker("img").2, Pin::Unpinned(_)));
        assert!(matches!(docker("img:latest").2, Pin::Unpinned(_)));
        assert_eq!(docker("localhost:5000/img:1.0").0, "localhost:5000/img");
        assert_eq!(docker("localhost:5000/img").1, None);
    }

    #[test]
    fn a_written_spec_reads_back_as_its_name_and_version() {
        for (e, name, version, spec) in [
            (Ecosystem::Npm, "@s/x", "1.2.3", "@s/x@1.2.3"),
            (Ecosystem::Npm, "x", "", "x"),
            (
                Ecosystem::PyPI,
                "mcp-server-time",
                "0.6.2",
                "mcp-server-time==0.6.2",
            ),
            (Ecosystem::Docker, "mcp/fs", "1.0", "mcp/fs:1.0"),
            (Ecosystem::Docker, "ghcr.io/o/r:v2", "1.0", "ghcr.io/o/r:v2"),
            (
                Ecosystem::Docker,
                "localhost:5000/r",
                "3",
                "localhost:5000/r:3",
            ),
        ] {
            assert_eq!(Package::spec_of(e, name, version), spec);
            let read = Package::read(e, spec);
            assert_eq!(read.spec, spec);
            if !name.contains(':') {
                assert_eq!(read.name, name, "{spec}");
                assert_eq!(read.version.as_deref().unwrap_or(""), version, "{spec}");
            }
        }
    }
}
