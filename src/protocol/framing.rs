//! Newline-delimited framing of a stdio byte stream, with bounded memory.
//!
//! The MCP stdio transport is one JSON-RPC message per line, lines split on `\n`.
//! The splitter works on bytes: a UTF-8 character split across two reads is
//! joined before the line is decoded, because decoding happens per complete line.

/// One complete line read from the stream (without its terminator).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawLine {
    /// 1-based line number in the stream.
    pub number: u64,
    /// The line's bytes, without the `\n` and without a `\r` just before it.
    pub bytes: Vec<u8>,
    /// The line ended in `\r\n`.
    pub had_carriage_return: bool,
}

/// What the splitter produces as bytes arrive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineEvent {
    Line(RawLine),
    /// A line grew past the limit before its `\n` arrived; it is dropped.
    TooLarge {
        number: u64,
        bytes_seen: usize,
    },
}

/// Splits a byte stream on `\n`, never holding more than `max_line_bytes` of one line.
#[derive(Debug)]
pub struct LineSplitter {
    max_line_bytes: usize,
    pending: Vec<u8>,
    next_number: u64,
    overflowed: bool,
}

impl LineSplitter {
    pub fn new(max_line_bytes: usize) -> Self {
        Self {
            max_line_bytes,
            pending: Vec::new(),
            next_number: 1,
            overflowed: false,
        }
    }

    /// Feeds a chunk, pushing every event it completes onto `out`.
    ///
    /// After a `TooLarge` event the splitter stops producing events: the caller ends the run.
    pub fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<LineEvent>) {
        while !chunk.is_empty() && !self.overflowed {
            match chunk.iter().position(|&b| b == b'\n') {
                Some(pos) => {
                    if self.pending.len() + pos > self.max_line_bytes {
                        self.overflow(self.pending.len() + pos, out);
                        return;
                    }
                    self.pending.extend_from_slice(&chunk[..pos]);
                    chunk = &chunk[pos + 1..];
                    let mut bytes = std::mem::take(&mut self.pending);
                    let had_carriage_return = bytes.last() == Some(&b'\r');
                    if had_carriage_return {
                        bytes.pop();
                    }
                    out.push(LineEvent::Line(RawLine {
                        number: self.next_number,
                        bytes,
                        had_carriage_return,
                    }));
                    self.next_number += 1;
                }
                None => {
                    if self.pending.len() + chunk.len() > self.max_line_bytes {
                        self.overflow(self.pending.len() + chunk.len(), out);
                        return;
                    }
                    self.pending.extend_from_slice(chunk);
                    return;
                }
            }
        }
    }

    fn overflow(&mut self, bytes_seen: usize, out: &mut Vec<LineEvent>) {
        self.overflowed = true;
        self.pending = Vec::new();
        out.push(LineEvent::TooLarge {
            number: self.next_number,
            bytes_seen,
        });
    }

    /// Bytes received after the last `\n`: a message the server never terminated.
    pub fn unterminated(&self) -> Option<RawLine> {
        if self.pending.is_empty() || self.overflowed {
            return None;
        }
        Some(RawLine {
            number: self.next_number,
            bytes: self.pending.clone(),
            had_carriage_return: false,
        })
    }

    pub fn has_overflowed(&self) -> bool {
        self.overflowed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(events: &[LineEvent]) -> Vec<(u64, Vec<u8>, bool)> {
        events
            .iter()
            .filter_map(|e| match e {
                LineEvent::Line(l) => Some((l.number, l.bytes.clone(), l.had_carriage_return)),
                LineEvent::TooLarge { .. } => None,
            })
            .collect()
    }

    #[test]
    fn splits_lines_and_reports_carriage_returns() {
        let mut s = LineSplitter::new(1024);
        let mut out = Vec::new();
        s.feed(b"{\"a\":1}\r\n{\"b\":2}\n\npart", &mut out);
        assert_eq!(
            lines(&out),
            vec![
                (1, b"{\"a\":1}".to_vec(), true),
                (2, b"{\"b\":2}".to_vec(), false),
                (3, Vec::new(), false),
            ]
        );
        assert_eq!(s.unterminated().map(|l| l.bytes), Some(b"part".to_vec()));
    }

    #[test]
    fn joins_a_utf8_character_split_across_reads() {
        let text = "héllo\n".as_bytes();
        let mut s = LineSplitter::new(1024);
        let mut out = Vec::new();
        s.feed(&text[..2], &mut out); // ends in the middle of 'é'
        assert!(out.is_empty());
        s.feed(&text[2..], &mut out);
        assert_eq!(lines(&out), vec![(1, "héllo".as_bytes().to_vec(), false)]);
    }

    #[test]
    fn reports_a_line_past_the_limit_without_holding_it() {
        let mut s = LineSplitter::new(8);
        let mut out = Vec::new();
        s.feed(b"ok\n0123456", &mut out);
        s.feed(b"789abc", &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(
            out[1],
            LineEvent::TooLarge {
                number: 2,
                bytes_seen: 13
            }
        );
        assert!(s.has_overflowed());
        assert!(s.pending.capacity() <= 16);
        s.feed(b"more\n", &mut out);
        assert_eq!(out.len(), 2, "no event after an overflow");
    }

    #[test]
    fn a_line_exactly_at_the_limit_is_accepted() {
        let mut s = LineSplitter::new(4);
        let mut out = Vec::new();
        s.feed(b"abcd\n", &mut out);
        assert_eq!(lines(&out), vec![(1, b"abcd".to_vec(), false)]);
    }
}
