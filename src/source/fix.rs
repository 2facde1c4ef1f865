//! `source --fix` and `--diff`: the scan's safe rewrites applied to the files, byte-exact
//! outside the rewritten spans, each edited file parsed again and refused if the parse got
//! worse. A second run finds nothing left to rewrite, so it changes nothing.

use super::lang::Lang;
use super::SourceScan;
use crate::error::Error;
use crate::finding::{Finding, Replacement};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One file's rewrite: its bytes before and after.
#[derive(Debug, Clone)]
pub struct FileChange {
    /// The path as the scan was given it (root joined), forward slashes.
    pub file: String,
    pub path: PathBuf,
    pub before: Vec<u8>,
    pub after: Vec<u8>,
    /// Writes rewritten in this file.
    pub fixed: usize,
}

/// A write left as it is, and why.
#[derive(Debug, Clone)]
pub struct Unfixed {
    pub finding: Finding,
    pub reason: String,
}

/// What `--fix` would do.
#[derive(Debug, Clone, Default)]
pub struct FixPlan {
    pub changes: Vec<FileChange>,
    /// Findings with no mechanical rewrite: the manual fix is the reason.
    pub not_fixable: Vec<Unfixed>,
    /// Rewrites refused: the file could not be read, the edits overlapped, or the edited file
    /// no longer parsed as well.
    pub refused: Vec<Unfixed>,
}

impl FixPlan {
    pub fn fixed(&self) -> usize {
        self.changes.iter().map(|c| c.fixed).sum()
    }
}

/// The rewrites of every finding of `scan` that carries one (suppressed findings are not in
/// the scan, so they are never rewritten; notes, writes that never reach a stdio client, are
/// left as they are).
pub fn plan(scan: &SourceScan, roots: &[PathBuf]) -> FixPlan {
    let mut plan = FixPlan::default();
    let mut by_file: BTreeMap<String, Vec<Finding>> = BTreeMap::new();
    let findings = super::rooted(scan.findings.clone(), roots);
    for finding in findings
        .into_iter()
        .filter(|f| f.severity != crate::finding::Severity::Note)
    {
        match (&finding.replacement, &finding.location.file) {
            (Some(_), Some(file)) => by_file.entry(file.clone()).or_default().push(finding),
            _ => {
                let reason = finding
                    .fix
                    .clone()
                    .unwrap_or_else(|| "Rewrite it by hand to write to stderr.".into());
                plan.not_fixable.push(Unfixed { finding, reason });
            }
        }
    }
    for (file, findings) in by_file {
        rewrite_file(&file, findings, &mut plan);
    }
    plan
}

/// Writes every change of the plan to its file.
pub fn apply(plan: &FixPlan) -> Result<(), Error> {
    for change in &plan.changes {
        std::fs::write(&change.path, &change.after).map_err(|e| {
            Error::Output(format!(
                "{}: cannot write the fixed file: {e}; check that it is writable",
                change.file
            ))
        })?;
    }
    Ok(())
}

/// A byte range of the original file and the text that replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Splice {
    start: usize,
    end: usize,
    text: String,
}

fn rewrite_file(file: &str, findings: Vec<Finding>, plan: &mut FixPlan) {
    let path = PathBuf::from(file);
    let refuse = |plan: &mut FixPlan, findings: Vec<Finding>, reason: String| {
        plan.refused
            .extend(findings.into_iter().map(|finding| Unfixed {
                finding,
                reason: reason.clone(),
            }));
    };
    let before = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => return refuse(plan, findings, format!("cannot read {file}: {e}")),
    };
    let mut splices: Vec<Splice> = Vec::new();
    let mut fixed = 0;
    let mut kept = Vec::new();
    for finding in findings {
        let edits: Vec<Splice> = finding
            .replacement
            .iter()
            .chain(finding.import.iter())
            .filter_map(|r| splice(&before, r))
            .collect();
        let complete = edits.len() == 1 + usize::from(finding.import.is_some());
        // An identical import insertion is shared; any other overlap is refused.
        let fresh: Vec<Splice> = edits.into_iter().filter(|e| !splices.contains(e)).collect();
        let overlaps = fresh.iter().any(|e| splices.iter().any(|s| overlap(e, s)));
        if !complete || overlaps {
            let reason = if complete {
                "overlaps another rewrite in the same place; run --fix again".to_string()
            } else {
                "the rewrite does not fit the file as it is now; scan it again".to_string()
            };
            plan.refused.push(Unfixed { finding, reason });
            continue;
        }
        splices.extend(fresh);
        fixed += 1;
        kept.push(finding);
    }
    if fixed == 0 {
        return;
    }
    splices.sort_by_key(|s| (s.start, s.end));
    let mut after = Vec::with_capacity(before.len() + 64);
    let mut at = 0;
    for s in &splices {
        after.extend_from_slice(&before[at..s.start]);
        after.extend_from_slice(s.text.as_bytes());
        at = s.end;
    }
    after.extend_from_slice(&before[at..]);
    if let Some(lang) = Lang::of_path(&path) {
        let (was, now) = (error_nodes(lang, &before), error_nodes(lang, &after));
        if now > was {
            return refuse(
                plan,
                kept,
                format!("the rewritten file has a syntax error the original did not ({now} error nodes, was {was}); nothing in it was changed"),
            );
        }
    }
    plan.changes.push(FileChange {
        file: file.to_string(),
        path,
        before,
        after,
        fixed,
    });
}

