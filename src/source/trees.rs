//! Parsing a file's bytes with tree-sitter: within a deadline, from included ranges, and
//! with the subtrees of an earlier parse of the same bytes where they still hold.

use super::lang::transports::{self, ModuleFacts};
use super::lang::{transports_window, Lang};
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use tree_sitter::{ParseOptions, ParseState, Parser};

/// Longest time spent parsing one file (bounded input, but pathological nesting is slow).
const PARSE_DEADLINE: Duration = Duration::from_secs(10);

/// Parses `ranges` of `bytes` (empty: all of it), giving up after `PARSE_DEADLINE`.
/// `earlier`, a tree of the same bytes parsed cleanly from other ranges, lends tree-sitter
/// its subtrees outside the parts where the two sets of ranges differ, as in an incremental
/// parse after an edit: the tree is the one a fresh parse makes, in less time (a test below
/// compares them).
pub(super) fn parse_in(
    parser: &mut Parser,
    bytes: &[u8],
    ranges: &[tree_sitter::Range],
    earlier: Option<&tree_sitter::Tree>,
) -> Option<tree_sitter::Tree> {
    parser.set_included_ranges(ranges).ok()?;
    let deadline = Instant::now() + PARSE_DEADLINE;
    let mut give_up = |_: &ParseState| {
        if Instant::now() > deadline {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let len = bytes.len();
    let tree = parser.parse_with_options(
        &mut |i, _| if i < len { &bytes[i..] } else { &[] },
        earlier,
        Some(ParseOptions::new().progress_callback(&mut give_up)),
    );
    // A cancelled parse leaves state behind; the next file must start afresh.
    if tree.is_none() {
        parser.reset();
    }
    tree
}

/// The parser for `lang` among `parsers`, made on first use; None if the grammar cannot be
/// loaded.
pub(super) fn parser_for(parsers: &mut HashMap<Lang, Parser>, lang: Lang) -> Option<&mut Parser> {
    match parsers.entry(lang) {
        std::collections::hash_map::Entry::Occupied(e) => Some(e.into_mut()),
        std::collections::hash_map::Entry::Vacant(v) => {
            let mut parser = Parser::new();
            parser.set_language(&lang.grammar()).ok()?;
            Some(v.insert(parser))
        }
    }
}

/// A tree of `ranges` of `bytes` if they are some and parse without a syntax error (which
/// may come from a wrong cut), else of the whole file; with the ranges it was parsed from
/// (empty for the whole file). None if a parse times out. `earlier` as for `parse_in`.
pub(super) fn parse_in_part_or_whole(
    parser: &mut Parser,
    bytes: &[u8],
    ranges: Vec<tree_sitter::Range>,
    earlier: Option<&tree_sitter::Tree>,
) -> Option<(tree_sitter::Tree, Vec<tree_sitter::Range>)> {
    if !ranges.is_empty() {
        let part = parse_in(parser, bytes, &ranges, earlier);
        if let Some(tree) = part.filter(|t| !t.root_node().has_error()) {
            return Some((tree, ranges));
        }
    }
    Some((parse_in(parser, bytes, &[], earlier)?, Vec::new()))
}

/// A module's transport facts from a tree of `ranges` of `src` (its facts' window,
/// `transports_window`; empty: the whole file), parsed as `parse_in_part_or_whole` does,
/// walked as `transports::facts_where` does (`marks`, with the windows: the prefilter's).
/// A part left out holds no fact word, but it may read a flag or use a name an import binds
/// (`transports_window::taken_back`): then once more with those parts, and if that is not
/// enough, the whole file. None if a parse times out.
pub(super) fn facts_in_part(
    parser: &mut Parser,
    lang: Lang,
    src: &[u8],
    ranges: Vec<tree_sitter::Range>,
    earlier: Option<&tree_sitter::Tree>,
    marks: Option<&transports_window::Marks>,
) -> Option<Option<ModuleFacts>> {
    let (mut tree, mut ranges) = parse_in_part_or_whole(parser, src, ranges, earlier)?;
    for _ in 0..2 {
        let facts = transports::facts_where(lang, tree.root_node(), src, &ranges, marks);
        let Some(back) = facts
            .as_ref()
            .and_then(|f| transports_window::taken_back(f, src, &ranges))
        else {
            return Some(facts);
        };
        (tree, ranges) = parse_in_part_or_whole(parser, src, back, Some(&tree))?;
    }
    let tree = parse_in(parser, src, &[], Some(&tree))?;
    Some(transports::facts_where(
        lang,
        tree.root_node(),
        src,
        &[],
        marks,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::lang::{transports_window, Lang};

    /// Every node of a tree, in order: its kind, its bytes and whether it is named.
    fn nodes(tree: &tree_sitter::Tree) -> Vec<(u16, usize, usize, bool)> {
        let mut out = Vec::new();
        let mut cursor = tree.walk();
        'walk: loop {
            let node = cursor.node();
            out.push((
                node.kind_id(),
                node.start_byte(),
                node.end_byte(),
                node.is_named(),
            ));
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
        out
    }

    /// A module with large quiet definitions, one that writes, one that exits and a branch on
    /// the transport: the scan's window and the facts' window leave out different parts.
    fn module(lang: Lang) -> String {
        let (body, quiet) = transports_window::quiet_parts(lang);
        if lang == Lang::Python {
            format!(
                "import sys\n{quiet}def loud(x):\n    print(x)\n{body}\ndef leave(x):\n{body}    sys.exit(2)\n\n\
                 {quiet}if os.environ.get('TRANSPORT') == 'http':\n    app.run()\n"
            )
        } else {
            format!(
                "import {{ a }} from './a.js';\n{quiet}function loud(x) {{\n  console.log(x);\n{body}}}\n\
                 function leave(x) {{\n{body}  process.exit(2);\n}}\n{quiet}\
                 if (process.env.TRANSPORT === 'http') {{\n  app.listen(3000);\n}}\n"
            )
        }
    }

    /// A parse that reuses an earlier tree of other ranges (the scan's window, then the
    /// facts' window or the whole file, as `Worker::facts` and `parse_and_scan` do) makes the
    /// tree a fresh parse of those ranges makes: the same nodes, kinds and bytes.
    #[test]
    fn a_parse_that_reuses_an_earlier_tree_makes_the_tree_a_fresh_parse_makes() {
        for lang in [Lang::JavaScript, Lang::TypeScript, Lang::Python] {
            let src = module(lang);
            let src = src.as_bytes();
            let scan = lang
                .parse_ranges(&lang.text(src))
                .expect("a window for the scan");
            let facts = transports_window::ranges(lang, src).expect("a window for facts");
            let mut parser = Parser::new();
            parser.set_language(&lang.grammar()).expect("grammar");
            let first = parse_in(&mut parser, src, &scan, None).expect("parsed");
            assert!(!first.root_node().has_error(), "{lang:?}");
            for ranges in [facts, Vec::new()] {
                let fresh = parse_in(&mut parser, src, &ranges, None).expect("parsed");
                let reused = parse_in(&mut parser, src, &ranges, Some(&first)).expect("parsed");
                assert!(!fresh.root_node().has_error(), "{lang:?}");
                // The earlier tree is of other ranges: it lacks parts the new one has.
                assert!(nodes(&first).len() < nodes(&fresh).len(), "{lang:?}");
                assert_eq!(nodes(&reused), nodes(&fresh), "{lang:?}");
            }
        }
    }
}
