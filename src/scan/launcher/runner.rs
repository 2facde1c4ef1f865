//! Which package runner a launch uses (npx, bunx, pnpm dlx, yarn dlx, npm exec, uvx,
//! pipx run, docker run) and which package it fetches.

use super::spec::{docker_spec, npm_spec, pypi_spec};
use super::{program_name, segments, Word};
use crate::scan::config_file::ServerEntry;

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
                    && matches!(
                        opt,
                        "package"
                            | "dir"
                            | "filter"
                            | "cwd"
                            | "prefix"
                            | "context"
                            | "host"
                            | "config"
                            | "log-level"
                    )
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
