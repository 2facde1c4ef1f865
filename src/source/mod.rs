//! The source scan: finds writes to stdout in a stdio server's code by parsing it with
//! tree-sitter and resolving names, so strings, comments and look-alikes are not reported.
//!
//! Files are walked and parsed in parallel (`ignore`'s parallel walker); each thread owns
//! one parser per language. Locations are 1-based; columns count Unicode scalar values.

pub(crate) mod config;
mod copies;
mod entries;
pub mod fix;
pub mod lang;
mod parse;
mod reach;
mod suppress;
mod trees;
pub mod walk;

use crate::finding::{Finding, Severity};
use crate::prints::PrintingWrite;
use lang::Lang;
use parse::Worker;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use walk::{DirSkip, FileSkip, Globs, Rules};

/// The codes the source scan reports.
pub const CODES: &[crate::catalog::Code] = &[
    crate::catalog::Code::StaticStdoutWrite,
    crate::catalog::Code::StaticStdoutLogger,
    crate::catalog::Code::StaticStdoutLoggingConfig,
];

/// The detail codes of writes that never run under stdio, reported as notes (`reach`).
pub const OFF_STDIO_DETAILS: &[&str] = &[
    "http-only-module",
    "exits-before-session",
    "transport-branch",
    "exits-before-serving",
    "other-entry",
    "script-only",
];

/// Default largest file scanned, in bytes. Hand-written server code is far smaller; larger
/// files are bundles and generated code, and parsing them dominates the time of a scan.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 256 * 1024;

/// What to scan and how.
#[derive(Debug, Clone)]
pub struct ScanOptions {
    pub roots: Vec<PathBuf>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub include_tests: bool,
    /// Skip dependency, virtual-environment and build directories.
    pub default_excludes: bool,
    pub max_file_bytes: u64,
    /// Report findings as errors rather than warnings.
    pub fail_on_static: bool,
    /// Worker threads; 0 picks the number of CPUs. Output is the same whatever the number.
    pub threads: usize,
    /// Rule out files by a text test for the words each language's rules need before
    /// parsing (see `Lang::may_hold_finding`). Off parses every file: the same findings, slower.
    pub prefilter: bool,
    /// Report writes that never reach a stdio client (in modules that only serve HTTP, just
    /// before a failing exit) as warnings like any other, not as notes (see `reach`).
    pub all_transports: bool,
}

impl ScanOptions {
    pub fn new(roots: Vec<PathBuf>) -> Self {
        Self {
            roots,
            include: Vec::new(),
            exclude: Vec::new(),
            include_tests: false,
            default_excludes: true,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            fail_on_static: false,
            threads: 0,
            prefilter: true,
            all_transports: false,
        }
    }
}

/// A problem with the scan's input: a usage error.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error("{0}: no such file or directory; give an existing path to scan")]
    MissingRoot(String),
    #[error("{0}")]
    BadGlob(String),
}

/// What the scan looked at.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScanStats {
    /// Source files read and checked (parsed, or ruled out by a quick text test).
    pub files_scanned: usize,
    /// Of those, files that were parsed.
    pub files_parsed: usize,
    /// Bytes given to the parser (less than the files' size when parsed in part).
    pub bytes_parsed: u64,
    /// Large files parsed in part: blocks that mention nothing the scan looks for left out.
    pub files_parsed_in_part: usize,
    /// Parsed files with syntax errors (scanned anyway; tree-sitter recovers).
    pub files_with_syntax_errors: usize,
    pub bytes_scanned: u64,
    /// Files in no supported language.
    pub other_files: usize,
    pub skipped_files: BTreeMap<FileSkip, usize>,
    pub skipped_dirs: BTreeMap<DirSkip, usize>,
    pub suppressed: usize,
    pub languages: BTreeMap<&'static str, usize>,
}

impl ScanStats {
    fn merge(&mut self, other: ScanStats) {
        self.files_scanned += other.files_scanned;
        self.files_parsed += other.files_parsed;
        self.files_with_syntax_errors += other.files_with_syntax_errors;
        self.bytes_parsed += other.bytes_parsed;
        self.files_parsed_in_part += other.files_parsed_in_part;
        self.bytes_scanned += other.bytes_scanned;
        self.other_files += other.other_files;
        self.suppressed += other.suppressed;
        for (k, v) in other.skipped_files {
            *self.skipped_files.entry(k).or_default() += v;
        }
        for (k, v) in other.skipped_dirs {
            *self.skipped_dirs.entry(k).or_default() += v;
        }
        for (k, v) in other.languages {
            *self.languages.entry(k).or_default() += v;
        }
    }

