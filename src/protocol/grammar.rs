//! Whether a line is one complete JSON text, checked by grammar alone: no values built, no
//! depth limit, no recursion. It tells JSON past a parser limit from text that only begins
//! like JSON.
//!
//! The grammar is RFC 8259's, read as serde_json reads it: whitespace is space, tab, `\n`
//! and `\r` (a byte-order mark is not), strings hold no control characters, and a `\u`
//! surrogate must be paired. So a line is JSON here exactly when serde_json, without its
//! limits, would read it.

use thiserror::Error;

/// Where a line stops being one JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("not JSON at byte {offset}")]
pub struct NotJson {
    /// The byte offset of the first byte that cannot continue a JSON text (the length of
    /// the line when it ends too soon).
    pub offset: usize,
}

/// Checks that `text` is one JSON value with nothing but whitespace around it.
pub fn check(text: &str) -> Result<(), NotJson> {
    Scanner {
        bytes: text.as_bytes(),
        pos: 0,
        open: Nesting::default(),
    }
    .text()
}

/// The open arrays and objects, one bit each (set for an object), so depth costs a bit a level.
#[derive(Debug, Default)]
struct Nesting {
    bits: Vec<u64>,
    depth: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Container {
    Array,
    Object,
}

impl Nesting {
    fn push(&mut self, c: Container) {
        let (word, bit) = (self.depth / 64, self.depth % 64);
        if word == self.bits.len() {
            self.bits.push(0);
        }
        let mask = 1u64 << bit;
        match c {
            Container::Object => self.bits[word] |= mask,
            Container::Array => self.bits[word] &= !mask,
        }
        self.depth += 1;
    }

    fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn top(&self) -> Option<Container> {
        let top = self.depth.checked_sub(1)?;
        let word = self.bits.get(top / 64)?;
        Some(if word & (1u64 << (top % 64)) != 0 {
            Container::Object
        } else {
            Container::Array
        })
    }
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
    open: Nesting,
}

impl Scanner<'_> {
    fn text(mut self) -> Result<(), NotJson> {
        self.whitespace();
        loop {
            self.value_start()?;
            if !self.after_value()? {
                return Ok(());
            }
        }
    }

