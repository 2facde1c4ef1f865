//! How a client starts a stdio server, read from its command line: the launcher (npx, bunx,
//! pnpm dlx, yarn dlx, npm exec, uvx, pipx run, docker run, or the program itself), the
//! package it fetches, the executable the words name and where the server's own arguments
//! begin. Guard, scan and sweep read command lines only through here, so they read them
//! alike; `tests/it/launch_commands.rs` holds one table of command lines that each of them reads.

mod options;
mod package;

pub use package::{Ecosystem, Package, Pin};

/// What starts the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launcher {
    Npx,
    Bunx,
    PnpmDlx,
    YarnDlx,
    NpmExec,
    Uvx,
    PipxRun,
    DockerRun,
    /// The program is the server (`node server.js`, `python -m x`, a binary): nothing is
    /// fetched.
    Direct,
}

impl Launcher {
    /// As a message names it: `npx`, `pnpm dlx`, `docker run`, `direct`.
    pub fn as_str(self) -> &'static str {
        match self {
            Launcher::Npx => "npx",
            Launcher::Bunx => "bunx",
            Launcher::PnpmDlx => "pnpm dlx",
            Launcher::YarnDlx => "yarn dlx",
            Launcher::NpmExec => "npm exec",
            Launcher::Uvx => "uvx",
            Launcher::PipxRun => "pipx run",
            Launcher::DockerRun => "docker run",
            Launcher::Direct => "direct",
        }
    }

    /// Where its packages come from; `None` for a direct command.
    pub fn ecosystem(self) -> Option<Ecosystem> {
        match self {
            Launcher::Npx
            | Launcher::Bunx
            | Launcher::PnpmDlx
            | Launcher::YarnDlx
            | Launcher::NpmExec => Some(Ecosystem::Npm),
            Launcher::Uvx | Launcher::PipxRun => Some(Ecosystem::PyPI),
            Launcher::DockerRun => Some(Ecosystem::Docker),
            Launcher::Direct => None,
        }
    }
}

/// A command line as a client's launcher reads it. Positions index the words given to
/// [`parse`].
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub launcher: Launcher,
    /// The program (after `VAR=value`, `exec`, and `env` with its options).
    pub program: usize,
    /// The first word after the launcher's own (`npx`, `pipx run`, `docker container run`),
    /// where its options begin.
    pub options_from: usize,
    /// The package it fetches: `None` for a direct command, and for a launcher given none.
    pub fetches: Option<PackageArg>,
    /// The executable the words name: a direct command's program, or the command after
    /// `npx -p PKG`, `uvx --from PKG`, `pipx run --spec PKG`. `None` when the launcher runs
    /// the package's own (npx's bin, uvx's script, the image's entrypoint).
    pub executable: Option<usize>,
    /// The first word the server gets as an argument of its own.
    pub args_from: usize,
}

/// Where a command names its package, and the package read from it.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageArg {
    /// The word holding the spec (the option itself for `--package=SPEC`).
    pub word: usize,
    /// Named by an option: `-p`/`--package`, uvx's `--from`, pipx's `--spec`.
    pub via_option: bool,
    pub package: Package,
}

/// Program name without directory and Windows extension, lowercase: `C:\x\npx.cmd` → `npx`.
pub fn program_name(program: &str) -> String {
    let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
    let lower = base.to_ascii_lowercase();
    for ext in [".exe", ".cmd", ".bat", ".ps1", ".com"] {
        if let Some(stem) = lower.strip_suffix(ext) {
            return stem.to_string();
        }
    }
    lower
}

/// The programs that start a launcher, with or without a subcommand (`pnpm dlx`, `uv tool run`).
pub const LAUNCHER_PROGRAMS: &[&str] = &[
    "npx", "pnpx", "bunx", "bun", "pnpm", "yarn", "npm", "uvx", "uv", "pipx", "docker", "podman",
    "nerdctl",
];

fn is_assignment(word: &str) -> bool {
    word.contains('=') && !word.starts_with('-')
}

