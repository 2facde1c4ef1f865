//! The packages an entry's launch fetches, each at the config value that names it, and the
//! pinned form to suggest for each launcher.

use super::{segments, Word};
use crate::launch::{self, Ecosystem, Launcher, Package};
use crate::scan::config_file::ServerEntry;

/// A package a launcher fetches, and where the config names it.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageRef<'a> {
    pub launcher: Launcher,
    /// The word holding the spec.
    pub word: Word<'a>,
    pub package: Package,
    /// The command uvx, pipx or npx runs when `--from`, `--spec` or `--package` names the
    /// package.
    pub executable: Option<String>,
    /// The spec came from `--from` (uvx), `--spec` (pipx) or `-p`/`--package` (npm's).
    pub via_option: bool,
}

/// The packages each segment of an entry's launch fetches.
pub fn packages(entry: &ServerEntry) -> Vec<PackageRef<'_>> {
    let mut out = Vec::new();
    for seg in segments(entry) {
        let texts: Vec<&str> = seg.iter().map(|w| w.text.as_str()).collect();
        let Some(launch) = launch::parse(&texts) else {
            continue;
        };
        let Some(arg) = launch.fetches else {
            continue;
        };
        out.push(PackageRef {
            launcher: launch.launcher,
            word: seg[arg.word].clone(),
            package: arg.package,
            executable: launch.executable.map(|i| seg[i].text.clone()),
            via_option: arg.via_option,
        });
    }
    out
}

/// The command to suggest, valid for that launcher.
pub fn pinned_example(p: &PackageRef<'_>) -> String {
    let n = &p.package.name;
    let cmd = p.executable.as_deref().unwrap_or(n);
    match p.launcher {
        Launcher::Npx if p.via_option => format!("npx -y --package={n}@1.2.3 {cmd}"),
        Launcher::Npx => format!("npx -y {n}@1.2.3"),
        Launcher::Bunx if p.via_option => format!("bunx --package {n}@1.2.3 {cmd}"),
        Launcher::Bunx => format!("bunx {n}@1.2.3"),
        Launcher::PnpmDlx if p.via_option => format!("pnpm --package={n}@1.2.3 dlx {cmd}"),
        Launcher::PnpmDlx => format!("pnpm dlx {n}@1.2.3"),
        Launcher::YarnDlx if p.via_option => format!("yarn dlx -p {n}@1.2.3 {cmd}"),
        Launcher::YarnDlx => format!("yarn dlx {n}@1.2.3"),
        Launcher::NpmExec if p.via_option => {
            format!("npm exec --yes --package={n}@1.2.3 -- {cmd}")
        }
        Launcher::NpmExec => format!("npm exec --yes -- {n}@1.2.3"),
        Launcher::Uvx if p.via_option => format!("uvx --from '{n}==1.2.3' {cmd}"),
        Launcher::Uvx => format!("uvx {n}@1.2.3"),
        Launcher::PipxRun => format!("pipx run --spec '{n}==1.2.3' {cmd}"),
        Launcher::DockerRun => format!("docker run … {n}@sha256:<digest>"),
        // A direct command fetches no package.
        Launcher::Direct => cmd.to_string(),
    }
}

/// Where to look up the exact version to pin.
pub fn version_hint(p: &PackageRef<'_>) -> String {
    let n = &p.package.name;
    match p.package.ecosystem {
        Ecosystem::Npm => format!("`npm view {n} version` prints the current version"),
        Ecosystem::PyPI => format!("`pip index versions {n}` lists the versions"),
        Ecosystem::Docker => format!(
            "`docker buildx imagetools inspect {n}:{}` prints the digest",
            p.package.version.as_deref().unwrap_or("latest")
        ),
    }
}
