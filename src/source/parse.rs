//! One worker per walker thread: reads each file the rules let through, parses it with the
//! thread's own parser for its language, and turns hits into findings with 1-based locations.

use super::config::{self, spring, ConfigKind};
use super::copies::{Copies, Scanned};
use super::lang::{Hit, Lang, Text};
use super::suppress::{SourceComment, Suppressions};
use super::walk::{slashed, DirSkip, FileSkip, Rules};
use super::{Collected, ScanStats};
use crate::finding::{Finding, Location, Replacement, Severity};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkState};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::Mutex;
use tree_sitter::{Parser, Point};

mod facts;

pub(super) struct WorkerBuilder<'s> {
    pub root: &'s Path,
    pub prefix: Option<&'s str>,
    pub rules: &'s Rules,
    pub severity: Severity,
    pub prefilter: bool,
    /// Keep the transport facts of files with findings for `reach` (off with --all-transports).
    pub transport_facts: bool,
    /// Directories the default excludes skip that hold the package's entry points (canonical).
    pub entry_dirs: &'s [std::path::PathBuf],
    /// The roots have entries whose loads `reach` follows: each module's facts are whole.
    pub follows_loads: bool,
    pub collected: &'s Mutex<Collected>,
    /// The scans of files so far, for byte-identical copies.
    pub copies: &'s Copies,
}

impl<'s> ParallelVisitorBuilder<'s> for WorkerBuilder<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Worker {
            root: self.root,
            prefix: self.prefix,
            rules: self.rules,
            severity: self.severity,
            prefilter: self.prefilter,
            transport_facts: self.transport_facts,
            entry_dirs: self.entry_dirs,
            follows_loads: self.follows_loads,
            collected: self.collected,
            copies: self.copies,
            parsers: HashMap::new(),
            with_findings: Vec::new(),
            findings: Vec::new(),
            writes: Vec::new(),
            stats: ScanStats::default(),
            spring_files: Vec::new(),
            logging_configs: Vec::new(),
            buffer: Vec::new(),
        })
    }
}

pub(super) struct Worker<'s> {
    root: &'s Path,
    prefix: Option<&'s str>,
    rules: &'s Rules,
    severity: Severity,
    prefilter: bool,
    transport_facts: bool,
    entry_dirs: &'s [std::path::PathBuf],
    follows_loads: bool,
    collected: &'s Mutex<Collected>,
    copies: &'s Copies,
    parsers: HashMap<Lang, Parser>,
    /// The files with findings, with their canonical paths and the transport facts taken
    /// from the tree the scan parsed (so `reach` need not parse those files again).
    pub with_findings: Vec<super::reach::WithFindings>,
    pub findings: Vec<Finding>,
    /// Writes with what they print (suppressed ones too: they still print).
    pub writes: Vec<crate::prints::PrintingWrite>,
    pub stats: ScanStats,
    /// Spring Boot files, judged per application once every file is read.
    pub spring_files: Vec<spring::SpringFile>,
    /// Paths of logback and log4j2 files (they replace Spring Boot's console logging).
    pub logging_configs: Vec<String>,
    /// The thread's read buffer, reused from file to file (fresh pages for every file cost
    /// more than reading them).
    buffer: Vec<u8>,
}

impl Drop for Worker<'_> {
    fn drop(&mut self) {
        let mut collected = self.collected.lock().unwrap_or_else(|e| e.into_inner());
        collected.merge(self);
    }
}

impl ParallelVisitor for Worker<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        let entry = match entry {
            Ok(e) => e,
            Err(_) => {
                self.skip_file(FileSkip::Unreadable);
                return WalkState::Continue;
            }
        };
        let relative = entry
            .path()
            .strip_prefix(self.root)
            .map(slashed)
            .unwrap_or_default();
        let explicit = entry.depth() == 0;
        let Some(file_type) = entry.file_type() else {
            return WalkState::Continue;
        };
        if entry.path_is_symlink() && !explicit {
            // Never followed, so a link cannot lead out of the tree or into a loop.
            if std::fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()) {
                *self.stats.skipped_dirs.entry(DirSkip::Symlink).or_default() += 1;
            } else {
                self.skip_file(FileSkip::Symlink);
            }
            return WalkState::Continue;
        }
        if file_type.is_dir() {
            if explicit {
                return WalkState::Continue;
            }
            let name = entry.file_name().to_string_lossy();
            return match self.rules.directory(&name, &relative) {
                // `dist/` or `build/` holding the package's own entry point: its code.
                Some(DirSkip::Dependency)
                    if !self.entry_dirs.is_empty()
                        && entry
                            .path()
                            .canonicalize()
                            .is_ok_and(|p| self.entry_dirs.contains(&p)) =>
                {
                    WalkState::Continue
                }
                Some(reason) => {
                    *self.stats.skipped_dirs.entry(reason).or_default() += 1;
                    WalkState::Skip
                }
                None => WalkState::Continue,
            };
        }
        if file_type.is_file() || explicit {
            self.file(entry.path(), &relative, explicit);
        }
        WalkState::Continue
    }
}

