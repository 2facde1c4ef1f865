//! The proxy's outlets: the record log and its own stderr lines. Both are bounded and
//! asynchronous, so a slow disk or a stderr nobody reads drops lines (counted) instead of
//! stalling the checks or the session. Only the log copy is redacted; traffic is never
//! touched.

mod line;

use super::observer::{Batch, Body, Direction, RecordKind};
use crate::finding::excerpt;
use line::{write_record, Shared};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Items queued for a writer before new ones are dropped, by count and by weight in bytes.
const QUEUE: usize = 65_536;
const QUEUE_BYTES: usize = 8 * 1024 * 1024;

/// What an outlet writes: one line each, formatted on the writer's thread.
pub trait Line: Send + 'static {
    /// About how many bytes the item holds while queued.
    fn weight(&self) -> usize;
    /// How many lines it makes (what a drop counts).
    fn lines(&self) -> u64 {
        1
    }
    /// Appends its line(s), each ended by a newline.
    fn write(self, out: &mut Vec<u8>);
}

/// A batch goes through the queue as one item: one wake-up of the writer, not one a line.
impl<T: Line> Line for Vec<T> {
    fn weight(&self) -> usize {
        self.iter().map(Line::weight).sum()
    }

    fn lines(&self) -> u64 {
        self.len() as u64
    }

    fn write(self, out: &mut Vec<u8>) {
        for item in self {
            item.write(out);
        }
    }
}

/// A batch goes through the queue as one item: one wake-up of the writer, not one a record.
impl Line for Batch {
    /// What its records weigh, or at least what the batch holds: a chunk of one short record
    /// and a line too long to keep (not recorded) still holds the whole chunk.
    fn weight(&self) -> usize {
        let records: usize = self.records.iter().map(|r| 160 + r.size).sum();
        records.max(self.held())
    }

    fn lines(&self) -> u64 {
        self.records.len() as u64
    }

    fn write(mut self, out: &mut Vec<u8>) {
        let records = self.take_records();
        // Which raw lines can be copied as they came, decided for the whole batch at once.
        let texts: Vec<Option<&[u8]>> = records
            .iter()
            .map(|r| match r.body {
                Body::Raw(line) => Some(self.raw(line)),
                _ => None,
            })
            .collect();
        let screened: Vec<&[u8]> = texts.iter().flatten().copied().collect();
        let mut might_hold = crate::secrets::json_might_hold_credentials(&screened).into_iter();
        let shared = Shared::new(&self);
        for (record, text) in records.into_iter().zip(texts) {
            let clean = text.filter(|_| might_hold.next() == Some(false));
            write_record(record, &shared, clean, out);
            out.push(b'\n');
        }
    }
}

impl Line for String {
    fn weight(&self) -> usize {
        self.len()
    }

    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.as_bytes());
        out.push(b'\n');
    }
}

/// Compact stderr lines shown per second for one kind of message (direction, kind, method);
/// the rest are counted and summed up in one line, so a flood cannot fill a disk through
/// the proxy's stderr.
pub const COMPACT_LINES_PER_SECOND: u64 = 20;
/// Kinds of message metered apart; the rest share one meter.
const MAX_COMPACT_KINDS: usize = 1_000;

#[derive(Default)]
struct CompactWindow {
    start_ms: f64,
    shown: u64,
    held_back: u64,
}

/// The proxy's compact per-message lines on stderr, rate-limited per kind of message.
#[derive(Default)]
pub struct CompactLines {
    windows: std::collections::HashMap<(bool, RecordKind, String), CompactWindow>,
}

impl CompactLines {
    /// The lines to print for `records`: each record's compact line while its kind stays
    /// under the rate, and a "not shown" line for a kind whose second ended with lines held back.
    pub fn lines(&mut self, batch: &Batch) -> Vec<String> {
        let mut out = Vec::new();
        for r in &batch.records {
            let method = batch.method(r).map(|m| excerpt(m, 60)).unwrap_or_default();
            let mut key = (r.direction == Direction::ServerToClient, r.kind, method);
            if self.windows.len() >= MAX_COMPACT_KINDS && !self.windows.contains_key(&key) {
                key.2 = "(other methods)".to_string();
            }
            let window = self.windows.entry(key.clone()).or_insert(CompactWindow {
                start_ms: r.time_ms,
                ..CompactWindow::default()
            });
            if r.time_ms - window.start_ms >= 1000.0 {
                if window.held_back > 0 {
                    out.push(not_shown(&key, window.held_back));
                }
                *window = CompactWindow {
                    start_ms: r.time_ms,
                    ..CompactWindow::default()
                };
            }
            if window.shown < COMPACT_LINES_PER_SECOND {
                window.shown += 1;
                out.push(batch.compact(r));
            } else {
                window.held_back += 1;
            }
        }
        out
    }

