//! A JSON document with a long list, printed as `serde_json::to_string_pretty` prints it, the
//! list's items built and printed on several threads.
//!
//! A large SARIF document's results are most of it and most of the time it takes to print.
//! Each item is printed alone, indented to its depth, and set into the document printed with
//! an empty list, where serde_json prints `[]`: the text is the one the whole document makes
//! (`sarif_tests` compares them). Below `PARALLEL_FROM` items, one thread. The pieces are
//! kept apart (`Printed`): joined, they would be copied once more into fresh memory.

use super::printed::Printed;
use serde::Serialize;

/// Fewer items than this are printed on the calling thread: a thread costs more.
const PARALLEL_FROM: usize = 256;
/// Most threads used.
const MAX_THREADS: usize = 4;
/// Most room a thread reserves ahead for its items' text; past it, the text grows as it is
/// written.
const MAX_RESERVED: usize = 64 << 20;

/// Where a list goes and how deep: `key` of an object whose members are indented by
/// `depth` levels of two spaces (the list's items by one more).
pub(super) struct Slot {
    pub key: &'static str,
    pub depth: usize,
}

/// The document `skeleton` prints (with the list at `slot` empty) with `items` set in, each
/// built by a builder that `builder` makes once per thread (a builder may keep what it
/// looked up). The skeleton is printed on the calling thread while the items print on
/// others (a SARIF skeleton's rules and their help take a few milliseconds on one thread).
/// None if the skeleton does not hold exactly one such empty list.
pub(super) fn set_in<T, R, B>(
    skeleton: impl FnOnce() -> String,
    slot: &Slot,
    items: &[T],
    builder: impl Fn() -> B + Sync,
) -> Option<Printed>
where
    T: Sync,
    R: Serialize,
    B: FnMut(&T) -> R,
{
    let (skeleton, mut printed) = printed(items, slot.depth + 1, &builder, skeleton);
    // A string's quotes are escaped, so this is structure.
    let empty = format!("\n{}\"{}\": []", "  ".repeat(slot.depth), slot.key);
    let at = match skeleton.match_indices(&empty).collect::<Vec<_>>()[..] {
        // Before the `]` of the empty list.
        [(at, _)] => at + empty.len() - 1,
        _ => return None,
    };
    if items.is_empty() {
        return Some(Printed::from(skeleton));
    }
    // The line break and indentation before the list's `]`.
    printed.push(format!("\n{}", "  ".repeat(slot.depth)));
    Some(Printed::with_inserted(skeleton, at, printed))
}

/// The items built and printed in order, each after a line break (and a comma after the
/// first) and indented `depth` levels, as one text per thread's share; with what
/// `meanwhile` gives, called on this thread while other threads print.
fn printed<T, R, B>(
    items: &[T],
    depth: usize,
    builder: &(impl Fn() -> B + Sync),
    meanwhile: impl FnOnce() -> String,
) -> (String, Vec<String>)
where
    T: Sync,
    R: Serialize,
    B: FnMut(&T) -> R,
{
    let print = |chunk: &[T], first: bool| -> String {
        let mut build = builder();
        let mut out = Vec::new();
        for (i, item) in chunk.iter().enumerate() {
            out.extend_from_slice(if first && i == 0 { b"\n" } else { b",\n" });
            Deep::print_into(&mut out, depth, &build(item));
            if i == 0 {
                // Room for twice what the first item suggests (at most `MAX_RESERVED`):
                // growing by doubling would copy the text into fresh memory again and again;
                // room never written costs none.
                out.reserve(out.len().saturating_mul(2 * chunk.len()).min(MAX_RESERVED));
            }
        }
        // serde_json writes valid UTF-8 (its strings come from `str`).
        String::from_utf8(out).unwrap_or_default()
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_THREADS);
    if items.len() < PARALLEL_FROM || threads < 2 {
        return (meanwhile(), vec![print(items, true)]);
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .enumerate()
            .map(|(i, part)| scope.spawn(move || print(part, i == 0)))
            .collect();
        let other = meanwhile();
        let printed = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect();
        (other, printed)
    })
}

