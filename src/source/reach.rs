//! Writes that never run under stdio are notes, not warnings: a module that only serves HTTP
//! and that the stdio path does not load, and a write the process prints just before it
//! exits with a failure, outside any stdio session.
//!
//! A module serves HTTP only when it creates an HTTP or SSE server transport or listens on a
//! port, and creates no stdio transport and reads no stdin (`lang::transports`). The stdio
//! path is what the package's entry loads (package.json `bin` and `main`, pyproject.toml
//! `[project.scripts]`, from the nearest manifest at or above the scanned path): static
//! imports, `require`, and literal `import()`/`import_module` calls, followed through every
//! module, except a load of a module that serves HTTP only inside a branch (`if`, a `switch`
//! case, a conditional) of a module that does not serve stdio itself: that branch is a
//! launcher choosing its transport, and the stdio choice is another branch. Where no entry
//! is known, or the entry loads no stdio transport, every HTTP-only module is off the stdio
//! path.

use super::lang::transports::{self, ModuleFacts};
use super::lang::Lang;
use crate::finding::{Finding, Severity};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Most modules followed from the entries: a bound on time for huge trees.
const MAX_MODULES: usize = 5_000;

/// Turns the findings of `findings` that never reach a stdio client into notes, with a
/// detail code that says why. `known` holds, by canonical path, the facts the scan already
/// took from the trees it parsed, or None for a file whose facts cannot make its writes
/// notes (`transports::may_demote`); other modules are read and parsed here.
pub(super) fn classify(
    findings: &mut [Finding],
    roots: &[PathBuf],
    max_file_bytes: u64,
    known: Vec<(PathBuf, Option<ModuleFacts>)>,
) {
    let mut unaffected: HashSet<PathBuf> = HashSet::new();
    let mut facts = HashMap::new();
    for (path, known) in known {
        match known {
            Some(f) => {
                facts.insert(path, Some(f));
            }
            None => {
                unaffected.insert(path);
            }
        }
    }
    let mut modules = Modules {
        max_file_bytes,
        facts,
        parsers: HashMap::new(),
    };
    // The files with findings in a language that has transport facts.
    let mut files: HashMap<String, PathBuf> = HashMap::new();
    for f in findings.iter() {
        let Some(file) = &f.location.file else {
            continue;
        };
        if files.contains_key(file) {
            continue;
        }
        // With several roots a finding's file already starts with its root.
        let path = super::joined(file, roots)
            .map(PathBuf::from)
            .or_else(|| Some(PathBuf::from(file)).filter(|p| p.is_file()));
        if let Some(path) = path {
            let path = path.canonicalize().unwrap_or(path);
            // Neither HTTP-only nor holding exit writes: its findings stay as they are.
            if unaffected.contains(&path) {
                continue;
            }
            if modules.get(&path).is_some() {
                files.insert(file.clone(), path);
            }
        }
    }
    let http_only: HashSet<&PathBuf> = files
        .values()
        .filter(|p| modules.get(p).is_some_and(|f| f.http_only()))
        .collect();
    let path = if http_only.is_empty() {
        None
    } else {
        Some(stdio_path(roots, &mut modules))
    };
    for f in findings.iter_mut() {
        let Some(module) = f.location.file.as_ref().and_then(|file| files.get(file)) else {
            continue;
        };
        if http_only.contains(module) {
            let why = match &path {
                Some(StdioPath::Reached { modules, .. }) if modules.contains(module) => continue,
                Some(StdioPath::Reached { entry, .. }) => format!(
                    "{entry} does not load it on the stdio path (not at all, or only in a branch that picks another transport)"
                ),
                Some(StdioPath::NoStdio { entry }) => {
                    format!("nothing {entry} loads creates a stdio transport")
                }
                _ => "no stdio entry is known (package.json bin or main, pyproject.toml [project.scripts])".to_string(),
            };
            demote(
                f,
                "http-only-module",
                &format!("this module serves only HTTP (it creates an HTTP or SSE server transport or listens on a port, and no stdio transport) and {why}, so the write never reaches a stdio client"),
            );
            continue;
        }
        let Some(facts) = modules.get(module) else {
            continue;
        };
        let at_exit = !facts.serves_stdio
            && !facts.connects
            && f.location.line.is_some_and(|line| {
                let row = line.saturating_sub(1) as usize;
                facts
                    .exit_writes
                    .iter()
                    .any(|r| r.start_point.row <= row && row <= r.end_point.row)
            });
        if at_exit {
            demote(
                f,
                "exits-before-session",
                "the process exits with a failure right after it, and this module starts no stdio session (it creates no stdio transport and connects no server), so no client is reading",
            );
        }
    }
}

