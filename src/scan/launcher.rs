//! How a stdio server is launched: through a shell, and through a package runner
//! (npx, bunx, pnpm dlx, yarn dlx, npm exec, uvx, pipx run, docker run) with which package.

use super::config_file::{ServerEntry, Str};

/// One word of the launch command, and the config value it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Word<'a> {
    pub text: String,
    pub src: &'a Str,
    /// The word was split out of a shell command string.
    pub from_script: bool,
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

pub const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "ash",
    "cmd",
    "powershell",
    "pwsh",
];

/// A shell started with a command string: `sh -c "…"`, `cmd /c …`, `pwsh -Command …`.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellWrapper<'a> {
    pub shell: String,
    /// The flag that takes the command (`-c`, `/c`, `-Command`).
    pub flag: &'a Str,
    /// The argument values that form the command string.
    pub script: Vec<&'a Str>,
}

/// Whether an argument is the command-string flag of this shell.
fn is_command_flag(shell: &str, arg: &str) -> bool {
    match shell {
        "cmd" => matches!(arg.to_ascii_lowercase().as_str(), "/c" | "/k" | "/r"),
        "powershell" | "pwsh" => {
            let a = arg.to_ascii_lowercase();
            let a = a.trim_start_matches(['-', '/']);
            !a.is_empty()
                && ("command".starts_with(a)
                    || a == "encodedcommand"
                    || a == "enc"
                    || a == "e"
                    || a == "ec")
        }
        // -c, and clusters that include it: -lc, -ic, -ec, -xc, -lic.
        _ => {
            arg.len() >= 2
                && arg.starts_with('-')
                && !arg.starts_with("--")
                && arg[1..].chars().all(|c| c.is_ascii_alphabetic())
                && arg.contains('c')
        }
    }
}

/// The shell wrapper of an entry, if its command is a shell given a command string.
pub fn shell_wrapper(entry: &ServerEntry) -> Option<ShellWrapper<'_>> {
    let command = entry.command.as_ref()?;
    let shell = program_name(&command.value);
    if !SHELLS.contains(&shell.as_str()) {
        return None;
    }
    let i = entry
        .args
        .iter()
        .position(|a| is_command_flag(&shell, &a.value))?;
    // sh-like shells take one string (later arguments are $0, $1…); cmd and PowerShell take the rest.
    let rest = &entry.args[i + 1..];
    let script: Vec<&Str> = if matches!(shell.as_str(), "cmd" | "powershell" | "pwsh") {
        rest.iter().collect()
    } else {
        rest.iter().take(1).collect()
    };
    Some(ShellWrapper {
        shell,
        flag: &entry.args[i],
        script,
    })
}

/// Splits a shell command string into words, honouring simple quoting.
/// Operators (`&&`, `||`, `;`, `|`, `&`) become words of their own.
pub fn shell_words(script: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut chars = script.chars().peekable();
    let flush = |cur: &mut String, words: &mut Vec<String>| {
        if !cur.is_empty() {
            words.push(std::mem::take(cur));
        }
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => quote = Some(c),
            (None, c) if c.is_whitespace() => flush(&mut cur, &mut words),
            (None, '&' | '|' | ';') => {
                flush(&mut cur, &mut words);
                let mut op = c.to_string();
                if chars.peek() == Some(&c) {
                    chars.next();
                    op.push(c);
                }
                words.push(op);
            }
            (None, c) => cur.push(c),
        }
    }
    flush(&mut cur, &mut words);
    words
}

/// The command segments of a launch: the direct command, or the commands inside a shell
/// wrapper's string (split at operators), or what follows `cmd /c`.
pub fn segments(entry: &ServerEntry) -> Vec<Vec<Word<'_>>> {
    let Some(command) = entry.command.as_ref() else {
        return Vec::new();
    };
    if let Some(wrapper) = shell_wrapper(entry) {
        let mut segs = vec![Vec::new()];
        for src in &wrapper.script {
            for w in shell_words(&src.value) {
                if matches!(w.as_str(), "&&" | "||" | ";" | "|" | "&") {
                    segs.push(Vec::new());
                } else if let Some(seg) = segs.last_mut() {
                    seg.push(Word {
                        text: w,
                        src,
                        from_script: true,
                    });
                }
            }
        }
        segs.retain(|s| !s.is_empty());
        return segs;
    }
    let mut seg = vec![Word {
        text: command.value.clone(),
        src: command,
        from_script: false,
    }];
    seg.extend(entry.args.iter().map(|a| Word {
        text: a.value.clone(),
        src: a,
        from_script: false,
    }));
    vec![seg]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    Npx,
    Bunx,
    PnpmDlx,
    YarnDlx,
    NpmExec,
    Uvx,
    PipxRun,
    DockerRun,
}

