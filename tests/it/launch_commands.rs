//! One table of command lines that start a server, and how each user of the launcher
//! model (`mcpcheck::launch`) reads them: the model itself (launcher, package, executable,
//! the server's own arguments), scan (the packages of a config entry), guard (whose
//! installer words it reads on stderr, the fingerprint's package) and sweep (the package it
//! installs first). Every row is read by every user, so none of them can read a command
//! line differently from the others.

use mcpcheck::guard::fingerprint_package::{of_command, FingerprintPackage};
use mcpcheck::install::Install;
use mcpcheck::install_faults::Installer;
use mcpcheck::launch::{self, Launch, Launcher};
use mcpcheck::process::ServerCommand;
use mcpcheck::scan::config_file::{self, Scope};
use std::path::Path;

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// One command line and how it reads.
#[derive(Debug, Clone)]
struct Row {
    line: Vec<String>,
    launcher: &'static str,
    /// Name, version, spec as written.
    package: Option<(String, Option<String>, String)>,
    executable: Option<&'static str>,
    /// The arguments the server gets.
    args: Vec<&'static str>,
    /// guard: the installer whose words on stderr it reads.
    installer: Option<Installer>,
    /// guard: the fingerprint's package (manager, name, versionSpec).
    fingerprint: Option<(&'static str, String, String)>,
    /// sweep: the package is installed before the server starts.
    preinstalled: bool,
}

fn row(line: &[&str], launcher: &'static str) -> Row {
    Row {
        line: line.iter().map(|w| w.to_string()).collect(),
        launcher,
        package: None,
        executable: None,
        args: Vec::new(),
        installer: None,
        fingerprint: None,
        preinstalled: false,
    }
}

impl Row {
    fn fetches(mut self, name: &str, version: Option<&str>, spec: &str) -> Self {
        self.package = Some((name.into(), version.map(Into::into), spec.into()));
        self
    }
    fn runs(mut self, executable: &'static str) -> Self {
        self.executable = Some(executable);
        self
    }
    fn args(mut self, args: &[&'static str]) -> Self {
        self.args = args.to_vec();
        self
    }
    fn installer(mut self, installer: Installer) -> Self {
        self.installer = Some(installer);
        self
    }
    fn fingerprint(mut self, manager: &'static str, name: &str, version_spec: &str) -> Self {
        self.fingerprint = Some((manager, name.into(), version_spec.into()));
        self
    }
    fn preinstalled(mut self) -> Self {
        self.preinstalled = true;
        self
    }
}

fn table() -> Vec<Row> {
    let git_npm = format!("github:o/r#{COMMIT}");
    let git_pypi = format!("git+https://github.com/o/r@{COMMIT}");
    let digest = format!("img@sha256:{}", "a".repeat(64));
    let npm = Installer::Npm;
    let uv = Installer::Uv;
    vec![
        // npx: a package as the first operand, or named by -p/--package.
        row(&["npx", "-y", "pkg@1"], "npx")
            .fetches("pkg", Some("1"), "pkg@1")
            .installer(npm)
            .fingerprint("npm", "pkg", "1")
            .preinstalled(),
        row(&["npx", "--yes", "@scope/name@1.2.3", "--port", "3"], "npx")
            .fetches("@scope/name", Some("1.2.3"), "@scope/name@1.2.3")
            .args(&["--port", "3"])
            .installer(npm)
            .fingerprint("npm", "@scope/name", "1.2.3")
            .preinstalled(),
        row(&["npx", "-p", "pkg@2", "pkg-cli", "serve"], "npx")
            .fetches("pkg", Some("2"), "pkg@2")
            .runs("pkg-cli")
            .args(&["serve"])
            .installer(npm)
            .fingerprint("npm", "pkg", "2"),
        row(&["npx", "--package=@s/x@next", "x", "--flag"], "npx")
            .fetches("@s/x", Some("next"), "@s/x@next")
            .runs("x")
            .args(&["--flag"])
            .installer(npm)
            .fingerprint("npm", "@s/x", "next"),
        // Windows' npx.cmd and npx.exe are npx.
        row(&["C:\\Program Files\\nodejs\\npx.cmd", "-y", "pkg"], "npx")
            .fetches("pkg", None, "pkg")
            .installer(npm)
            .fingerprint("npm", "pkg", "")
            .preinstalled(),
        row(&["/usr/local/bin/NPX.EXE", "pkg@latest"], "npx")
            .fetches("pkg", Some("latest"), "pkg@latest")
            .installer(npm)
            .fingerprint("npm", "pkg", "latest")
            .preinstalled(),
        // An option's value is not the package.
        row(&["npx", "--registry", "https://r.example", "pkg@1"], "npx")
            .fetches("pkg", Some("1"), "pkg@1")
            .installer(npm)
            .fingerprint("npm", "pkg", "1"),
        // npm reads the name up to the first `@` after the scope: an alias keeps its target.
        row(&["npx", "alias@npm:real-pkg@1.0.0"], "npx")
            .fetches(
                "alias",
                Some("npm:real-pkg@1.0.0"),
                "alias@npm:real-pkg@1.0.0",
            )
            .installer(npm)
            .fingerprint("npm", "alias", "npm:real-pkg@1.0.0")
            .preinstalled(),
        // git, URL and local specs stay whole.
        row(&["npx", &git_npm], "npx")
            .fetches(&git_npm, Some(COMMIT), &git_npm)
            .installer(npm)
            .fingerprint("npm", &git_npm, ""),
        row(&["npx", "git+https://github.com/o/r.git"], "npx")
            .fetches(
                "git+https://github.com/o/r.git",
                None,
                "git+https://github.com/o/r.git",
            )
            .installer(npm)
            .fingerprint("npm", "git+https://github.com/o/r.git", ""),
        row(&["npx", "https://example.com/pkg.tgz"], "npx")
            .fetches(
                "https://example.com/pkg.tgz",
                None,
                "https://example.com/pkg.tgz",
            )
            .installer(npm)
            .fingerprint("npm", "https://example.com/pkg.tgz", ""),
        row(&["npx", "./local-server", "--x"], "npx")
            .fetches("./local-server", None, "./local-server")
            .args(&["--x"])
            .installer(npm)
            .fingerprint("npm", "./local-server", ""),
        row(&["npx"], "npx").installer(npm),
        // `env` and its assignments do not change what runs.
        row(&["env", "-u", "HOME", "FOO=1", "npx", "-y", "pkg@1"], "npx")
            .fetches("pkg", Some("1"), "pkg@1")
            .installer(npm)
            .fingerprint("npm", "pkg", "1")
            .preinstalled(),
        // The other npm-registry launchers.
        row(&["bunx", "pkg@1.0.0", "a"], "bunx")
            .fetches("pkg", Some("1.0.0"), "pkg@1.0.0")
            .args(&["a"]),
        row(&["bun", "x", "pkg"], "bunx").fetches("pkg", None, "pkg"),
        row(&["pnpm", "dlx", "pkg@1"], "pnpm dlx").fetches("pkg", Some("1"), "pkg@1"),
        row(&["pnpm", "--dir", "/srv", "dlx", "pkg"], "pnpm dlx").fetches("pkg", None, "pkg"),
        row(&["pnpx", "pkg"], "pnpm dlx").fetches("pkg", None, "pkg"),
        // `pnpm exec` runs what the project installed: nothing is fetched.
        row(&["pnpm", "exec", "tool", "--x"], "direct")
            .runs("pnpm")
            .args(&["exec", "tool", "--x"]),
        row(&["yarn", "dlx", "pkg@beta"], "yarn dlx").fetches("pkg", Some("beta"), "pkg@beta"),
        row(
            &[
                "npm",
                "exec",
                "--yes",
                "--package=pkg@1",
                "--",
                "pkg-bin",
                "a",
            ],
            "npm exec",
        )
        .fetches("pkg", Some("1"), "pkg@1")
        .runs("pkg-bin")
        .args(&["a"])
        .installer(npm)
        .fingerprint("npm", "pkg", "1"),
        row(&["npm", "x", "pkg"], "npm exec")
            .fetches("pkg", None, "pkg")
            .installer(npm)
            .fingerprint("npm", "pkg", ""),
        row(&["npm", "start"], "direct")
            .runs("npm")
            .args(&["start"]),
        // uvx and pipx: PyPI specs.
        row(&["uvx", "mcp-server-time"], "uvx")
            .fetches("mcp-server-time", None, "mcp-server-time")
            .installer(uv)
            .fingerprint("uv", "mcp-server-time", "")
            .preinstalled(),
        row(
            &["uvx", "mcp-server-time==1.2", "--local-timezone", "UTC"],
            "uvx",
        )
        .fetches("mcp-server-time", Some("1.2"), "mcp-server-time==1.2")
        .args(&["--local-timezone", "UTC"])
        .installer(uv)
        .fingerprint("uv", "mcp-server-time==1.2", "")
        .preinstalled(),
        row(
            &[
                "uvx",
                "--from",
                "mcp-server-git==0.6",
                "mcp-server-git",
                "--repo",
                ".",
            ],
            "uvx",
        )
        .fetches("mcp-server-git", Some("0.6"), "mcp-server-git==0.6")
        .runs("mcp-server-git")
        .args(&["--repo", "."])
        .installer(uv)
        .fingerprint("uv", "mcp-server-git==0.6", ""),
        row(&["uvx", "--python", "3.12", "pkg"], "uvx")
            .fetches("pkg", None, "pkg")
            .installer(uv)
            .fingerprint("uv", "pkg", ""),
        row(&["uvx", "--from", &git_pypi, "tool"], "uvx")
            .fetches(&git_pypi, Some(COMMIT), &git_pypi)
            .runs("tool")
            .installer(uv)
            .fingerprint("uv", &git_pypi, ""),
        row(&["uvx", "--from", "./dir", "tool"], "uvx")
            .fetches("./dir", None, "./dir")
            .runs("tool")
            .installer(uv)
            .fingerprint("uv", "./dir", ""),
        row(&["uv", "tool", "run", "pkg"], "uvx")
            .fetches("pkg", None, "pkg")
            .installer(uv)
            .fingerprint("uv", "pkg", "")
            .preinstalled(),
        row(&["pipx", "run", "pkg"], "pipx run").fetches("pkg", None, "pkg"),
        row(
            &["pipx", "run", "--spec", "pkg==1.0", "pkg-cli", "-v"],
            "pipx run",
        )
        .fetches("pkg", Some("1.0"), "pkg==1.0")
        .runs("pkg-cli")
        .args(&["-v"]),
        // docker run: an image, with its options' values skipped.
        row(
            &[
                "docker",
                "run",
                "-i",
                "--rm",
                "-e",
                "TOKEN",
                "ghcr.io/o/server:1.0",
                "--stdio",
            ],
            "docker run",
        )
        .fetches("ghcr.io/o/server", Some("1.0"), "ghcr.io/o/server:1.0")
        .args(&["--stdio"])
        .fingerprint("docker", "ghcr.io/o/server:1.0", ""),
        row(
            &["docker", "run", "--cap-add", "NET_ADMIN", "img"],
            "docker run",
        )
        .fetches("img", None, "img")
        .fingerprint("docker", "img", ""),
        row(&["podman", "container", "run", &digest], "docker run")
            .fetches("img", Some(digest.trim_start_matches("img@")), &digest)
            .fingerprint("docker", &digest, ""),
        row(&["docker", "ps"], "direct")
            .runs("docker")
            .args(&["ps"]),
        // Direct commands.
        row(&["node", "server.js", "--port", "1"], "direct")
            .runs("node")
            .args(&["server.js", "--port", "1"]),
        row(&["python3", "-m", "mcp_server"], "direct")
            .runs("python3")
            .args(&["-m", "mcp_server"]),
        row(&["/opt/server/bin/server"], "direct").runs("/opt/server/bin/server"),
    ]
}

fn text(line: &[String], at: Option<usize>) -> Option<&str> {
    at.map(|i| line[i].as_str())
}

fn the_model_reads(r: &Row) -> Launch {
    let l = launch::parse(&r.line).expect("a program");
    let at = |what: &str| format!("{what} of {:?}", r.line);
    assert_eq!(l.launcher.as_str(), r.launcher, "{}", at("launcher"));
    let package = l.fetches.as_ref().map(|a| {
        let p = &a.package;
        (p.name.clone(), p.version.clone(), p.spec.clone())
    });
    assert_eq!(package, r.package, "{}", at("package"));
    assert_eq!(
        text(&r.line, l.executable),
        r.executable,
        "{}",
        at("executable")
    );
    assert_eq!(&r.line[l.args_from..], r.args, "{}", at("server arguments"));
    assert_eq!(
        launch::parse_command(&r.line[0], &r.line[1..]),
        Some(l.clone())
    );
    l
}

fn scan_reads(r: &Row, model: &Launch) {
    let config =
        serde_json::json!({"mcpServers": {"s": {"command": r.line[0], "args": r.line[1..]}}});
    let file = config_file::parse(
        Path::new(".mcp.json"),
        ".mcp.json",
        Scope::Project,
        config.to_string(),
    )
    .expect("config");
    let entry = &file.servers[0];
    let found = mcpcheck::scan::entry_command::packages(entry);
    let read = found.first().map(|p| {
        (
            p.launcher,
            p.package.clone(),
            p.word.text.clone(),
            p.executable.clone(),
            p.via_option,
        )
    });
    let expected = model.fetches.as_ref().map(|a| {
        (
            model.launcher,
            a.package.clone(),
            r.line[a.word].clone(),
            text(&r.line, model.executable).map(str::to_string),
            a.via_option,
        )
    });
    assert_eq!(read, expected, "scan of {:?}", r.line);
    assert!(found.len() <= 1, "{found:?}");
}

fn guard_reads(r: &Row, model: &Launch) {
    let cwd = tempfile::tempdir().expect("tempdir");
    let command = ServerCommand {
        program: r.line[0].clone(),
        args: r.line[1..].to_vec(),
        // No package.json above it: a node script here belongs to no package.
        cwd: Some(cwd.path().to_path_buf()),
        env: Vec::new(),
        clear_env: false,
        unset_env: Vec::new(),
    };
    assert_eq!(
        mcpcheck::guard::fetching_installer(&command),
        r.installer,
        "guard's installer of {:?}",
        r.line
    );
    assert_eq!(
        r.installer,
        Installer::of_launcher(model.launcher),
        "{:?}",
        r.line
    );
    let expected = r
        .fingerprint
        .clone()
        .map(|(manager, name, version_spec)| FingerprintPackage {
            manager,
            name,
            version_spec,
        });
    assert_eq!(
        of_command(&command),
        expected,
        "guard's fingerprint of {:?}",
        r.line
    );
}

fn sweep_reads(r: &Row, model: &Launch) {
    let installers = [Installer::Npm, Installer::Uv, Installer::Pip];
    let installed: Vec<Install> = installers
        .iter()
        .filter_map(|i| Install::of_command(&r.line, *i))
        .collect();
    if !r.preinstalled {
        assert!(installed.is_empty(), "sweep installs {:?}", r.line);
        return;
    }
    let Some(arg) = &model.fetches else {
        panic!("{:?} fetches nothing", r.line)
    };
    // npm's for npx; uv's (or pip's, where uv is missing) for uvx.
    let expected: Vec<Installer> = match model.launcher {
        Launcher::Npx => vec![Installer::Npm],
        _ => vec![Installer::Uv, Installer::Pip],
    };
    assert_eq!(
        installed.iter().map(|i| i.installer).collect::<Vec<_>>(),
        expected,
        "{:?}",
        r.line
    );
    for install in installed {
        assert_eq!(install.package, arg.package, "{:?}", r.line);
        assert_eq!(install.args_from, model.args_from, "{:?}", r.line);
    }
}

#[test]
fn every_user_reads_each_command_line_as_the_model_does() {
    for r in table() {
        let model = the_model_reads(&r);
        scan_reads(&r, &model);
        guard_reads(&r, &model);
        sweep_reads(&r, &model);
    }
}

#[test]
fn the_sweep_installs_the_command_it_writes_for_a_registry_entry() {
    use mcpcheck::sweep::manifest::{EntryPlan, Supplied};
    use mcpcheck::sweep::server_json::launch_plan;
    let plan = |package: serde_json::Value| {
        let server = serde_json::json!({"packages": [package]});
        launch_plan(server.as_object().expect("object"), &Supplied::default())
    };
    let npm = plan(serde_json::json!({
        "registryType": "npm", "identifier": "@s/x", "version": "1.2.3",
        "packageArguments": [{"type": "positional", "value": "/data"}]
    }));
    let EntryPlan::Launch(launch) = npm else {
        panic!("{npm:?}")
    };
    let argv = launch.argv();
    assert_eq!(argv, ["npx", "-y", "@s/x@1.2.3", "/data"]);
    let model = launch::parse(&argv).expect("program");
    let install = launch.install.expect("installed first");
    assert_eq!(Some(install.package), model.fetches.map(|a| a.package));
    assert_eq!(install.args_from, model.args_from);
    // A runtime argument that names another package: nothing is installed first.
    let other = plan(serde_json::json!({
        "registryType": "npm", "identifier": "x", "version": "1",
        "runtimeArguments": [{"type": "positional", "value": "other"}]
    }));
    let EntryPlan::Launch(other) = other else {
        panic!("{other:?}")
    };
    assert_eq!(other.argv(), ["npx", "-y", "other", "x@1"]);
    assert_eq!(other.install, None);
}
