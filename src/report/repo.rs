//! Where the repository is, which of its files a report may point at, and how to link them.
//! Repository paths and links name only files inside the repository (SARIF names others by an
//! absolute `file://` URI, see `file_uri`).

use crate::error::Error;
use crate::finding::excerpt;
use std::path::{Component, Path, PathBuf};

/// Files that say how a project is built and launched, in the order they are preferred
/// as the anchor of runtime findings.
pub const MANIFESTS: &[&str] = &[
    "package.json",
    "pyproject.toml",
    "Cargo.toml",
    "go.mod",
    "pom.xml",
    "build.gradle.kts",
    "build.gradle",
    "deno.json",
    "composer.json",
    "Gemfile",
    "setup.py",
    "requirements.txt",
];

/// The repository a report is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoContext {
    /// Canonical root directory: `GITHUB_WORKSPACE`, the nearest `.git` ancestor, or the cwd.
    pub root: PathBuf,
    /// Set only when running in GitHub Actions with a well-formed repository and commit.
    pub link: Option<BlobLink>,
}

/// Enough to link a file at the analysed commit: `{server}/{repository}/blob/{sha}/{path}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobLink {
    pub server: String,
    pub repository: String,
    pub sha: String,
}

impl BlobLink {
    /// From the runner's environment; `None` when any part is missing or malformed.
    pub fn from_env() -> Option<Self> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let server = var("GITHUB_SERVER_URL").unwrap_or_else(|| "https://github.com".into());
        let repository = var("GITHUB_REPOSITORY")?;
        let sha = var("GITHUB_SHA")?;
        let server_ok = server.starts_with("https://")
            && server[8..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-.:".contains(c));
        let repo_ok = repository.split('/').count() == 2
            && repository.split('/').all(|part| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            });
        let sha_ok = (7..=64).contains(&sha.len()) && sha.chars().all(|c| c.is_ascii_hexdigit());
        (server_ok && repo_ok && sha_ok).then_some(Self {
            server: server.trim_end_matches('/').to_string(),
            repository,
            sha,
        })
    }

    /// A link to line `line` of a repository-relative file.
    pub fn url(&self, relative: &str, line: Option<u64>) -> String {
        let anchor = line.map(|l| format!("#L{l}")).unwrap_or_default();
        format!(
            "{}/{}/blob/{}/{}{anchor}",
            self.server,
            self.repository,
            self.sha,
            uri_path(relative)
        )
    }
}

impl RepoContext {
    /// The repository of the current run: `GITHUB_WORKSPACE` when set, else the nearest
    /// ancestor of the current directory holding `.git`, else the current directory.
    pub fn detect() -> Result<Self, Error> {
        let cwd = std::env::current_dir()
            .map_err(|e| Error::System(format!("cannot read the current directory: {e}")))?;
        let root = match std::env::var_os("GITHUB_WORKSPACE").filter(|v| !v.is_empty()) {
            Some(ws) => PathBuf::from(ws),
            None => cwd
                .ancestors()
                .find(|d| d.join(".git").exists())
                .unwrap_or(&cwd)
                .to_path_buf(),
        };
        let root = root.canonicalize().map_err(|e| {
            Error::Usage(format!(
                "repository root {}: {e}; set GITHUB_WORKSPACE to an existing directory",
                root.display()
            ))
        })?;
        Ok(Self {
            root,
            link: BlobLink::from_env(),
        })
    }

    /// The path of an existing file inside the repository, relative to its root with `/`
    /// separators; `None` for anything else (outside, missing, a directory).
    pub fn relative(&self, path: &Path) -> Option<String> {
        let absolute = if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::env::current_dir().ok()?.join(path)
        };
        let canonical = absolute.canonicalize().ok()?;
        if !canonical.is_file() {
            return None;
        }
        let rel = canonical.strip_prefix(&self.root).ok()?;
        let parts: Option<Vec<&str>> = rel
            .components()
            .map(|c| match c {
                Component::Normal(s) => s.to_str(),
                _ => None,
            })
            .collect();
        let parts = parts?;
        (!parts.is_empty()).then(|| parts.join("/"))
    }

    /// `--anchor FILE` checked before anything runs.
    pub fn explicit_anchor(&self, path: &Path) -> Result<String, Error> {
        self.relative(path).ok_or_else(|| {
            Error::Usage(format!(
                "--anchor {}: not a file inside the repository {}; give a file such as package.json or pyproject.toml",
                excerpt(&path.display().to_string(), 200),
                self.root.display()
            ))
        })
    }

    /// The workflow file running this job, repository-relative, from `GITHUB_WORKFLOW_REF`
    /// (`owner/repo/.github/workflows/ci.yml@refs/heads/main`): a file of this repository
    /// even when the checkout lacks it, so Code Scanning accepts results anchored to it.
    pub fn workflow_file(&self) -> Option<String> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        workflow_path(&var("GITHUB_WORKFLOW_REF")?, &var("GITHUB_REPOSITORY")?)
    }

    /// The first project manifest in `dir`, as a repository-relative path.
    pub fn manifest_in(&self, dir: &Path) -> Option<String> {
        MANIFESTS
            .iter()
            .find_map(|name| self.relative(&dir.join(name)))
    }
}