impl Runner {
    pub fn as_str(self) -> &'static str {
        match self {
            Runner::Npx => "npx",
            Runner::Bunx => "bunx",
            Runner::PnpmDlx => "pnpm dlx",
            Runner::YarnDlx => "yarn dlx",
            Runner::NpmExec => "npm exec",
            Runner::Uvx => "uvx",
            Runner::PipxRun => "pipx run",
            Runner::DockerRun => "docker run",
        }
    }

    /// Which registry its packages come from.
    pub fn ecosystem(self) -> Ecosystem {
        match self {
            Runner::Uvx | Runner::PipxRun => Ecosystem::PyPI,
            Runner::DockerRun => Ecosystem::Docker,
            _ => Ecosystem::Npm,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ecosystem {
    Npm,
    PyPI,
    Docker,
}

/// A package a runner fetches.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageRef<'a> {
    pub runner: Runner,
    /// The word holding the spec.
    pub word: Word<'a>,
    /// The spec as written: `@scope/name@1.2.3`, `name==1.0`, `image:tag`.
    pub spec: String,
    pub name: String,
    /// The version or tag as written, if any.
    pub version: Option<String>,
    pub pin: Pin,
    /// The command uvx/pipx runs when `--from`/`--spec` names the package.
    pub command_word: Option<String>,
    /// The spec came from `--from` (uvx) or `--spec` (pipx).
    pub via_option: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pin {
    /// An exact version or a digest.
    Exact,
    /// No version, a tag or a range; the reason says which.
    Unpinned(String),
    /// Not from a registry (a local path, a URL, a git commit).
    NotRegistry,
}

/// Options of each runner that take a value (so the value is not the package).
fn takes_value(runner: Runner, opt: &str) -> bool {
    let o = opt.split('=').next().unwrap_or(opt);
    match runner {
        Runner::Npx | Runner::Bunx | Runner::PnpmDlx | Runner::YarnDlx | Runner::NpmExec => {
            matches!(
                o,
                "-p" | "--package"
                    | "-c"
                    | "--call"
                    | "--cache"
                    | "--registry"
                    | "--userconfig"
                    | "-w"
                    | "--workspace"
            )
        }
        Runner::Uvx => matches!(
            o,
            "--from"
                | "--with"
                | "--with-editable"
                | "--with-requirements"
                | "-w"
                | "--python"
                | "-p"
                | "--index"
                | "--default-index"
                | "--index-url"
                | "-i"
                | "--extra-index-url"
                | "--find-links"
                | "-f"
                | "--cache-dir"
                | "--directory"
                | "--project"
                | "--config-file"
                | "--env-file"
                | "--constraints"
                | "-c"
                | "--overrides"
                | "--build-constraints"
                | "-b"
                | "--refresh-package"
                | "--reinstall-package"
                | "--upgrade-package"
                | "-P"
                | "--python-platform"
                | "--exclude-newer"
                | "--index-strategy"
                | "--keyring-provider"
                | "--resolution"
                | "--prerelease"
                | "--link-mode"
                | "--color"
                | "--allow-insecure-host"
        ),
        Runner::PipxRun => matches!(
            o,
            "--spec" | "--python" | "--pip-args" | "--index-url" | "-i" | "--backend" | "--path"
        ),
        Runner::DockerRun => matches!(
            o,
            "-e" | "--env"
                | "--env-file"
                | "-v"
                | "--volume"
                | "--mount"
                | "--name"
                | "-p"
                | "--publish"
                | "--network"
                | "--net"
                | "-w"
                | "--workdir"
                | "-u"
                | "--user"
                | "--entrypoint"
                | "-l"
                | "--label"
                | "--platform"
                | "--pull"
                | "-h"
                | "--hostname"
                | "--add-host"
                | "--cpus"
                | "-m"
                | "--memory"
                | "--cap-add"
                | "--cap-drop"
                | "--device"
                | "--restart"
                | "--log-driver"
                | "--log-opt"
                | "--security-opt"
                | "--ulimit"
                | "--tmpfs"
                | "--dns"
                | "--gpus"
                | "--runtime"
                | "--ipc"
                | "--pid"
                | "--shm-size"
                | "--stop-signal"
                | "--stop-timeout"
                | "--cidfile"
                | "--group-add"
                | "--expose"
                | "--label-file"
                | "--memory-swap"
                | "--network-alias"
                | "--ip"
                | "--ip6"
                | "--link"
                | "--userns"
                | "--uts"
                | "--volumes-from"
                | "--health-cmd"
                | "--cgroupns"
                | "--cpu-shares"
                | "-c"
                | "--cpuset-cpus"
                | "--isolation"
                | "--mac-address"
                | "--attach"
                | "-a"
        ),
    }
}

/// The runner a segment starts, and the index of the first word after it.
fn runner_of(seg: &[Word<'_>]) -> Option<(Runner, usize)> {
    let mut i = 0;
    // Leading VAR=value assignments and `env`/`exec` do not change what runs.
    while let Some(w) = seg.get(i) {
        let name = program_name(&w.text);
        if (w.text.contains('=') && !w.text.starts_with('-'))
            || matches!(name.as_str(), "env" | "exec")
        {
            i += 1;
        } else {
            break;
        }
    }
    let program = program_name(&seg.get(i)?.text);
    let next = |j: usize| seg.get(j).map(|w| w.text.as_str());
    // Skips a package manager's global options to find its subcommand.
    let sub = |from: usize| {
        let mut j = from;
        while let Some(t) = next(j) {
            if let Some(opt) = t.strip_prefix("--") {
                j += 1;
                if !opt.contains('=')
                    && matches!(opt, "package" | "dir" | "filter" | "cwd" | "prefix")
                {
                    j += 1;
                }
            } else if t.starts_with('-') {
                j += 1;
            } else {
                return Some((t, j));
            }
        }
        None
    };
    let found = match program.as_str() {
        "npx" | "pnpx" => (Runner::Npx, i + 1),
        "bunx" => (Runner::Bunx, i + 1),
        "uvx" => (Runner::Uvx, i + 1),
        "bun" => match sub(i + 1)? {
            ("x", j) => (Runner::Bunx, j + 1),
            _ => return None,
        },
        "pnpm" => match sub(i + 1)? {
            ("dlx", j) => (Runner::PnpmDlx, j + 1),
            _ => return None,
        },
        "yarn" => match sub(i + 1)? {
            ("dlx", j) => (Runner::YarnDlx, j + 1),
            _ => return None,
        },
        "npm" => match sub(i + 1)? {
            ("exec" | "x", j) => (Runner::NpmExec, j + 1),
            _ => return None,
        },
        "uv" => match sub(i + 1)? {
            ("tool", j) if next(j + 1) == Some("run") => (Runner::Uvx, j + 2),
            _ => return None,
        },
        "pipx" => match sub(i + 1)? {
            ("run", j) => (Runner::PipxRun, j + 1),
            _ => return None,
        },
        "docker" | "podman" | "nerdctl" => match sub(i + 1)? {
            ("run", j) => (Runner::DockerRun, j + 1),
            ("container", j) if next(j + 1) == Some("run") => (Runner::DockerRun, j + 2),
            _ => return None,
        },
        _ => return None,
    };
    Some(found)
}

/// The packages each segment of an entry's launch fetches.
pub fn packages(entry: &ServerEntry) -> Vec<PackageRef<'_>> {
    let mut out = Vec::new();
    for seg in segments(entry) {
        if let Some((runner, start)) = runner_of(&seg) {
            if let Some(p) = package_of(runner, &seg[start.min(seg.len())..]) {
                out.push(p);
            }
        }
    }
    out
}

fn package_of<'a>(runner: Runner, words: &[Word<'a>]) -> Option<PackageRef<'a>> {
    let mut option_spec: Option<(Word<'a>, String)> = None;
    let mut positional: Option<Word<'a>> = None;
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        let t = w.text.as_str();
        if positional.is_some() {
            break;
        }
        if t == "--" {
            i += 1;
            continue;
        }
        if t.starts_with('-') && t.len() > 1 {
            let (name, inline) = match t.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (t, None),
            };
            let spec_option = match runner {
                Runner::Uvx => name == "--from",
                Runner::PipxRun => name == "--spec",
                Runner::DockerRun => false,
                _ => matches!(name, "-p" | "--package"),
            };
            if takes_value(runner, t) {
                let value = match inline {
                    Some(v) => Some((w.clone(), v)),
                    None => {
                        i += 1;
                        words.get(i).map(|v| (v.clone(), v.text.clone()))
                    }
                };
                if spec_option && option_spec.is_none() {
                    option_spec = value;
                }
            }
            i += 1;
            continue;
        }
        positional = Some(w.clone());
        i += 1;
    }
    let (word, spec, via_option, command_word) = match (option_spec, positional) {
        (Some((w, s)), pos) => (w, s, true, pos.map(|p| p.text)),
        (None, Some(p)) => {
            let s = p.text.clone();
            (p, s, false, None)
        }
        (None, None) => return None,
    };
    let (name, version, pin) = match runner.ecosystem() {
        Ecosystem::Npm => npm_spec(&spec),
        Ecosystem::PyPI => pypi_spec(&spec),
        Ecosystem::Docker => docker_spec(&spec),
    };
    Some(PackageRef {
        runner,
        word,
        spec,
        name,
        version,
        pin,
        command_word,
        via_option,
    })
}

