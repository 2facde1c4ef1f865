//! A fast reading of the common line: one JSON object holding a valid request, notification
//! or successful response, classified from the raw text of its members without building a
//! JSON value. Anything else (batches, invalid envelopes, error responses, escapes, text
//! near a parser limit, duplicate members) gets `None`, and is left to
//! [`super::jsonrpc::parse_line`], whose classification this one equals where it answers.
//!
//! The line is read in one pass by a validating scanner of its own (serde_json's derive
//! took half of the proxy's checks): it accepts exactly the JSON that serde_json accepts,
//! less what the full parse could read differently (see [`Scanner`]).

use super::jsonrpc::RequestId;

/// One valid message, its members as raw JSON text.
#[derive(Debug, Clone)]
pub enum LeanMessage<'a> {
    Request {
        id: RequestId,
        method: &'a str,
        params: Option<&'a str>,
    },
    Notification {
        method: &'a str,
        params: Option<&'a str>,
    },
    /// A response carrying `result` and an id that is a string or an integer.
    Result { id: RequestId, result: &'a str },
}

/// The members classification reads, as raw JSON text (`null` included); a member given
/// twice makes the reading fail (and the line goes to the full parse, where the last one
/// counts).
#[derive(Default)]
struct Members<'a> {
    jsonrpc: Option<&'a str>,
    id: Option<&'a str>,
    method: Option<&'a str>,
    params: Option<&'a str>,
    result: Option<&'a str>,
    error: Option<&'a str>,
}

/// The line (terminator removed) as one valid message, when it is the common kind.
pub fn read(text: &str) -> Option<LeanMessage<'_>> {
    let m = members(text)?;
    if m.jsonrpc? != "\"2.0\"" {
        return None;
    }
    if let Some(method) = m.method {
        if m.result.is_some() || m.error.is_some() {
            return None;
        }
        let method = string(method)?;
        if m.params.is_some_and(|p| !p.starts_with(['{', '['])) {
            return None;
        }
        return Some(match m.id {
            None => LeanMessage::Notification {
                method,
                params: m.params,
            },
            Some(id) => LeanMessage::Request {
                id: request_id(id)?,
                method,
                params: m.params,
            },
        });
    }
    if m.error.is_some() {
        return None;
    }
    Some(LeanMessage::Result {
        id: request_id(m.id?)?,
        result: m.result?,
    })
}

/// The top-level object's members, if the whole text is one JSON object the scanner accepts.
fn members(text: &str) -> Option<Members<'_>> {
    // No escape and no control byte anywhere (one pass the compiler vectorises): strings
    // then end at their next quote.
    let unusual = text
        .bytes()
        .fold(false, |found, b| found | (b < 0x20) | (b == b'\\'));
    if unusual {
        return None;
    }
    let mut s = Scanner {
        bytes: text.as_bytes(),
        at: 0,
        brackets: 0,
    };
    let mut m = Members::default();
    s.space();
    s.open(b'{')?;
    s.space();
    if !s.eat(b'}') {
        loop {
            s.space();
            let key = s.string()?;
            s.space();
            s.expect(b':')?;
            s.space();
            let start = s.at;
            s.value()?;
            let raw = &text[start..s.at];
            let slot = match &text[key.0 + 1..key.1 - 1] {
                "jsonrpc" => Some(&mut m.jsonrpc),
                "id" => Some(&mut m.id),
                "method" => Some(&mut m.method),
                "params" => Some(&mut m.params),
                "result" => Some(&mut m.result),
                "error" => Some(&mut m.error),
                _ => None,
            };
            if slot.is_some_and(|slot| slot.replace(raw).is_some()) {
                return None;
            }
            s.space();
            match s.next()? {
                b',' => continue,
                b'}' => break,
                _ => return None,
            }
        }
    }
    s.space();
    (s.at == s.bytes.len()).then_some(m)
}

/// A validating JSON scanner for text that serde_json reads exactly as it is written, and
/// that holds no escape (a string is then its text) and no control byte (so the only
/// whitespace is a space): [`members`] makes sure of both first. It refuses exponents and runs of 300 digits or more (numbers the full parse may refuse as
/// out of range), and more than 64 brackets (the full parse has a depth limit). Everything
/// else it accepts as serde_json does: no trailing commas, no leading zeros, a digit after a
/// decimal point, `true`, `false` and `null` spelled out.
struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
    brackets: usize,
}

const MAX_BRACKETS: usize = 64;
const MAX_DIGITS: usize = 300;

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    fn eat(&mut self, b: u8) -> bool {
        let found = self.peek() == Some(b);
        self.at += usize::from(found);
        found
    }

    fn expect(&mut self, b: u8) -> Option<()> {
        self.eat(b).then_some(())
    }

    fn space(&mut self) {
        while self.peek() == Some(b' ') {
            self.at += 1;
        }
    }

    fn open(&mut self, b: u8) -> Option<()> {
        self.expect(b)?;
        self.brackets += 1;
        (self.brackets <= MAX_BRACKETS).then_some(())
    }

    /// A string (the text holds no escape and no control byte): its span, quotes included.
    fn string(&mut self) -> Option<(usize, usize)> {
        let start = self.at;
        self.expect(b'"')?;
        // Strings are short (names, small values): a plain loop beats memchr's set-up.
        let end = self.bytes[self.at..].iter().position(|&b| b == b'"')?;
        self.at += end + 1;
        Some((start, self.at))
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self) -> Option<()> {
        self.eat(b'-');
        let int = match self.next()? {
            // One leading zero only.
            b'0' if self.peek().is_some_and(|b| b.is_ascii_digit()) => return None,
            b'0' => 1,
            b'1'..=b'9' => 1 + self.digits(),
            _ => return None,
        };
        let mut longest = int;
        if self.eat(b'.') {
            let fraction = self.digits();
            if fraction == 0 {
                return None;
            }
            longest = longest.max(fraction);
        }
        if longest >= MAX_DIGITS || matches!(self.peek(), Some(b'e' | b'E')) {
            return None;
        }
        Some(())
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }

    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => {
                self.open(b'{')?;
                self.space();
                if self.eat(b'}') {
                    return Some(());
                }
                loop {
                    self.space();
                    self.string()?;
                    self.space();
                    self.expect(b':')?;
                    self.space();
                    self.value()?;
                    self.space();
                    match self.next()? {
                        b',' => continue,
                        b'}' => return Some(()),
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.open(b'[')?;
                self.space();
                if self.eat(b']') {
                    return Some(());
                }
                loop {
                    self.space();
                    self.value()?;
                    self.space();
                    match self.next()? {
                        b',' => continue,
                        b']' => return Some(()),
                        _ => return None,
                    }
                }
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }
}

/// The text of a JSON string without escapes.
fn string(raw: &str) -> Option<&str> {
    raw.strip_prefix('"')?.strip_suffix('"')
}

/// A request id as the full parse reads it: a string, or an integer within i64 (`-0` is a
/// float to serde_json, so an invalid id).
fn request_id(text: &str) -> Option<RequestId> {
    if let Some(s) = string(text) {
        return Some(RequestId::String(s.to_string()));
    }
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || text == "-0" {
        return None;
    }
    text.parse().ok().map(RequestId::Number)
}

#[cfg(test)]
#[path = "lean_tests.rs"]
mod tests;
