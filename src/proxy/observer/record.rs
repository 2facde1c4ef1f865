//! What the observer hands the outlets: a record per message, in batches that keep the
//! records' lines where they came (the chunk of traffic) and one reference to each method
//! name they carry.

use super::{Direction, RecordKind};
use crate::finding::excerpt;
use crate::protocol::jsonrpc::RequestId;
use serde_json::Value;
use std::sync::Arc;

/// One observed message, for the log and the stderr line; its line and its method are
/// kept by its [`Batch`].
pub struct Record {
    /// Milliseconds since the session started, when the message was read.
    pub time_ms: f64,
    pub direction: Direction,
    pub kind: RecordKind,
    /// The method's place among its batch's names.
    pub(super) method: Option<u32>,
    pub id: Option<RequestId>,
    pub size: usize,
    pub latency_ms: Option<f64>,
    pub body: Body,
}

/// The message itself, as the log shows it.
pub enum Body {
    /// Not a JSON value (shown as null).
    None,
    /// The line as it came, known to be one valid JSON value.
    Raw(RawLine),
    /// One message of a batch.
    Value(Value),
}

/// Where a line's bytes are in its batch: `start..end` of the chunk (`source` 0) or of the
/// batch's own copy `source - 1` (a line that came in several chunks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawLine {
    source: usize,
    start: usize,
    end: usize,
}

impl RawLine {
    /// `start..end` of the chunk.
    pub(super) fn in_chunk(start: usize, end: usize) -> Self {
        RawLine {
            source: 0,
            start,
            end,
        }
    }

    /// The whole of the batch's own line `index`, `len` bytes long.
    pub(super) fn own(index: usize, len: usize) -> Self {
        RawLine {
            source: index + 1,
            start: 0,
            end: len,
        }
    }

    /// The line's bytes, in `chunk` or in `own`.
    pub(super) fn bytes<'a>(self, chunk: &'a [u8], own: &'a [Vec<u8>]) -> &'a [u8] {
        let source = match self.source {
            0 => Some(chunk),
            n => own.get(n - 1).map(Vec::as_slice),
        };
        source
            .and_then(|bytes| bytes.get(self.start..self.end))
            .unwrap_or_default()
    }

    /// The same line less its last byte (a carriage return).
    pub(super) fn trimmed(self) -> Self {
        RawLine {
            end: self.end.saturating_sub(1).max(self.start),
            ..self
        }
    }
}

/// The records of one chunk of traffic and what they share: the chunk their lines came in
/// and one reference to each method name they carry. A record holds neither a copy of its
/// line nor a reference of its own to its name, so the log writer, on its own thread,
/// frees one chunk a batch instead of a line a record, and touches each name's shared count
/// once a batch instead of once a record.
#[derive(Default)]
pub struct Batch {
    chunk: Vec<u8>,
    /// Lines that came in several chunks, copied whole.
    own: Vec<Vec<u8>>,
    names: Vec<Arc<str>>,
    pub records: Vec<Record>,
}

/// How many of a batch's latest names are compared with a record's before one is added.
const NAMES_LOOKED_BACK: usize = 8;

impl Batch {
    /// An empty batch with room for `records`.
    pub(super) fn with_capacity(records: usize) -> Self {
        Batch {
            records: Vec::with_capacity(records),
            ..Batch::default()
        }
    }

    /// Keeps what the records' lines are in: the chunk and the lines copied whole.
    pub(super) fn keep(&mut self, chunk: Vec<u8>, own: Vec<Vec<u8>>) {
        self.chunk = chunk;
        self.own = own;
    }