fn is_exact_semver(v: &str) -> bool {
    let v = v.strip_prefix('=').unwrap_or(v);
    let v = v.strip_prefix('v').unwrap_or(v);
    let core = v.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

fn is_local_path(spec: &str) -> bool {
    spec.starts_with(['.', '/', '~'])
        || spec.starts_with("file:")
        || spec.contains('\\')
        || (spec.len() > 2
            && spec.as_bytes()[1] == b':'
            && spec.as_bytes()[0].is_ascii_alphabetic())
}

fn is_commit(s: &str) -> bool {
    s.len() == 40 && s.chars().all(|c| c.is_ascii_hexdigit())
}

/// `name`, `name@1.2.3`, `@scope/name@^1`, `github:o/r#sha`.
fn npm_spec(spec: &str) -> (String, Option<String>, Pin) {
    if is_local_path(spec) {
        return (spec.to_string(), None, Pin::NotRegistry);
    }
    if spec.contains("://")
        || spec.starts_with("github:")
        || spec.starts_with("git+")
        || spec.starts_with("git@")
    {
        return match spec.rsplit_once('#') {
            Some((_, c)) if is_commit(c) => (spec.to_string(), Some(c.to_string()), Pin::Exact),
            _ if spec.ends_with(".tgz") => (spec.to_string(), None, Pin::NotRegistry),
            _ => (
                spec.to_string(),
                None,
                Pin::Unpinned("a git reference without a commit hash".into()),
            ),
        };
    }
    let (scope, rest) = match spec.strip_prefix('@') {
        Some(r) => ("@", r),
        None => ("", spec),
    };
    let (name, version) = match rest.split_once('@') {
        Some((n, v)) => (format!("{scope}{n}"), Some(v.to_string())),
        None => (spec.to_string(), None),
    };
    let pin = match version.as_deref() {
        None | Some("") => Pin::Unpinned("no version, so the newest release runs".into()),
        Some(v) if is_exact_semver(v) => Pin::Exact,
        Some(v)
            if v.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && !v.starts_with('v') =>
        {
            Pin::Unpinned(format!("the tag {v:?} moves with each release"))
        }
        Some(v) => Pin::Unpinned(format!("{v:?} is a range, not an exact version")),
    };
    (name, version, pin)
}

/// `name`, `name==1.2.0`, `name@1.2.0`, `name>=1`, `git+https://…@sha`.
fn pypi_spec(spec: &str) -> (String, Option<String>, Pin) {
    let spec = spec.trim();
    if is_local_path(spec) {
        return (spec.to_string(), None, Pin::NotRegistry);
    }
    if spec.contains("://") || spec.starts_with("git+") {
        return match spec.rsplit_once('@') {
            Some((_, c)) if is_commit(c) => (spec.to_string(), Some(c.to_string()), Pin::Exact),
            _ => (
                spec.to_string(),
                None,
                Pin::Unpinned("a git reference without a commit hash".into()),
            ),
        };
    }
    let name_end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(spec.len());
    let name = spec[..name_end].to_string();
    let rest = spec[name_end..].trim();
    // Extras ([cli]) do not change the version.
    let rest = match rest.strip_prefix('[') {
        Some(r) => r.split_once(']').map_or("", |(_, after)| after).trim(),
        None => rest,
    };
    let exact = |v: &str| !v.is_empty() && !v.contains([',', '*', ' ', '<', '>', '~', '!', ';']);
    let (version, pin) = if rest.is_empty() {
        (
            None,
            Pin::Unpinned("no version, so the newest release runs".into()),
        )
    } else if let Some(v) = rest.strip_prefix("===").or_else(|| rest.strip_prefix("==")) {
        let v = v.trim();
        let pin = if exact(v) {
            Pin::Exact
        } else {
            Pin::Unpinned(format!("{rest:?} is not one exact version"))
        };
        (Some(v.to_string()), pin)
    } else if let Some(v) = rest.strip_prefix('@') {
        let v = v.trim();
        let pin = if v == "latest" {
            Pin::Unpinned("@latest runs the newest release".into())
        } else if exact(v) && v.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            Pin::Exact
        } else {
            Pin::Unpinned(format!("{v:?} is not an exact version"))
        };
        (Some(v.to_string()), pin)
    } else {
        (
            Some(rest.to_string()),
            Pin::Unpinned(format!("{rest:?} is a range, not an exact version")),
        )
    };
    (name, version, pin)
}