fn demote(f: &mut Finding, detail: &'static str, why: &str) {
    f.severity = Severity::Note;
    f.detail_code = Some(detail);
    f.message = format!(
        "{} Reported as a note ({detail}): {why}. If it does run under stdio, --all-transports reports it as a warning.",
        f.message
    );
}

/// The modules' facts, each file parsed once, with one parser per language.
struct Modules {
    max_file_bytes: u64,
    facts: HashMap<PathBuf, Option<ModuleFacts>>,
    parsers: HashMap<Lang, tree_sitter::Parser>,
}

impl Modules {
    fn get(&mut self, path: &Path) -> Option<&ModuleFacts> {
        if !self.facts.contains_key(path) {
            let facts = read_facts(path, self.max_file_bytes, &mut self.parsers);
            self.facts.insert(path.to_path_buf(), facts);
        }
        self.facts.get(path).and_then(Option::as_ref)
    }
}

fn read_facts(
    path: &Path,
    max_file_bytes: u64,
    parsers: &mut HashMap<Lang, tree_sitter::Parser>,
) -> Option<ModuleFacts> {
    let lang = Lang::of_path(path)?;
    if std::fs::metadata(path).ok()?.len() > max_file_bytes {
        return None;
    }
    let src = std::fs::read(path).ok()?;
    let parser = match parsers.entry(lang) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(v) => {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&lang.grammar()).ok()?;
            v.insert(parser)
        }
    };
    let tree = parser.parse(&src, None)?;
    transports::facts(lang, tree.root_node(), &src)
}

/// What the package's entries load.
enum StdioPath {
    /// Every module reached from the entries; `entry` names the first, for messages.
    Reached {
        entry: String,
        modules: HashSet<PathBuf>,
    },
    /// The entries load no stdio transport: they are not a stdio entry.
    NoStdio {
        entry: String,
    },
    Unknown,
}

fn stdio_path(roots: &[PathBuf], modules: &mut Modules) -> StdioPath {
    let manifests = manifests(roots);
    let mut entries: Vec<(String, PathBuf)> = Vec::new();
    let mut python_bases: Vec<PathBuf> = roots.iter().filter(|r| r.is_dir()).cloned().collect();
    for dir in &manifests {
        entries.extend(package_json_entries(dir));
        python_bases.push(dir.clone());
        python_bases.push(dir.join("src"));
    }
    for dir in &manifests {
        for (shown, module) in pyproject_scripts(dir) {
            let found = python_bases
                .iter()
                .find_map(|base| python_module(base, &module));
            if let Some(path) = found {
                entries.push((shown, path));
            }
        }
    }
    let Some(entry) = entries.first().map(|(shown, _)| shown.clone()) else {
        return StdioPath::Unknown;
    };
    let mut reached: HashSet<PathBuf> = HashSet::new();
    let mut queue: Vec<PathBuf> = entries
        .into_iter()
        .map(|(_, p)| p.canonicalize().unwrap_or(p))
        .collect();
    while let Some(module) = queue.pop() {
        if reached.len() >= MAX_MODULES || !reached.insert(module.clone()) {
            continue;
        }
        let Some(facts) = modules.get(&module).cloned() else {
            continue;
        };
        for load in &facts.loads {
            for target in resolve(&module, &load.specifier, &python_bases) {
                let target = target.canonicalize().unwrap_or(target);
                // A launcher's branch that loads an HTTP-only module is not the stdio choice;
                // in a module that serves stdio itself, every branch runs under stdio.
                if load.in_branch
                    && !facts.serves_stdio
                    && modules.get(&target).is_some_and(|f| f.http_only())
                {
                    continue;
                }
                queue.push(target);
            }
        }
    }
    let stdio = reached
        .iter()
        .any(|m| modules.get(m).is_some_and(|f| f.serves_stdio));
    if stdio {
        StdioPath::Reached {
            entry,
            modules: reached,
        }
    } else {
        StdioPath::NoStdio { entry }
    }
}