    /// Reads a scalar, or opens a container and reads up to where its first value begins
    /// (closing it at once when empty).
    fn value_start(&mut self) -> Result<(), NotJson> {
        loop {
            match self.peek() {
                Some(b'[') => {
                    self.pos += 1;
                    self.whitespace();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        return Ok(());
                    }
                    self.open.push(Container::Array);
                }
                Some(b'{') => {
                    self.pos += 1;
                    self.whitespace();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        return Ok(());
                    }
                    self.open.push(Container::Object);
                    self.member_name()?;
                }
                Some(b'"') => return self.string(),
                Some(b'-' | b'0'..=b'9') => return self.number(),
                Some(b't') => return self.literal(b"true"),
                Some(b'f') => return self.literal(b"false"),
                Some(b'n') => return self.literal(b"null"),
                _ => return Err(self.fail()),
            }
        }
    }

    /// After a value: closes what ends there; `true` when another value follows a comma,
    /// `false` when the text is complete.
    fn after_value(&mut self) -> Result<bool, NotJson> {
        loop {
            self.whitespace();
            let Some(container) = self.open.top() else {
                return if self.pos == self.bytes.len() {
                    Ok(false)
                } else {
                    Err(self.fail())
                };
            };
            let close = match container {
                Container::Array => b']',
                Container::Object => b'}',
            };
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.whitespace();
                    if container == Container::Object {
                        self.member_name()?;
                    }
                    return Ok(true);
                }
                Some(b) if b == close => {
                    self.pos += 1;
                    self.open.pop();
                }
                _ => return Err(self.fail()),
            }
        }
    }

    /// `"name" :` and the whitespace up to the member's value.
    fn member_name(&mut self) -> Result<(), NotJson> {
        if self.peek() != Some(b'"') {
            return Err(self.fail());
        }
        self.string()?;
        self.whitespace();
        self.expect(b':')?;
        self.whitespace();
        Ok(())
    }

    fn string(&mut self) -> Result<(), NotJson> {
        self.expect(b'"')?;
        loop {
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape()?;
                }
                // Control characters must be escaped; the rest is valid UTF-8 already (a &str).
                Some(0x00..=0x1f) | None => return Err(self.fail()),
                Some(_) => self.pos += 1,
            }
        }
    }

    /// One escape, its `\` already read; a high surrogate must be followed by a low one.
    fn escape(&mut self) -> Result<(), NotJson> {
        match self.peek() {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                self.pos += 1;
                Ok(())
            }
            Some(b'u') => {
                self.pos += 1;
                let unit = self.hex4()?;
                match unit {
                    0xdc00..=0xdfff => Err(NotJson {
                        offset: self.pos - 6,
                    }),
                    0xd800..=0xdbff => {
                        self.expect(b'\\')?;
                        self.expect(b'u')?;
                        match self.hex4()? {
                            0xdc00..=0xdfff => Ok(()),
                            _ => Err(NotJson {
                                offset: self.pos - 6,
                            }),
                        }
                    }
                    _ => Ok(()),
                }
            }
            _ => Err(self.fail()),
        }
    }

    fn hex4(&mut self) -> Result<u16, NotJson> {
        let mut unit = 0u16;
        for _ in 0..4 {
            let digit = match self.peek() {
                Some(b @ b'0'..=b'9') => b - b'0',
                Some(b @ b'a'..=b'f') => b - b'a' + 10,
                Some(b @ b'A'..=b'F') => b - b'A' + 10,
                _ => return Err(self.fail()),
            };
            unit = (unit << 4) | u16::from(digit);
            self.pos += 1;
        }
        Ok(unit)
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`; its size is no concern here.
    fn number(&mut self) -> Result<(), NotJson> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.fail()),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.some_digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.some_digits()?;
        }
        Ok(())
    }

    fn some_digits(&mut self) -> Result<(), NotJson> {
        if !matches!(self.peek(), Some(b'0'..=b'9')) {
            return Err(self.fail());
        }
        self.digits();
        Ok(())
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), NotJson> {
        for &b in word {
            self.expect(b)?;
        }
        Ok(())
    }

    fn expect(&mut self, b: u8) -> Result<(), NotJson> {
        if self.peek() != Some(b) {
            return Err(self.fail());
        }
        self.pos += 1;
        Ok(())
    }

    fn whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn fail(&self) -> NotJson {
        NotJson { offset: self.pos }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(text: &str) -> bool {
        check(text).is_ok()
    }

    /// The grammar agrees with serde_json wherever serde_json is within its limits.
    fn agrees_with_serde(text: &str) {
        let serde = serde_json::from_str::<serde_json::Value>(text).is_ok();
        assert_eq!(valid(text), serde, "{text:?}");
    }

    #[test]
    fn accepts_json_texts() {
        for text in [
            "0",
            "-0",
            "-0.5e-3",
            "12.25E+7",
            "1e5",
            "true",
            "false",
            "null",
            r#""""#,
            r#""a\"\\\/\b\f\n\r\t\u00e9\u20AC""#,
            r#""\ud83d\ude00""#,
            "\"caf\u{e9} \u{1f600}\"",
            "[]",
            "{}",
            "[ ]",
            "{ }",
            r#"[1,"a",{"b":[null,true]},[],{}]"#,
            " \t{ \"a\" : [ 1 , 2 ] , \"b\" : { } } \r\n ",
            r#"{"a":1,"a":2}"#,
        ] {
            assert!(valid(text), "{text:?}");
            agrees_with_serde(text);
        }
    }

    #[test]
    fn refuses_what_is_not_one_json_text() {
        for (text, offset) in [
            ("", 0),
            ("   ", 3),
            ("Listening on port 3000", 0),
            ("[1,]", 3),
            ("[1 2]", 3),
            ("{\"a\" 1}", 5),
            ("{\"a\":}", 5),
            ("{1:2}", 1),
            ("{\"a\":1,}", 7),
            ("[1}", 2),
            ("{\"a\":1]", 6),
            ("[1]]", 3),
            ("[1] x", 4),
            ("1 2", 2),
            ("[", 1),
            ("{\"a\"", 4),
            ("01", 1),
            ("-", 1),
            ("-a", 1),
            ("+1", 0),
            (".5", 0),
            ("1.", 2),
            ("1.e5", 2),
            ("1e", 2),
            ("1e+", 3),
            ("0x10", 1),
            ("tru", 3),
            ("nul1", 3),
            ("True", 0),
            ("NaN", 0),
            ("'a'", 0),
            ("\"abc", 4),
            ("\"a\\x\"", 3),
            ("\"a\\u12\"", 6),
            ("\"a\\u12G4\"", 6),
            ("\"tab\there\"", 4),
            ("\"nul\u{0}\"", 4),
            ("\"\\udc00\"", 1),
            ("\"\\ud800\"", 7),
            ("\"\\ud800\\n\"", 8),
            ("\"\\ud800\\u0041\"", 7),
            ("\u{feff}{}", 0),
            ("\u{a0}1", 0),
            ("\u{b}1", 0),
        ] {
            assert_eq!(check(text), Err(NotJson { offset }), "{text:?}");
            agrees_with_serde(text);
        }
    }

    #[test]
    fn has_no_depth_limit() {
        let n = 100_000;
        let arrays = format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(valid(&arrays));
        let objects = format!("{}null{}", r#"{"a":"#.repeat(n), "}".repeat(n));
        assert!(valid(&objects));
        let mixed = format!("{}0{}", r#"[{"a":"#.repeat(n), "}]".repeat(n));
        assert!(valid(&mixed));
        // One bracket short, one too many, or one of the wrong kind deep inside.
        assert_eq!(check(&arrays[1..]), Err(NotJson { offset: 2 * n - 2 }));
        assert_eq!(
            check(&format!("[{arrays}")),
            Err(NotJson { offset: 2 * n + 1 })
        );
        let crossed = format!(
            "{}{}}}{}",
            "[".repeat(n),
            "]".repeat(n / 2),
            "]".repeat(n / 2)
        );
        assert_eq!(check(&crossed), Err(NotJson { offset: n + n / 2 }));
    }

    #[test]
    fn hostile_prefixes_are_not_json() {
        let text = "Listening on port 3000";
        assert_eq!(
            check(&format!("{}{text}", "[".repeat(129))),
            Err(NotJson { offset: 129 })
        );
        assert_eq!(
            check(&format!("{}{text}", r#"{"a":"#.repeat(200))),
            Err(NotJson { offset: 1000 })
        );
        assert_eq!(
            check(&format!("1e999999 {text}")),
            Err(NotJson { offset: 9 })
        );
        assert!(valid("1e999999"));
        assert!(valid(" 1e999999 "));
    }
}
