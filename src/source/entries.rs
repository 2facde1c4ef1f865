//! A package's own entry points, from its manifests: package.json `bin`, `main` and
//! `exports`, pyproject.toml `[project.scripts]`, and an installed wheel's console scripts
//! (`*.dist-info/entry_points.txt`). The walk scans them even under `dist/` or `build/`, and
//! `reach` follows what they load to tell the stdio path from the rest.

use std::path::{Path, PathBuf};

/// One entry point that exists on disk.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    /// How messages name it: `build/index.js (package.json bin chrome-devtools)`.
    pub shown: String,
    pub path: PathBuf,
}

/// The entries of the packages at or above `roots`, and the directories Python modules are
/// looked up from.
pub(super) fn of_roots(roots: &[PathBuf]) -> (Vec<Entry>, Vec<PathBuf>) {
    let manifests = manifests(roots);
    let mut entries = Vec::new();
    let mut python_bases: Vec<PathBuf> = roots.iter().filter(|r| r.is_dir()).cloned().collect();
    for dir in &manifests {
        entries.extend(package_json_entries(dir));
        python_bases.push(dir.clone());
        python_bases.push(dir.join("src"));
    }
    // An unpacked or installed wheel: its dist-info beside the package (the root itself, or
    // the site-packages directory a package root sits in).
    let mut wheels: Vec<PathBuf> = Vec::new();
    for root in roots.iter().filter(|r| r.is_dir()) {
        let root = root.canonicalize().unwrap_or_else(|_| root.clone());
        for dir in [Some(root.clone()), root.parent().map(Path::to_path_buf)]
            .into_iter()
            .flatten()
        {
            if !wheels.contains(&dir) && !dist_infos(&dir).is_empty() {
                python_bases.push(dir.clone());
                wheels.push(dir);
            }
        }
    }
    let mut scripts: Vec<(String, String)> = Vec::new();
    for dir in &manifests {
        scripts.extend(pyproject_scripts(dir));
    }
    for dir in &wheels {
        scripts.extend(console_scripts(dir));
    }
    for (shown, module) in scripts {
        if let Some(path) = python_bases
            .iter()
            .find_map(|base| python_module(base, &module))
        {
            entries.push(Entry { shown, path });
        }
    }
    (entries, python_bases)
}

/// The nearest directory at or above each root with a package.json or pyproject.toml, up to
/// the repository's top (a directory with `.git`).
pub(super) fn manifests(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for root in roots {
        let start = if root.is_dir() {
            root.clone()
        } else {
            root.parent().map(Path::to_path_buf).unwrap_or_default()
        };
        let start = start.canonicalize().unwrap_or(start);
        for dir in start.ancestors() {
            if dir.join("package.json").is_file() || dir.join("pyproject.toml").is_file() {
                if !found.iter().any(|d: &PathBuf| d == dir) {
                    found.push(dir.to_path_buf());
                }
                break;
            }
            if dir.join(".git").exists() {
                break;
            }
        }
    }
    found
}

/// Most paths read from one manifest's `exports` (a map can nest conditions deeply).
const MAX_EXPORTS: usize = 64;

/// package.json's `bin` (a path or a map of them), `main` and `exports`, as files that exist.
fn package_json_entries(dir: &Path) -> Vec<Entry> {
    let Ok(text) = std::fs::read_to_string(dir.join("package.json")) else {
        return Vec::new();
    };
    let pkg: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let mut paths: Vec<(String, &str)> = Vec::new();
    match &pkg["bin"] {
        serde_json::Value::String(s) => paths.push(("bin".into(), s)),
        serde_json::Value::Object(o) => paths.extend(o.iter().filter_map(|(name, v)| {
            let name = crate::finding::excerpt(name, 60);
            v.as_str().map(|s| (format!("bin {name}"), s))
        })),
        _ => {}
    }
    if let Some(main) = pkg["main"].as_str() {
        paths.push(("main".into(), main));
    }
    let mut exports = Vec::new();
    export_paths(&pkg["exports"], &mut exports, 0);
    paths.extend(exports.into_iter().map(|p| ("exports".to_string(), p)));
    paths
        .into_iter()
        .filter_map(|(field, p)| {
            let path = dir.join(p);
            path.is_file().then(|| {
                let shown = crate::finding::excerpt(p.trim_start_matches("./"), 100);
                Entry {
                    shown: format!("{shown} (package.json {field})"),
                    path,
                }
            })
        })
        .collect()
}

