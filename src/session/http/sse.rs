//! A bounded reader of `text/event-stream` bodies: events with their `data` joined, and
//! every line that is not `field: value` of a known field noted as malformed.

use std::io::{BufRead, ErrorKind};

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, when one was given.
    pub event: Option<String>,
    pub data: Vec<u8>,
}

/// What went wrong while reading the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseProblem {
    /// A line that is neither a comment nor `data`, `event`, `id` or `retry`.
    MalformedLine(String),
    /// An event or line larger than the limit: the stream was abandoned there.
    TooLarge { limit: usize },
    /// The stream could not be read to its end (a timeout, a reset, the body limit).
    ReadFailed(String),
}

/// Reads events one at a time, holding at most one event's worth of bytes.
pub struct SseReader<R> {
    input: R,
    max_event_bytes: usize,
    pub problems: Vec<SseProblem>,
    pub done: bool,
    /// The last `id:` seen (the SSE last event ID a client would resume from).
    pub last_id: Option<String>,
    /// The last valid `retry:` (milliseconds).
    pub retry_ms: Option<u64>,
}

impl<R: BufRead> SseReader<R> {
    pub fn new(input: R, max_event_bytes: usize) -> Self {
        Self {
            input,
            max_event_bytes,
            problems: Vec::new(),
            done: false,
            last_id: None,
            retry_ms: None,
        }
    }

    /// The next event with data, or `None` at the end of the stream (or after a problem
    /// that makes the rest unreadable).
    pub fn next_event(&mut self) -> Option<SseEvent> {
        let mut data: Option<Vec<u8>> = None;
        let mut event = None;
        while !self.done {
            let Some(line) = self.read_line() else {
                self.done = true;
                break;
            };
            if line.is_empty() {
                // An event without data (a priming event with only an id) is not dispatched.
                match data.take().filter(|d| !d.is_empty()) {
                    Some(d) => return Some(SseEvent { event, data: d }),
                    None => {
                        event = None;
                        continue;
                    }
                }
            }
            if line.starts_with(b":") {
                continue;
            }
            let (field, value) = match line.iter().position(|&b| b == b':') {
                Some(i) => {
                    let v = &line[i + 1..];
                    (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
                }
                None => (&line[..], &b""[..]),
            };
            match field {
                b"data" => {
                    let d = data.get_or_insert_with(Vec::new);
                    if !d.is_empty() {
                        d.push(b'\n');
                    }
                    d.extend_from_slice(value);
                    if d.len() > self.max_event_bytes {
                        self.problems.push(SseProblem::TooLarge {
                            limit: self.max_event_bytes,
                        });
                        self.done = true;
                        return None;
                    }
                }
                b"event" => event = Some(String::from_utf8_lossy(value).into_owned()),
                // As the SSE spec says: an id with NUL and a retry not all digits are ignored.
                b"id" if !value.contains(&0) => {
                    self.last_id = Some(String::from_utf8_lossy(value).into_owned());
                }
                b"id" => {}
                b"retry" => {
                    if !value.is_empty() && value.iter().all(u8::is_ascii_digit) {
                        self.retry_ms =
                            std::str::from_utf8(value).ok().and_then(|v| v.parse().ok());
                    }
                }
                _ => self.problems.push(SseProblem::MalformedLine(
                    String::from_utf8_lossy(&line).into_owned(),
                )),
            }
        }
        // An event without its closing blank line is discarded, as the SSE spec says.
        None
    }

    /// One line without its terminator (`\n`, `\r\n`); `None` at the end or on a problem.
    fn read_line(&mut self) -> Option<Vec<u8>> {
        let mut line = Vec::new();
        loop {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.problems.push(SseProblem::ReadFailed(e.to_string()));
                    return None;
                }
            };
            if buf.is_empty() {
                return (!line.is_empty()).then_some(line);
            }
            let (take, end) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            line.extend_from_slice(&buf[..take]);
            self.input.consume(take);
            if line.len() > self.max_event_bytes + 2 {
                self.problems.push(SseProblem::TooLarge {
                    limit: self.max_event_bytes,
                });
                return None;
            }
            if end {
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Some(line);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> (Vec<SseEvent>, Vec<SseProblem>) {
        let mut r = SseReader::new(text.as_bytes(), 64);
        let mut events = Vec::new();
        while let Some(e) = r.next_event() {
            events.push(e);
        }
        (events, r.problems)
    }

    #[test]
    fn events_join_data_lines_and_skip_comments_and_empty_priming_events() {
        let (events, problems) =
            all(": hi\nid: 0\ndata:\n\nevent: message\ndata: {\"a\":\ndata: 1}\n\ndata:x\r\n\r\n");
        assert_eq!(problems, []);
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].event.as_deref(), Some("message"));
        assert_eq!(events[0].data, b"{\"a\":\n1}");
        assert_eq!(events[1].data, b"x");
    }

    #[test]
    fn unknown_fields_are_malformed_and_an_unfinished_event_is_dropped() {
        let (events, problems) = all("garbage here\ndata: 1\n");
        assert_eq!(events, []);
        assert_eq!(problems, [SseProblem::MalformedLine("garbage here".into())]);
    }

    #[test]
    fn the_last_id_and_a_valid_retry_are_kept() {
        let mut r = SseReader::new(
            "id: 7\nretry: 1500\ndata: 1\n\nid: 8\nretry: soon\n\n".as_bytes(),
            64,
        );
        assert_eq!(r.next_event().map(|e| e.data), Some(b"1".to_vec()));
        assert_eq!(r.next_event(), None);
        assert_eq!(r.problems, []);
        assert_eq!(r.last_id.as_deref(), Some("8"));
        assert_eq!(r.retry_ms, Some(1500));
    }

    #[test]
    fn an_event_over_the_limit_stops_the_stream() {
        let long = format!("data: {}\n\n", "x".repeat(100));
        let (events, problems) = all(&long);
        assert_eq!(events, []);
        assert_eq!(problems, [SseProblem::TooLarge { limit: 64 }]);
    }
}