    pub fn files_skipped(&self) -> usize {
        self.skipped_files.values().sum()
    }
}

/// The result: findings in file order, and what was scanned.
#[derive(Debug, Clone)]
pub struct SourceScan {
    pub roots: Vec<String>,
    pub findings: Vec<Finding>,
    /// The stdout writes whose output the scan can describe, in file order.
    pub writes: Vec<PrintingWrite>,
    pub stats: ScanStats,
}

/// What every worker adds to when it finishes.
#[derive(Debug, Default)]
struct Collected {
    findings: Vec<Finding>,
    writes: Vec<PrintingWrite>,
    stats: ScanStats,
    spring_files: Vec<config::spring::SpringFile>,
    logging_configs: Vec<String>,
    with_findings: Vec<reach::WithFindings>,
}

/// Checks the options without scanning: roots exist and globs compile.
pub fn validate(options: &ScanOptions) -> Result<(), ScanError> {
    for root in &options.roots {
        if std::fs::symlink_metadata(root).is_err() {
            return Err(ScanError::MissingRoot(walk::slashed(root)));
        }
    }
    Globs::new(&options.include, "--include")?;
    Globs::new(&options.exclude, "--exclude")?;
    Ok(())
}

/// Scans every root.
pub fn scan(options: &ScanOptions) -> Result<SourceScan, ScanError> {
    validate(options)?;
    let rules = Rules {
        include: Globs::new(&options.include, "--include")?,
        exclude: Globs::new(&options.exclude, "--exclude")?,
        include_tests: options.include_tests,
        default_excludes: options.default_excludes,
        max_file_bytes: options.max_file_bytes,
    };
    let severity = if options.fail_on_static {
        Severity::Error
    } else {
        Severity::Warning
    };
    let collected = Mutex::new(Collected::default());
    let copies = copies::Copies::default();
    let entry_dirs = if options.default_excludes {
        entries::excluded_entry_dirs(&options.roots)
    } else {
        Vec::new()
    };
    // The package's entries, read once: `reach` follows their loads (`reach::stdio_path`),
    // and where it will, the workers read each module's facts whole.
    let (entries, python_bases) = if options.all_transports {
        (Vec::new(), Vec::new())
    } else {
        entries::of_roots(&options.roots)
    };
    let follows_loads = !entries.is_empty();
    let prefix_roots = options.roots.len() > 1;
    for root in &options.roots {
        let display = walk::slashed(root);
        let prefix = if prefix_roots {
            Some(display.trim_end_matches('/').to_string())
        } else {
            None
        };
        let mut walker = ignore::WalkBuilder::new(root);
        walker
            .hidden(true)
            .git_ignore(true)
            .git_exclude(true)
            .git_global(false)
            .ignore(true)
            // A path given to scan is scanned, as ruff checks a path passed to it: ignore
            // files above it that leave it out (uv's cache holds a `*`) do not apply.
            .parents(!walk::ignored_from_above(root))
            .require_git(false)
            .follow_links(false)
            .threads(options.threads);
        let mut builder = parse::WorkerBuilder {
            root,
            prefix: prefix.as_deref(),
            rules: &rules,
            severity,
            prefilter: options.prefilter,
            transport_facts: !options.all_transports,
            entry_dirs: &entry_dirs,
            follows_loads,
            collected: &collected,
            copies: &copies,
        };
        walker.build_parallel().visit(&mut builder);
    }
    let Collected {
        mut findings,
        mut writes,
        mut stats,
        mut spring_files,
        mut logging_configs,
        with_findings,
    } = collected.into_inner().unwrap_or_else(|e| e.into_inner());
    // Workers finish in any order: everything merged is put in one order before it is used.
    spring_files.sort_by(|a, b| a.file.cmp(&b.file));
    // Spring Boot settings are spread over several files: judged once all are read.
    logging_configs.sort();
    let (spring, suppressed) = config::spring::evaluate(&spring_files, &logging_configs, severity);
    findings.extend(spring);
    stats.suppressed += suppressed;
    // A total order (a file's findings come from one worker, but roots may repeat a file), so
    // the output is the same whatever the number of threads.
    findings.sort_by(|a, b| order_key(a).cmp(&order_key(b)));
    if !options.all_transports {
        reach::classify(
            &mut findings,
            &options.roots,
            (entries, python_bases),
            options.max_file_bytes,
            options.prefilter,
            with_findings,
        );
    }
    writes.sort_by(|a, b| {
        (&a.write.file, a.write.line, a.write.column).cmp(&(
            &b.write.file,
            b.write.line,
            b.write.column,
        ))
    });
    writes.dedup_by(|a, b| a.write == b.write);
    Ok(SourceScan {
        roots: options.roots.iter().map(|r| walk::slashed(r)).collect(),
        findings,
        writes,
        stats,
    })
}

