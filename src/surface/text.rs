//! Text helpers for the rules: hidden-character classes, safe evidence, offsets, words.

use crate::finding::{excerpt, EVIDENCE_CHARS};
use crate::secrets;
use std::collections::HashMap;

/// Why a character is invisible or reorders text, or `None` for an ordinary character.
pub fn hidden_class(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{200b}'
        | '\u{200c}'
        | '\u{200d}'
        | '\u{2060}'
        | '\u{feff}'
        | '\u{180e}'
        | '\u{034f}'
        | '\u{2061}'..='\u{2064}'
        | '\u{17b4}'
        | '\u{17b5}' => "zero-width",
        '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}' => "blank filler",
        '\u{1d173}'..='\u{1d17a}' | '\u{fff9}'..='\u{fffb}' => "invisible formatting",
        '\u{200e}'
        | '\u{200f}'
        | '\u{061c}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => "bidirectional control",
        '\u{e0000}'..='\u{e007f}' => "Unicode tag",
        '\u{00ad}' => "soft hyphen",
        '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}' => "variation selector",
        '\t' | '\n' | '\r' => return None,
        c if c.is_control() => "control character",
        _ => return None,
    })
}

/// Untrusted text for a message or path: secrets redacted, hidden characters shown as
/// `\u{…}`, control characters escaped, at most `max_chars` characters.
pub fn display(raw: &str, max_chars: usize) -> String {
    let redacted = secrets::redact(raw);
    excerpt(&visible(&redacted), max_chars)
}

