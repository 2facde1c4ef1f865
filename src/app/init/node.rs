//! A Node project: the package manager from its lockfile, the build step from its scripts,
//! the entry from `bin`, `main` or `exports` of package.json.

use super::detect::{is_plain_path, Plan, Unsure};
use serde_json::Value;
use std::path::Path;

/// The package manager a lockfile belongs to. The Action's image has npm, and pnpm and
/// yarn through corepack's shims; bun it installs with npm first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Manager {
    Npm {
        locked: bool,
    },
    Pnpm,
    /// yarn 1 (`yarn.lock` without `__metadata:`).
    YarnClassic,
    /// yarn 2 and later.
    YarnBerry,
    Bun,
}

impl Manager {
    /// The manager and its lockfile (none for npm without one).
    pub fn of(root: &Path) -> (Self, Option<&'static str>) {
        for lock in ["package-lock.json", "npm-shrinkwrap.json"] {
            if root.join(lock).is_file() {
                return (Self::Npm { locked: true }, Some(lock));
            }
        }
        if root.join("pnpm-lock.yaml").is_file() {
            return (Self::Pnpm, Some("pnpm-lock.yaml"));
        }
        if let Ok(text) = std::fs::read_to_string(root.join("yarn.lock")) {
            let berry = text.lines().any(|l| l.starts_with("__metadata:"));
            let manager = if berry {
                Self::YarnBerry
            } else {
                Self::YarnClassic
            };
            return (manager, Some("yarn.lock"));
        }
        for lock in ["bun.lock", "bun.lockb"] {
            if root.join(lock).is_file() {
                return (Self::Bun, Some(lock));
            }
        }
        (Self::Npm { locked: false }, None)
    }

    /// Installs exactly what the lockfile pins (and fails when it is stale), as CI should.
    pub fn install(self) -> &'static str {
        match self {
            Self::Npm { locked: true } => "npm ci",
            Self::Npm { locked: false } => "npm install",
            Self::Pnpm => "pnpm install --frozen-lockfile",
            Self::YarnClassic => "yarn install --frozen-lockfile",
            Self::YarnBerry => "yarn install --immutable",
            Self::Bun => "npm install --global bun@1 && bun install --frozen-lockfile",
        }
    }

    pub fn run_script(self, script: &str) -> String {
        let pm = match self {
            Self::Npm { .. } => "npm",
            Self::Pnpm => "pnpm",
            Self::YarnClassic | Self::YarnBerry => "yarn",
            Self::Bun => "bun",
        };
        format!("{pm} run {script}")
    }

    /// What runs the entry file: bun projects run under bun, the rest under node.
    fn runtime(self) -> &'static str {
        match self {
            Self::Bun => "bun",
            _ => "node",
        }
    }
}

/// The docs' example (setup, command): a project with an npm lockfile and a build script
/// whose entry is `dist/index.js`, set up as [`plan`] sets one up.
pub fn documented_launch() -> (String, &'static str) {
    let npm = Manager::Npm { locked: true };
    (
        format!("{} && {}", npm.install(), npm.run_script("build")),
        "node dist/index.js",
    )
}

pub fn plan(root: &Path) -> Plan {
    let (manager, lockfile) = Manager::of(root);
    let mut basis = vec!["package.json"];
    basis.extend(lockfile);
    let text = std::fs::read_to_string(root.join("package.json")).unwrap_or_default();
    let Ok(pkg) = serde_json::from_str::<Value>(&text) else {
        return Plan {
            setup: Some(manager.install().to_string()),
            command: Err(Unsure("package.json is not valid JSON".into())),
            basis,
        };
    };
    let script = |name: &str| pkg["scripts"][name].is_string();
    let build = script("build");
    let mut setup = manager.install().to_string();
    if build {
        setup = format!("{setup} && {}", manager.run_script("build"));
    }
    let command = entry(&pkg, root).and_then(|(path, field)| {
        let typescript = [".ts", ".tsx", ".mts", ".cts"]
            .iter()
            .any(|ext| path.ends_with(ext));
        if typescript && manager != Manager::Bun {
            return Err(Unsure(format!(
                "package.json's {field} is {path}, TypeScript, which node does not run: point it at the built JavaScript"
            )));
        }
        // npm, pnpm and yarn 1 run `prepare` on install.
        if !root.join(&path).is_file() && !build && !script("prepare") {
            return Err(Unsure(format!(
                "package.json's {field} is {path}, which is not in the repository, and no build script makes it"
            )));
        }
        Ok(format!("{} {path}", manager.runtime()))
    });
    Plan {
        setup: Some(setup),
        command,
        basis,
    }
}

