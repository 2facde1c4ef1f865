//! What a package installer printed when it could not give a client the server: the
//! package or version is not on its registry, it needs a newer runtime, or it installs
//! nothing to run. Read by the sweep's install phase, and by the guard when `npx`,
//! `npm exec` or `uvx` fetches the server and it exits before answering initialize.

use crate::catalog::Code;
use crate::launch::Launcher;

/// The installer whose words are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Installer {
    /// npm: `npm install`, `npx`, `npm exec`.
    Npm,
    /// uv: `uvx`, `uv tool install`.
    Uv,
    /// pip into a venv.
    Pip,
}

impl Installer {
    /// `npm`, `uv` or `pip`, as a message names it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Npm => "npm",
            Self::Uv => "uv",
            Self::Pip => "pip",
        }
    }

    /// The installer whose words a launcher prints when it fetches the server: npm's for
    /// `npx` and `npm exec`, uv's for `uvx` (and `uv tool run`).
    pub fn of_launcher(launcher: Launcher) -> Option<Self> {
        match launcher {
            Launcher::Npx | Launcher::NpmExec => Some(Self::Npm),
            Launcher::Uvx => Some(Self::Uv),
            Launcher::Bunx
            | Launcher::PnpmDlx
            | Launcher::YarnDlx
            | Launcher::PipxRun
            | Launcher::DockerRun
            | Launcher::Direct => None,
        }
    }
}

/// A failure the installer named, and the line that names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallFault {
    pub code: Code,
    /// `package`, `version`, `dependency`, `python`, `engine` or `executable`.
    pub detail: &'static str,
    pub line: String,
    /// `dependency` only: the requirement the registry lacks, as the installer wrote it
    /// (`pglast==7.2.0`), a dependency of the package and not the package itself.
    pub missing: Option<String>,
}

impl InstallFault {
    /// The fault lies with the host's registry, not the package: what is missing is one of
    /// its dependencies (the package itself is there).
    pub fn is_dependency(&self) -> bool {
        self.missing.is_some()
    }
}

struct Rule {
    needles: &'static [&'static str],
    code: Code,
    detail: &'static str,
    /// The line alone shows the install failed. npm's `EBADENGINE` is a warning unless
    /// engine-strict is set, so it explains only an install already known to have failed.
    fatal: bool,
}

const fn rule(needles: &'static [&'static str], code: Code, detail: &'static str) -> Rule {
    Rule {
        needles,
        code,
        detail,
        fatal: true,
    }
}

const NPM: &[Rule] = &[
    rule(
        &["No matching version found", "notarget"],
        Code::InstallPackageMissing,
        "version",
    ),
    rule(
        &["is not in this registry", "404 Not Found"],
        Code::InstallPackageMissing,
        "package",
    ),
    rule(
        &["could not determine executable to run"],
        Code::InstallNoExecutable,
        "executable",
    ),
    Rule {
        needles: &["Unsupported engine", "EBADENGINE"],
        code: Code::InstallRuntimeTooOld,
        detail: "engine",
        fatal: false,
    },
];

const UV: &[Rule] = &[
    rule(
        &["there is no version of", "no versions of"],
        Code::InstallPackageMissing,
        "version",
    ),
    rule(
        &["was not found in the package registry"],
        Code::InstallPackageMissing,
        "package",
    ),
    rule(
        &[
            "does not satisfy Python",
            "Requires-Python",
            "requires-python",
        ],
        Code::InstallRuntimeTooOld,
        "python",
    ),
    rule(
        &[
            "does not provide any executables",
            "is not provided by package",
        ],
        Code::InstallNoExecutable,
        "executable",
    ),
];

const PIP: &[Rule] = &[
    rule(
        &["Could not find a version that satisfies"],
        Code::InstallPackageMissing,
        "version",
    ),
    rule(
        &["requires a different Python"],
        Code::InstallRuntimeTooOld,
        "python",
    ),
];

