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

use super::entries::{python_module, Entry};
use super::lang::transports::{ModuleFacts, OffStdio};
use super::lang::transports_window;
use super::lang::Lang;
use crate::finding::{Finding, Severity};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Most modules followed from the entries: a bound on time for huge trees.
const MAX_MODULES: usize = 5_000;

/// A file with findings as the worker that scanned it saw it: its findings' file, its
/// canonical path (found on the workers, not one file after another here), and the facts
/// the worker took (`parse::Worker::facts`: None if it took none).
#[derive(Debug)]
pub(super) struct WithFindings {
    pub file: String,
    pub path: PathBuf,
    pub facts: Option<Option<ModuleFacts>>,
}

/// Turns the findings of `findings` that never reach a stdio client into notes, with a
/// detail code that says why. `entries` are the roots' (`entries::of_roots`), with the
/// bases of their Python modules. `known` holds the files with findings the workers
/// scanned, with the facts they took from the trees they parsed, or None for a file whose
/// facts cannot make its writes notes (`transports::may_demote`); other modules are read
/// and parsed here, in part if `windows` (the scan's prefilter: off, every file is parsed
/// whole, so the findings without it are those of whole parses everywhere).
pub(super) fn classify(
    findings: &mut [Finding],
    roots: &[PathBuf],
    entries: (Vec<Entry>, Vec<PathBuf>),
    max_file_bytes: u64,
    windows: bool,
    known: Vec<WithFindings>,
) {
    let mut unaffected: HashSet<PathBuf> = HashSet::new();
    // HTTP-only modules whose other facts are not known (`ModuleFacts::serving_only`): read
    // again only if the stdio path loads them.
    let mut serving_only: HashSet<PathBuf> = HashSet::new();
    let mut facts = HashMap::new();
    let mut located: HashMap<String, PathBuf> = HashMap::new();
    for WithFindings {
        file,
        path,
        facts: known,
    } in known
    {
        match known {
            Some(Some(f)) if f.serving_only => {
                serving_only.insert(path.clone());
            }
            Some(Some(f)) => {
                facts.insert(path.clone(), Some(f));
            }
            Some(None) => {
                unaffected.insert(path.clone());
            }
            None => {}
        }
        located.insert(file, path);
    }
    let mut modules = Modules {
        max_file_bytes,
        windows,
        facts,
        parsers: HashMap::new(),
    };
    // Files with findings: with facts, and without (`plain`: only what loads them matters).
    let mut files: HashMap<String, PathBuf> = HashMap::new();
    let mut plain: HashMap<String, PathBuf> = HashMap::new();
    for f in findings.iter() {
        let Some(file) = &f.location.file else {
            continue;
        };
        if files.contains_key(file) || plain.contains_key(file) {
            continue;
        }
        // With several roots a finding's file already starts with its root. (A finding not
        // from a worker's file: the Spring settings' own.)
        let path = located.get(file).cloned().or_else(|| {
            let path = super::joined(file, roots)
                .map(PathBuf::from)
                .or_else(|| Some(PathBuf::from(file)).filter(|p| p.is_file()))?;
            Some(path.canonicalize().unwrap_or(path))
        });
        if let Some(path) = path {
            // No fact of its own can make its writes notes: only the entries that load it.
            if unaffected.contains(&path) {
                plain.insert(file.clone(), path);
            } else if serving_only.contains(&path) || modules.own(&path).is_some() {
                files.insert(file.clone(), path);
            }
        }
    }
    let http_only: HashSet<&PathBuf> = files
        .values()
        .filter(|p| serving_only.contains(*p) || modules.own(p).is_some_and(|f| f.http_only()))
        .collect();
    let path = if files.is_empty() && plain.is_empty() {
        None
    } else {
        Some(stdio_path(entries, &mut modules))
    };
    for f in findings.iter_mut() {
        let Some(file) = f.location.file.as_ref() else {
            continue;
        };
        let Some(module) = files.get(file).or_else(|| plain.get(file)) else {
            continue;
        };
        if http_only.contains(module) {
            let why = match &path {
                Some(StdioPath::Reached { modules, .. }) if modules.contains(module) => continue,
                Some(StdioPath::Reached { entry, .. }) => format!(
                    "{entry} does not load it on the stdio path (not at all, or only in a branch that picks another transport)"
                ),
                Some(StdioPath::NoStdio { entry, .. }) => {
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
        if let Some(path) = &path {
            if let Some((detail, why)) = path.off_stdio_module(module) {
                demote(f, detail, &why);
                continue;
            }
        }
        let Some(facts) = files.get(file).and_then(|_| modules.own(module)) else {
            continue;
        };
        let row = f.location.line.map(|l| l.saturating_sub(1) as usize);
        let within = |r: &tree_sitter::Range| {
            row.is_some_and(|row| r.start_point.row <= row && row <= r.end_point.row)
        };
        if let Some((_, why)) = facts.off_stdio.iter().find(|(r, _)| within(r)) {
            let (detail, why) = match why {
                OffStdio::TransportBranch => ("transport-branch", "it runs only in a branch for another transport: its condition picks an HTTP or SSE transport (a comparison of the transport with 'http', 'sse' or 'streamable-http', or with 'stdio' on the other side, an environment variable the module tests to pick an HTTP transport, HTTP request headers, or a name set from one of those), so it never runs while the server speaks stdio"),
                OffStdio::ExitingPath => ("exits-before-serving", "it is on a path that exits before any server starts (a branch or function ending in a successful process.exit or sys.exit that starts no server, such as --help, --version, --list-tools or a setup command), so no client is reading"),
                OffStdio::ScriptOnly => ("script-only", "it is in an `if __name__ == \"__main__\":` block that starts no server, which runs only when the file is run as a script, never when the package's entry imports the module"),
            };
            demote(f, detail, why);
            continue;
        }
        let at_exit =
            !facts.serves_stdio && !facts.connects && facts.exit_writes.iter().any(within);
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
    windows: bool,
    facts: HashMap<PathBuf, Option<ModuleFacts>>,
    parsers: HashMap<Lang, tree_sitter::Parser>,
}

impl Modules {
    /// A module's whole facts: read here if the scan took none, or only the parts around its
    /// writes (`ModuleFacts::local`).
    fn get(&mut self, path: &Path) -> Option<&ModuleFacts> {
        let known = self.facts.get(path);
        if known.is_none_or(|f| f.as_ref().is_some_and(|f| f.local)) {
            let facts = read_facts(path, self.max_file_bytes, self.windows, &mut self.parsers);
            self.facts.insert(path.to_path_buf(), facts);
        }
        self.facts.get(path).and_then(Option::as_ref)
    }

    /// The facts that decide a module's own writes' notes: those of the parts around them
    /// will do.
    fn own(&mut self, path: &Path) -> Option<&ModuleFacts> {
        if self.facts.contains_key(path) {
            return self.facts.get(path).and_then(Option::as_ref);
        }
        self.get(path)
    }
}

fn read_facts(
    path: &Path,
    max_file_bytes: u64,
    windows: bool,
    parsers: &mut HashMap<Lang, tree_sitter::Parser>,
) -> Option<ModuleFacts> {
    let lang = Lang::of_path(path)?;
    if std::fs::metadata(path).ok()?.len() > max_file_bytes {
        return None;
    }
    let src = std::fs::read(path).ok()?;
    let parser = super::trees::parser_for(parsers, lang)?;
    // The parts that mention a fact word, as the scan's own facts parse takes them, each
    // parse with the scan's deadline.
    let (ranges, marks) = if windows {
        let (ranges, marks) = transports_window::ranges_and_marks(lang, &src);
        (ranges.unwrap_or_default(), Some(marks))
    } else {
        (Vec::new(), None)
    };
    super::trees::facts_in_part(parser, lang, &src, ranges, None, marks.as_ref())?
}

/// What the package's entries load.
enum StdioPath {
    /// Every module reached from the entries that serve stdio; `entry` names the first.
    Reached {
        entry: String,
        modules: HashSet<PathBuf>,
        other: Other,
    },
    /// The entries load no stdio transport: they are not a stdio entry.
    NoStdio {
        entry: String,
        other: Other,
    },
    Unknown,
}

/// What the stdio path leaves out: modules only other entries load, and modules loaded only
/// from a part off the stdio path.
#[derive(Default)]
struct Other {
    /// Each module an entry that serves no stdio loads, with that entry's name.
    entries: HashMap<PathBuf, String>,
    /// Modules loaded from a part off the stdio path, and why it is off.
    loaded_off: HashMap<PathBuf, OffStdio>,
    /// Every module some entry loads.
    reached: HashSet<PathBuf>,
}

impl StdioPath {
    /// A module off the stdio path for a reason of the package's shape: only another entry,
    /// which serves no stdio, loads it; or it is loaded only from a part that never runs
    /// under stdio. The detail code and why.
    fn off_stdio_module(&self, module: &PathBuf) -> Option<(&'static str, String)> {
        let (stdio, other, stdio_entry) = match self {
            StdioPath::Reached {
                modules,
                other,
                entry,
            } => (Some(modules), other, Some(entry)),
            StdioPath::NoStdio { other, .. } => (None, other, None),
            StdioPath::Unknown => return None,
        };
        if stdio.is_some_and(|m| m.contains(module)) {
            return None;
        }
        if let (Some(stdio_entry), Some(entry)) = (stdio_entry, other.entries.get(module)) {
            return Some((
                "other-entry",
                format!("only {entry} loads it, an entry point of the package that starts no stdio server (the stdio server is {stdio_entry}), so its stdout is that command's own output"),
            ));
        }
        if other.reached.contains(module) {
            return None;
        }
        match other.loaded_off.get(module)? {
            OffStdio::ExitingPath => Some((
                "exits-before-serving",
                "the package loads this module only on a path that exits before any server starts (a branch ending in process.exit or sys.exit, such as --help, --version or a setup command), so no client is reading".to_string(),
            )),
            OffStdio::ScriptOnly => Some((
                "script-only",
                "the package loads this module only in an `if __name__ == \"__main__\":` block that starts no server".to_string(),
            )),
            OffStdio::TransportBranch => Some((
                "transport-branch",
                "the package loads this module only in a branch that picks an HTTP or SSE transport, so it never runs while the server speaks stdio".to_string(),
            )),
        }
    }
}

/// Modules followed from one entry: those it reaches, and those it loads only from a part
/// off the stdio path.
fn follow(
    entry: &Path,
    python_bases: &[PathBuf],
    modules: &mut Modules,
    loaded_off: &mut HashMap<PathBuf, OffStdio>,
) -> HashSet<PathBuf> {
    let mut reached: HashSet<PathBuf> = HashSet::new();
    let mut queue = vec![entry.canonicalize().unwrap_or_else(|_| entry.to_path_buf())];
    while let Some(module) = queue.pop() {
        if reached.len() >= MAX_MODULES || !reached.insert(module.clone()) {
            continue;
        }
        let Some(facts) = modules.get(&module).cloned() else {
            continue;
        };
        for load in &facts.loads {
            for target in resolve(&module, &load.specifier, python_bases) {
                let target = target.canonicalize().unwrap_or(target);
                if let Some(why) = load.off_stdio {
                    loaded_off.entry(target).or_insert(why);
                    continue;
                }
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
    reached
}

fn stdio_path(
    (entries, python_bases): (Vec<Entry>, Vec<PathBuf>),
    modules: &mut Modules,
) -> StdioPath {
    let Some(first) = entries.first().map(|e| e.shown.clone()) else {
        return StdioPath::Unknown;
    };
    let mut other = Other::default();
    let mut stdio: Option<(String, HashSet<PathBuf>)> = None;
    for entry in entries.iter().take(64) {
        let reached = follow(&entry.path, &python_bases, modules, &mut other.loaded_off);
        let serves = reached
            .iter()
            .any(|m| modules.get(m).is_some_and(|f| f.serves_stdio));
        other.reached.extend(reached.iter().cloned());
        if serves {
            let (_, all) = stdio.get_or_insert_with(|| (entry.shown.clone(), HashSet::new()));
            all.extend(reached);
        } else {
            for m in reached {
                other
                    .entries
                    .entry(m)
                    .or_insert_with(|| entry.shown.clone());
            }
        }
    }
    match stdio {
        Some((entry, modules)) => StdioPath::Reached {
            entry,
            modules,
            other,
        },
        None => StdioPath::NoStdio {
            entry: first,
            other,
        },
    }
}

/// The files a load names that exist: a relative JavaScript specifier, or a Python module
/// (with the packages' `__init__.py` files that importing it runs).
fn resolve(from: &Path, specifier: &str, python_bases: &[PathBuf]) -> Vec<PathBuf> {
    let dir = from.parent().unwrap_or(Path::new(""));
    if Lang::of_path(from) != Some(Lang::Python) {
        if !super::lang::transports::relative(specifier) {
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

#[cfg(test)]
#[path = "reach_tests.rs"]
mod tests;