    /// The "not shown" lines still pending, at the end of the session.
    pub fn finish(&mut self) -> Vec<String> {
        let mut pending: Vec<_> = self
            .windows
            .iter()
            .filter(|(_, w)| w.held_back > 0)
            .map(|(k, w)| (k.clone(), w.held_back))
            .collect();
        pending.sort();
        self.windows.clear();
        pending.iter().map(|(k, n)| not_shown(k, *n)).collect()
    }
}

fn not_shown(key: &(bool, RecordKind, String), held_back: u64) -> String {
    let arrow = if key.0 { "←" } else { "→" };
    let method = if key.2.is_empty() {
        String::new()
    } else {
        format!(" {}", key.2)
    };
    format!(
        "mcpcheck: {arrow} {}{method}: {} not shown (at most {COMPACT_LINES_PER_SECOND} a second of each kind; --log FILE records every message)",
        key.1,
        crate::finding::plural(held_back as usize, "more line")
    )
}

pub struct Outlet<T: Line> {
    sender: Mutex<Option<SyncSender<T>>>,
    queued: Arc<AtomicUsize>,
    dropped: Arc<AtomicU64>,
    done: Mutex<Receiver<()>>,
}

/// The record log, a file created with mode 0600; records go in batches.
pub type RecordLog = Outlet<Batch>;

impl RecordLog {
    /// The file is opened by the writer, so even an open that blocks (a FIFO with no
    /// reader) cannot stall anything. A symlink is never followed, even one put there
    /// since [`prepare_log_file`] looked.
    pub fn open(path: PathBuf) -> Self {
        Outlet::start(move || {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
                .open(&path)
                .ok()
        })
    }
}

/// Why the record log's path cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LogFileError {
    #[error("is a symlink; give the file itself (the log holds whole messages, and a link could put them anywhere)")]
    Symlink,
    #[error("cannot be inspected ({0})")]
    Inspect(std::io::Error),
    #[error("group or others can read it (mode {mode:04o}) and it cannot be made 0600 ({error}); give a file of your own")]
    Tighten { mode: u32, error: std::io::Error },
}

/// Checks the record log's path before the session: a symlink (dangling or not) is
/// refused, and an existing regular file that group or others can read is made 0600,
/// since it is about to hold whole messages. Returns the mode it had when it was changed.
pub fn prepare_log_file(path: &std::path::Path) -> Result<Option<u32>, LogFileError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(LogFileError::Inspect(e)),
    };
    if meta.file_type().is_symlink() {
        return Err(LogFileError::Symlink);
    }
    let mode = meta.permissions().mode() & 0o7777;
    // A FIFO or a device (/dev/null) is not a file to make private.
    if !meta.is_file() || mode & 0o077 == 0 {
        return Ok(None);
    }
    // Changed through the opened file, never through a path that could have become a link.
    let tighten = || -> std::io::Result<()> {
        let file = std::fs::OpenOptions::new()
            .append(true)
            .custom_flags((nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK).bits())
            .open(path)?;
        if file.metadata()?.is_file() {
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
        Ok(())
    };
    match tighten() {
        Ok(()) => Ok(Some(mode)),
        Err(e) if e.raw_os_error() == Some(nix::errno::Errno::ELOOP as i32) => {
            Err(LogFileError::Symlink)
        }
        Err(error) => Err(LogFileError::Tighten { mode, error }),
    }
}

impl Outlet<Vec<String>> {
    pub fn stderr() -> Self {
        Outlet::start(|| Some(std::io::stderr()))
    }
}

impl<T: Line> Outlet<T> {
    /// Starts the writer thread; `open` runs on it.
    pub fn start<W: Write>(open: impl FnOnce() -> Option<W> + Send + 'static) -> Self {
        let (sender, receiver) = sync_channel::<T>(QUEUE);
        let (done_tx, done) = sync_channel(1);
        let queued = Arc::new(AtomicUsize::new(0));
        let writer_queued = Arc::clone(&queued);
        std::thread::spawn(move || {
            write_all(open, receiver, &writer_queued);
            let _ = done_tx.send(());
        });
        Self {
            sender: Mutex::new(Some(sender)),
            queued,
            dropped: Arc::new(AtomicU64::new(0)),
            done: Mutex::new(done),
        }
    }