/// The position of the program: past `VAR=value` assignments, `exec`, and `env` with its
/// options (`-i`, `-u NAME`, `-C DIR`), none of which changes what runs. `None` when no word
/// is left.
pub fn program_index<S: AsRef<str>>(words: &[S]) -> Option<usize> {
    let mut i = 0;
    let mut after_env = false;
    while let Some(word) = words.get(i).map(AsRef::as_ref) {
        let name = program_name(word);
        if is_assignment(word) || name == "exec" {
            i += 1;
        } else if name == "env" {
            after_env = true;
            i += 1;
        } else if after_env && matches!(word, "-u" | "--unset" | "-C" | "--chdir") {
            i += 2;
        } else if after_env && word.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    (i < words.len()).then_some(i)
}

/// How a client's launcher reads `words` (a program and its arguments); `None` when no
/// program is left.
pub fn parse<S: AsRef<str>>(words: &[S]) -> Option<Launch> {
    let program = program_index(words)?;
    let (launcher, options_from) = launcher_at(words, program);
    let Some(ecosystem) = launcher.ecosystem() else {
        return Some(Launch {
            launcher,
            program,
            options_from,
            fetches: None,
            executable: Some(program),
            args_from: options_from,
        });
    };
    Some(read_package(
        launcher,
        ecosystem,
        words,
        program,
        options_from,
    ))
}

/// [`parse`] of a program and its arguments.
pub fn parse_command(program: &str, args: &[String]) -> Option<Launch> {
    let words: Vec<&str> = std::iter::once(program)
        .chain(args.iter().map(String::as_str))
        .collect();
    parse(&words)
}

/// A package manager's subcommand after its global options, and its position.
fn subcommand<S: AsRef<str>>(words: &[S], from: usize) -> Option<(&str, usize)> {
    let mut j = from;
    while let Some(t) = words.get(j).map(AsRef::as_ref) {
        if let Some(opt) = t.strip_prefix("--") {
            j += 1;
            if !opt.contains('=') && options::MANAGER_VALUED.contains(&opt) {
                j += 1;
            }
        } else if t.starts_with('-') {
            j += 1;
        } else {
            return Some((t, j));
        }
    }
    None
}

/// The launcher the program at `program` starts, and where its options begin.
fn launcher_at<S: AsRef<str>>(words: &[S], program: usize) -> (Launcher, usize) {
    let next = |j: usize| words.get(j).map(AsRef::as_ref);
    let after = program + 1;
    let sub = subcommand(words, after);
    let name = program_name(words[program].as_ref());
    let found = match (name.as_str(), sub) {
        ("npx", _) => Some((Launcher::Npx, after)),
        // pnpm's own `pnpm dlx`.
        ("pnpx", _) => Some((Launcher::PnpmDlx, after)),
        ("bunx", _) => Some((Launcher::Bunx, after)),
        ("uvx", _) => Some((Launcher::Uvx, after)),
        ("bun", Some(("x", j))) => Some((Launcher::Bunx, j + 1)),
        ("pnpm", Some(("dlx", j))) => Some((Launcher::PnpmDlx, j + 1)),
        ("yarn", Some(("dlx", j))) => Some((Launcher::YarnDlx, j + 1)),
        ("npm", Some(("exec" | "x", j))) => Some((Launcher::NpmExec, j + 1)),
        ("uv", Some(("tool", j))) if next(j + 1) == Some("run") => Some((Launcher::Uvx, j + 2)),
        ("pipx", Some(("run", j))) => Some((Launcher::PipxRun, j + 1)),
        ("docker" | "podman" | "nerdctl", Some(("run", j))) => Some((Launcher::DockerRun, j + 1)),
        ("docker" | "podman" | "nerdctl", Some(("container", j))) if next(j + 1) == Some("run") => {
            Some((Launcher::DockerRun, j + 2))
        }
        _ => None,
    };
    found.unwrap_or((Launcher::Direct, after))
}

/// The package a launcher is given, by option or as its first operand, and what follows it.
fn read_package<S: AsRef<str>>(
    launcher: Launcher,
    ecosystem: Ecosystem,
    words: &[S],
    program: usize,
    options_from: usize,
) -> Launch {
    let mut by_option: Option<(usize, &str)> = None;
    let mut operand: Option<usize> = None;
    let mut i = options_from;
    while operand.is_none() {
        let Some(t) = words.get(i).map(AsRef::as_ref) else {
            break;
        };
        if t.starts_with('-') && t.len() > 1 && t != "--" {
            if options::takes_value(launcher, t) {
                let value = match t.split_once('=') {
                    Some((_, inline)) => Some((i, inline)),
                    None => {
                        i += 1;
                        words.get(i).map(|v| (i, v.as_ref()))
                    }
                };
                if options::names_package(launcher, t) && by_option.is_none() {
                    by_option = value;
                }
            }
        } else if t != "--" {
            operand = Some(i);
        }
        i += 1;
    }
    let arg = |word: usize, spec: &str, via_option: bool| PackageArg {
        word,
        via_option,
        package: Package::read(ecosystem, spec),
    };
    let (fetches, executable) = match (by_option, operand) {
        (Some((word, spec)), operand) => (Some(arg(word, spec, true)), operand),
        (None, Some(word)) => (Some(arg(word, words[word].as_ref(), false)), None),
        (None, None) => (None, None),
    };
    Launch {
        launcher,
        program,
        options_from,
        fetches,
        executable,
        args_from: i.min(words.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_is_named_without_its_directory_or_windows_extension() {
        assert_eq!(program_name("C:\\Program Files\\nodejs\\npx.cmd"), "npx");
        assert_eq!(program_name("/usr/local/bin/UVX.EXE"), "uvx");
        assert_eq!(program_name("python3.12"), "python3.12");
    }

    #[test]
    fn env_assignments_and_exec_do_not_change_what_runs() {
        assert_eq!(
            program_index(&["env", "-u", "X", "-i", "A=1", "npx"]),
            Some(5)
        );
        assert_eq!(program_index(&["exec", "FOO=1", "uvx"]), Some(2));
        assert_eq!(program_index(&["env", "-C", "/srv", "node"]), Some(3));
        assert_eq!(program_index(&["env", "A=1"]), None);
        assert_eq!(program_index::<&str>(&[]), None);
    }
}