/// The file the package runs, and the field it came from: `bin` (one command, or the one
/// named after the package), else `main`, else `exports`, else npm's default `index.js`.
fn entry(pkg: &Value, root: &Path) -> Result<(String, &'static str), Unsure> {
    let name = pkg["name"].as_str().unwrap_or_default();
    let short = name.rsplit('/').next().unwrap_or(name);
    let bin = match &pkg["bin"] {
        Value::String(s) => Some(s.as_str()),
        Value::Object(o) if o.len() == 1 => o.values().next().and_then(Value::as_str),
        Value::Object(o) => o.get(short).or_else(|| o.get(name)).and_then(Value::as_str),
        _ => None,
    };
    let exports = match &pkg["exports"] {
        Value::Object(o) if o.keys().any(|k| k.starts_with('.')) => {
            o.get(".").and_then(|v| condition(v, 0))
        }
        other => condition(other, 0),
    };
    let (path, field) = match (bin, pkg["main"].as_str(), exports) {
        (Some(b), _, _) => (b, "bin"),
        (None, Some(m), _) => (m, "main"),
        (None, None, Some(e)) => (e, "exports"),
        (None, None, None) if root.join("index.js").is_file() => ("index.js", "default main"),
        (None, None, None) => {
            return Err(Unsure(
                "package.json names no bin, main or exports, and there is no index.js".into(),
            ))
        }
    };
    let path = path.strip_prefix("./").unwrap_or(path);
    if !is_plain_path(path) {
        return Err(Unsure(format!(
            "package.json's {field} is not a plain relative path"
        )));
    }
    Ok((path.to_string(), field))
}

