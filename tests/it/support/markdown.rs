//! Markdown checks: untrusted text must stay inert (no HTML, links, mentions, broken rows).

/// Links and HTML that mcpcheck itself writes (rule pages, the comment marker, details).
const OWN_LINK_PREFIXES: &[&str] = &[
    concat!(
        "https://github.com/mcpcheck/mcpcheck/blob/",
        env!("MCPCHECK_SOURCE_REF"),
        "/docs/rules/"
    ),
    "https://github.com/o/r/blob/",
];
const OWN_TAGS: &[&str] = &[
    "<!-- mcpcheck:sticky-comment -->",
    "<details>",
    "<summary>",
    "</summary>",
    "<code>",
    "</code>",
    "</details>",
    "<sub>",
    "</sub>",
];

/// Active Markdown built from untrusted text: raw HTML, links or images not ours,
/// mentions, bare URLs, and table rows broken by a stray `|`. Code spans are inert and
/// skipped (their fence is matched exactly, as CommonMark does).
pub fn active_forms(markdown: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_block: Option<String> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if let Some(fence) = &in_block {
            if trimmed.starts_with(fence.as_str()) && trimmed.trim_end().chars().all(|c| c == '`') {
                in_block = None;
            }
            continue;
        }
        if trimmed.starts_with("```") {
            in_block = Some(trimmed.chars().take_while(|c| *c == '`').collect());
            continue;
        }
        let cleaned = OWN_TAGS
            .iter()
            .fold(strip_code_spans(line), |acc, tag| acc.replace(tag, ""));
        for (i, c) in cleaned.char_indices() {
            let escaped = cleaned[..i].ends_with('\\') && !cleaned[..i].ends_with("\\\\");
            if escaped {
                continue;
            }
            match c {
                '<' => found.push(format!("raw HTML in: {line}")),
                '@' if cleaned[i + 1..].starts_with(|n: char| n.is_ascii_alphanumeric()) => {
                    found.push(format!("mention in: {line}"))
                }
                '!' if cleaned[i + 1..].starts_with('[') => found.push(format!("image in: {line}")),
                ']' if cleaned[i + 1..].starts_with('(') => {
                    let target = &cleaned[i + 2..];
                    if !OWN_LINK_PREFIXES.iter().any(|p| target.starts_with(p)) {
                        found.push(format!("link in: {line}"));
                    }
                }
                _ => {}
            }
        }
        let without_own = OWN_LINK_PREFIXES
            .iter()
            .fold(cleaned.clone(), |acc, p| acc.replace(p, ""));
        for bare in ["http://", "https://", "www."] {
            if without_own.contains(bare) {
                found.push(format!("bare URL in: {line}"));
            }
        }
    }
    found
}

/// The line with every inline code span removed.
pub fn strip_code_spans(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        // CommonMark: a backslash-escaped backtick is literal and cannot open a code span.
        let backslashes = chars[..i].iter().rev().take_while(|c| **c == '\\').count();
        if chars[i] == '`' && backslashes % 2 == 0 {
            let n = chars[i..].iter().take_while(|c| **c == '`').count();
            // Find the closing run of exactly n backticks.
            let mut j = i + n;
            let mut close = None;
            while j < chars.len() {
                if chars[j] == '`' {
                    let m = chars[j..].iter().take_while(|c| **c == '`').count();
                    if m == n {
                        close = Some(j);
                        break;
                    }
                    j += m;
                } else {
                    j += 1;
                }
            }
            match close {
                Some(j) => {
                    out.push_str("CODE");
                    i = j + n;
                }
                None => {
                    out.extend(&chars[i..i + n]);
                    i += n;
                }
            }
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Number of cell separators (unescaped `|`) in a table row. GFM splits cells before it
/// parses code spans, so a pipe inside a code span counts too unless escaped.
pub fn cell_separators(row: &str) -> usize {
    let mut count = 0;
    let mut escaped = false;
    for c in row.chars() {
        if c == '|' && !escaped {
            count += 1;
        }
        escaped = c == '\\' && !escaped;
    }
    count
}