/// The first rule, in order, that a line of `output` meets, with that line (trimmed, not yet
/// bounded or masked). `fatal_only` keeps to the lines that alone show an install failed,
/// for output where the install may have worked (a server's stderr after npx). `package`
/// is the name of the package being installed, when known: a missing package or version
/// that is another one is a missing dependency (`detail` `dependency`, `missing` naming it).
pub fn fault_in(
    installer: Installer,
    output: &str,
    fatal_only: bool,
    package: Option<&str>,
) -> Option<InstallFault> {
    let rules = match installer {
        Installer::Npm => NPM,
        Installer::Uv => UV,
        Installer::Pip => PIP,
    };
    let mut fault = rules
        .iter()
        .filter(|r| r.fatal || !fatal_only)
        .find_map(|r| {
            output
                .lines()
                .map(str::trim)
                .find(|l| r.needles.iter().any(|n| l.contains(n)))
                .map(|line| InstallFault {
                    code: r.code,
                    detail: r.detail,
                    line: line.to_string(),
                    missing: None,
                })
        })?;
    if fault.code == Code::InstallPackageMissing {
        if let (Some(package), Some((name, requirement))) =
            (package, missing_requirement(installer, output))
        {
            if normalized(installer, &name) != normalized(installer, package) {
                fault.detail = "dependency";
                fault.missing = Some(requirement);
            }
        }
    }
    Some(fault)
}

/// The requirement an installer says its registry lacks, as (name, requirement as written):
/// uv's `there is no version of NAME==1` and `Because NAME was not found in the package
/// registry`, pip's `satisfies the requirement NAME==1`, npm's `No matching version found
/// for NAME@1.` and `'NAME@1' is not in this registry`.
fn missing_requirement(installer: Installer, output: &str) -> Option<(String, String)> {
    let after = |marker: &str| -> Option<&str> {
        output
            .lines()
            .find_map(|l| l.split_once(marker).map(|(_, rest)| rest.trim_start()))
    };
    let requirement: String = match installer {
        Installer::Uv => after("there is no version of ")
            .or_else(|| {
                after("Because ").filter(|r| r.contains(" was not found in the package registry"))
            })?
            .split([' ', ','])
            .next()?
            .to_string(),
        Installer::Pip => after("satisfies the requirement ")?
            .split([' ', ','])
            .next()?
            .to_string(),
        Installer::Npm => {
            if let Some(rest) = after("No matching version found for ") {
                rest.split_whitespace()
                    .next()?
                    .trim_end_matches('.')
                    .to_string()
            } else {
                let line = output
                    .lines()
                    .find(|l| l.contains("' is not in this registry"))?;
                let quoted = line.split_once('\'')?.1;
                quoted.split_once('\'')?.0.to_string()
            }
        }
    };
    let name = match installer {
        Installer::Npm => {
            // `@scope/name@1` or `name@1`: the name ends at the `@` after its first character.
            let at = requirement[1..]
                .find('@')
                .map_or(requirement.len(), |i| i + 1);
            requirement[..at].to_string()
        }
        Installer::Uv | Installer::Pip => requirement
            .split(['=', '<', '>', '!', '~', '[', ';', '('])
            .next()
            .unwrap_or_default()
            .to_string(),
    };
    (!name.is_empty()).then_some((name, requirement))
}

/// A package name as its registry compares names: npm's as written, PyPI's lower-cased
/// with runs of `-`, `_` and `.` as one `-` (PEP 503).
fn normalized(installer: Installer, name: &str) -> String {
    match installer {
        Installer::Npm => name.to_string(),
        Installer::Uv | Installer::Pip => {
            let mut out = String::new();
            for c in name.trim().chars() {
                if matches!(c, '-' | '_' | '.') {
                    if !out.ends_with('-') {
                        out.push('-');
                    }
                } else {
                    out.push(c.to_ascii_lowercase());
                }
            }
            out
        }
    }
}

/// Why a package's own build or lifecycle script failed during an install.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptCause {
    /// A native library or its headers are missing here (`libsecret-1` not found by
    /// pkg-config, `cannot open shared object file`, a header the compiler cannot find):
    /// the host's shortcoming.
    NativeLibrary,
    /// The script could not reach an upstream (a browser download, a prebuilt binary).
    Upstream,
    /// Anything else.
    Other,
}

/// A build or lifecycle script that failed an install, and the line that says why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptFailure {
    /// `keytar@7.9.0 install`, `puppeteer@24.43.1 postinstall`, `manimpango==0.6.1`.
    pub script: String,
    pub cause: ScriptCause,
    /// The decisive line (trimmed, not yet bounded or masked).
    pub line: String,
}

impl ScriptFailure {
    /// `native-library`, `upstream` or `script`.
    pub fn detail(&self) -> &'static str {
        match self.cause {
            ScriptCause::NativeLibrary => "native-library",
            ScriptCause::Upstream => "upstream",
            ScriptCause::Other => "script",
        }
    }
}

