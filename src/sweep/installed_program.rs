//! The program a complete install provides, found as npx and uvx find it.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// Why a complete install has no program to start, in the installer's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(super) struct NoExecutable(pub String);

/// As npx chooses: a `bin` string runs under the package's own name; of a `bin` object,
/// its only entry, else the entry named as the package (without its scope).
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
    let name = match value.get("bin") {
        Some(Value::String(_)) => unscoped.to_string(),
        Some(Value::Object(bins)) if bins.len() == 1 => {
            bins.keys().next().cloned().unwrap_or_default()
        }
        Some(Value::Object(bins)) if bins.contains_key(unscoped) => unscoped.to_string(),
        Some(Value::Object(bins)) => {
            let names: Vec<&str> = bins.keys().map(String::as_str).take(10).collect();
            return Err(NoExecutable(format!(
                "{identifier} has several executables and none named {unscoped}: {}",
                names.join(", ")
            )));
        }
        _ => {
            return Err(NoExecutable(format!(
                "{identifier}: its package.json has no \"bin\""
            )))
        }
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