/// The scan's total order of findings (borrowed: sorting compares without copying).
#[allow(clippy::type_complexity)]
fn order_key(
    f: &Finding,
) -> (
    Option<&str>,
    Option<u64>,
    Option<u64>,
    crate::catalog::Code,
    Option<u64>,
    Option<u64>,
    &str,
) {
    (
        f.location.file.as_deref(),
        f.location.line,
        f.location.column,
        f.code,
        f.location.end_line,
        f.location.end_column,
        f.message.as_str(),
    )
}

impl Collected {
    fn merge(&mut self, worker: &mut Worker<'_>) {
        self.findings.append(&mut worker.findings);
        self.writes.append(&mut worker.writes);
        self.stats.merge(std::mem::take(&mut worker.stats));
        self.spring_files.append(&mut worker.spring_files);
        self.logging_configs.append(&mut worker.logging_configs);
        self.with_findings.append(&mut worker.with_findings);
    }
}

/// Languages with a grammar, for listings.
pub fn languages() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Lang::ALL.iter().map(|l| l.name()).collect();
    names.dedup();
    names
}

/// Writes with their files as paths from the working directory (root joined), as `rooted`.
pub fn rooted_writes(mut writes: Vec<PrintingWrite>, roots: &[PathBuf]) -> Vec<PrintingWrite> {
    let roots = root_kinds(roots);
    for w in &mut writes {
        if let Some(path) = joined_by(&w.write.file, &roots) {
            w.write.file = path;
        }
    }
    writes
}

fn joined(file: &str, roots: &[PathBuf]) -> Option<String> {
    joined_by(file, &root_kinds(roots))
}

/// Each root with whether it is a file, asked once for many findings.
fn root_kinds(roots: &[PathBuf]) -> Vec<(&PathBuf, bool)> {
    roots.iter().map(|r| (r, r.is_file())).collect()
}

fn joined_by(file: &str, roots: &[(&PathBuf, bool)]) -> Option<String> {
    roots.iter().find_map(|(root, is_file)| {
        let candidate = if *is_file {
            (*root).clone()
        } else {
            root.join(file)
        };
        // `./index.js` and `index.js` are one file: one spelling, as a shell completes it.
        let candidate = candidate
            .strip_prefix(".")
            .map(Path::to_path_buf)
            .unwrap_or(candidate);
        candidate.is_file().then(|| walk::slashed(&candidate))
    })
}

/// Findings with their files as paths from the working directory (root joined), for
/// outputs that point into the repository (SARIF, Markdown, the Action).
pub fn rooted(
    mut findings: Vec<crate::finding::Finding>,
    roots: &[PathBuf],
) -> Vec<crate::finding::Finding> {
    let roots = root_kinds(roots);
    // Findings come sorted by file: each file is looked up once in a run of its findings.
    let mut last: Option<(String, Option<String>)> = None;
    for f in &mut findings {
        let Some(file) = f.location.file.take() else {
            continue;
        };
        let path = match &last {
            Some((known, path)) if *known == file => path.clone(),
            _ => {
                let path = joined_by(&file, &roots);
                last = Some((file.clone(), path.clone()));
                path
            }
        };
        f.location.file = Some(path.unwrap_or(file));
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Code;
    use crate::finding::Finding;

    /// Each finding's file is joined to the root that holds it, whether its neighbours name
    /// the same file (looked up once) or another, and a file no root holds keeps its name.
    #[test]
    fn rooted_joins_every_finding_s_file_in_runs_and_out_of_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(a.join("pkg")).expect("mkdir");
        std::fs::create_dir_all(&b).expect("mkdir");
        std::fs::write(a.join("pkg/x.py"), "print(1)\n").expect("write");
        std::fs::write(b.join("y.py"), "print(1)\n").expect("write");
        let at = |file: &str| {
            let mut f = Finding::new(Code::StaticStdoutWrite, "m");
            f.location.file = Some(file.to_string());
            f
        };
        let files = [
            "pkg/x.py", "pkg/x.py", "y.py", "pkg/x.py", "gone.py", "y.py",
        ];
        let rooted = rooted(
            files.iter().map(|f| at(f)).collect(),
            &[a.clone(), b.clone()],
        );
        let shown: Vec<String> = rooted
            .iter()
            .map(|f| f.location.file.clone().expect("file"))
            .collect();
        let x = walk::slashed(&a.join("pkg/x.py"));
        let y = walk::slashed(&b.join("y.py"));
        assert_eq!(shown, [&x, &x, &y, &x, "gone.py", &y]);
    }
}