/// The path part of a workflow ref of `repository`; `None` for another repository's or a
/// path that is not a plain relative path under `.github/workflows/`.
fn workflow_path(workflow_ref: &str, repository: &str) -> Option<String> {
    let (path, _git_ref) = workflow_ref.rsplit_once('@')?;
    let rel = path.strip_prefix(repository)?.strip_prefix('/')?;
    let plain = rel
        .split('/')
        .all(|part| !part.is_empty() && part != "." && part != ".." && !part.contains('\\'));
    (plain && rel.starts_with(".github/workflows/")).then(|| rel.to_string())
}

/// Percent-encodes a relative path for a URI, keeping `/` and RFC 3986 unreserved characters.
pub fn uri_path(relative: &str) -> String {
    let mut out = String::with_capacity(relative.len());
    for b in relative.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The absolute `file://` URI of an existing file (relative paths are from the current
/// directory), or `None` if it cannot be found.
pub fn file_uri(path: &Path) -> Option<String> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let canonical = absolute.canonicalize().ok()?;
    let text = canonical.to_str()?;
    // Windows: `\\?\C:\x` is canonical; the URI is `file:///C:/x`.
    let text = if cfg!(windows) {
        text.replace('\\', "/")
    } else {
        text.to_string()
    };
    let text = text.strip_prefix("//?/").unwrap_or(&text);
    let (drive, rest) = match text.as_bytes() {
        [letter, b':', ..] if letter.is_ascii_alphabetic() => text.split_at(2),
        _ => ("", text),
    };
    let slash = if drive.is_empty() { "" } else { "/" };
    Some(format!("file://{slash}{drive}{}", uri_path(rest)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_anywhere_have_an_absolute_file_uri() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("a b#.js");
        std::fs::write(&file, "x").expect("write");
        let uri = file_uri(&file).expect("uri");
        let canonical = file.canonicalize().expect("canonical");
        assert!(uri.starts_with("file:///"), "{uri}");
        assert!(uri.ends_with("/a%20b%23.js"), "{uri}");
        if cfg!(unix) {
            assert_eq!(
                uri,
                format!("file://{}", uri_path(canonical.to_str().expect("utf-8")))
            );
        }
        assert_eq!(file_uri(&dir.path().join("missing.js")), None);
    }

    #[test]
    fn uri_paths_are_percent_encoded() {
        assert_eq!(uri_path("src/a b/#x.py"), "src/a%20b/%23x.py");
        assert_eq!(uri_path("ü.js"), "%C3%BC.js");
    }

    #[test]
    fn only_files_inside_the_root_are_relative() {
        let dir = std::env::temp_dir().join(format!("mcpcheck-repo-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).expect("mkdir");
        std::fs::write(dir.join("sub/package.json"), "{}").expect("write");
        let repo = RepoContext {
            root: dir.canonicalize().expect("canonical"),
            link: None,
        };
        assert_eq!(
            repo.relative(&dir.join("sub/package.json")).as_deref(),
            Some("sub/package.json")
        );
        assert_eq!(repo.relative(&dir.join("sub")), None);
        assert_eq!(repo.relative(&dir.join("missing.json")), None);
        assert_eq!(repo.relative(Path::new("/etc/hostname")), None);
        assert_eq!(
            repo.manifest_in(&dir.join("sub")).as_deref(),
            Some("sub/package.json")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_workflow_file_comes_from_the_workflow_ref_of_this_repository() {
        assert_eq!(
            workflow_path("o/r/.github/workflows/mcp check.yml@refs/heads/main", "o/r").as_deref(),
            Some(".github/workflows/mcp check.yml")
        );
        assert_eq!(
            workflow_path("o/r/.github/workflows/ci.yml@refs/pull/7/merge", "o/r").as_deref(),
            Some(".github/workflows/ci.yml")
        );
        // Another repository's workflow, an escape, a ref without a path: nothing.
        assert_eq!(
            workflow_path("x/y/.github/workflows/ci.yml@main", "o/r"),
            None
        );
        assert_eq!(
            workflow_path("o/r/.github/workflows/../../etc/passwd@main", "o/r"),
            None
        );
        assert_eq!(workflow_path("o/r/README.md@main", "o/r"), None);
        assert_eq!(workflow_path("o/r/.github/workflows/ci.yml", "o/r"), None);
        assert_eq!(
            workflow_path("o/rr/.github/workflows/ci.yml@main", "o/r"),
            None
        );
    }

    #[test]
    fn blob_links_point_at_the_commit() {
        let link = BlobLink {
            server: "https://github.com".into(),
            repository: "o/r".into(),
            sha: "abc1234".into(),
        };
        assert_eq!(
            link.url("a b.json", Some(3)),
            "https://github.com/o/r/blob/abc1234/a%20b.json#L3"
        );
    }
}
