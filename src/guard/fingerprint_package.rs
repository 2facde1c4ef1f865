//! The package a stdio command runs, as mcp-stdio-guard names it in its fingerprint: what
//! `npx`, `npm exec`, `uvx` or `docker run` fetches (read by `crate::launch`, as every client
//! reads the command), or the package a local `node` script belongs to. Nothing is fetched
//! or run.

use crate::launch::{self, Launch, Launcher};
use crate::process::ServerCommand;
use std::path::{Path, PathBuf};

/// Where the package comes from and what was asked of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FingerprintPackage {
    /// `npm`, `uv`, `docker` or `local`.
    pub manager: &'static str,
    pub name: String,
    /// The version (or tag) asked for after `@`; for a local package its `version`; empty
    /// when none is named, for a git, URL or local spec, and for uv and docker, whose specs
    /// stay whole in `name`.
    pub version_spec: String,
}

/// How large a package.json is read.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;

pub fn of_command(cmd: &ServerCommand) -> Option<FingerprintPackage> {
    let launch = launch::parse_command(&cmd.program, &cmd.args)?;
    // mcp-stdio-guard's managers: the other launchers' packages go unnamed.
    let manager = match launch.launcher {
        Launcher::Npx | Launcher::NpmExec => "npm",
        Launcher::Uvx => "uv",
        Launcher::DockerRun => "docker",
        Launcher::Direct => return local_node(cmd, &launch),
        Launcher::Bunx | Launcher::PnpmDlx | Launcher::YarnDlx | Launcher::PipxRun => return None,
    };
    let package = launch.fetches?.package;
    let (name, version_spec) = match manager {
        "npm" if package.from_registry => (package.name, package.version.unwrap_or_default()),
        _ => (package.spec, String::new()),
    };
    (!name.is_empty()).then_some(FingerprintPackage {
        manager,
        name,
        version_spec,
    })
}

/// `node [options] SCRIPT`: the package.json nearest the script, when it names the package.
fn local_node(cmd: &ServerCommand, launch: &Launch) -> Option<FingerprintPackage> {
    let words: Vec<&str> = std::iter::once(cmd.program.as_str())
        .chain(cmd.args.iter().map(String::as_str))
        .collect();
    let program = launch::program_name(words[launch.program]);
    if !matches!(program.as_str(), "node" | "nodejs") {
        return None;
    }
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
    let mut words = words[launch.args_from..].iter().copied();
    let script = loop {
        match words.next()? {
            "--" => break words.next()?,
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

fn manifest(path: &Path) -> Option<FingerprintPackage> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_MANIFEST_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let name = json.get("name")?.as_str()?;
    Some(FingerprintPackage {
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

    fn package(
        manager: &'static str,
        name: &str,
        version_spec: &str,
    ) -> Option<FingerprintPackage> {
        Some(FingerprintPackage {
            manager,
            name: name.into(),
            version_spec: version_spec.into(),
        })
    }

    /// mcp-stdio-guard's "fingerprint package detection handles common install commands".
    #[test]
    fn common_install_commands() {
        assert_eq!(
            of_command(&cmd(&["npx", "--yes", "@scope/server@1.2.3"])),
            package("npm", "@scope/server", "1.2.3")
        );
        assert_eq!(
            of_command(&cmd(&[
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
            of_command(&cmd(&["uvx", "python-mcp-server==0.5.0"])),
            package("uv", "python-mcp-server==0.5.0", "")
        );
        assert_eq!(
            of_command(&cmd(&[
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
            of_command(&cmd(&["npx", "-y", "plain"])),
            package("npm", "plain", "")
        );
        assert_eq!(
            of_command(&cmd(&["uvx", "--from", "git+https://x/y", "tool"])),
            package("uv", "git+https://x/y", "")
        );
        assert_eq!(of_command(&cmd(&["python3", "server.py"])), None);
        assert_eq!(of_command(&cmd(&["npm", "start"])), None);
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
        assert_eq!(
            of_command(&c),
            package("local", "local-node-server", "9.8.7")
        );
        // Relative to the command's working directory.
        let mut relative = cmd(&["node", "package/src/server.mjs"]);
        relative.cwd = Some(root.path().to_path_buf());
        assert_eq!(
            of_command(&relative),
            package("local", "local-node-server", "9.8.7")
        );
        assert_eq!(of_command(&cmd(&["node", "-e", "1"])), None);
    }
}
