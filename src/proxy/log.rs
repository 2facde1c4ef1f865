//! The proxy's record log: bounded and asynchronous, so a slow disk drops records (counted)
//! instead of stalling the session. Only the log copy is redacted; traffic is never touched.

use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::Duration;

/// Records queued for the writer before new ones are dropped.
const QUEUE: usize = 4096;

pub struct RecordLog {
    sender: std::sync::Mutex<Option<SyncSender<Value>>>,
    dropped: Arc<AtomicU64>,
    done: std::sync::Mutex<Receiver<()>>,
}

impl RecordLog {
    /// Starts the writer thread. The file is opened (mode 0600) by the writer, so even an
    /// open that blocks (a FIFO with no reader) cannot stall the session.
    pub fn start(path: PathBuf) -> Self {
        let (sender, receiver) = sync_channel::<Value>(QUEUE);
        let (done_tx, done) = sync_channel(1);
        let dropped = Arc::new(AtomicU64::new(0));
        std::thread::spawn(move || {
            write_all(path, receiver);
            let _ = done_tx.send(());
        });
        Self {
            sender: std::sync::Mutex::new(Some(sender)),
            dropped,
            done: std::sync::Mutex::new(done),
        }
    }

    /// Queues a record; if the writer is behind, the record is dropped and counted.
    /// Redaction happens on the writer's thread, so a dropped record costs nothing.
    pub fn record(&self, record: Value) {
        let Ok(guard) = self.sender.lock() else {
            return;
        };
        let sent = match guard.as_ref() {
            Some(sender) => !matches!(
                sender.try_send(record),
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_))
            ),
            None => false,
        };
        if !sent {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Lets the writer drain for a moment; a writer still blocked is abandoned.
    pub fn close(&self, wait: Duration) -> u64 {
        if let Ok(mut sender) = self.sender.lock() {
            *sender = None;
        }
        if let Ok(done) = self.done.lock() {
            let _ = done.recv_timeout(wait);
        }
        self.dropped()
    }
}

fn write_all(path: PathBuf, receiver: Receiver<Value>) {
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&path)
    else {
        // Nothing to write to: drain so senders see a full queue, not a hang.
        for _ in receiver {}
        return;
    };
    let mut out = std::io::BufWriter::new(file);
    loop {
        let Ok(mut first) = receiver.recv() else {
            break;
        };
        redact(&mut first);
        let _ = writeln!(out, "{first}");
        while let Ok(mut next) = receiver.try_recv() {
            redact(&mut next);
            let _ = writeln!(out, "{next}");
        }
        let _ = out.flush();
    }
    let _ = out.flush();
}

/// Masks values under credential-named keys and provider tokens anywhere in a record.
pub fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if crate::secrets::might_name_credential(key) && !v.is_object() && !v.is_array() {
                    *v = Value::String("[REDACTED]".into());
                } else {
                    redact(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        Value::String(s) => *s = crate::secrets::mask_tokens(s),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn redacts_credential_keys_and_tokens_anywhere() {
        let mut v = json!({"params": {"arguments": {"apiKey": "abc123", "query": "use ghp_0123456789abcdefghijABCDEFGHIJ0123 now",
            "headers": {"Authorization": "Bearer x"}, "n": 5}}});
        redact(&mut v);
        assert_eq!(v["params"]["arguments"]["apiKey"], "[REDACTED]");
        assert_eq!(
            v["params"]["arguments"]["headers"]["Authorization"],
            "[REDACTED]"
        );
        assert_eq!(v["params"]["arguments"]["query"], "use [REDACTED] now");
        assert_eq!(v["params"]["arguments"]["n"], 5);
    }
}
