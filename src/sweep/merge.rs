//! Merges results files (shards, resumed runs) into one set of lines, one per id, the
//! newest winning: what `sweep-report` and the sweep's closing summary read.

use super::results::{self, ResultLine};
use crate::error::Error;
use std::collections::HashMap;
use std::path::PathBuf;

/// One line that survived the merge, with the file it came from.
#[derive(Debug, Clone)]
pub struct MergedLine {
    pub result: ResultLine,
    pub file: String,
}

#[derive(Debug, Clone)]
pub struct InputFile {
    pub path: String,
    pub lines: Vec<ResultLine>,
    pub unreadable: usize,
}

#[derive(Debug, Clone, Default)]
pub struct Merged {
    /// In first-seen order of their ids.
    pub lines: Vec<MergedLine>,
    pub inputs: Vec<InputFile>,
    /// Lines replaced by a newer line with the same id.
    pub duplicates: usize,
}

/// Every server's findings, each named after its server, for the SARIF renderer.
pub fn findings_of(merged: &Merged) -> Vec<crate::finding::Finding> {
    use crate::finding::{excerpt, Finding, Severity};
    let mut out = Vec::new();
    for line in &merged.lines {
        let id = excerpt(line.result.id(), 128);
        for issue in line.result.verdict.issues() {
            let Some(code) = crate::catalog::Code::from_name(&issue.code) else {
                continue;
            };
            let severity = match issue.severity.as_str() {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                _ => Severity::Note,
            };
            let message = excerpt(&issue.message, 1000);
            let mut f = Finding::new(code, format!("{id}: {message}")).severity(severity);
            f.location.logical = Some(format!("servers/{id}"));
            out.push(f);
        }
    }
    out
}

pub fn merge(paths: &[PathBuf]) -> Result<Merged, Error> {
    let mut merged = Merged::default();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for path in paths {
        let file = results::read(path)?;
        let shown = path.display().to_string();
        for line in &file.lines {
            let id = line.id();
            let candidate = MergedLine {
                result: line.clone(),
                file: shown.clone(),
            };
            match by_id.get(id) {
                None => {
                    by_id.insert(id.to_string(), merged.lines.len());
                    merged.lines.push(candidate);
                }
                Some(&at) => {
                    merged.duplicates += 1;
                    // Newest wins (RFC 3339 UTC strings of one fixed format compare in time
                    // order); on a tie, the later file or line.
                    if candidate.result.fields.started_at
                        >= merged.lines[at].result.fields.started_at
                    {
                        merged.lines[at] = candidate;
                    }
                }
            }
        }
        merged.inputs.push(InputFile {
            path: shown,
            lines: file.lines,
            unreadable: file.unreadable,
        });
    }
    Ok(merged)
}

/// Milliseconds since the epoch of a `startedAt` written by the sweep
/// (`YYYY-MM-DDTHH:MM:SS.mmmZ`).
pub fn parse_rfc3339_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 24 || b[4] != b'-' || b[10] != b'T' || b[19] != b'.' || b[23] != b'Z' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss, ms) = (num(11..13)?, num(14..16)?, num(17..19)?, num(20..23)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + hh * 3600 + mm * 60 + ss) * 1000) + ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::results::rfc3339;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn startedat_round_trips() {
        for ms in [0u64, 951_782_400_005, 1_709_251_199_999, 4_107_542_400_000] {
            let text = rfc3339(UNIX_EPOCH + Duration::from_millis(ms));
            assert_eq!(parse_rfc3339_ms(&text), Some(ms as i64), "{text}");
        }
        assert_eq!(parse_rfc3339_ms("2026-13-01T00:00:00.000Z"), None);
        assert_eq!(parse_rfc3339_ms("yesterday"), None);
    }

    #[test]
    fn the_newest_line_of_an_id_wins() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = dir.path().join("a.jsonl");
        let b = dir.path().join("b.jsonl");
        let line = |id: &str, status: &str, day: u8| {
            serde_json::json!({
                "id": id, "status": status, "startedAt": format!("2026-01-0{day}T00:00:00.000Z"),
                "wallMs": 1, "summary": {"issueClass": "", "primaryIssueCode": "",
                "issueCounts": {"error": 0, "warning": 0}}, "issues": [], "command": ["s"],
                "serverInfo": null,
            })
        };
        let text = |lines: &[serde_json::Value]| {
            lines.iter().map(|l| format!("{l}\n")).collect::<String>()
        };
        std::fs::write(&a, text(&[line("x", "fail", 2), line("y", "pass", 1)])).expect("a");
        let b_lines = text(&[line("x", "pass", 1), line("y", "warning", 3)]);
        std::fs::write(&b, format!("{b_lines}{{broken\n")).expect("b");
        let m = merge(&[a, b]).expect("merge");
        let got: Vec<(&str, &str, usize)> = m
            .lines
            .iter()
            .map(|l| {
                (
                    l.result.id(),
                    l.result.fields.status.as_str(),
                    l.result.line,
                )
            })
            .collect();
        assert_eq!(got, [("x", "fail", 1), ("y", "warning", 2)]);
        assert_eq!(m.duplicates, 2);
        assert_eq!(m.inputs[1].unreadable, 1);
    }
}
