//! The options of each launcher that take a value, so that value is never read as the
//! package, and the options that name the package.

use super::Launcher;

/// Global options of a package manager (`pnpm --dir x dlx …`, `docker --context x run …`)
/// that take a value, before its subcommand.
pub(super) const MANAGER_VALUED: &[&str] = &[
    "package",
    "dir",
    "filter",
    "cwd",
    "prefix",
    "context",
    "host",
    "config",
    "log-level",
];

/// The option (`-p`, `--from=x`) names the package the launcher fetches.
pub(super) fn names_package(launcher: Launcher, option: &str) -> bool {
    let name = option.split('=').next().unwrap_or(option);
    match launcher {
        Launcher::Uvx => name == "--from",
        Launcher::PipxRun => name == "--spec",
        Launcher::DockerRun | Launcher::Direct => false,
        Launcher::Npx
        | Launcher::Bunx
        | Launcher::PnpmDlx
        | Launcher::YarnDlx
        | Launcher::NpmExec => matches!(name, "-p" | "--package"),
    }
}

/// The option (`--python`, `-e=X`) takes a value of its own.
pub(super) fn takes_value(launcher: Launcher, option: &str) -> bool {
    let o = option.split('=').next().unwrap_or(option);
    match launcher {
        Launcher::Npx
        | Launcher::Bunx
        | Launcher::PnpmDlx
        | Launcher::YarnDlx
        | Launcher::NpmExec => {
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
        Launcher::Uvx => matches!(
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
        Launcher::PipxRun => matches!(
            o,
            "--spec" | "--python" | "--pip-args" | "--index-url" | "-i" | "--backend" | "--path"
        ),
        Launcher::DockerRun => matches!(
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
        Launcher::Direct => false,
    }
}