/// Shows every hidden character as `\u{…}`.
pub fn visible(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        if hidden_class(c).is_some() && !c.is_control() {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Evidence around byte offset `at` of `text`: a bounded window with every secret that
/// touches it redacted whole and every hidden character made visible.
pub fn evidence(text: &str, at: usize) -> String {
    const BEFORE: usize = 60;
    const AFTER: usize = 160;
    let at = floor_boundary(text, at.min(text.len()));
    let mut start = floor_boundary(text, at.saturating_sub(BEFORE));
    let mut end = floor_boundary(text, (at + AFTER).min(text.len()));
    let found = secrets::find(text);
    // A secret cut by the window would leak its visible half: widen to cover it whole.
    for s in &found {
        if s.start < end && s.end > start {
            start = start.min(s.start);
            end = end.max(s.end);
        }
    }
    let mut shown = String::new();
    if start > 0 {
        shown.push('…');
    }
    let mut pos = start;
    for s in found.iter().filter(|s| s.start >= start && s.end <= end) {
        if s.start < pos {
            continue;
        }
        shown.push_str(&visible(&text[pos..s.start]));
        shown.push_str(&secrets::mask(s.kind));
        pos = s.end;
    }
    shown.push_str(&visible(&text[pos..end]));
    let bounded = excerpt(&shown, EVIDENCE_CHARS);
    if end < text.len() && !bounded.ends_with('…') {
        bounded + "…"
    } else {
        bounded
    }
}

/// The 1-based character position of a byte offset, for messages.
pub fn char_position(text: &str, byte: usize) -> usize {
    text[..floor_boundary(text, byte.min(text.len()))]
        .chars()
        .count()
        + 1
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Text folded to ASCII for matching English phrases: hidden characters dropped (so
/// `ig\u{200b}nore` reads `ignore`), every space character a space, look-alike letters
/// mapped to the ASCII they imitate (UTS #39 skeletons: Cyrillic `о` → `o`, `’` → `'`),
/// anything else `x`. Patterns then run as ASCII-only regexes, cheap to build and run.
pub struct Folded {
    pub text: String,
    /// `text` in lower case (same length): patterns without `(?i)` build far faster.
    pub lower: String,
    /// For each byte of `text`, the byte offset in the original of the character it came from.
    origin: Vec<usize>,
}

impl Folded {
    pub fn new(raw: &str) -> Self {
        let mut text = String::with_capacity(raw.len());
        let mut origin = Vec::with_capacity(raw.len());
        let mut cache: HashMap<char, String> = HashMap::new();
        for (at, c) in raw.char_indices() {
            let before = text.len();
            if c.is_ascii() {
                text.push(c);
            } else if hidden_class(c).is_some() {
                continue;
            } else if c.is_whitespace() {
                text.push(' ');
            } else {
                text.push_str(cache.entry(c).or_insert_with(|| fold_char(c)));
            }
            origin.resize(origin.len() + (text.len() - before), at);
        }
        let lower = text.to_ascii_lowercase();
        Self {
            text,
            lower,
            origin,
        }
    }

    /// The original byte offset of a byte offset in the folded text.
    pub fn original(&self, at: usize) -> usize {
        self.origin
            .get(at)
            .or(self.origin.last())
            .copied()
            .unwrap_or(0)
    }
}

/// The ASCII a character imitates, without combining marks (`é` → `e`); else `x` for a
/// letter or digit (it stays inside its word) and a space for anything else.
fn fold_char(c: char) -> String {
    let skeleton: String = unicode_security::skeleton(c.encode_utf8(&mut [0; 4]))
        .filter(|m| !matches!(m, '\u{300}'..='\u{36f}'))
        .collect();
    if !skeleton.is_empty() && skeleton.len() <= 4 && skeleton.is_ascii() {
        skeleton
    } else if c.is_alphanumeric() {
        "x".to_string()
    } else {
        " ".to_string()
    }
}

/// Lower-case words of an identifier or a sentence: `readFile`, `read_file`, `read-file`
/// and `Read File` all give `["read", "file"]`.
pub fn words(raw: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in raw.chars().take(512) {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            current.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Lower-case, without `_`, `-`, `.` and spaces: `API_Key` and `apiKey` give `apikey`.
pub fn squash(raw: &str) -> String {
    raw.chars()
        .take(256)
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Builds a phrase pattern, written in lower case, for [`find_phrase`]. `None` if it does
/// not compile; each rule's unit tests build all of its patterns.
pub fn phrase_regex(pattern: &str) -> Option<regex::bytes::Regex> {
    regex::bytes::Regex::new(&format!("(?-u){pattern}")).ok()
}

/// The first match of a phrase pattern in `raw` folded to lower-case ASCII (see
/// [`Folded`]), as a byte range of `raw`.
pub fn find_phrase(re: &regex::bytes::Regex, raw: &str) -> Option<std::ops::Range<usize>> {
    let folded = Folded::new(raw);
    let m = re.find(folded.lower.as_bytes())?;
    let start = folded.original(m.start());
    let last = folded.original(m.end().saturating_sub(1).max(m.start()));
    let end = last + raw[last..].chars().next().map_or(0, char::len_utf8);
    Some(start..end.max(start))
}

/// Verbs that change state, by how much.
pub const DESTRUCTIVE_VERBS: &[&str] = &[
    "delete",
    "del",
    "remove",
    "rm",
    "rmdir",
    "unlink",
    "drop",
    "destroy",
    "purge",
    "wipe",
    "erase",
    "truncate",
    "kill",
    "terminate",
    "shutdown",
    "reset",
    "revoke",
    "uninstall",
    "overwrite",
    "clear",
    "prune",
    "discard",
    "expunge",
    "shred",
    "nuke",
    "cleanup",
];

pub const EXEC_VERBS: &[&str] = &[
    "exec",
    "execute",
    "eval",
    "evaluate",
    "shell",
    "bash",
    "sh",
    "zsh",
    "powershell",
    "pwsh",
    "cmd",
    "terminal",
    "subprocess",
    "spawn",
];

pub const WRITE_VERBS: &[&str] = &[
    "write", "create", "add", "update", "set", "edit", "modify", "put", "post", "insert", "upload",
    "send", "move", "rename", "commit", "push", "save", "append", "toggle", "patch", "merge",
    "apply", "install", "deploy", "publish", "run", "checkout", "replace", "import", "store",
    "change", "transfer", "pay", "approve", "invite", "assign", "mv", "cp",
];

pub const READ_VERBS: &[&str] = &[
    "read", "get", "list", "view", "show", "search", "find", "fetch", "check", "describe",
    "inspect", "lookup", "look", "print", "display", "count", "stat", "browse", "preview", "query",
    "open", "load", "watch", "see", "info", "status",
];

pub fn has_any(words: &[String], set: &[&str]) -> bool {
    words.iter().any(|w| set.contains(&w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_identifiers_and_sentences() {
        assert_eq!(words("readFile"), ["read", "file"]);
        assert_eq!(words("read_file-now.v2"), ["read", "file", "now", "v2"]);
        assert_eq!(
            words("Read File (Deprecated)"),
            ["read", "file", "deprecated"]
        );
        assert_eq!(squash("API_Key"), "apikey");
    }

    #[test]
    fn evidence_redacts_secrets_whole_and_shows_hidden_characters() {
        let token = "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6";
        let text = format!("{}use {token} now\u{200b}", "x".repeat(70));
        let shown = evidence(&text, 70);
        assert!(!shown.contains("aB3dE6"), "{shown}");
        assert!(shown.contains("[REDACTED github-token]"), "{shown}");
        assert!(shown.contains("\\u{200b}"), "{shown}");
        assert!(shown.starts_with('…'));
        // The window starts inside the token: it widens rather than leak the tail.
        let shown = evidence(&text, 70 + 4 + 30);
        assert!(!shown.contains("F3hJ6"), "{shown}");
    }

    #[test]
    fn folding_defeats_hidden_and_look_alike_evasions() {
        let raw = "ig\u{200b}nore\u{a0}prev\u{0456}ous — don’t café";
        let folded = Folded::new(raw);
        assert_eq!(folded.text, "ignore previous   don't cafe");
        // Every folded byte points back at its character.
        let at = folded.text.find("don").unwrap_or(0);
        assert!(raw[folded.original(at)..].starts_with("don"));
        assert!(raw[folded.original(folded.text.len() - 1)..].starts_with('é'));
        assert_eq!(Folded::new("検").text, "x");
    }

    #[test]
    fn positions_count_characters_from_one() {
        assert_eq!(char_position("héllo", 0), 1);
        assert_eq!(char_position("héllo", 3), 3);
    }

    #[test]
    fn hidden_classes() {
        assert_eq!(hidden_class('\u{e0041}'), Some("Unicode tag"));
        assert_eq!(hidden_class('\u{202e}'), Some("bidirectional control"));
        assert_eq!(hidden_class('\u{1b}'), Some("control character"));
        assert_eq!(hidden_class('\n'), None);
        assert_eq!(hidden_class('é'), None);
    }
}
