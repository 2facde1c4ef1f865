//! Inline suppression: a comment `mcpcheck: ignore` or `mcpcheck: ignore[code, code]`. As
//! ruff's `noqa`: a comment after code covers its own line; a comment alone on its line
//! covers that line and the next. Only real comments count, not strings (in configuration
//! files too: XML `<!-- -->`, `#` in YAML, `#`/`!` lines in .properties).

use super::lang::syntax_comments;
use tree_sitter::Tree;

const MARKER: &str = "mcpcheck:";

/// One suppression comment: the rows it covers and the codes it names (none = every code).
#[derive(Debug, Clone)]
struct Suppression {
    first_row: usize,
    last_row: usize,
    /// Alone on its line (nothing but blanks before it): it covers the next line too.
    alone: bool,
    codes: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Suppressions {
    entries: Vec<Suppression>,
}

impl Suppressions {
    /// The suppression comments in a parsed file (cheap when the marker does not occur at all).
    pub fn of(tree: &Tree, src: &[u8]) -> Self {
        if !src.windows(MARKER.len()).any(|w| w == MARKER.as_bytes()) {
            return Self::default();
        }
        Self::from_comments(
            syntax_comments(tree.root_node())
                .into_iter()
                .map(|comment| SourceComment {
                    first_row: comment.start_position().row,
                    last_row: comment.end_position().row,
                    alone: stands_alone(src, comment.start_byte()),
                    text: String::from_utf8_lossy(&src[comment.start_byte()..comment.end_byte()]),
                }),
        )
    }

    /// The suppressions among the comments of a file.
    pub fn from_comments<T: AsRef<str>>(
        comments: impl IntoIterator<Item = SourceComment<T>>,
    ) -> Self {
        let entries = comments
            .into_iter()
            .filter_map(|c| {
                Some(Suppression {
                    first_row: c.first_row,
                    last_row: c.last_row,
                    alone: c.alone,
                    codes: parse(c.text.as_ref())?,
                })
            })
            .collect();
        Self { entries }
    }

    /// True if a finding of `code` starting on `row` (0-based) is suppressed.
    pub fn covers(&self, code: &str, row: usize) -> bool {
        self.entries.iter().any(|s| {
            let placed =
                (s.first_row..=s.last_row).contains(&row) || (s.alone && s.last_row + 1 == row);
            placed && (s.codes.is_empty() || s.codes.iter().any(|c| c == code))
        })
    }
}

/// One comment of a file, where it is and what it says.
pub struct SourceComment<T> {
    pub first_row: usize,
    pub last_row: usize,
    /// Nothing but blanks before it on its first line.
    pub alone: bool,
    pub text: T,
}

/// Whether only blanks precede byte `start` on its line.
pub fn stands_alone(src: &[u8], start: usize) -> bool {
    let line_start = src[..start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    src[line_start..start]
        .iter()
        .all(|b| b.is_ascii_whitespace())
}

/// The codes a comment suppresses: Some(empty) for all, None if it is not a suppression.
fn parse(comment: &str) -> Option<Vec<String>> {
    let start = comment.find(MARKER)? + MARKER.len();
    let rest = comment[start..].trim_start();
    let rest = rest.strip_prefix("ignore")?;
    match rest.strip_prefix('[') {
        None if rest.is_empty() || rest.starts_with(|c: char| !c.is_alphanumeric() && c != '-') => {
            Some(Vec::new())
        }
        None => None,
        Some(list) => {
            let list = &list[..list.find(']')?];
            Some(
                list.split(',')
                    .map(|c| c.trim().to_string())
                    .filter(|c| !c.is_empty())
                    .collect(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suppressions(comments: &[(usize, bool)]) -> Suppressions {
        Suppressions::from_comments(comments.iter().map(|&(row, alone)| SourceComment {
            first_row: row,
            last_row: row,
            alone,
            text: "# mcpcheck: ignore",
        }))
    }

    #[test]
    fn a_trailing_comment_covers_its_own_line_and_one_alone_the_next() {
        // Issue 44 item 7: `print("banner")  # mcpcheck: ignore` silenced the line after it.
        let trailing = suppressions(&[(3, false)]);
        assert!(trailing.covers("static-stdout-write", 3));
        assert!(!trailing.covers("static-stdout-write", 4));
        let alone = suppressions(&[(3, true)]);
        assert!(alone.covers("static-stdout-write", 4));
        assert!(!alone.covers("static-stdout-write", 5));
        assert!(stands_alone(b"x = 1\n    # c", 10));
        assert!(!stands_alone(b"x = 1  # c", 7));
        assert!(stands_alone(b"# c", 0));
    }

    #[test]
    fn suppression_comments_parse() {
        assert_eq!(parse("// mcpcheck: ignore"), Some(vec![]));
        assert_eq!(
            parse("# mcpcheck: ignore -- banner is intended"),
            Some(vec![])
        );
        assert_eq!(parse("/* mcpcheck: ignore */"), Some(vec![]));
        assert_eq!(
            parse("// mcpcheck: ignore[static-stdout-write, static-stdout-logger]"),
            Some(vec![
                "static-stdout-write".to_string(),
                "static-stdout-logger".to_string()
            ])
        );
        assert_eq!(parse("// mcpcheck: ignored"), None);
        assert_eq!(parse("// mcpcheck: ignore[unterminated"), None);
        assert_eq!(parse("// nothing here"), None);
    }
}
