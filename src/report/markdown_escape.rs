//! Escaping for GitHub-flavoured Markdown. Untrusted text (server output, tool names and
//! descriptions, config values, and messages quoting them) goes through one of these, so it
//! can never become HTML, a link, an image, a mention, an issue reference or a table break.

use crate::finding::excerpt;

/// Zero-width joiner: splits `@name`, `#123`, `://` and `www.` so GitHub does not link them.
const ZWJ: char = '\u{200d}';

/// Prose: bounded, control characters made visible, every ASCII punctuation character
/// backslash-escaped (so no emphasis, HTML, link, image or table syntax survives), and
/// mentions, issue references and bare URLs broken with a zero-width joiner.
pub fn text(raw: &str, max_chars: usize) -> String {
    let bounded = excerpt(raw, max_chars);
    let chars: Vec<char> = bounded.chars().collect();
    let mut out = String::with_capacity(bounded.len() * 2);
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        match c {
            '@' => {
                out.push('@');
                out.push(ZWJ);
            }
            '#' if next.is_some_and(|n| n.is_ascii_alphanumeric()) => {
                out.push_str("\\#");
                out.push(ZWJ);
            }
            ':' if chars.get(i + 1..i + 3) == Some(&['/', '/']) => {
                out.push_str("\\:");
                out.push(ZWJ);
            }
            '.' if i >= 3 && chars[i - 3..i].iter().all(|w| w.eq_ignore_ascii_case(&'w')) => {
                out.push(ZWJ);
                out.push_str("\\.");
            }
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// mcpcheck's own prose, which may quote untrusted values: its code spans (`` `x` ``) stay
/// code spans, built by `code`, and everything between them is escaped as `text`. So our
/// own `self.stdout.write` renders as code, and a quoted value still cannot become HTML, a
/// link or a mention, whatever backticks it holds.
pub fn prose(raw: &str, max_chars: usize) -> String {
    let bounded = excerpt(raw, max_chars);
    let mut out = String::with_capacity(bounded.len() * 2);
    let mut rest = bounded.as_str();
    while let Some(open) = rest.find('`') {
        let run = rest[open..].chars().take_while(|&c| c == '`').count();
        let after = &rest[open + run..];
        // The span closes at the next run of exactly as many backticks.
        let close = find_run(after, run);
        let Some(close) = close else { break };
        out.push_str(&text(&rest[..open], usize::MAX));
        let inner = &after[..close];
        let inner = inner
            .strip_prefix(' ')
            .and_then(|i| i.strip_suffix(' '))
            .filter(|i| !i.trim().is_empty())
            .unwrap_or(inner);
        // Written as we wrote it when nothing in it could close or pad the span.
        if inner.contains('`') || inner.starts_with(' ') || inner.ends_with(' ') {
            out.push_str(&code(inner, usize::MAX));
        } else {
            out.push('`');
            out.push_str(inner);
            out.push('`');
        }
        rest = &after[close + run..];
    }
    out.push_str(&text(rest, usize::MAX));
    out
}

/// Where a run of exactly `n` backticks starts in `s`.
fn find_run(s: &str, n: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let len = bytes[i..].iter().take_while(|&&b| b == b'`').count();
            if len == n {
                return Some(i);
            }
            i += len;
        } else {
            i += 1;
        }
    }
    None
}

/// An inline code span: nothing inside is interpreted (no HTML, links or mentions). The
/// fence is longer than any run of backticks in the text, so the text cannot close it.
pub fn code(raw: &str, max_chars: usize) -> String {
    let bounded = excerpt(raw, max_chars);
    if bounded.is_empty() {
        return "*(empty)*".to_string();
    }
    let fence = "`".repeat(longest_backtick_run(&bounded) + 1);
    // One space each side: CommonMark strips exactly one, and a text starting or ending in
    // a backtick would otherwise merge with the fence.
    format!("{fence} {bounded} {fence}")
}

/// Text destined for a table cell: a `|` must not end the cell. Inside code spans GitHub
/// turns `\|` back into `|`; in prose `text` has already escaped it.
pub fn cell(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut escaped = false;
    for c in markdown.chars() {
        if c == '|' && !escaped {
            out.push('\\');
        }
        escaped = c == '\\' && !escaped;
        out.push(c);
    }
    out
}

/// A fenced code block whose fence no line of the content can close.
pub fn block(content: &str, info: &str) -> String {
    let fence = "`".repeat((longest_backtick_run(content) + 1).max(3));
    format!("{fence}{info}\n{content}\n{fence}\n")
}

fn longest_backtick_run(s: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_loses_every_active_form() {
        let hostile = "<img src=x onerror=alert(1)> [a](https://evil.example) ![i](http://x/y.png) @octocat #12 www.evil.com **b** | x";
        let out = text(hostile, 500);
        // Every `<` is backslash-escaped, so no HTML tag can open.
        assert!(out
            .match_indices('<')
            .all(|(i, _)| out[..i].ends_with('\\')));
        assert!(out.contains("\\<img"));
        assert!(!out.contains("]("));
        assert!(!out.contains("![") && !out.contains("[a]"));
        assert!(!out.contains("@octocat") && out.contains("@\u{200d}octocat"));
        assert!(!out.contains("https://") && !out.contains("www."));
        assert!(!out.contains("#12") && !out.contains("**"));
        assert!(!out.contains(" | ") && out.contains("\\|"));
    }

    #[test]
    fn prose_is_bounded_and_single_line() {
        let out = text(&"a\n".repeat(100), 10);
        assert!(!out.contains('\n'));
        assert!(out.chars().count() < 40, "{out}");
    }

    #[test]
    fn code_spans_outlast_any_backtick_run() {
        assert_eq!(code("a", 10), "` a `");
        assert_eq!(code("a``b", 10), "``` a``b ```");
        assert_eq!(code("`", 10), "`` ` ``");
        assert_eq!(code("", 10), "*(empty)*");
    }

    #[test]
    fn cells_escape_unescaped_pipes_only() {
        assert_eq!(cell("` a|b `"), "` a\\|b `");
        assert_eq!(cell("a\\|b"), "a\\|b");
    }

    #[test]
    fn blocks_use_a_longer_fence() {
        assert_eq!(block("x", "sh"), "```sh\nx\n```\n");
        assert_eq!(block("````", ""), "`````\n````\n`````\n");
    }

    #[test]
    fn prose_keeps_our_code_spans_and_escapes_the_rest() {
        assert_eq!(
            prose("Use `self.stdout.write` not print.", 200),
            "Use `self.stdout.write` not print\\."
        );
        assert_eq!(
            prose("set `github_token: ${{ github.token }}` as an input", 200),
            "set `github_token: ${{ github.token }}` as an input"
        );
        // A quoted value cannot open HTML or a link, inside a span or outside one.
        let hostile = prose("tool `a` <img src=x>` [l](http://e.x) ` end", 200);
        assert_eq!(hostile, "tool `a` \\<img src\\=x\\>`[l](http://e.x)` end");
        // An unclosed backtick is text.
        assert_eq!(prose("a ` b", 200), "a \\` b");
    }
}