/// A value printed with serde_json's indentation.
pub(super) fn pretty(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// serde_json's pretty printing (two spaces a level, `": "` after a key, `[]` and `{}` when
/// empty) starting `base` levels deep, so an item prints straight into its place in the
/// document: its first line indented too, and no copy to indent it afterwards.
struct Deep {
    base: usize,
    level: usize,
    has_value: bool,
}

impl Deep {
    fn print_into(out: &mut Vec<u8>, base: usize, value: &impl Serialize) {
        let deep = Deep {
            base,
            level: 0,
            has_value: false,
        };
        out.extend(std::iter::repeat_n(b' ', 2 * base));
        let start = out.len();
        let mut serializer = serde_json::Serializer::with_formatter(&mut *out, deep);
        // Serializing our own values cannot fail (no map has a key that is not a string);
        // if one did, it would print as `null`, never half-written.
        if value.serialize(&mut serializer).is_err() {
            out.truncate(start);
            out.extend_from_slice(b"null");
        }
    }

    fn indent(&self, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
        // Two spaces a level, written at once (a line of a SARIF result is 4 to 12 levels deep).
        const SPACES: &[u8; 64] = &[b' '; 64];
        let mut width = 2 * (self.base + self.level);
        while width > 0 {
            let now = width.min(SPACES.len());
            out.write_all(&SPACES[..now])?;
            width -= now;
        }
        Ok(())
    }

    fn open(
        &mut self,
        out: &mut (impl std::io::Write + ?Sized),
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level += 1;
        self.has_value = false;
        out.write_all(bracket)
    }

    fn close(
        &mut self,
        out: &mut (impl std::io::Write + ?Sized),
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level -= 1;
        if self.has_value {
            out.write_all(b"\n")?;
            self.indent(out)?;
        }
        out.write_all(bracket)
    }

    fn next(
        &mut self,
        out: &mut (impl std::io::Write + ?Sized),
        first: bool,
    ) -> std::io::Result<()> {
        out.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(out)
    }
}

impl serde_json::ser::Formatter for Deep {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.next(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.next(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Item {
        id: usize,
        text: String,
        tags: Vec<&'static str>,
        none: Vec<u8>,
        empty: std::collections::BTreeMap<String, u8>,
        nested: Vec<std::collections::BTreeMap<String, Vec<u8>>>,
    }

    #[derive(Serialize)]
    struct Doc {
        name: &'static str,
        items: Vec<Item>,
        after: Vec<u8>,
    }

    fn item(id: usize) -> Item {
        Item {
            id,
            text: format!("line\nbreak \"{id}\""),
            tags: vec!["a", "b"],
            none: Vec::new(),
            empty: Default::default(),
            nested: vec![
                [("k".to_string(), vec![1, 2])].into(),
                [("e".to_string(), Vec::new())].into(),
            ],
        }
    }

    /// Deeper than one write of spaces (32 levels) and from a base level, an item prints as
    /// serde_json prints it, every line indented by the base.
    #[test]
    fn a_deep_item_prints_as_serde_json_prints_it_from_its_base() {
        let mut value = serde_json::json!({"k": [1, "two"]});
        for level in 0..40 {
            value = serde_json::json!({ format!("l{level}"): [value, {}, []] });
        }
        let whole = pretty(&value);
        for base in [0, 1, 5, 33] {
            let mut out = Vec::new();
            Deep::print_into(&mut out, base, &value);
            let margin = " ".repeat(2 * base);
            let expected: Vec<String> = whole.lines().map(|l| format!("{margin}{l}")).collect();
            assert_eq!(
                String::from_utf8(out).expect("UTF-8"),
                expected.join("\n"),
                "{base}"
            );
        }
    }

    #[test]
    fn items_set_in_print_as_the_whole_document_does() {
        let slot = Slot {
            key: "items",
            depth: 1,
        };
        // One thread, and several.
        for n in [0, 1, 3, PARALLEL_FROM * 2 + 1] {
            let ids: Vec<usize> = (0..n).collect();
            let doc = |items| Doc {
                name: "d",
                items,
                after: vec![1, 2],
            };
            let whole = pretty(&doc(ids.iter().map(|i| item(*i)).collect()));
            let skeleton = pretty(&doc(Vec::new()));
            let set = set_in(|| skeleton.clone(), &slot, &ids, || |i: &usize| item(*i));
            assert_eq!(set.map(Printed::into_string), Some(whole), "{n} items");
        }
        // An item serde_json cannot print (a map keyed by a pair) prints as `null`: the
        // document stays JSON, with every other item in its place.
        let skeleton = pretty(&Doc {
            name: "d",
            items: Vec::new(),
            after: vec![1, 2],
        });
        let odd = |i: &usize| -> std::collections::BTreeMap<(usize, usize), usize> {
            [((*i, *i), *i)].into_iter().filter(|_| *i == 1).collect()
        };
        let set = set_in(|| skeleton.clone(), &slot, &[0usize, 1, 2], || odd).expect("set");
        let set = set.into_string();
        let parsed: serde_json::Value = serde_json::from_str(&set).expect("JSON");
        assert_eq!(parsed["items"], serde_json::json!([{}, null, {}]), "{set}");
        // No such empty list at that depth: None, for the caller to print the whole.
        let skeleton = pretty(&Doc {
            name: "d",
            items: Vec::new(),
            after: Vec::new(),
        });
        let wrong = Slot {
            key: "items",
            depth: 2,
        };
        assert!(set_in(|| skeleton.clone(), &wrong, &[1usize], || |i: &usize| *i).is_none());
    }
}