/// The relative paths in an `exports` value: a string, an array, or a map of subpaths and
/// conditions.
fn export_paths<'a>(value: &'a serde_json::Value, out: &mut Vec<&'a str>, depth: usize) {
    if out.len() >= MAX_EXPORTS || depth > 8 {
        return;
    }
    match value {
        serde_json::Value::String(s) if s.starts_with("./") && !s.contains('*') => out.push(s),
        serde_json::Value::Array(items) => {
            for item in items {
                export_paths(item, out, depth + 1);
            }
        }
        serde_json::Value::Object(map) => {
            for item in map.values() {
                export_paths(item, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// pyproject.toml's `[project.scripts]`: `name = "package.module:function"` → the module.
fn pyproject_scripts(dir: &Path) -> Vec<(String, String)> {
    let Ok(text) = std::fs::read_to_string(dir.join("pyproject.toml")) else {
        return Vec::new();
    };
    scripts_in(&text, "[project.scripts]", "pyproject.toml script")
}

/// An installed or unpacked wheel's `[console_scripts]`, from each `*.dist-info` in `dir`.
fn console_scripts(dir: &Path) -> Vec<(String, String)> {
    dist_infos(dir)
        .iter()
        .filter_map(|d| std::fs::read_to_string(d.join("entry_points.txt")).ok())
        .flat_map(|text| scripts_in(&text, "[console_scripts]", "console script"))
        .collect()
}

/// The `*.dist-info` directories in `dir`, in name order (at most a few hundred looked at).
fn dist_infos(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = read
        .take(10_000)
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "dist-info") && p.join("entry_points.txt").is_file()
        })
        .take(256)
        .collect();
    found.sort();
    found
}

/// One flat table of `name = "package.module:function"` lines → (shown, module). Read line
/// by line: the table is flat, one script per line, and nothing else is needed.
fn scripts_in(text: &str, table: &str, what: &str) -> Vec<(String, String)> {
    let mut scripts = Vec::new();
    let mut in_table = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_table = line == table;
            continue;
        }
        let Some((name, value)) = line.split_once('=').filter(|_| in_table) else {
            continue;
        };
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        let module = value.split(':').next().unwrap_or("").trim();
        let valid = !module.is_empty()
            && module
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        if valid {
            let name = crate::finding::excerpt(name.trim().trim_matches('"'), 60);
            scripts.push((format!("{module} ({what} {name})"), module.to_string()));
        }
    }
    scripts
}

/// The file of a dotted Python module under `base`: `a/b.py` or `a/b/__init__.py`.
pub(super) fn python_module(base: &Path, dotted: &str) -> Option<PathBuf> {
    let mut path = base.to_path_buf();
    for part in dotted.split('.').filter(|p| !p.is_empty()) {
        path.push(part);
    }
    let file = path.with_extension("py");
    if !dotted.is_empty() && file.is_file() {
        return Some(file);
    }
    let init = path.join("__init__.py");
    init.is_file().then_some(init)
}

/// The directories the default excludes would skip (`dist`, `build`...) that hold one of the
/// packages' own entry points (canonical paths): the walk enters them.
pub(super) fn excluded_entry_dirs(roots: &[PathBuf]) -> Vec<PathBuf> {
    let (entries, _) = of_roots(roots);
    let mut dirs = Vec::new();
    for entry in entries {
        let path = entry.path.canonicalize().unwrap_or(entry.path);
        for dir in path.ancestors().skip(1) {
            let skipped = dir
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| super::walk::DEFAULT_SKIP_DIRS.contains(&n));
            if skipped && !dirs.contains(&dir.to_path_buf()) {
                dirs.push(dir.to_path_buf());
            }
            // Above the package's manifest is not the package's.
            if dir.join("package.json").is_file() || dir.join("pyproject.toml").is_file() {
                break;
            }
        }
    }
    dirs
}