/// `image`, `image:tag`, `image@sha256:…`.
fn docker_spec(spec: &str) -> (String, Option<String>, Pin) {
    if let Some((name, digest)) = spec.split_once('@') {
        let ok = digest
            .strip_prefix("sha256:")
            .is_some_and(|h| h.len() == 64 && h.chars().all(|c| c.is_ascii_hexdigit()));
        let pin = if ok {
            Pin::Exact
        } else {
            Pin::Unpinned(format!("{digest:?} is not a sha256 digest"))
        };
        return (name.to_string(), Some(digest.to_string()), pin);
    }
    // A colon after the last slash separates the tag (a registry may have host:port/).
    let last = spec.rsplit('/').next().unwrap_or(spec);
    match last.rsplit_once(':') {
        Some((_, tag)) => {
            let name = spec[..spec.len() - tag.len() - 1].to_string();
            let why = if tag == "latest" {
                "the tag \"latest\" moves with each release".to_string()
            } else {
                format!("the tag {tag:?} can be re-pushed; only a digest is immutable")
            };
            (name, Some(tag.to_string()), Pin::Unpinned(why))
        }
        None => (
            spec.to_string(),
            None,
            Pin::Unpinned("no tag or digest, so :latest runs".into()),
        ),
    }
}

/// The command to suggest, valid for that runner.
pub fn pinned_example(p: &PackageRef<'_>) -> String {
    let n = &p.name;
    let cmd = p.command_word.as_deref().unwrap_or(n);
    match p.runner {
        Runner::Npx if p.via_option => format!("npx -y --package={n}@1.2.3 {cmd}"),
        Runner::Npx => format!("npx -y {n}@1.2.3"),
        Runner::Bunx if p.via_option => format!("bunx --package {n}@1.2.3 {cmd}"),
        Runner::Bunx => format!("bunx {n}@1.2.3"),
        Runner::PnpmDlx if p.via_option => format!("pnpm --package={n}@1.2.3 dlx {cmd}"),
        Runner::PnpmDlx => format!("pnpm dlx {n}@1.2.3"),
        Runner::YarnDlx if p.via_option => format!("yarn dlx -p {n}@1.2.3 {cmd}"),
        Runner::YarnDlx => format!("yarn dlx {n}@1.2.3"),
        Runner::NpmExec if p.via_option => format!("npm exec --yes --package={n}@1.2.3 -- {cmd}"),
        Runner::NpmExec => format!("npm exec --yes -- {n}@1.2.3"),
        Runner::Uvx if p.via_option => format!("uvx --from '{n}==1.2.3' {cmd}"),
        Runner::Uvx => format!("uvx {n}@1.2.3"),
        Runner::PipxRun => format!("pipx run --spec '{n}==1.2.3' {cmd}"),
        Runner::DockerRun => format!("docker run … {n}@sha256:<digest>"),
    }
}

/// Where to look up the exact version to pin.
pub fn version_hint(p: &PackageRef<'_>) -> String {
    let n = &p.name;
    match p.runner.ecosystem() {
        Ecosystem::Npm => format!("`npm view {n} version` prints the current version"),
        Ecosystem::PyPI => format!("`pip index versions {n}` lists the versions"),
        Ecosystem::Docker => format!(
            "`docker buildx imagetools inspect {n}:{}` prints the digest",
            p.version.as_deref().unwrap_or("latest")
        ),
    }
}