impl Worker<'_> {
    fn skip_file(&mut self, reason: FileSkip) {
        *self.stats.skipped_files.entry(reason).or_default() += 1;
    }

    /// The path a finding reports: relative to the root, or as given for a file root.
    fn display(&self, path: &Path, relative: &str) -> String {
        match (self.prefix, relative.is_empty()) {
            (_, true) => slashed(path),
            (Some(prefix), false) => format!("{prefix}/{relative}"),
            (None, false) => relative.to_string(),
        }
    }

    fn file(&mut self, path: &Path, relative: &str, explicit: bool) {
        let config = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(ConfigKind::of_name);
        if let Some(kind) = config {
            return self.config_file(kind, path, relative, explicit);
        }
        let Some(lang) = Lang::of_path(path) else {
            self.stats.other_files += 1;
            return;
        };
        let Some(bytes) = self.admit(path, relative, Some(lang), explicit) else {
            return;
        };
        self.source_file(path, relative, lang, &bytes);
        self.buffer = bytes;
    }

    fn source_file(&mut self, path: &Path, relative: &str, lang: Lang, bytes: &[u8]) {
        self.stats.files_scanned += 1;
        self.stats.bytes_scanned += bytes.len() as u64;
        *self.stats.languages.entry(lang.name()).or_default() += 1;
        // Each text test reads the file once, however many ask (the prefilter, the windows,
        // the facts' mentions).
        let text = lang.text(bytes);
        if self.prefilter && !text.may_match() {
            return;
        }
        let copy = match self.copies.find(lang, bytes) {
            Some(copy) => copy,
            None => {
                let mut bytes_parsed = 0;
                let Some(scanned) = self.scan_bytes(lang, &text, &mut bytes_parsed) else {
                    self.stats.bytes_parsed += bytes_parsed;
                    self.stats.files_scanned -= 1;
                    return self.skip_file(FileSkip::ParseTimeout);
                };
                self.copies.keep(lang, bytes, scanned)
            }
        };
        let scanned = &copy.scanned;
        self.stats.files_parsed += 1;
        self.stats.bytes_parsed += scanned.bytes_parsed;
        self.stats.files_parsed_in_part += usize::from(scanned.in_part);
        self.stats.files_with_syntax_errors += usize::from(scanned.syntax_error);
        if scanned.hits.is_empty() {
            return;
        }
        let file = self.display(path, relative);
        self.add_hits(
            &scanned.hits,
            &scanned.suppressions,
            bytes,
            &file,
            lang.name(),
        );
        self.with_findings.push(super::reach::WithFindings {
            file,
            path: path.canonicalize().unwrap_or_else(|_| path.to_path_buf()),
            facts: scanned.facts.clone(),
        });
    }

    /// Parses and scans one file's bytes (`bytes_parsed` counts what the parser was handed):
    /// the hits, the suppressions and, if a hit is not suppressed, the transport facts for
    /// `reach`. None if a parse timed out.
    fn scan_bytes(
        &mut self,
        lang: Lang,
        text: &Text<'_>,
        bytes_parsed: &mut u64,
    ) -> Option<Scanned> {
        let bytes = text.src;
        let (tree, window, hits) = self.parse_and_scan(lang, text, bytes_parsed)?;
        let suppressions = if hits.is_empty() {
            Suppressions::default()
        } else {
            Suppressions::of(&tree, bytes)
        };
        let reported = hits
            .iter()
            .any(|h| !suppressions.covers(h.code.as_str(), h.range.start_point.row));
        let facts = if self.transport_facts && reported {
            let writes: Vec<usize> = hits.iter().map(|h| h.range.start_byte).collect();
            self.facts(lang, text, &tree, &window, &writes)
        } else {
            None
        };
        Some(Scanned {
            syntax_error: tree.root_node().has_error(),
            in_part: !window.is_empty(),
            bytes_parsed: *bytes_parsed,
            hits,
            suppressions,
            facts,
        })
    }

    /// A file's bytes if the walking rules let it be scanned (its path, its size, its
    /// content); otherwise the reason is counted and `None` returned.
    fn admit(
        &mut self,
        path: &Path,
        relative: &str,
        lang: Option<Lang>,
        explicit: bool,
    ) -> Option<Vec<u8>> {
        if let Some(reason) = self.rules.file_path(relative, explicit) {
            self.skip_file(reason);
            return None;
        }
        let mut bytes = std::mem::take(&mut self.buffer);
        match read_bounded(path, self.rules.max_file_bytes, &mut bytes) {
            Ok(true) => {}
            Ok(false) => {
                self.buffer = bytes;
                self.skip_file(FileSkip::TooLarge);
                return None;
            }
            Err(_) => {
                self.buffer = bytes;
                self.skip_file(FileSkip::Unreadable);
                return None;
            }
        }
        if let Some(reason) = self.rules.file_content(lang, &bytes, explicit) {
            self.buffer = bytes;
            self.skip_file(reason);
            return None;
        }
        Some(bytes)
    }

    fn add_hits(
        &mut self,
        hits: &[Hit],
        suppressions: &Suppressions,
        src: &[u8],
        file: &str,
        language: &'static str,
    ) {
        for hit in hits {
            if let Some(prints) = &hit.prints {
                // Suppressed or not, the write prints what it prints.
                let at = location(src, hit.range, file);
                self.writes.push(crate::prints::PrintingWrite {
                    write: crate::finding::SourceWrite {
                        file: file.to_string(),
                        line: at.line.unwrap_or(1),
                        column: at.column.unwrap_or(1),
                        code: shown_code(&snippet(src, hit.range)),
                    },
                    prints: prints.clone(),
                });
            }
            if suppressions.covers(hit.code.as_str(), hit.range.start_point.row) {
                self.stats.suppressed += 1;
                continue;
            }
            let finding = to_finding(hit.clone(), src, file, language, self.severity);
            self.findings.push(finding);
        }
    }

    /// A logback, log4j2 or Spring Boot file: parsed as XML, YAML or .properties.
    fn config_file(&mut self, kind: ConfigKind, path: &Path, relative: &str, explicit: bool) {
        let Some(bytes) = self.admit(path, relative, None, explicit) else {
            return;
        };
        let file = self.display(path, relative);
        if kind.is_logging_config() {
            self.logging_configs.push(file.clone());
        }
        let decoded = String::from_utf8_lossy(&bytes);
        let text = decoded.strip_prefix('\u{feff}').unwrap_or(&decoded);
        let Some(scan) = config::scan(kind, text) else {
            return self.skip_file(FileSkip::Malformed);
        };
        self.stats.files_scanned += 1;
        self.stats.files_parsed += 1;
        self.stats.bytes_scanned += bytes.len() as u64;
        self.stats.bytes_parsed += bytes.len() as u64;
        *self.stats.languages.entry(kind.format()).or_default() += 1;
        let suppressions =
            Suppressions::from_comments(scan.comments.iter().map(|c| SourceComment {
                first_row: c.first_row,
                last_row: c.last_row,
                alone: c.alone,
                text: c.text.as_str(),
            }));
        let src = text.as_bytes();
        self.add_hits(&scan.hits, &suppressions, src, &file, kind.format());
        if !scan.spring.is_empty() {
            let settings = scan
                .spring
                .into_iter()
                .map(|setting| spring::Placed {
                    location: location(src, setting.range, &file),
                    evidence: snippet(src, setting.range),
                    setting,
                })
                .collect();
            self.spring_files.push(spring::SpringFile {
                file,
                format: kind.format(),
                settings,
                suppressions,
            });
        }
    }

    /// Parses only the parts of a large file worth parsing when that parses cleanly, else all;
    /// with the tree, the ranges it was parsed from (empty when it is the whole file's) and
    /// the hits the rules find in it.
    fn parse_and_scan(
        &mut self,
        lang: Lang,
        text: &Text<'_>,
        bytes_parsed: &mut u64,
    ) -> Option<(tree_sitter::Tree, Vec<tree_sitter::Range>, Vec<Hit>)> {
        let bytes = text.src;
        // Leaving blocks out is a text test too: without the prefilter, every file is parsed whole.
        let mut ranges = if self.prefilter {
            lang.parse_ranges(text)
        } else {
            None
        };
        // A clean parse of a narrower window: what the next parse can reuse.
        let mut earlier = None;
        // At most twice in part: once more if the first parse shows aliases used in left-out parts.
        for _ in 0..2 {
            let Some(window) = ranges.take().filter(|r| !r.is_empty()) else {
                break;
            };
            *bytes_parsed += window
                .iter()
                .map(|r| r.end_byte - r.start_byte)
                .sum::<usize>() as u64;
            match self.parse(lang, bytes, &window, earlier.as_ref()) {
                // A syntax error may come from a wrong cut (or the file): parse it whole.
                Some(tree) if !tree.root_node().has_error() => {
                    match lang.widen_or_scan(&tree, text, &window) {
                        Ok(hits) => return Some((tree, window, hits)),
                        Err(wider) => {
                            ranges = Some(wider);
                            earlier = Some(tree);
                        }
                    }
                }
                _ => break,
            }
        }
        *bytes_parsed += bytes.len() as u64;
        let tree = self.parse(lang, bytes, &[], earlier.as_ref())?;
        let hits = lang.scan(&tree, bytes);
        Some((tree, Vec::new(), hits))
    }

    fn parse(
        &mut self,
        lang: Lang,
        bytes: &[u8],
        ranges: &[tree_sitter::Range],
        earlier: Option<&tree_sitter::Tree>,
    ) -> Option<tree_sitter::Tree> {
        let parser = super::trees::parser_for(&mut self.parsers, lang)?;
        super::trees::parse_in(parser, bytes, ranges, earlier)
    }
}

