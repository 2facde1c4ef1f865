//! The transport facts a worker takes of a file with findings, for `reach`: from the
//! scan's tree where it holds them, else from a window of their own (`transports_window`).

use super::super::lang::transports::{self, ModuleFacts};
use super::super::lang::transports_window;
use super::super::lang::{Lang, Text};
use super::Worker;

impl Worker<'_> {
    /// The transport facts of a file with findings, from the tree the scan parsed if it is
    /// whole or its left-out parts mention no fact word nor a name the facts follow
    /// (`transports_window::taken_back`), and it is not a Python window (cut statement by
    /// statement, it may leave out what decides them), else from a window of its own
    /// (`transports_window`) or the whole file, parsed here on this thread, or, where no
    /// entry's loads are followed and only an exit or `__main__` near the writes can make
    /// them notes, from a window of the parts around them (`local_facts`); Some(None) if a
    /// text test shows they cannot make a write at `writes` a note (`reach` then reads the
    /// file itself if the stdio path loads it); None for a language without facts, or a parse
    /// that times out (`reach` then reads the file itself). `tests/it/source/large.rs`
    /// compares the findings with the prefilter (and so these text tests) on and off over
    /// real trees.
    pub(super) fn facts(
        &mut self,
        lang: Lang,
        text: &Text<'_>,
        tree: &tree_sitter::Tree,
        window: &[tree_sitter::Range],
        writes: &[usize],
    ) -> Option<Option<ModuleFacts>> {
        let bytes = text.src;
        if !transports::has_facts(lang) {
            return None;
        }
        // The text tests are a prefilter too: without it every such file's facts are kept,
        // from the whole tree (the scan parses whole without the prefilter). Where the
        // words are (`may_demote_at`) is read only where the scan met no syntax error.
        let demotes = if tree.root_node().has_error() {
            transports::may_demote(lang, bytes).then(Vec::new)
        } else {
            transports::demoting_parts(lang, text, writes)
        };
        if self.prefilter {
            let Some(parts) = demotes else {
                return Some(None);
            };
            // Where no entry's path is followed, a module's loads and what it serves decide
            // nothing but its own writes' notes: the parts around them are enough.
            if !parts.is_empty() && !self.follows_loads {
                if let Some(facts) = self.local_facts(lang, text, tree, &parts) {
                    return Some(Some(facts));
                }
            }
        }
        // A module that serves only HTTP makes every write in it a note (or leaves it a
        // warning where the stdio path loads it): what makes it serve is enough. Without the
        // prefilter every module's facts are whole.
        if self.prefilter {
            if let Some(facts) = self.serving_facts(lang, text, tree, window) {
                return Some(Some(facts));
            }
        }
        let mentions = transports_window::FactMentions::of(lang, text);
        // A Python window is cut statement by statement, finer than the facts read: a guard
        // (`if not use_http: return`) holds no fact word, yet makes what follows it off the
        // stdio path. Only a whole Python tree gives them.
        let fine = lang == Lang::Python && !window.is_empty();
        // Without the prefilter, every node is walked.
        let marks = self.prefilter.then(|| mentions.marks(lang, bytes));
        if !fine && mentions.held_by(window, bytes.len()) {
            let facts =
                transports::facts_where(lang, tree.root_node(), bytes, window, marks.as_ref());
            // A part the scan left out names what the facts follow: the facts' own window.
            let taken_back = |f: &ModuleFacts| transports_window::taken_back(f, bytes, window);
            if facts.as_ref().and_then(taken_back).is_none() {
                return Some(facts);
            }
        }
        let ranges = mentions.ranges(lang, text).unwrap_or_default();
        let parser = super::super::trees::parser_for(&mut self.parsers, lang)?;
        super::super::trees::facts_in_part(parser, lang, bytes, ranges, Some(tree), marks.as_ref())
    }

    /// A Python module's facts from a window of `parts` (`transports::demoting_parts`: only
    /// an exit or `__main__` in them can make its writes notes, and it mentions no HTTP
    /// server, so it serves no HTTP): `ModuleFacts::local`, or whole if the window is the
    /// whole file. None where they need more: a write before a failing exit in a module
    /// that may serve stdio (a note only if it does not, which the window does not tell;
    /// `transports::python_may_serve_stdio`), a part left out that the facts follow
    /// (`transports_window::taken_back`), or a parse that times out.
    fn local_facts(
        &mut self,
        lang: Lang,
        text: &Text<'_>,
        tree: &tree_sitter::Tree,
        parts: &[(usize, usize)],
    ) -> Option<ModuleFacts> {
        let bytes = text.src;
        let ranges = transports_window::local_ranges(text, parts)?;
        let parser = super::super::trees::parser_for(&mut self.parsers, lang)?;
        let (part, ranges) =
            super::super::trees::parse_in_part_or_whole(parser, bytes, ranges, Some(tree))?;
        let mut facts = transports::facts_where(lang, part.root_node(), bytes, &ranges, None)?;
        let stdio_unknown =
            !facts.exit_writes.is_empty() && transports::python_may_serve_stdio(bytes);
        if stdio_unknown || transports_window::taken_back(&facts, bytes, &ranges).is_some() {
            return None;
        }
        facts.local = !ranges.is_empty();
        Some(facts)
    }

    /// A JavaScript or TypeScript module's `serves_http` and `serves_stdio` from a window of
    /// what makes it serve (the scan's tree if it holds every mention), if they make it
    /// HTTP-only (`ModuleFacts::serving_only`); None otherwise, or on a parse that times out.
    fn serving_facts(
        &mut self,
        lang: Lang,
        text: &Text<'_>,
        tree: &tree_sitter::Tree,
        window: &[tree_sitter::Range],
    ) -> Option<ModuleFacts> {
        let bytes = text.src;
        let mentions = transports_window::FactMentions::serving(lang, text)?;
        let marks = mentions.marks(lang, bytes);
        let walked = if mentions.held_by(window, bytes.len()) {
            transports::facts_where(lang, tree.root_node(), bytes, window, Some(&marks))?
        } else {
            let ranges = mentions.ranges(lang, text).unwrap_or_default();
            let parser = super::super::trees::parser_for(&mut self.parsers, lang)?;
            let (part, ranges) =
                super::super::trees::parse_in_part_or_whole(parser, bytes, ranges, Some(tree))?;
            transports::facts_where(lang, part.root_node(), bytes, &ranges, Some(&marks))?
        };
        walked.http_only().then(|| ModuleFacts {
            serves_http: true,
            serving_only: true,
            ..ModuleFacts::default()
        })
    }
}