/// The file a conditional export resolves to for node: `node`, `import`, `default`, then
/// `require`, nested at most a few levels.
fn condition(value: &Value, depth: usize) -> Option<&str> {
    match value {
        Value::String(s) => Some(s),
        Value::Object(o) if depth < 8 => ["node", "import", "default", "require"]
            .iter()
            .find_map(|k| o.get(*k).and_then(|v| condition(v, depth + 1))),
        Value::Array(items) if depth < 8 => items.iter().find_map(|v| condition(v, depth + 1)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::detect::test_repo as repo;

    fn setup_and_command(files: &[(&str, &str)]) -> (String, Result<String, Unsure>) {
        let dir = repo(files);
        let plan = plan(dir.path());
        (plan.setup.expect("node always has a setup"), plan.command)
    }

    const BUILT: &str = r#"{"name": "s", "main": "dist/index.js", "scripts": {"build": "tsc"}}"#;

    #[test]
    fn the_lockfile_chooses_the_package_manager() {
        for (lock, content, setup) in [
            ("package-lock.json", "{}", "npm ci && npm run build"),
            ("npm-shrinkwrap.json", "{}", "npm ci && npm run build"),
            (
                "pnpm-lock.yaml",
                "lockfileVersion: '9.0'\n",
                "pnpm install --frozen-lockfile && pnpm run build",
            ),
            (
                "yarn.lock",
                "# yarn lockfile v1\n",
                "yarn install --frozen-lockfile && yarn run build",
            ),
            (
                "yarn.lock",
                "__metadata:\n  version: 8\n",
                "yarn install --immutable && yarn run build",
            ),
            (
                "bun.lock",
                "{}",
                "npm install --global bun@1 && bun install --frozen-lockfile && bun run build",
            ),
            (
                "bun.lockb",
                "",
                "npm install --global bun@1 && bun install --frozen-lockfile && bun run build",
            ),
        ] {
            let (got, command) = setup_and_command(&[("package.json", BUILT), (lock, content)]);
            assert_eq!(got, setup, "{lock}");
            let runtime = if lock.starts_with("bun") {
                "bun"
            } else {
                "node"
            };
            assert_eq!(command, Ok(format!("{runtime} dist/index.js")), "{lock}");
        }
    }

    #[test]
    fn without_a_lockfile_npm_install_and_without_a_build_script_no_build() {
        let (setup, command) = setup_and_command(&[
            ("package.json", r#"{"name": "s", "bin": "bin/s.js"}"#),
            ("bin/s.js", ""),
        ]);
        assert_eq!(setup, "npm install");
        assert_eq!(command.as_deref(), Ok("node bin/s.js"));
    }

    #[test]
    fn the_entry_comes_from_bin_then_main_then_exports() {
        for (pkg, entry) in [
            (r#"{"name": "s", "bin": {"s": "./cli.js"}}"#, "cli.js"),
            (
                r#"{"name": "@o/s", "bin": {"other": "o.js", "s": "s.js"}, "main": "m.js"}"#,
                "s.js",
            ),
            (
                r#"{"name": "s", "bin": {"a": "a.js", "b": "b.js"}, "main": "m.js"}"#,
                "m.js",
            ),
            (r#"{"name": "s", "main": "lib/m.js"}"#, "lib/m.js"),
            (r#"{"name": "s", "exports": "./e.js"}"#, "e.js"),
            (
                r#"{"name": "s", "exports": {".": {"types": "./e.d.ts", "import": "./e.mjs", "require": "./e.cjs"}, "./x": "./x.js"}}"#,
                "e.mjs",
            ),
            (
                r#"{"name": "s", "exports": {"require": "./e.cjs"}}"#,
                "e.cjs",
            ),
            (r#"{"name": "s"}"#, "index.js"),
        ] {
            let (_, command) = setup_and_command(&[
                ("package.json", pkg),
                ("cli.js", ""),
                ("s.js", ""),
                ("m.js", ""),
                ("lib/m.js", ""),
                ("e.js", ""),
                ("e.mjs", ""),
                ("e.cjs", ""),
                ("index.js", ""),
            ]);
            assert_eq!(command, Ok(format!("node {entry}")), "{pkg}");
        }
    }

    #[test]
    fn unsure_entries_say_why_instead_of_guessing() {
        for (files, why) in [
            (
                vec![("package.json", r#"{"name": "s"}"#)],
                "names no bin, main or exports",
            ),
            (
                vec![("package.json", r#"{"name": "s", "main": "dist/index.js"}"#)],
                "main is dist/index.js, which is not in the repository",
            ),
            (
                vec![("package.json", r#"{"name": "s", "bin": "src/cli.ts"}"#)],
                "TypeScript",
            ),
            (
                vec![("package.json", r#"{"name": "s", "main": "a b.js"}"#)],
                "not a plain relative path",
            ),
            (
                vec![("package.json", r#"{"name": "s", "main": "../x.js"}"#)],
                "not a plain relative path",
            ),
            (vec![("package.json", "{")], "not valid JSON"),
        ] {
            let (_, command) = setup_and_command(&files);
            let err = command.expect_err(why).0;
            assert!(err.contains(why), "{err}");
        }
    }

    #[test]
    fn a_prepare_script_builds_the_entry_on_install() {
        let (setup, command) = setup_and_command(&[(
            "package.json",
            r#"{"name": "s", "main": "dist/index.js", "scripts": {"prepare": "tsc"}}"#,
        )]);
        assert_eq!(setup, "npm install");
        assert_eq!(command.as_deref(), Ok("node dist/index.js"));
    }
}