    /// Queues an item; if the writer is behind, it is dropped and counted. Formatting (and
    /// redaction) happens on the writer's thread, so a dropped item costs nothing.
    pub fn send(&self, item: T) {
        let weight = item.weight();
        let lines = item.lines();
        let sent = match self.sender.lock() {
            Ok(guard) => match guard.as_ref() {
                Some(sender) if self.queued.load(Ordering::Acquire) + weight <= QUEUE_BYTES => {
                    self.queued.fetch_add(weight, Ordering::AcqRel);
                    let ok = sender.try_send(item).is_ok();
                    if !ok {
                        self.queued.fetch_sub(weight, Ordering::AcqRel);
                    }
                    ok
                }
                _ => false,
            },
            Err(_) => false,
        };
        if !sent {
            self.dropped.fetch_add(lines, Ordering::Relaxed);
        }
    }

    /// Lets the writer drain for a moment; a writer still blocked is abandoned. Returns
    /// how many items were dropped.
    pub fn close(&self, wait: Duration) -> u64 {
        if let Ok(mut sender) = self.sender.lock() {
            *sender = None;
        }
        if let Ok(done) = self.done.lock() {
            let _ = done.recv_timeout(wait);
        }
        self.dropped.load(Ordering::Relaxed)
    }
}

fn write_all<T: Line, W: Write>(
    open: impl FnOnce() -> Option<W>,
    receiver: Receiver<T>,
    queued: &AtomicUsize,
) {
    let taken = |item: &T| {
        queued.fetch_sub(item.weight(), Ordering::AcqRel);
    };
    let Some(file) = open() else {
        // Nothing to write to: drain, counting nothing more as queued.
        for item in receiver {
            taken(&item);
        }
        return;
    };
    // One buffer, reused: a batch of records costs no allocation of its own.
    let mut file = file;
    let mut buf = Vec::with_capacity(64 * 1024);
    while let Ok(first) = receiver.recv() {
        taken(&first);
        first.write(&mut buf);
        while let Ok(next) = receiver.try_recv() {
            taken(&next);
            next.write(&mut buf);
            if buf.len() >= 64 * 1024 {
                let _ = file.write_all(&buf);
                buf.clear();
            }
        }
        let _ = file.write_all(&buf).and_then(|()| file.flush());
        buf.clear();
    }
    let _ = file.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch weighs at least what it holds, so the queue's bound in bytes bounds the
    /// chunks waiting in it however few records they carry.
    #[test]
    fn a_batch_weighs_at_least_the_chunk_it_holds() {
        let mut o = super::super::observer::Observer::new(Duration::from_secs(30));
        // Longer than the observer keeps (4 MiB): skipped, not recorded.
        let long = vec![b'x'; 5 * 1024 * 1024];
        let dir = Direction::ServerToClient;
        let t = std::time::Instant::now();
        o.feed(dir, t, &long);
        let mut chunk = b"\n{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n".to_vec();
        chunk.extend_from_slice(&[b'y'; 60_000]);
        let (batch, _) = o.feed(dir, t, &chunk);
        assert_eq!(batch.records.len(), 1);
        assert!(batch.weight() >= chunk.len(), "{}", batch.weight());
        let end = br#"{"jsonrpc":"2.0","method":"b"}"#;
        let (batch, _) = o.feed(dir, t, &[&end[..], b"\n"].concat());
        assert_eq!(batch.weight(), 160 + 60_000 + end.len());
    }

    #[test]
    fn the_log_file_is_made_private_and_never_a_symlink() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let mode = |p: &std::path::Path| {
            std::fs::symlink_metadata(p)
                .expect("meta")
                .permissions()
                .mode()
                & 0o777
        };
        let new = dir.path().join("new.jsonl");
        assert!(matches!(prepare_log_file(&new), Ok(None)));
        assert!(!new.exists(), "only the writer creates it");
        let loose = dir.path().join("loose.jsonl");
        std::fs::write(&loose, "x\n").expect("file");
        std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        assert!(matches!(prepare_log_file(&loose), Ok(Some(0o640))));
        assert_eq!(mode(&loose), 0o600);
        assert!(matches!(prepare_log_file(&loose), Ok(None)));
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&loose, &link).expect("symlink");
        assert!(matches!(
            prepare_log_file(&link),
            Err(LogFileError::Symlink)
        ));
        std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert!(matches!(
            prepare_log_file(&link),
            Err(LogFileError::Symlink)
        ));
        assert_eq!(mode(&loose), 0o644, "the target is left alone");
        // A device is no file to make private.
        assert!(matches!(
            prepare_log_file(std::path::Path::new("/dev/null")),
            Ok(None)
        ));
    }
}