/// Reads the file into `bytes` (emptied first); false if it is larger than `limit`.
fn read_bounded(path: &Path, limit: u64, bytes: &mut Vec<u8>) -> std::io::Result<bool> {
    bytes.clear();
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len > limit {
        return Ok(false);
    }
    // Room for the whole file and one byte more, so that the end is found in one read.
    bytes.reserve(len as usize + 1);
    file.take(limit + 1).read_to_end(bytes)?;
    Ok(bytes.len() as u64 <= limit)
}

/// 1-based line and column of a point, the column counted in Unicode scalar values.
fn position(src: &[u8], byte: usize, point: Point) -> (u64, u64) {
    let line_start = byte.saturating_sub(point.column);
    let prefix = &src[line_start.min(src.len())..byte.min(src.len())];
    let chars = prefix.iter().filter(|b| (**b & 0xC0) != 0x80).count();
    (point.row as u64 + 1, chars as u64 + 1)
}

/// Where `range` is in `file`, 1-based, columns in characters.
fn location(src: &[u8], range: tree_sitter::Range, file: &str) -> Location {
    let (line, column) = position(src, range.start_byte, range.start_point);
    let (end_line, end_column) = position(src, range.end_byte, range.end_point);
    Location {
        file: Some(file.to_string()),
        line: Some(line),
        column: Some(column),
        end_line: Some(end_line),
        end_column: Some(end_column),
        ..Location::default()
    }
}