    /// Bytes the batch holds besides its records: the chunk and the lines copied whole.
    pub fn held(&self) -> usize {
        self.chunk.len() + self.own.iter().map(Vec::len).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Adds a record carrying `method` (one of the observer's shared names).
    #[cfg(test)]
    fn push(&mut self, mut record: Record, method: Option<&Arc<str>>) {
        record.method = method.map(|name| self.name_index(name));
        self.records.push(record);
    }

    /// `name`'s place among the batch's names, added if it is not among the latest.
    pub(super) fn name_index(&mut self, name: &Arc<str>) -> u32 {
        let looked_back = self.names.len().saturating_sub(NAMES_LOOKED_BACK);
        let found = self.names[looked_back..]
            .iter()
            .rposition(|n| Arc::ptr_eq(n, name))
            .map(|i| looked_back + i);
        let index = found.unwrap_or_else(|| {
            self.names.push(Arc::clone(name));
            self.names.len() - 1
        });
        index as u32
    }

    /// A record's method.
    pub fn method(&self, record: &Record) -> Option<&str> {
        record
            .method
            .and_then(|i| self.names.get(i as usize))
            .map(|name| &**name)
    }

    /// The names the batch's records carry.
    pub fn names(&self) -> &[Arc<str>] {
        &self.names
    }

    /// A record's method's place among [`Batch::names`].
    pub fn name_of(&self, record: &Record) -> Option<usize> {
        record.method.map(|i| i as usize)
    }

    /// A raw line's bytes.
    pub fn raw(&self, line: RawLine) -> &[u8] {
        line.bytes(&self.chunk, &self.own)
    }

    /// Takes the records out, leaving what they refer to.
    pub fn take_records(&mut self) -> Vec<Record> {
        std::mem::take(&mut self.records)
    }

    /// A record's compact line for stderr.
    pub fn compact(&self, record: &Record) -> String {
        record.compact(self.method(record))
    }

    /// One record, its line (for a raw body) and method its batch's own (tests).
    #[cfg(test)]
    pub fn single(mut record: Record, method: Option<&str>, line: &[u8]) -> Self {
        if let Body::Raw(raw) = &mut record.body {
            *raw = RawLine::in_chunk(0, line.len());
        }
        let mut batch = Batch {
            chunk: line.to_vec(),
            ..Batch::default()
        };
        let name = method.map(Arc::<str>::from);
        batch.push(record, name.as_ref());
        batch
    }
}

impl Record {
    /// A record for [`Batch::single`] (tests).
    #[cfg(test)]
    pub fn for_test(kind: RecordKind, id: Option<RequestId>, raw: bool) -> Self {
        Record {
            time_ms: 12.3456,
            direction: Direction::ServerToClient,
            kind,
            method: None,
            id,
            size: 90,
            latency_ms: Some(1.5),
            body: if raw {
                Body::Raw(RawLine::in_chunk(0, 0))
            } else {
                Body::None
            },
        }
    }

    /// The one-line form for stderr, built only when it is printed.
    fn compact(&self, method: Option<&str>) -> String {
        let arrow = match self.direction {
            Direction::ClientToServer => "→",
            Direction::ServerToClient => "←",
        };
        format!(
            "mcpcheck: {arrow} {}{}{} {}B{}",
            self.kind,
            method
                .map(|m| format!(" {}", excerpt(m, 60)))
                .unwrap_or_default(),
            match &self.id {
                None => String::new(),
                Some(RequestId::Number(n)) => format!(" #{}", excerpt(&n.to_string(), 40)),
                Some(RequestId::String(id)) => format!(" #{}", excerpt(id, 40)),
            },
            self.size,
            self.latency_ms
                .map(|l| format!(" {l:.1}ms"))
                .unwrap_or_default(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::log::Line;
    use super::super::Observer;
    use super::*;
    use std::time::Duration;

    /// Lines of each kind a record keeps: clean and credential-holding messages, a CR, a
    /// batch, an error, an invalid line, a line longer than the chunks it is cut into.
    fn session() -> String {
        let long = "x".repeat(300);
        [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#.to_string(),
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"apiKey":"sk-abcdefabcdefabcdef123456"}}"#.to_string(),
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r".to_string(),
            r#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":"b","method":"b"}]"#.to_string(),
            r#"{"jsonrpc":"2.0","id":9,"error":{"code":1,"message":"m"}}"#.to_string(),
            "not json".to_string(),
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"x/{long}","params":{{"text":"{long}"}}}}"#),
            r#"{ "jsonrpc": "2.0", "id": 4, "result": {} }"#.to_string(),
        ]
        .map(|line| line + "\n")
        .concat()
    }

    /// The log text and the findings of `text` fed in the given pieces, both directions.
    fn logged(pieces: &[&[u8]]) -> (String, Vec<String>) {
        let mut o = Observer::new(Duration::from_secs(30));
        // Every run reads its traffic at its start: the same times.
        let t = o.started;
        let mut log = Vec::new();
        let mut findings = Vec::new();
        for dir in [Direction::ClientToServer, Direction::ServerToClient] {
            for piece in pieces {
                let (batch, found) = o.feed(dir, t, piece);
                batch.write(&mut log);
                findings.extend(found.iter().map(|f| format!("{f:?}")));
            }
        }
        (String::from_utf8(log).expect("utf-8"), findings)
    }

    /// A record's line and method are the same whether its line came whole in one chunk (kept
    /// in place) or cut across chunks (copied whole): the log writes the same text.
    #[test]
    fn records_are_the_same_however_the_traffic_is_cut_into_chunks() {
        let text = session();
        let bytes = text.as_bytes();
        let whole = logged(&[bytes]);
        assert_eq!(str::lines(&whole.0).count(), 18, "{}", whole.0);
        assert!(whole.0.contains("[REDACTED]") && !whole.0.contains("sk-abcdef"));
        for cut in 1..bytes.len() {
            let (a, b) = bytes.split_at(cut);
            assert_eq!(logged(&[a, b]), whole, "cut at {cut}");
        }
        let single_bytes: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(logged(&single_bytes), whole);
    }

    /// A batch keeps one reference to each name however its records interleave them.
    #[test]
    fn a_batch_names_each_record_its_own_method() {
        let names: Vec<Arc<str>> = (0..20).map(|i| Arc::from(format!("m/{i}"))).collect();
        let mut batch = Batch::default();
        let mut expected = Vec::new();
        for i in 0..400usize {
            let name = (i % 3 != 0).then(|| &names[(i * 7 + i / 5) % names.len()]);
            batch.push(Record::for_test(RecordKind::Request, None, false), name);
            expected.push(name.map(|n| n.to_string()));
        }
        let got: Vec<Option<String>> = batch
            .records
            .iter()
            .map(|r| batch.method(r).map(str::to_string))
            .collect();
        assert_eq!(got, expected);
        assert!(batch.names.len() < 400);
    }
}
