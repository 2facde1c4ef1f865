//! Where each swept server runs: its own temporary HOME, TMPDIR and working directory, and
//! a scrubbed environment (a small safelist of mcpcheck's, never its secrets) plus the entry's.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Variables passed through from mcpcheck's environment: locale, terminal, toolchain
/// locations and network settings a package manager needs. Nothing that holds a credential
/// by convention (tokens, keys, cloud config).
const SAFELIST: &[&str] = &[
    "PATH",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "USER",
    "LOGNAME",
    "SHELL",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE",
    "DOCKER_HOST",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "NVM_DIR",
    "JAVA_HOME",
    "GOROOT",
];

/// How to build each server's environment.
#[derive(Debug, Clone, Default)]
pub struct EnvPolicy {
    /// Extra names from `--pass-env`.
    pub pass: Vec<String>,
    /// `--isolated-caches`: no shared package caches.
    pub isolated_caches: bool,
}

impl EnvPolicy {
    /// The `--pass-env` names a server is given from mcpcheck's environment (`host`): set,
    /// and not the sandbox's own `HOME` or `TMPDIR`.
    pub fn passed(&self, host: impl Fn(&str) -> Option<OsString>) -> Vec<&str> {
        self.pass
            .iter()
            .map(String::as_str)
            .filter(|name| !SANDBOX_OWN.contains(name) && from_host(&host, name).is_some())
            .collect()
    }
}

/// Variables every server gets from its sandbox, whatever mcpcheck's environment says.
const SANDBOX_OWN: &[&str] = &["HOME", "TMPDIR"];

/// A variable of `host` as a server is given it: set and UTF-8.
fn from_host(host: &impl Fn(&str) -> Option<OsString>, name: &str) -> Option<String> {
    host(name).and_then(|v| v.into_string().ok())
}

const PREFIX: &str = "mcpcheck-sweep-";
/// Holds the pid of the sweep that made the directory, so a later sweep can tell a
/// directory left by a killed sweep from one in use.
const OWNER_FILE: &str = "owner-pid";

/// A server's private directories, removed when dropped.
pub struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn create() -> std::io::Result<Self> {
        let dir = tempfile::Builder::new().prefix(PREFIX).tempdir()?;
        for sub in ["home", "work", "tmp"] {
            std::fs::create_dir(dir.path().join(sub))?;
        }
        std::fs::write(dir.path().join(OWNER_FILE), std::process::id().to_string())?;
        Ok(Self { dir })
    }

    /// The directory that holds the others; anything else put in it goes with them.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    pub fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }

    /// The environment the server starts from (the entry's env goes on top).
    pub fn base_env(&self, policy: &EnvPolicy) -> Vec<(String, String)> {
        base_env(policy, &self.home(), &self.tmp(), |k| std::env::var_os(k))
    }
}

