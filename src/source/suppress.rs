//! Inline suppression: a comment `mcpcheck: ignore` or `mcpcheck: ignore[code, code]` on a
//! finding's first line, or on the line just above it. Only real comments count, not strings
//! (in configuration files too: XML `<!-- -->`, `#` in YAML, `#`/`!` lines in .properties).

use super::lang::syntax_comments;
use tree_sitter::Tree;

const MARKER: &str = "mcpcheck:";

/// One suppression comment: the rows it covers and the codes it names (none = every code).
#[derive(Debug, Clone)]
struct Suppression {
    first_row: usize,
    last_row: usize,
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
                .map(|comment| {
                    (
                        comment.start_position().row,
                        comment.end_position().row,
                        String::from_utf8_lossy(&src[comment.start_byte()..comment.end_byte()]),
                    )
                }),
        )
    }

    /// The suppressions among comments given as (first row, last row, text).
    pub fn from_comments<T: AsRef<str>>(
        comments: impl IntoIterator<Item = (usize, usize, T)>,
    ) -> Self {
        let entries = comments
            .into_iter()
            .filter_map(|(first_row, last_row, text)| {
                Some(Suppression {
                    first_row,
                    last_row,
                    codes: parse(text.as_ref())?,
                })
            })
            .collect();
        Self { entries }
    }

    /// True if a finding of `code` starting on `row` (0-based) is suppressed.
    pub fn covers(&self, code: &str, row: usize) -> bool {
        self.entries.iter().any(|s| {
            let placed = (s.first_row..=s.last_row).contains(&row) || s.last_row + 1 == row;
            placed && (s.codes.is_empty() || s.codes.iter().any(|c| c == code))
        })
    }
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
    use super::parse;

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
