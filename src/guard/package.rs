//! The package a stdio command runs, read from its words as mcp-stdio-guard records it in
//! its fingerprint: what `npx`, `npm exec`, `uvx` or `docker run` fetches, or the package a
//! local `node` script belongs to. Nothing is fetched or run.

use crate::process::ServerCommand;
use std::path::{Path, PathBuf};

/// Where the package comes from and what was asked of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// `npm`, `uv`, `docker` or `local`.
    pub manager: &'static str,
    pub name: String,
    /// The version (or tag) asked for after `@`; for a local package its `version`; empty
    /// when none is named, and for uv and docker, whose specs stay whole in `name`.
    pub version_spec: String,
}

/// How large a package.json is read.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;

pub fn detect(cmd: &ServerCommand) -> Option<Package> {
    let base = Path::new(&cmd.program)
        .file_name()?
        .to_str()?
        .to_ascii_lowercase();
    let args: Vec<&str> = cmd.args.iter().map(String::as_str).collect();
    match base.as_str() {
        "npx" => npm_spec(npx_package(&args)?),
        "npm" => match args.first() {
            Some(&("exec" | "x")) => npm_spec(npx_package(&args[1..])?),
            _ => None,
        },
        "uvx" => Some(whole("uv", uvx_package(&args)?)),
        "docker" | "podman" => Some(whole("docker", docker_image(&args)?)),
        "node" | "nodejs" => local_node(cmd, &args),
        _ => None,
    }
}

fn whole(manager: &'static str, spec: &str) -> Package {
    Package {
        manager,
        name: spec.to_string(),
        version_spec: String::new(),
    }
}

/// `name@version`, `@scope/name@version`, or a bare name. A URL or git spec stays whole:
/// its `@` may end a user and password, which the report then masks as a whole.
fn npm_spec(spec: &str) -> Option<Package> {
    let (name, version) = match spec.rfind('@') {
        Some(at) if at > 0 && !spec.contains("://") && !spec[at + 1..].contains(['/', ':']) => {
            (&spec[..at], &spec[at + 1..])
        }
        _ => (spec, ""),
    };
    (!name.is_empty()).then(|| Package {
        manager: "npm",
        name: name.to_string(),
        version_spec: version.to_string(),
    })
}

/// `npx [options] SPEC` or `--package SPEC`: the package npx fetches.
fn npx_package<'a>(args: &[&'a str]) -> Option<&'a str> {
    let mut words = args.iter();
    while let Some(&word) = words.next() {
        match word {
            "-p" | "--package" => return words.next().copied(),
            "-c" | "--call" => {
                words.next();
            }
            "--" => return words.next().copied(),
            w if w.starts_with("--package=") => return w.strip_prefix("--package="),
            w if w.starts_with('-') => {}
            w => return Some(w),
        }
    }
    None
}

/// `uvx [options] SPEC` or `--from SPEC`.
fn uvx_package<'a>(args: &[&'a str]) -> Option<&'a str> {
    const VALUED: &[&str] = &["--python", "-p", "--with", "--index", "--index-url", "-i"];
    let mut words = args.iter();
    while let Some(&word) = words.next() {
        match word {
            "--from" => return words.next().copied(),
            w if w.starts_with("--from=") => return w.strip_prefix("--from="),
            w if VALUED.contains(&w) => {
                words.next();
            }
            w if w.starts_with('-') => {}
            w => return Some(w),
        }
    }
    None
}

/// `docker run [options] IMAGE`.
fn docker_image<'a>(args: &[&'a str]) -> Option<&'a str> {
    const VALUED: &[&str] = &[
        "-e",
        "--env",
        "--env-file",
        "-v",
        "--volume",
        "--mount",
        "--name",
        "-p",
        "--publish",
        "--network",
        "--net",
        "-w",
        "--workdir",
        "--entrypoint",
        "-u",
        "--user",
        "--platform",
        "-l",
        "--label",
        "--add-host",
        "--cpus",
        "-m",
        "--memory",
        "--pull",
        "--user",
    ];
    let mut words = args.iter().skip_while(|w| **w != "run").skip(1);
    while let Some(&word) = words.next() {
        match word {
            w if VALUED.contains(&w) => {
                words.next();
            }
            w if w.starts_with('-') => {}
            w => return Some(w),
        }
    }
    None
}

