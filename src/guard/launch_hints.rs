//! Fixes for failures whose cause the launch itself shows, where the catalog's general help
//! would only guess: a Node server started before it was built (its entry point missing,
//! a build script beside it), and npm's own banner on stdout when the server is started
//! through `npm start` or `npm run`.

use crate::catalog::Code;
use crate::finding::{excerpt, Finding};
use crate::process::ServerCommand;
use crate::session::transcript::Transcript;
use regex::Regex;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// Node's words for a missing entry point: `Error: Cannot find module '/srv/dist/index.js'`.
static MISSING_MODULE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"Cannot find module '([^'\n]{1,4096})'").ok());

/// Directories looked through, upward from a missing file, for its package.json.
const PACKAGE_DEPTH: usize = 8;

/// Replaces the general fix of the findings in `found` whose cause the launch shows.
pub fn file(found: &mut [Finding], t: &Transcript, cmd: &ServerCommand) {
    for f in found.iter_mut() {
        match f.code {
            Code::ServerExited | Code::ServerCrashed => {
                if let Some(fix) = unbuilt(&t.process.stderr.tail_text(), cmd) {
                    f.fix = Some(fix);
                }
            }
            Code::StdoutNonJson | Code::StdoutEmptyLine => {
                if let Some(fix) = npm_banner(cmd, f) {
                    f.fix = Some(fix);
                }
            }
            _ => {}
        }
    }
}

/// A server whose entry point is missing where a package with a build script expects it:
/// it was not built.
fn unbuilt(stderr: &str, cmd: &ServerCommand) -> Option<String> {
    let missing = MISSING_MODULE.as_ref()?.captures(stderr)?.get(1)?.as_str();
    // A bare name (`express`) is a missing dependency, not an unbuilt entry point.
    if !(missing.starts_with('/') || missing.starts_with('.')) {
        return None;
    }
    let base = cmd
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let missing = base.join(missing);
    let package = package_dir(&missing)?;
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(package.join("package.json")).ok()?).ok()?;
    manifest.get("scripts")?.get("build")?.as_str()?;
    let shown = missing
        .strip_prefix(&package)
        .unwrap_or(&missing)
        .display()
        .to_string();
    let language = if package.join("tsconfig.json").is_file() {
        "the TypeScript server"
    } else {
        "the server"
    };
    Some(format!(
        "`{}` does not exist: {language} has not been built, and its package has a build script. Build it before starting it: `npm run build` (in CI: `npm ci && npm run build`, as `mcpcheck init` writes the workflow's setup).",
        excerpt(&shown, 200)
    ))
}

/// The nearest directory above `file` holding a package.json.
fn package_dir(file: &Path) -> Option<PathBuf> {
    file.ancestors()
        .skip(1)
        .take(PACKAGE_DEPTH)
        .find(|dir| dir.join("package.json").is_file())
        .map(Path::to_path_buf)
}

/// The package manager whose banner `f`'s line is: npm (or pnpm, yarn) running a script
/// prints `> name@version script` and the command, between empty lines, on stdout before
/// the server starts.
pub(super) fn npm_banner_of(cmd: &ServerCommand, f: &Finding) -> Option<&'static str> {
    let program = match Path::new(&cmd.program).file_name()?.to_str()? {
        "npm" => "npm",
        "pnpm" => "pnpm",
        "yarn" => "yarn",
        _ => return None,
    };
    let runs_script = cmd
        .args
        .iter()
        .any(|a| matches!(a.as_str(), "start" | "run" | "run-script" | "test"));
    let banner_line = f
        .evidence
        .as_deref()
        .is_none_or(|e| e.starts_with("> ") || e.is_empty());
    (runs_script && banner_line).then_some(program)
}

/// The fix for npm's own banner: start the server directly, or keep npm quiet.
fn npm_banner(cmd: &ServerCommand, f: &Finding) -> Option<String> {
    let program = npm_banner_of(cmd, f)?;
    let fix = f.fix.as_deref().unwrap_or(f.code.meta().help);
    Some(format!(
        "{fix} Here the lines are {program}'s own: it announces the script it runs (`> name@version script` and the command) on stdout. Start the server with the script's command directly (`node dist/index.js`, as a client's config would), or keep {program} quiet with `--silent` (`{program} --silent start`)."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(program: &str, args: &[&str], cwd: &Path) -> ServerCommand {
        ServerCommand {
            program: program.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            cwd: Some(cwd.to_path_buf()),
            env: Vec::new(),
            clear_env: false,
            unset_env: Vec::new(),
        }
    }

    #[test]
    fn a_missing_entry_point_beside_a_build_script_is_an_unbuilt_server() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"scripts": {"build": "tsc"}}"#,
        )
        .expect("package.json");
        std::fs::write(dir.path().join("tsconfig.json"), "{}").expect("tsconfig");
        let cmd = command("node", &["dist/index.js"], dir.path());
        let stderr = format!(
            "Error: Cannot find module '{}/dist/index.js'\n",
            dir.path().display()
        );
        let fix = unbuilt(&stderr, &cmd).expect("unbuilt");
        assert!(
            fix.starts_with("`dist/index.js` does not exist: the TypeScript server"),
            "{fix}"
        );
        assert!(fix.contains("`npm run build`"), "{fix}");
        // A missing dependency is not an unbuilt server.
        assert_eq!(unbuilt("Error: Cannot find module 'express'\n", &cmd), None);
        // Nor is a missing file in a package without a build script.
        std::fs::write(dir.path().join("package.json"), "{}").expect("package.json");
        assert_eq!(unbuilt(&stderr, &cmd), None);
    }
}
