//! The results file: JSON Lines, one line per server, each written whole, flushed and
//! fsynced before the next, so a sweep killed at any moment keeps every finished server.

use super::line::Line;
use super::line_verdict::LineVerdict;
use crate::error::Error;
use serde_json::Value;
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Longest line read back; a guard result is a few tens of kilobytes.
const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

pub struct ResultsWriter {
    file: File,
    path: PathBuf,
}

impl ResultsWriter {
    /// A new results file; refuses to overwrite one that has lines unless resuming.
    pub fn create(path: &Path) -> Result<Self, Error> {
        let shown = path.display();
        if std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
            return Err(Error::Usage(format!(
                "--out {shown} already has results; add --resume to continue that sweep, or choose a new file"
            )));
        }
        let file = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .open(path)
            .map_err(|e| open_error(path, &e))?;
        sync_parent(path);
        Ok(Self {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Opens an existing results file to append to, dropping a line cut short by a kill,
    /// and returns the ids it already holds.
    pub fn resume(path: &Path) -> Result<(Self, HashSet<String>), Error> {
        if !path.exists() {
            return Ok((Self::create(path)?, HashSet::new()));
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| open_error(path, &e))?;
        let complete = complete_length(&mut file).map_err(|e| open_error(path, &e))?;
        file.set_len(complete).map_err(|e| open_error(path, &e))?;
        file.seek(SeekFrom::End(0))
            .map_err(|e| open_error(path, &e))?;
        let ids = read(path)?
            .lines
            .iter()
            .map(|l| l.id().to_string())
            .collect();
        Ok((
            Self {
                file,
                path: path.to_path_buf(),
            },
            ids,
        ))
    }

    /// Writes one line and makes it durable before returning.
    pub fn append(&mut self, line: &Value) -> Result<(), Error> {
        let mut text = serde_json::to_string(line)
            .map_err(|e| Error::System(format!("cannot serialise a result line: {e}")))?;
        text.push('\n');
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush())
            .and_then(|()| self.file.sync_data())
            .map_err(|e| {
                Error::Output(format!(
                    "--out {}: cannot write ({e}); the lines before this one are safe, rerun with --resume",
                    self.path.display()
                ))
            })
    }
}

/// Bytes up to and including the last newline: a line without one was cut short.
fn complete_length(file: &mut File) -> std::io::Result<u64> {
    let len = file.metadata()?.len();
    let mut pos = len;
    let mut buf = [0u8; 4096];
    while pos > 0 {
        let start = pos.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(pos - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(chunk)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        pos = start;
    }
    Ok(0)
}

/// So the new file's directory entry survives a crash too.
fn sync_parent(path: &Path) {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

fn open_error(path: &Path, e: &std::io::Error) -> Error {
    Error::Output(format!(
        "--out {}: cannot open it ({e}); check the directory exists and is writable",
        path.display()
    ))
}

/// One line of a results file, read back typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultLine {
    /// The sweep's own fields.
    pub fields: Line,
    /// What follows them, as far as a report of the sweep reads it.
    pub verdict: LineVerdict,
    /// 1-based line number in its file.
    pub line: usize,
}

impl ResultLine {
    /// Line `line` of a results file; an error when it is not a whole result line.
    pub fn parse(json: &[u8], line: usize) -> serde_json::Result<Self> {
        let fields: Line = serde_json::from_slice(json)?;
        let verdict = LineVerdict::read(fields.status, json)?;
        Ok(Self {
            fields,
            verdict,
            line,
        })
    }

    pub fn id(&self) -> &str {
        &self.fields.id
    }
}

#[derive(Debug, Clone, Default)]
pub struct ResultsFile {
    pub lines: Vec<ResultLine>,
    /// Lines that are not a whole result line (one cut short by a kill, or not written by
    /// `mcpcheck sweep`).
    pub unreadable: usize,
}

pub fn read(path: &Path) -> Result<ResultsFile, Error> {
    let file = File::open(path).map_err(|e| {
        Error::Input(format!(
            "results {}: cannot read it ({e}); give a file written by `mcpcheck sweep --out`",
            path.display()
        ))
    })?;
    let mut out = ResultsFile::default();
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        buf.clear();
        let n = (&mut reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| Error::Input(format!("results {}: read error ({e})", path.display())))?;
        if n == 0 {
            break;
        }
        number += 1;
        if n > MAX_LINE_BYTES {
            // Skip the rest of an oversized line.
            out.unreadable += 1;
            let mut sink = Vec::new();
            let _ = reader.read_until(b'\n', &mut sink);
            continue;
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match ResultLine::parse(&buf, number) {
            Ok(line) => out.lines.push(line),
            Err(_) => out.unreadable += 1,
        }
    }
    Ok(out)
}

/// RFC 3339 UTC with milliseconds, such as `2026-01-31T09:05:00.250Z`.
pub fn rfc3339(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn rfc3339_dates_are_right_across_leap_years_and_centuries() {
        let at = |s: u64, ms: u64| rfc3339(UNIX_EPOCH + Duration::from_millis(s * 1000 + ms));
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(at(1_709_251_199, 999), "2024-02-29T23:59:59.999Z");
        assert_eq!(at(4_107_542_400, 0), "2100-03-01T00:00:00.000Z");
    }

    #[test]
    fn resume_drops_a_cut_line_and_keeps_the_whole_ones() {
        use crate::sweep::line::NotJudged;
        use std::time::Instant;
        let line = |id: &str| {
            Line::not_judged(id, NotJudged::NotAsked, UNIX_EPOCH, Instant::now())
                .reason("not this transport")
                .with(Value::Null)
                .json
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("r.jsonl");
        let mut w = ResultsWriter::create(&path).expect("create");
        w.append(&line("a")).expect("a");
        w.append(&line("b")).expect("b");
        drop(w);
        let mut f = OpenOptions::new().append(true).open(&path).expect("open");
        f.write_all(b"{\"id\": \"c\", \"sta").expect("cut");
        drop(f);
        assert!(ResultsWriter::create(&path).is_err(), "must not overwrite");
        let (mut w, ids) = ResultsWriter::resume(&path).expect("resume");
        assert_eq!(ids, HashSet::from(["a".to_string(), "b".to_string()]));
        w.append(&line("c")).expect("c");
        let text = std::fs::read_to_string(&path).expect("read");
        let want: String = ["a", "b", "c"].map(|id| format!("{}\n", line(id))).concat();
        assert_eq!(text, want);
        let back = read(&path).expect("read back");
        assert_eq!(
            back.lines
                .iter()
                .map(|l| (l.id(), l.line))
                .collect::<Vec<_>>(),
            [("a", 1), ("b", 2), ("c", 3)]
        );
        assert_eq!(back.unreadable, 0);
    }
}