/// Lines that say a native library or its headers are missing, most specific first.
const NATIVE: &[&str] = &[
    "cannot open shared object file",
    "was not found in the pkg-config search path",
    "', required by '",
    ".h: No such file or directory",
    "gyp ERR! configure error",
    "gyp ERR! build error",
    "error: command 'gcc' failed",
    "error: command 'cc' failed",
    "error: command '/usr/bin/gcc' failed",
    "error: command '/usr/bin/cc' failed",
];

/// How many of [`NATIVE`]'s markers name what is missing; the others say only that a
/// native build failed, and are read after a network failure has been looked for
/// (node-gyp downloads Node's headers first).
const NATIVE_SPECIFIC: usize = 4;

/// A line of `text` that says a native library (or its headers) is missing here, if any:
/// the most specific such line.
pub fn native_library_missing(text: &str) -> Option<String> {
    native_line(text, NATIVE)
}

fn native_line(text: &str, markers: &[&str]) -> Option<String> {
    markers.iter().find_map(|marker| {
        text.lines()
            .map(str::trim)
            .find(|l| l.contains(marker))
            .map(str::to_string)
    })
}

/// The script that failed an install, as npm (run with `--loglevel=info
/// --foreground-scripts`, so it names each script and shows its output) or uv (`Failed to
/// build`) reported it.
pub fn script_failure(installer: Installer, output: &str) -> Option<ScriptFailure> {
    let lines: Vec<&str> = output.lines().map(str::trim).collect();
    let (script, body) = match installer {
        Installer::Npm => {
            // `npm info run keytar@7.9.0 install { code: 1, signal: null }`, after the
            // script's own output, which follows `npm info run keytar@7.9.0 install CMD`.
            let end = lines.iter().position(|l| {
                l.starts_with("npm info run ")
                    && l.contains(" { code: ")
                    && !l.contains(" { code: 0,")
            })?;
            let words: Vec<&str> = lines[end]["npm info run ".len()..]
                .split_whitespace()
                .take(2)
                .collect();
            let script = words.join(" ");
            let start = lines[..end]
                .iter()
                .rposition(|l| l.starts_with(&format!("npm info run {script} ")))
                .map_or(0, |i| i + 1);
            (script, &lines[start..end])
        }
        Installer::Uv | Installer::Pip => {
            let at = lines.iter().position(|l| {
                l.contains("Failed to build") || l.contains("Failed building wheel")
            })?;
            let script = lines[at].split('`').nth(1).unwrap_or(lines[at]).to_string();
            (script, &lines[at..])
        }
    };
    let text = body.join("\n");
    let network = || {
        crate::upstream::failure_in(&text)
            .filter(|u| !matches!(u.kind, "credential-missing" | "configuration-missing"))
            .map(|u| u.line)
            // node-gyp's own words when it cannot download Node's headers.
            .or_else(|| {
                body.iter()
                    .find(|l| l.contains("related to network connectivity"))
                    .map(|l| l.to_string())
            })
    };
    let (cause, line) = if let Some(line) = native_line(&text, &NATIVE[..NATIVE_SPECIFIC]) {
        (ScriptCause::NativeLibrary, line)
    } else if let Some(line) = network() {
        (ScriptCause::Upstream, line)
    } else if let Some(line) = native_line(&text, &NATIVE[NATIVE_SPECIFIC..]) {
        (ScriptCause::NativeLibrary, line)
    } else {
        let last = body
            .iter()
            .rev()
            .find(|l| l.to_ascii_lowercase().contains("error"))
            .or_else(|| body.iter().rev().find(|l| !l.is_empty()))
            .map_or_else(|| "it failed without output".to_string(), |l| l.to_string());
        (ScriptCause::Other, last)
    };
    Some(ScriptFailure {
        script,
        cause,
        line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(installer: Installer, output: &str, fatal_only: bool) -> Option<(Code, &str)> {
        fault_in(installer, output, fatal_only, None).map(|f| (f.code, f.detail))
    }

    #[test]
    fn a_failed_script_says_which_and_why() {
        // npm 11.19 (`npm exec --loglevel=info --foreground-scripts`) on @azure-devops/mcp
        // 2.10.0 and @wonderwhy-er/desktop-commander 0.2.52, 2026-12-06, here.
        let keytar = "npm info run keytar@7.9.0 install node_modules/keytar prebuild-install || npm run build\ngyp info spawn args ]\nPackage libsecret-1 was not found in the pkg-config search path.\nPackage 'libsecret-1', required by 'virtual:world', not found\ngyp ERR! configure error\ngyp ERR! not ok\nnpm info run keytar@7.9.0 install { code: 1, signal: null }";
        let f = script_failure(Installer::Npm, keytar).expect("keytar");
        assert_eq!(
            (f.script.as_str(), f.cause, f.detail()),
            (
                "keytar@7.9.0 install",
                ScriptCause::NativeLibrary,
                "native-library"
            )
        );
        assert_eq!(
            f.line,
            "Package libsecret-1 was not found in the pkg-config search path."
        );
        let puppeteer = "npm info run sharp@0.34.5 install { code: 0, signal: null }\nnpm info run puppeteer@24.43.1 postinstall node_modules/puppeteer node install.mjs\nError: ERROR: Failed to set up chrome-headless-shell v148.0.7778.97!\n  - DefaultProvider: getaddrinfo ENOTFOUND storage.googleapis.com\nnpm info run puppeteer@24.43.1 postinstall { code: 1, signal: null }";
        let f = script_failure(Installer::Npm, puppeteer).expect("puppeteer");
        assert_eq!(
            (f.script.as_str(), f.cause),
            ("puppeteer@24.43.1 postinstall", ScriptCause::Upstream)
        );
        assert!(
            f.line.contains("ENOTFOUND storage.googleapis.com"),
            "{}",
            f.line
        );
        let own = "npm info run x@1.0.0 postinstall node check.js\nError: unsupported platform\nnpm info run x@1.0.0 postinstall { code: 1, signal: null }";
        let f = script_failure(Installer::Npm, own).expect("own");
        assert_eq!(
            (f.cause, f.line.as_str()),
            (ScriptCause::Other, "Error: unsupported platform")
        );
        // A script that succeeded is no failure.
        assert_eq!(
            script_failure(
                Installer::Npm,
                "npm info run a@1 install { code: 0, signal: null }"
            ),
            None
        );
        // node-gyp could not download Node's headers (a fresh HOME, no network).
        let headers = "npm info run keytar@7.9.0 install node_modules/keytar prebuild-install || npm run build\ngyp http GET https://nodejs.org/download/release/v20.20.2/node-v20.20.2-headers.tar.gz\ngyp ERR! configure error\ngyp ERR! stack Error: This is most likely not a problem with node-gyp or the package itself and\ngyp ERR! stack is related to network connectivity. In most cases you are behind a proxy or have bad\nnpm info run keytar@7.9.0 install { code: 1, signal: null }";
        let f = script_failure(Installer::Npm, headers).expect("headers");
        assert_eq!(f.cause, ScriptCause::Upstream);
        assert!(
            f.line.contains("related to network connectivity"),
            "{}",
            f.line
        );
        // A native build that failed and says nothing more is still the host's.
        let bare = "npm info run n@1.0.0 install node-gyp rebuild\ngyp ERR! build error\nnpm info run n@1.0.0 install { code: 1, signal: null }";
        assert_eq!(
            script_failure(Installer::Npm, bare).map(|f| f.cause),
            Some(ScriptCause::NativeLibrary)
        );
        // uv's failed build of a native package.
        let manim = "  × Failed to build `manimpango==0.6.1`\n  ╰─▶ Call to `setuptools.build_meta.build_wheel` failed (exit status: 1)\n      [stderr]\n      Package pangocairo was not found in the pkg-config search path.";
        let f = script_failure(Installer::Uv, manim).expect("manimpango");
        assert_eq!(
            (f.script.as_str(), f.cause),
            ("manimpango==0.6.1", ScriptCause::NativeLibrary)
        );
    }

    #[test]
    fn a_missing_dependency_is_told_from_a_missing_package() {
        // uv 0.13.9 on a local package location (tests/fixtures/registry/pypi_wheels.py), as
        // for postgres-mcp 0.3.0, which pins pglast==7.2.0.
        let dep = "  cause: Because there is no version of mcpcheck-fixture-absent-dep==7.2.0 and all versions of mcpcheck-fixture-needs-absent depend on mcpcheck-fixture-absent-dep==7.2.0, we can conclude that all versions of mcpcheck-fixture-needs-absent cannot be used.";
        let f = fault_in(
            Installer::Uv,
            dep,
            true,
            Some("mcpcheck_fixture_needs_absent"),
        )
        .expect("fault");
        assert_eq!(
            (f.code, f.detail),
            (Code::InstallPackageMissing, "dependency")
        );
        assert_eq!(
            f.missing.as_deref(),
            Some("mcpcheck-fixture-absent-dep==7.2.0")
        );
        let own = "  cause: Because there is no version of mcp-server-time==99.0 and you require mcp-server-time==99.0, we can conclude that your requirements are unsatisfiable.";
        let f = fault_in(Installer::Uv, own, true, Some("MCP_server.time")).expect("fault");
        assert_eq!((f.detail, f.missing), ("version", None));
        let absent = "  cause: Because dep-x was not found in the package registry and pkg==1 depends on dep-x, we can conclude that pkg==1 cannot be used.";
        let f = fault_in(Installer::Uv, absent, true, Some("pkg")).expect("fault");
        assert_eq!(
            (f.detail, f.missing.as_deref()),
            ("dependency", Some("dep-x"))
        );
        let npm = "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/left-padx - Not found\nnpm error 404  'left-padx@^1.0.0' is not in this registry.";
        let f = fault_in(Installer::Npm, npm, true, Some("@s/server")).expect("fault");
        assert_eq!(
            (f.detail, f.missing.as_deref()),
            ("dependency", Some("left-padx@^1.0.0"))
        );
        let npm_own = "npm error 404  '@s/server@1.0.0' is not in this registry.";
        let f = fault_in(Installer::Npm, npm_own, true, Some("@s/server")).expect("fault");
        assert_eq!((f.detail, f.missing), ("package", None));
        let notarget = "npm error notarget No matching version found for @s/dep@^9.0.0.";
        let f = fault_in(Installer::Npm, notarget, true, Some("@s/server")).expect("fault");
        assert_eq!(f.missing.as_deref(), Some("@s/dep@^9.0.0"));
    }

    #[test]
    fn each_installer_s_own_words_name_the_fault() {
        // What npx 11 and uvx 0.13.9 printed for real packages (2026-12-05).
        let npm404 = "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/@x%2fnothing - Not found\nnpm error 404  '@x/nothing@*' is not in this registry.\nnpm error A complete log of this run can be found in: /x.log";
        let f = fault_in(Installer::Npm, npm404, true, None).expect("404");
        assert_eq!((f.code, f.detail), (Code::InstallPackageMissing, "package"));
        assert!(f.line.starts_with("npm error 404 Not Found"), "{}", f.line);
        let notarget = "npm error code ETARGET\nnpm error notarget No matching version found for @modelcontextprotocol/server-memory@99.0.0.";
        assert_eq!(
            found(Installer::Npm, notarget, true),
            Some((Code::InstallPackageMissing, "version"))
        );
        assert_eq!(
            found(
                Installer::Npm,
                "npm error could not determine executable to run",
                true
            ),
            Some((Code::InstallNoExecutable, "executable"))
        );
        let uv_missing = "error: No solution found when resolving tool dependencies\n  cause: Because x-no-such was not found in the package registry and you require x-no-such, we can conclude that your requirements are unsatisfiable.";
        assert_eq!(
            found(Installer::Uv, uv_missing, true),
            Some((Code::InstallPackageMissing, "package"))
        );
        let uv_version = "  cause: Because there is no version of mcp-server-time==99.0 and you require mcp-server-time==99.0, we can conclude that your requirements are unsatisfiable.";
        assert_eq!(
            found(Installer::Uv, uv_version, true),
            Some((Code::InstallPackageMissing, "version"))
        );
        let uv_python = "  cause: Because the current Python version (3.11.7) does not satisfy Python>=3.12 and all versions of mcp-server-docker depend on Python>=3.12, we can conclude that all versions of mcp-server-docker cannot be used.";
        assert_eq!(
            found(Installer::Uv, uv_python, true),
            Some((Code::InstallRuntimeTooOld, "python"))
        );
        assert_eq!(
            found(
                Installer::Uv,
                "Package `six` does not provide any executables.",
                true
            ),
            Some((Code::InstallNoExecutable, "executable"))
        );
    }

    #[test]
    fn a_warning_explains_only_a_failed_install() {
        // npx prints EBADENGINE for a dependency and still runs the server (task-master-ai).
        let warn = "npm warn EBADENGINE Unsupported engine {\nnpm warn EBADENGINE   required: { node: '>=22' },";
        assert_eq!(found(Installer::Npm, warn, true), None);
        assert_eq!(
            found(Installer::Npm, warn, false),
            Some((Code::InstallRuntimeTooOld, "engine"))
        );
        // A server's own crash is not the installer's.
        let crash = "AttributeError: 'Server' object has no attribute 'list_resources'\nTypeError: x is not a function";
        assert_eq!(found(Installer::Uv, crash, true), None);
        assert_eq!(found(Installer::Npm, crash, false), None);
    }
}
