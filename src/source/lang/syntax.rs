//! Small helpers over tree-sitter nodes shared by every language.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use tree_sitter::Node;

/// How deep alias chains are followed (`a = b`, `b = console`...): bounds time on hostile input.
pub const MAX_RESOLVE_DEPTH: u32 = 12;

/// How deep nested patterns (`{ a: { b } }`, `((a, b), c)`, `use a::{b::{c}}`) are followed:
/// hostile input nests thousands deep, and the binders recurse.
pub const MAX_PATTERN_DEPTH: u32 = 32;

/// The node's source text ("" if it is not UTF-8).
pub fn text<'a>(node: Node<'_>, src: &'a [u8]) -> &'a str {
    node.utf8_text(src).unwrap_or("")
}

/// Visits every node below `root` (itself included) in source order, without recursion.
pub fn preorder<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>)) {
    let mut cursor = root.walk();
    let mut depth = 0usize;
    loop {
        visit(cursor.node());
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if depth == 0 {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
            depth -= 1;
        }
    }
}

/// Visits the nodes of the kinds in `visit` below `root` in source order, with their ancestors
/// (nearest last): asking a node for its parent costs a walk down from the root in
/// tree-sitter, a stack costs nothing; testing kinds by id avoids a string per node.
pub fn walk<'t>(root: Node<'t>, visit_kinds: &KindSet, visit: impl FnMut(Node<'t>, &[Node<'t>])) {
    walk_where(root, visit_kinds, |_, _| true, visit);
}

/// As `walk`, leaving out every node below `root` whose bytes `holds(start, end)` says hold
/// nothing of interest, with all it holds: a caller that only acts on nodes with given
/// words in them walks past the rest of the tree.
pub fn walk_where<'t>(
    root: Node<'t>,
    visit_kinds: &KindSet,
    mut holds: impl FnMut(usize, usize) -> bool,
    mut visit: impl FnMut(Node<'t>, &[Node<'t>]),
) {
    let mut cursor = root.walk();
    let mut ancestors: Vec<Node<'t>> = Vec::new();
    loop {
        let node = cursor.node();
        if ancestors.is_empty() || holds(node.start_byte(), node.end_byte()) {
            if visit_kinds.has(node) {
                visit(node, &ancestors);
            }
            if cursor.goto_first_child() {
                ancestors.push(node);
                continue;
            }
        }
        loop {
            if ancestors.is_empty() {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
            ancestors.pop();
        }
    }
}

/// The nearest of `ancestors` (as passed by `walk`) whose kind is in `kinds`.
pub fn nearest<'t>(ancestors: &[Node<'t>], kinds: &KindSet) -> Option<Node<'t>> {
    ancestors.iter().rev().find(|a| kinds.has(**a)).copied()
}

/// A set of named node kinds of one grammar, tested by kind id.
#[derive(Debug)]
pub struct KindSet {
    ids: Vec<bool>,
}

impl KindSet {
    fn build(language: &tree_sitter::Language, names: &[&str]) -> Self {
        let ids = (0..language.node_kind_count())
            .map(|id| {
                let id = id as u16;
                language.node_kind_is_named(id)
                    && language
                        .node_kind_for_id(id)
                        .is_some_and(|k| names.contains(&k))
            })
            .collect();
        Self { ids }
    }

    pub fn has(&self, node: Node<'_>) -> bool {
        self.ids
            .get(node.kind_id() as usize)
            .copied()
            .unwrap_or(false)
    }
}

/// By language, the address of the list (or list of lists) and whether it is one of lists.
type KindCache = HashMap<(super::Lang, usize, bool), &'static KindSet>;

/// The set of `names` in `lang`'s grammar, built once per language and list.
pub fn kinds(lang: super::Lang, names: &'static [&'static str]) -> &'static KindSet {
    cached((lang, names.as_ptr() as usize, false), || {
        KindSet::build(&lang.grammar(), names)
    })
}

/// The set of every name of `lists` in `lang`'s grammar, built once per language and lists:
/// for one walk that serves several passes.
pub fn kinds_of(lang: super::Lang, lists: &'static [&'static [&'static str]]) -> &'static KindSet {
    cached((lang, lists.as_ptr() as usize, true), || {
        let names: Vec<&str> = lists.iter().flat_map(|l| l.iter().copied()).collect();
        KindSet::build(&lang.grammar(), &names)
    })
}

fn cached(key: (super::Lang, usize, bool), build: impl FnOnce() -> KindSet) -> &'static KindSet {
    static CACHE: OnceLock<Mutex<KindCache>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    cache
        .entry(key)
        .or_insert_with(|| Box::leak(Box::new(build())))
}

/// Each grammar's field ids by name, made once.
struct FieldTable {
    language: tree_sitter::Language,
    ids: HashMap<Box<str>, u16, foldhash::fast::RandomState>,
}

fn field_tables() -> &'static [FieldTable] {
    static TABLES: OnceLock<Vec<FieldTable>> = OnceLock::new();
    TABLES.get_or_init(|| {
        super::Lang::ALL
            .iter()
            .map(|lang| {
                let language = lang.grammar();
                let ids = (1..=language.field_count() as u16)
                    .filter_map(|id| language.field_name_for_id(id).map(|n| (n.into(), id)))
                    .collect();
                FieldTable { language, ids }
            })
            .collect()
    })
}