/// Removes the sandboxes of sweeps that no longer run (killed with SIGKILL, which leaves no
/// chance to clean up); returns how many. A directory without an owner is left alone.
pub fn remove_stale(parent: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return 0;
    };
    let me = std::process::id();
    let mut removed = 0;
    for entry in entries.flatten() {
        if !entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(PREFIX))
        {
            continue;
        }
        let path = entry.path();
        let owner = std::fs::read_to_string(path.join(OWNER_FILE)).ok();
        let Some(pid) = owner.and_then(|o| o.trim().parse::<u32>().ok()) else {
            continue;
        };
        if pid != me && !crate::process::is_running(pid) && std::fs::remove_dir_all(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

pub fn base_env(
    policy: &EnvPolicy,
    home: &Path,
    tmp: &Path,
    host: impl Fn(&str) -> Option<OsString>,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = Vec::new();
    let keep = |name: &str, env: &mut Vec<(String, String)>| {
        if let Some(v) = from_host(&host, name) {
            if !env.iter().any(|(k, _)| k == name) {
                env.push((name.to_string(), v));
            }
        }
    };
    for name in SAFELIST
        .iter()
        .copied()
        .chain(policy.pass.iter().map(String::as_str))
    {
        keep(name, &mut env);
    }
    for (name, _) in std::env::vars_os() {
        if let Some(n) = name.to_str().filter(|n| n.starts_with("LC_")) {
            keep(n, &mut env);
        }
    }
    if !policy.isolated_caches {
        env.extend(shared_caches(&host));
    }
    env.retain(|(k, _)| !SANDBOX_OWN.contains(&k.as_str()));
    env.push(("HOME".into(), home.display().to_string()));
    env.push(("TMPDIR".into(), tmp.display().to_string()));
    env
}

/// The invoking user's npm, uv and pip caches: content-addressed and safe to share, they hold
/// no credentials, and they spare each server a fresh download of the same packages.
fn shared_caches(host: &impl Fn(&str) -> Option<OsString>) -> Vec<(String, String)> {
    let get = |k: &str| {
        host(k)
            .and_then(|v| v.into_string().ok())
            .filter(|v| !v.is_empty())
    };
    let Some(home) = get("HOME") else {
        return Vec::new();
    };
    let cache = get("XDG_CACHE_HOME").unwrap_or_else(|| format!("{home}/.cache"));
    let data = get("XDG_DATA_HOME").unwrap_or_else(|| format!("{home}/.local/share"));
    let npm = get("npm_config_cache")
        .or_else(|| get("NPM_CONFIG_CACHE"))
        .unwrap_or_else(|| format!("{home}/.npm"));
    vec![
        ("npm_config_cache".into(), npm),
        (
            "UV_CACHE_DIR".into(),
            get("UV_CACHE_DIR").unwrap_or(format!("{cache}/uv")),
        ),
        (
            "UV_PYTHON_INSTALL_DIR".into(),
            get("UV_PYTHON_INSTALL_DIR").unwrap_or(format!("{data}/uv/python")),
        ),
        (
            "PIP_CACHE_DIR".into(),
            get("PIP_CACHE_DIR").unwrap_or(format!("{cache}/pip")),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn host(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).map(OsString::from)
    }

    #[test]
    fn secrets_stay_behind_and_home_is_the_sandbox() {
        let h = host(&[
            ("PATH", "/bin"),
            ("HOME", "/root"),
            ("GITHUB_TOKEN", "ghp_x"),
            ("AWS_SECRET_ACCESS_KEY", "s"),
            ("EXTRA", "1"),
        ]);
        let policy = EnvPolicy {
            pass: vec!["EXTRA".into()],
            isolated_caches: false,
        };
        let env = base_env(&policy, Path::new("/t/home"), Path::new("/t/tmp"), h);
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("PATH"), Some("/bin"));
        assert_eq!(get("EXTRA"), Some("1"));
        assert_eq!(get("HOME"), Some("/t/home"));
        assert_eq!(get("TMPDIR"), Some("/t/tmp"));
        assert_eq!(get("GITHUB_TOKEN"), None);
        assert_eq!(get("AWS_SECRET_ACCESS_KEY"), None);
        assert_eq!(get("npm_config_cache"), Some("/root/.npm"));
        assert_eq!(get("UV_CACHE_DIR"), Some("/root/.cache/uv"));
    }

    #[test]
    fn only_sandboxes_of_sweeps_that_are_gone_are_removed() {
        let parent = tempfile::tempdir().expect("tempdir");
        let make = |name: &str, owner: Option<&str>| {
            let d = parent.path().join(name);
            std::fs::create_dir_all(d.join("home")).expect("dir");
            if let Some(o) = owner {
                std::fs::write(d.join(OWNER_FILE), o).expect("owner");
            }
            d
        };
        // pid 0 never names a process: its sweep is gone. Pid 1 always does (on macOS too,
        // where there is no /proc to look in).
        let dead = make("mcpcheck-sweep-dead", Some("0"));
        let mine = make("mcpcheck-sweep-mine", Some(&std::process::id().to_string()));
        let alive = make("mcpcheck-sweep-alive", Some("1"));
        let unowned = make("mcpcheck-sweep-new", None);
        let other = make("something-else", Some("0"));
        assert_eq!(remove_stale(parent.path()), 1);
        assert!(!dead.exists());
        assert!(mine.exists() && alive.exists() && unowned.exists() && other.exists());
    }

    #[test]
    fn passed_names_are_those_set_and_not_the_sandboxs_own() {
        let h = host(&[("UV_PYTHON", "3.12"), ("HOME", "/root"), ("EMPTY", "")]);
        let policy = EnvPolicy {
            pass: ["UV_PYTHON", "HOME", "TMPDIR", "UNSET", "EMPTY"]
                .map(String::from)
                .into(),
            isolated_caches: false,
        };
        assert_eq!(policy.passed(h), ["UV_PYTHON", "EMPTY"]);
    }

    #[test]
    fn isolated_caches_share_nothing() {
        let h = host(&[("PATH", "/bin"), ("HOME", "/root")]);
        let policy = EnvPolicy {
            pass: Vec::new(),
            isolated_caches: true,
        };
        let env = base_env(&policy, Path::new("/t/home"), Path::new("/t/tmp"), h);
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["PATH", "HOME", "TMPDIR"]);
    }
}
