//! Where a module mentions a fact word or a flag, so the walk for its transport facts can
//! pass by the nodes that mention neither (`transports::facts_where`).
//!
//! Every fact the walk in `transports` takes comes from a node whose bytes hold a fact word
//! (`transports_window::fact_words`: a load's keyword, a transport, `listen`, `stdin`, an
//! exit, a condition's words; not a write's) or a flag's name (a name set from a condition that
//! holds only off stdio). A node that holds neither, with all below it, adds nothing: its
//! branches compare no transport, its setters set no flag, its blocks hold no exit.
//! The marks are the window's mentions (`transports_window::FactMentions`: code words in
//! code or as a whole string, condition words anywhere and in any case), which already leave
//! out nothing a fact is read from.

use super::Lang;

/// The whole-word mentions of a module's fact words and of the flags added, as (start, end)
/// in source order.
#[derive(Debug, Clone)]
pub struct Marks {
    at: Vec<(usize, usize)>,
    dollar: bool,
    /// The longest mention: one that overlaps a node starts at most this far before it.
    longest: usize,
}

impl Marks {
    /// The mentions of `lang`'s fact words in `src` that the window found (`at`, in source
    /// order), but the writes'.
    pub fn new(lang: Lang, src: &[u8], at: &[(usize, usize)]) -> Self {
        let at: Vec<(usize, usize)> = at
            .iter()
            .copied()
            .filter(|&(start, end)| !WRITES.iter().any(|w| w.as_bytes() == &src[start..end]))
            .collect();
        Self {
            longest: at.iter().map(|(s, e)| e - s).max().unwrap_or(0),
            at,
            dollar: !matches!(lang, Lang::Python),
        }
    }

    /// Also the whole-word mentions of `name` (a flag).
    pub fn add(&mut self, src: &[u8], name: &str) {
        let word = name.as_bytes();
        if word.is_empty() {
            return;
        }
        self.at.extend(
            memchr::memmem::find_iter(src, word)
                .map(|i| (i, i + word.len()))
                .filter(|&(start, end)| whole(src, start, end, self.dollar)),
        );
        self.at.sort_unstable();
        self.longest = self.longest.max(word.len());
    }

    /// True if a mention overlaps `start..end`.
    pub fn holds(&self, start: usize, end: usize) -> bool {
        let from = self.at.partition_point(|(s, _)| *s + self.longest <= start);
        self.at[from..]
            .iter()
            .take_while(|(s, _)| *s < end)
            .any(|(_, e)| *e > start)
    }
}

/// Not part of a longer identifier (ASCII letters and digits, `_`, any non-ASCII byte and, in
/// JavaScript, `$`).
fn whole(src: &[u8], start: usize, end: usize, dollar: bool) -> bool {
    let ident =
        |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80 || (dollar && b == b'$');
    (start == 0 || !ident(src[start - 1])) && src.get(end).is_none_or(|b| !ident(*b))
}

/// The fact words of writes: the window keeps the branch around a write, but a write is no
/// fact itself (the writes before a failing exit are in a block that holds the exit).
const WRITES: &[&str] = &["console", "stdout", "write", "print", "echo"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_is_marked_when_a_fact_word_or_an_added_flag_overlaps_it() {
        let src = b"const useHttp = x; if (useHttp) { console.log(a); }\nprocess.exit(1); // SSE\nexits();";
        let text = std::str::from_utf8(src).expect("utf-8");
        let at = |needle: &str| text.find(needle).expect("present");
        let lang = Lang::JavaScript;
        let mentions =
            crate::source::lang::transports_window::FactMentions::of(lang, &lang.text(src));
        let mut marks = mentions.marks(lang, src);
        // `exit` and `SSE` (a condition's word: any case, anywhere); not `exits`, nor the
        // write.
        let exit = at("exit(1)");
        assert!(marks.holds(exit, exit + 4));
        assert!(marks.holds(exit - 8, exit + 1));
        assert!(marks.holds(at("SSE"), at("SSE") + 1));
        assert!(!marks.holds(at("exits"), src.len()));
        assert!(!marks.holds(at("console"), at("console") + 11));
        let flag = at("if (useHttp)");
        assert!(!marks.holds(flag, flag + 12));
        marks.add(src, "useHttp");
        assert!(marks.holds(flag, flag + 12));
    }
}
