//! The program a complete install provides, found as npx and uvx find it.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// Why a complete install has no program to start, in the installer's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct NoExecutable(pub String);

/// The executable npx runs from the package installed under `dir` (its `node_modules`),
/// chosen as npx 11 chooses it (libnpmexec's `getBinFromManifest`): when every `bin` entry
/// points to the same file (one entry, or aliases of one), the first; else the entry named
/// as the package without its scope; else none ("could not determine executable to run").
/// A `bin` string is one entry named as the unscoped package.
pub(super) fn npm_bin(dir: &Path, identifier: &str) -> Result<PathBuf, NoExecutable> {
    let manifest = dir
        .join("node_modules")
        .join(identifier)
        .join("package.json");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| NoExecutable(format!("{identifier}: cannot read its package.json ({e})")))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| NoExecutable(format!("{identifier}: its package.json is not JSON ({e})")))?;
    let unscoped = identifier.rsplit('/').next().unwrap_or(identifier);
    let bins = declared_bins(&value, unscoped);
    if bins.is_empty() {
        return Err(NoExecutable(format!(
            "could not determine executable to run (npx): {identifier}: its package.json has no \"bin\""
        )));
    }
    let mut targets: Vec<&str> = bins.iter().map(|(_, file)| file.as_str()).collect();
    targets.sort_unstable();
    targets.dedup();
    let name = if targets.len() == 1 {
        bins[0].0.clone()
    } else if bins.iter().any(|(name, _)| name == unscoped) {
        unscoped.to_string()
    } else {
        let listed: Vec<String> = bins
            .iter()
            .take(10)
            .map(|(name, file)| format!("{name} ({file})"))
            .collect();
        return Err(NoExecutable(format!(
            "could not determine executable to run (npx): {identifier}'s executables are different files, none named {unscoped}: {}",
            listed.join(", ")
        )));
    };
    let program = dir.join("node_modules").join(".bin").join(&name);
    if program.exists() {
        Ok(program)
    } else {
        Err(NoExecutable(format!(
            "{identifier}: the executable {name} was not installed"
        )))
    }
}

/// The package's `bin` entries in order, as npm normalizes them (npm-normalize-package-bin):
/// a string is one entry named as the unscoped package; names are base names; files are
/// paths made relative (`./bin/x.js` and `bin/x.js` are one file); empty ones are dropped.
fn declared_bins(manifest: &Value, unscoped: &str) -> Vec<(String, String)> {
    let raw: Vec<(String, String)> = match manifest.get("bin") {
        Some(Value::String(file)) => vec![(unscoped.to_string(), file.clone())],
        Some(Value::Object(bins)) => bins
            .iter()
            .filter_map(|(name, file)| Some((name.clone(), file.as_str()?.to_string())))
            .collect(),
        _ => Vec::new(),
    };
    raw.into_iter()
        .filter_map(|(name, file)| {
            let name = name
                .rsplit(['/', '\\'])
                .next()
                .unwrap_or_default()
                .to_string();
            let file = normal_path(&file);
            (!name.is_empty() && !file.is_empty()).then_some((name, file))
        })
        .collect()
}

/// `file` as `path.join('/', file).slice(1)` makes it: `.` and empty parts gone, `..` taken
/// back, never above the package.
fn normal_path(file: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in file.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}
/// As uvx chooses: the script named as the package.
pub(super) fn pypi_script(dir: &Path, identifier: &str) -> Result<PathBuf, NoExecutable> {
    let bin = dir.join("venv").join("bin");
    let program = bin.join(identifier);
    if program.is_file() {
        return Ok(program);
    }
    let mut scripts: Vec<String> = std::fs::read_dir(&bin)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| !is_venv_own(n))
        .collect();
    scripts.sort();
    scripts.truncate(10);
    Err(NoExecutable(if scripts.is_empty() {
        format!("{identifier} provides no executable")
    } else {
        format!(
            "{identifier} provides no executable named {identifier}; it has: {}",
            scripts.join(", ")
        )
    }))
}

/// A file every virtual environment has, or one of its dependencies' usual tools.
pub(super) fn is_venv_own(name: &str) -> bool {
    name.starts_with("activate")
        || name.starts_with("python")
        || name.starts_with("pip")
        || name.starts_with("deactivate")
        || name.ends_with(".bat")
        || name.ends_with(".ps1")
}

/// The Node versions an installed npm package declares (`engines.node`), when the Node on
/// PATH is outside them: `engines.node ">=22.0.0"; node v20.20.2`. None when it is inside,
/// when either is unknown, or when the range is one this reader does not parse.
pub(super) fn node_engine_unmet(dir: &Path, identifier: &str) -> Option<String> {
    let manifest = dir
        .join("node_modules")
        .join(identifier)
        .join("package.json");
    let value: Value = serde_json::from_str(&std::fs::read_to_string(manifest).ok()?).ok()?;
    let range = value
        .get("engines")?
        .get("node")?
        .as_str()?
        .trim()
        .to_string();
    let out = std::process::Command::new("node")
        .arg("--version")
        .output()
        .ok()?;
    let host = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let version = semver::Version::parse(host.trim_start_matches('v')).ok()?;
    (!npm_range_allows(&range, &version)?).then(|| format!("engines.node \"{range}\"; node {host}"))
}

/// Whether an npm range (`^20.19.0 || >=22`, comparators joined by spaces) allows
/// `version`; None when a part does not parse.
fn npm_range_allows(range: &str, version: &semver::Version) -> Option<bool> {
    let mut any = false;
    for alternative in range.split("||") {
        let alternative = alternative.trim();
        let req = if alternative.is_empty() || alternative == "*" || alternative == "x" {
            semver::VersionReq::STAR
        } else {
            // `>= 24.0.0` is one comparator: an operator joins the version after it.
            let mut parts: Vec<String> = Vec::new();
            let mut operator = String::new();
            for word in alternative.split_whitespace() {
                if word
                    .chars()
                    .all(|c| matches!(c, '<' | '>' | '=' | '~' | '^'))
                {
                    operator.push_str(word);
                } else {
                    parts.push(format!("{}{word}", std::mem::take(&mut operator)));
                }
            }
            semver::VersionReq::parse(&parts.join(", ")).ok()?
        };
        any |= req.matches(version);
    }
    Some(any)
}

#[cfg(test)]
mod tests {
    use super::npm_range_allows;

    #[test]
    fn npm_ranges_are_read_as_npm_reads_them() {
        let v = |s: &str| semver::Version::parse(s).expect("version");
        assert_eq!(npm_range_allows(">=22.0.0", &v("20.20.2")), Some(false));
        assert_eq!(npm_range_allows(">=18", &v("20.20.2")), Some(true));
        let mongodb = "^20.19.0 || ^22.13.0 || >= 24.0.0";
        assert_eq!(npm_range_allows(mongodb, &v("20.20.2")), Some(true));
        assert_eq!(npm_range_allows(mongodb, &v("22.12.0")), Some(false));
        assert_eq!(npm_range_allows(">=18 <21", &v("20.1.0")), Some(true));
        assert_eq!(npm_range_allows("not a range", &v("20.1.0")), None);
    }
}