/// A node's child in a field, by the field's name, as `Node::child_by_field_name` finds it:
/// that compares the name with each of the grammar's field names (a `strncmp` each) on every
/// call, where this looks the id up in a table made once per grammar.
pub trait Fields<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>>;
}

impl<'t> Fields<'t> for Node<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>> {
        let language = self.language();
        match field_tables().iter().find(|t| t.language == *language) {
            Some(table) => table
                .ids
                .get(name)
                .and_then(|id| self.child_by_field_id(*id)),
            None => self.child_by_field_name(name),
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
            .get_or_init(|| {
                // Longest first, so `print` inside `println` does not hide `println`.
                aho_corasick::AhoCorasick::builder()
                    .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                    .build(self.words)
                    .ok()
            })
            .as_ref()
    }

    #[cfg(test)]
    pub fn words(&self) -> &'static [&'static str] {
        self.words
    }

    /// True if any word occurs as a whole word (not inside a longer identifier); also if the
    /// matcher could not be built, so a failure means "scan it", never "skip it".
    pub fn any(&self, src: &[u8]) -> bool {
        self.any_where(src, |_, _| true)
    }

    /// Calls `keep(word_index, end_offset)` for each whole-word occurrence until it returns true.
    pub fn any_where(&self, src: &[u8], mut keep: impl FnMut(usize, usize) -> bool) -> bool {
        let Some(matcher) = self.matcher() else {
            return true;
        };
        matcher.find_iter(src).any(|found| {
            let word = self.words[found.pattern().as_usize()].as_bytes();
            let glued_before = word.first().is_some_and(|c| is_ident(*c))
                && found.start() > 0
                && is_ident(src[found.start() - 1]);
            let glued_after = word.last().is_some_and(|c| is_ident(*c))
                && src.get(found.end()).is_some_and(|c| is_ident(*c));
            !glued_before && !glued_after && keep(found.pattern().as_usize(), found.end())
        })
    }
}

fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$'
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::lang::Lang;

    /// Code of each language with calls, members, assignments and definitions: nodes with
    /// fields and without.
    fn sample(lang: Lang) -> &'static str {
        match lang {
            Lang::JavaScript => "import {a as b} from 'm';\nconst x = require('fs');\nfunction f(p) { if (p) { console.log(p.q, `t${p}`); } else return new X(1); }\n",
            Lang::TypeScript | Lang::Tsx => "import {a as b} from 'm';\nconst x: number = 1;\nfunction f(p: string): void { if (p) { console.log(p.length); } }\nclass C { m(a: number) { return a + 1; } }\n",
            Lang::Python => "import os as o\nfrom sys import stdout\ndef f(a, b=1):\n    if a:\n        print(a.b, key=b)\n    else:\n        return [x for x in a]\nclass C(B):\n    x: int = 1\n",
            Lang::Go => "package main\nimport \"fmt\"\nfunc f(a int) int { if a > 1 { fmt.Println(a) }; return a }\n",
            Lang::Rust => "use std::io::Write;\nfn f(a: i32) -> i32 { if a > 1 { println!(\"{}\", a); } let b = a.max(2); b }\n",
            Lang::Java => "import java.io.*;\nclass A { int f(int a) { if (a > 1) { System.out.println(a); } return a; } }\n",
            Lang::Kotlin => "import a.b\nfun f(a: Int): Int { if (a > 1) { println(a) }; return a.plus(1) }\n",
            Lang::CSharp => "using System;\nclass A { int F(int a) { if (a > 1) { Console.WriteLine(a); } return a; } }\n",
        }
    }

    #[test]
    fn a_field_by_its_table_is_the_child_tree_sitter_finds_by_name() {
        for lang in Lang::ALL {
            let language = lang.grammar();
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&language).expect("grammar loads");
            let tree = parser.parse(sample(lang), None).expect("parses");
            let names: Vec<&str> = (1..=language.field_count() as u16)
                .filter_map(|id| language.field_name_for_id(id))
                .collect();
            assert!(names.len() > 5, "{lang:?} has fields");
            let mut found = 0;
            preorder(tree.root_node(), |node| {
                for name in names.iter().copied().chain(["no_such_field", ""]) {
                    let expected = node.child_by_field_name(name);
                    assert_eq!(
                        node.field(name),
                        expected,
                        "{lang:?} {} {name}",
                        node.kind()
                    );
                    found += usize::from(expected.is_some());
                }
            });
            assert!(found >= 3, "{lang:?}: {found} children in fields");
        }
    }
}
