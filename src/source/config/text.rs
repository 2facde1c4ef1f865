//! Positions in a configuration file's text: byte offsets to rows and byte columns (the
//! shape tree-sitter uses, so findings go through the same code as the language scans).

use tree_sitter::{Point, Range};

/// A file's text with the byte offset of every line start. `\n`, `\r\n` and a lone `\r`
/// end a line, as in .properties, YAML and XML.
pub struct Text<'a> {
    pub text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> Text<'a> {
    pub fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                    line_starts.push(i + 2);
                    i += 2;
                    continue;
                }
                b'\r' | b'\n' => line_starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        Self { text, line_starts }
    }

    /// The 0-based row holding `byte`.
    pub fn row(&self, byte: usize) -> usize {
        self.line_starts
            .partition_point(|&s| s <= byte)
            .saturating_sub(1)
    }

    pub fn point(&self, byte: usize) -> Point {
        let byte = byte.min(self.text.len());
        let row = self.row(byte);
        Point {
            row,
            column: byte - self.line_starts[row],
        }
    }

    pub fn range(&self, start: usize, end: usize) -> Range {
        let end = end.max(start).min(self.text.len());
        Range {
            start_byte: start,
            end_byte: end,
            start_point: self.point(start),
            end_point: self.point(end),
        }
    }

    /// The byte offset of a 0-based `row` and a column counted in characters.
    pub fn byte_at(&self, row: usize, chars: usize) -> usize {
        let Some(&start) = self.line_starts.get(row) else {
            return self.text.len();
        };
        let line = &self.text[start..self.line_end(row)];
        start
            + line
                .char_indices()
                .nth(chars)
                .map_or(line.len(), |(i, _)| i)
    }

    /// The bytes of each line, without its terminator.
    pub fn lines(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.line_starts.len()).map(|row| (self.line_starts[row], self.line_end(row)))
    }

    fn line_end(&self, row: usize) -> usize {
        let next = self
            .line_starts
            .get(row + 1)
            .copied()
            .unwrap_or(self.text.len());
        let bytes = self.text.as_bytes();
        let mut end = next;
        if end > self.line_starts[row] && end <= bytes.len() && row + 1 < self.line_starts.len() {
            end -= 1;
            if bytes[end] == b'\n' && end > self.line_starts[row] && bytes[end - 1] == b'\r' {
                end -= 1;
            }
        }
        end
    }
}

#[cfg(test)]
mod tests {
    use super::Text;

    #[test]
    fn every_line_terminator_starts_a_row() {
        let t = Text::new("a\r\nbé\rc\nd");
        let lines: Vec<&str> = t.lines().map(|(s, e)| &t.text[s..e]).collect();
        assert_eq!(lines, ["a", "bé", "c", "d"]);
        assert_eq!(t.point(3).row, 1);
        assert_eq!(t.byte_at(1, 2), 6);
        assert_eq!(t.row(t.text.len()), 3);
    }
}
