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

/// A server's private directories, removed when dropped.
pub struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn create() -> std::io::Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix("mcpcheck-sweep-")
            .tempdir()?;
        for sub in ["home", "work", "tmp"] {
            std::fs::create_dir(dir.path().join(sub))?;
        }
        Ok(Self { dir })
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

pub fn base_env(
    policy: &EnvPolicy,
    home: &Path,
    tmp: &Path,
    host: impl Fn(&str) -> Option<OsString>,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = Vec::new();
    let keep = |name: &str, env: &mut Vec<(String, String)>| {
        if let Some(v) = host(name).and_then(|v| v.into_string().ok()) {
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
    env.retain(|(k, _)| k != "HOME" && k != "TMPDIR");
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
