//! Small helpers over tree-sitter nodes shared by every language.

use tree_sitter::Node;

/// How deep alias chains are followed (`a = b`, `b = console`...): bounds time on hostile input.
pub const MAX_RESOLVE_DEPTH: u32 = 12;

/// The node's source text ("" if it is not UTF-8).
pub fn text<'a>(node: Node<'_>, src: &'a [u8]) -> &'a str {
    node.utf8_text(src).unwrap_or("")
}

/// Visits every node below `root` (itself included) in source order, without recursion.
pub fn preorder<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>)) {
    let mut cursor = root.walk();
    loop {
        visit(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node() == root {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Named children that are not comments (comments are named nodes in most grammars).
pub fn args<'t>(list: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|n| !n.kind().contains("comment"))
        .collect()
}

/// True if `inner` lies within `outer` (both from the same tree).
pub fn contains(outer: Node<'_>, inner: Node<'_>) -> bool {
    outer.start_byte() <= inner.start_byte() && inner.end_byte() <= outer.end_byte()
}

/// The nearest ancestor (or the node itself) whose kind is one of `kinds`.
pub fn ancestor_or_self<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut current = Some(node);
    while let Some(n) = current {
        if kinds.contains(&n.kind()) {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

/// The nearest strict ancestor whose kind is one of `kinds`.
pub fn ancestor<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    node.parent().and_then(|p| ancestor_or_self(p, kinds))
}

/// The content of a simple string literal (no interpolation), without its quotes.
pub fn string_content(node: Node<'_>, src: &[u8]) -> Option<String> {
    let raw = text(node, src);
    let kind = node.kind();
    if !(kind.contains("string") || kind == "character_literal") {
        return None;
    }
    let mut cursor = node.walk();
    if node
        .named_children(&mut cursor)
        .any(|c| c.kind().contains("interpolation") || c.kind().contains("substitution"))
    {
        return None;
    }
    let trimmed = raw
        .trim_start_matches(|c: char| c.is_ascii_alphabetic() && c != '"' && c != '\'')
        .trim_start_matches('@');
    let quote = trimmed.chars().next()?;
    if !matches!(quote, '"' | '\'' | '`') {
        return None;
    }
    let inner = trimmed
        .trim_start_matches(quote)
        .trim_end_matches(quote)
        .to_string();
    Some(inner)
}

/// Finds any of a fixed set of words in a file, built once per language.
pub struct Words {
    cell: std::sync::OnceLock<Option<aho_corasick::AhoCorasick>>,
    words: &'static [&'static str],
}

impl Words {
    pub const fn new(words: &'static [&'static str]) -> Self {
        Self {
            cell: std::sync::OnceLock::new(),
            words,
        }
    }

    fn matcher(&self) -> Option<&aho_corasick::AhoCorasick> {
        self.cell
            .get_or_init(|| aho_corasick::AhoCorasick::new(self.words).ok())
            .as_ref()
    }

    /// True if any word occurs; also if the matcher could not be built, so a failure means
    /// "scan it", never "skip it".
    pub fn any(&self, src: &[u8]) -> bool {
        self.matcher().is_none_or(|m| m.is_match(src))
    }

    /// Calls `keep(word_index, end_offset)` for each occurrence until it returns true.
    pub fn any_where(&self, src: &[u8], mut keep: impl FnMut(usize, usize) -> bool) -> bool {
        match self.matcher() {
            None => true,
            Some(m) => m
                .find_iter(src)
                .any(|found| keep(found.pattern().as_usize(), found.end())),
        }
    }
}