fn snippet(src: &[u8], range: tree_sitter::Range) -> String {
    let start = range.start_byte.min(src.len());
    String::from_utf8_lossy(&src[start..range.end_byte.clamp(start, src.len())]).into_owned()
}

fn replacement(src: &[u8], edit: super::lang::Edit) -> Replacement {
    let (start_line, start_column) = position(src, edit.range.start_byte, edit.range.start_point);
    let (end_line, end_column) = position(src, edit.range.end_byte, edit.range.end_point);
    Replacement {
        description: edit.description,
        start_line,
        start_column,
        end_line,
        end_column,
        text: edit.text,
    }
}

/// A write's first line, bounded and escaped, as reports show it.
fn shown_code(text: &str) -> String {
    let first = text.lines().next().unwrap_or("").trim();
    let short = crate::finding::excerpt(first, 80);
    if first.len() < text.trim().len() && !short.ends_with('…') {
        format!("{short}…")
    } else {
        short
    }
}

fn to_finding(
    hit: Hit,
    src: &[u8],
    file: &str,
    language: &'static str,
    severity: Severity,
) -> Finding {
    let mut finding = Finding::new(hit.code, hit.message)
        .severity(severity)
        .at(location(src, hit.range, file))
        .evidence(&snippet(src, hit.range))
        .fix(hit.fix);
    finding.language = Some(language);
    if let Some(edit) = hit.import {
        finding.import = Some(replacement(src, edit));
    }
    if let Some(edit) = hit.edit {
        let (start_line, start_column) =
            position(src, edit.range.start_byte, edit.range.start_point);
        let (end_line, end_column) = position(src, edit.range.end_byte, edit.range.end_point);
        finding = finding.replacement(Replacement {
            description: edit.description,
            start_line,
            start_column,
            end_line,
            end_column,
            text: edit.text,
        });
    }
    finding
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let src = "é = 1; print(x)".as_bytes();
        let byte = src.len() - "print(x)".len();
        let point = Point {
            row: 0,
            column: byte,
        };
        assert_eq!(position(src, byte, point), (1, 8));
    }
}