fn overlap(a: &Splice, b: &Splice) -> bool {
    // Two insertions at one place, or an insertion inside a replaced span, also conflict.
    a.start < b.end && b.start < a.end
        || (a.start == b.start && (a.start == a.end || b.start == b.end))
}

/// A replacement's 1-based line and character columns as a byte range of `src`.
fn splice(src: &[u8], r: &Replacement) -> Option<Splice> {
    let start = byte_at(src, r.start_line, r.start_column)?;
    let end = byte_at(src, r.end_line, r.end_column)?;
    (start <= end).then(|| Splice {
        start,
        end,
        text: r.text.clone(),
    })
}

/// The byte offset of 1-based `line` and `column` (columns count characters).
fn byte_at(src: &[u8], line: u64, column: u64) -> Option<usize> {
    let mut offset = 0;
    for _ in 1..line {
        offset += memchr::memchr(b'\n', &src[offset..])? + 1;
    }
    let mut chars = 1;
    while chars < column {
        if offset >= src.len() || src[offset] == b'\n' {
            return None;
        }
        offset += 1;
        while offset < src.len() && (src[offset] & 0xC0) == 0x80 {
            offset += 1;
        }
        chars += 1;
    }
    Some(offset)
}

/// Error and missing nodes in a parse of `src`.
fn error_nodes(lang: Lang, src: &[u8]) -> usize {
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&lang.grammar()).is_err() {
        return 0;
    }
    let Some(tree) = parser.parse(src, None) else {
        return usize::MAX;
    };
    let mut count = 0;
    super::lang::syntax_preorder(tree.root_node(), |n| {
        count += usize::from(n.is_error() || n.is_missing());
    });
    count
}

/// A unified diff of every change, `a/` and `b/` prefixed, three lines of context.
pub fn unified_diff(plan: &FixPlan) -> String {
    let mut out = String::new();
    for change in &plan.changes {
        let before = String::from_utf8_lossy(&change.before);
        let after = String::from_utf8_lossy(&change.after);
        let diff = similar::TextDiff::from_lines(before.as_ref(), after.as_ref());
        let name = change.file.trim_start_matches("./");
        out.push_str(
            &diff
                .unified_diff()
                .context_radius(3)
                .header(&format!("a/{name}"), &format!("b/{name}"))
                .to_string(),
        );
    }
    out
}

/// The path `file` names, for messages.
pub fn display(path: &Path) -> String {
    super::walk::slashed(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_character_columns_become_byte_offsets() {
        let src = "ab\r\né = print(x)\n".as_bytes();
        assert_eq!(byte_at(src, 1, 1), Some(0));
        assert_eq!(byte_at(src, 2, 1), Some(4));
        // `p` is the fifth character of line 2, after the two-byte é.
        assert_eq!(byte_at(src, 2, 5), Some(9));
        assert_eq!(byte_at(src, 2, 99), None);
        assert_eq!(byte_at(src, 9, 1), None);
    }

    fn rewrite(text: &str, start_column: u64, end_column: u64) -> Finding {
        Finding::new(crate::catalog::Code::StaticStdoutWrite, "a write").replacement(Replacement {
            description: "test".into(),
            start_line: 1,
            start_column,
            end_line: 1,
            end_column,
            text: text.into(),
        })
    }

    #[test]
    fn an_edit_that_breaks_the_parse_is_refused_and_the_file_left_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("server.js");
        std::fs::write(&path, "console.log(1);\n").expect("write");
        let file = path.to_string_lossy().into_owned();
        let mut plan = FixPlan::default();
        rewrite_file(&file, vec![rewrite("error((", 9, 13)], &mut plan);
        assert!(plan.changes.is_empty());
        assert_eq!(plan.refused.len(), 1);
        assert!(
            plan.refused[0].reason.contains("syntax error"),
            "{:?}",
            plan.refused
        );
        // The same place rewritten well is applied; an overlapping second edit is refused.
        let mut plan = FixPlan::default();
        rewrite_file(
            &file,
            vec![rewrite("error", 9, 12), rewrite("warn", 10, 12)],
            &mut plan,
        );
        assert_eq!(plan.fixed(), 1);
        assert_eq!(plan.changes[0].after, b"console.error(1);\n");
        assert!(plan.refused[0].reason.contains("overlaps"));
    }

    #[test]
    fn insertions_at_one_place_conflict_and_neighbours_do_not() {
        let s = |start, end| Splice {
            start,
            end,
            text: String::new(),
        };
        assert!(overlap(&s(3, 3), &s(3, 5)));
        assert!(overlap(&s(2, 6), &s(3, 5)));
        assert!(!overlap(&s(0, 3), &s(3, 5)));
        assert!(!overlap(&s(5, 5), &s(3, 5)));
    }
}