/// `node [options] SCRIPT`: the package.json nearest the script, when it names the package.
fn local_node(cmd: &ServerCommand, args: &[&str]) -> Option<Package> {
    const VALUED: &[&str] = &[
        "-r",
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "--env-file",
        "--inspect-port",
        "--title",
        "-C",
        "--conditions",
    ];
    let mut words = args.iter();
    let script = loop {
        match *words.next()? {
            "--" => break *words.next()?,
            // Code on the command line, or the REPL: no script.
            "-e" | "--eval" | "-p" | "--print" | "-i" | "--interactive" => return None,
            w if VALUED.contains(&w) => {
                words.next();
            }
            w if w.starts_with('-') => {}
            w => break w,
        }
    };
    let base = cmd
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let script = base.join(script);
    let mut dir: Option<PathBuf> = script.parent().map(Path::to_path_buf);
    while let Some(d) = dir {
        if let Some(found) = manifest(&d.join("package.json")) {
            return Some(found);
        }
        dir = d.parent().map(Path::to_path_buf);
    }
    None
}

fn manifest(path: &Path) -> Option<Package> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_MANIFEST_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let name = json.get("name")?.as_str()?;
    Some(Package {
        manager: "local",
        name: crate::finding::excerpt(name, 214),
        version_spec: json
            .get("version")
            .and_then(|v| v.as_str())
            .map(|v| crate::finding::excerpt(v, 64))
            .unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(words: &[&str]) -> ServerCommand {
        ServerCommand {
            program: words[0].into(),
            args: words[1..].iter().map(|s| s.to_string()).collect(),
            cwd: None,
            env: Vec::new(),
            clear_env: false,
            unset_env: Vec::new(),
        }
    }

    fn package(manager: &'static str, name: &str, version_spec: &str) -> Option<Package> {
        Some(Package {
            manager,
            name: name.into(),
            version_spec: version_spec.into(),
        })
    }

    /// mcp-stdio-guard's "fingerprint package detection handles common install commands".
    #[test]
    fn common_install_commands() {
        assert_eq!(
            detect(&cmd(&["npx", "--yes", "@scope/server@1.2.3"])),
            package("npm", "@scope/server", "1.2.3")
        );
        assert_eq!(
            detect(&cmd(&[
                "npm",
                "exec",
                "--package",
                "plain-server@latest",
                "--",
                "plain-server"
            ])),
            package("npm", "plain-server", "latest")
        );
        assert_eq!(
            detect(&cmd(&["uvx", "python-mcp-server==0.5.0"])),
            package("uv", "python-mcp-server==0.5.0", "")
        );
        assert_eq!(
            detect(&cmd(&[
                "docker",
                "run",
                "--rm",
                "-e",
                "TOKEN=secret",
                "ghcr.io/example/server:1.0"
            ])),
            package("docker", "ghcr.io/example/server:1.0", "")
        );
        assert_eq!(
            detect(&cmd(&["npx", "-y", "plain"])),
            package("npm", "plain", "")
        );
        assert_eq!(
            detect(&cmd(&["uvx", "--from", "git+https://x/y", "tool"])),
            package("uv", "git+https://x/y", "")
        );
        assert_eq!(detect(&cmd(&["python3", "server.py"])), None);
        assert_eq!(detect(&cmd(&["npm", "start"])), None);
    }

    /// mcp-stdio-guard's "fingerprint local node package detection skips node flags".
    #[test]
    fn a_local_node_script_belongs_to_its_package() {
        let root = tempfile::tempdir().expect("tempdir");
        let package_root = root.path().join("package");
        std::fs::create_dir_all(package_root.join("src")).expect("mkdir");
        std::fs::write(
            package_root.join("package.json"),
            r#"{"name":"local-node-server","version":"9.8.7"}"#,
        )
        .expect("write");
        let script = package_root.join("src/server.mjs");
        std::fs::write(&script, "").expect("write");
        let mut c = cmd(&[
            "/usr/bin/node",
            "--enable-source-maps",
            "--inspect",
            "-r",
            "source-map-support/register",
            "--",
            script.to_str().expect("path"),
        ]);
        c.cwd = Some(root.path().to_path_buf());
        assert_eq!(detect(&c), package("local", "local-node-server", "9.8.7"));
        // Relative to the command's working directory.
        let mut relative = cmd(&["node", "package/src/server.mjs"]);
        relative.cwd = Some(root.path().to_path_buf());
        assert_eq!(
            detect(&relative),
            package("local", "local-node-server", "9.8.7")
        );
        assert_eq!(detect(&cmd(&["node", "-e", "1"])), None);
    }
}