/// The nearest directory at or above each root with a package.json or pyproject.toml, up to
/// the repository's top (a directory with `.git`).
fn manifests(roots: &[PathBuf]) -> Vec<PathBuf> {
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

/// package.json's `bin` (a path or a map of them) and `main`, as files that exist.
fn package_json_entries(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(text) = std::fs::read_to_string(dir.join("package.json")) else {
        return Vec::new();
    };
    let pkg: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let mut paths: Vec<(&str, &str)> = Vec::new();
    match &pkg["bin"] {
        serde_json::Value::String(s) => paths.push(("bin", s)),
        serde_json::Value::Object(o) => {
            paths.extend(o.values().filter_map(|v| v.as_str()).map(|s| ("bin", s)))
        }
        _ => {}
    }
    if let Some(main) = pkg["main"].as_str() {
        paths.push(("main", main));
    }
    paths
        .into_iter()
        .filter_map(|(field, p)| {
            let path = dir.join(p);
            path.is_file().then(|| {
                let shown = crate::finding::excerpt(p.trim_start_matches("./"), 100);
                (format!("{shown} (package.json {field})"), path)
            })
        })
        .collect()
}

/// pyproject.toml's `[project.scripts]`: `name = "package.module:function"` → the module.
/// Read line by line: the table is flat, one script per line, and nothing else is needed.
fn pyproject_scripts(dir: &Path) -> Vec<(String, String)> {
    let Ok(text) = std::fs::read_to_string(dir.join("pyproject.toml")) else {
        return Vec::new();
    };
    let mut scripts = Vec::new();
    let mut in_table = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_table = line == "[project.scripts]";
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
            let shown = format!("{module} (pyproject.toml script {name})");
            scripts.push((shown, module.to_string()));
        }
    }
    scripts
}

/// The files a load names that exist: a relative JavaScript specifier, or a Python module
/// (with the packages' `__init__.py` files that importing it runs).
fn resolve(from: &Path, specifier: &str, python_bases: &[PathBuf]) -> Vec<PathBuf> {
    let dir = from.parent().unwrap_or(Path::new(""));
    if Lang::of_path(from) != Some(Lang::Python) {
        if !specifier.starts_with("./") && !specifier.starts_with("../") {
            return Vec::new();
        }
        return javascript_module(&dir.join(specifier))
            .into_iter()
            .collect();
    }
    let dots = specifier.chars().take_while(|c| *c == '.').count();
    let name = &specifier[dots..];
    if dots > 0 {
        let mut base = dir.to_path_buf();
        for _ in 1..dots {
            base = base.parent().map(Path::to_path_buf).unwrap_or(base);
        }
        return python_module(&base, name).into_iter().collect();
    }
    let mut found = Vec::new();
    for base in python_bases {
        // `import a.b.c` runs a/__init__.py and a/b/__init__.py first.
        let parts: Vec<&str> = name.split('.').collect();
        for end in 1..=parts.len() {
            if let Some(path) = python_module(base, &parts[..end].join(".")) {
                found.push(path);
            }
        }
        if !found.is_empty() {
            break;
        }
    }
    found
}

fn python_module(base: &Path, dotted: &str) -> Option<PathBuf> {
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

/// As Node and TypeScript resolve a relative specifier: the file, with an extension, a
/// TypeScript source for a `.js` specifier, or the directory's index.
fn javascript_module(base: &Path) -> Option<PathBuf> {
    const EXTENSIONS: &[&str] = &["js", "mjs", "cjs", "ts", "mts", "cts", "tsx", "jsx"];
    if base.is_file() {
        return Some(base.to_path_buf());
    }
    let as_typescript = match base.extension().and_then(|e| e.to_str()) {
        Some("js") => vec!["ts", "tsx"],
        Some("mjs") => vec!["mts"],
        Some("cjs") => vec!["cts"],
        _ => Vec::new(),
    };
    let with = |ext: &str| {
        let mut name = base.as_os_str().to_os_string();
        name.push(".");
        name.push(ext);
        PathBuf::from(name)
    };
    as_typescript
        .iter()
        .map(|ext| base.with_extension(ext))
        .chain(EXTENSIONS.iter().map(|ext| with(ext)))
        .chain(
            EXTENSIONS
                .iter()
                .map(|ext| base.join(format!("index.{ext}"))),
        )
        .find(|p| p.is_file())
}
