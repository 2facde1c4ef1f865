//! A JSON document with a long list, printed as `serde_json::to_string_pretty` prints it, the
//! list's items built and printed on several threads.
//!
//! A large SARIF document's results are most of it and most of the time it takes to print.
//! Each item is printed alone, indented to its depth, and set into the document printed with
//! an empty list, where serde_json prints `[]`: the text is the one the whole document makes
//! (`sarif_tests` compares them). Below `PARALLEL_FROM` items, one thread.

use serde::Serialize;

/// Fewer items than this are printed on the calling thread: a thread costs more.
const PARALLEL_FROM: usize = 256;
/// Most threads used.
const MAX_THREADS: usize = 4;

/// Where a list goes and how deep: `key` of an object whose members are indented by
/// `depth` levels of two spaces (the list's items by one more).
pub(super) struct Slot {
    pub key: &'static str,
    pub depth: usize,
}

/// `skeleton` (printed with the list at `slot` empty) with `items` set in, each built by a
/// builder that `builder` makes once per thread (a builder may keep what it looked up).
/// None if the skeleton does not hold exactly one such empty list.
pub(super) fn set_in<T, R, B>(
    skeleton: &str,
    slot: &Slot,
    items: &[T],
    builder: impl Fn() -> B + Sync,
) -> Option<String>
where
    T: Sync,
    R: Serialize,
    B: FnMut(&T) -> R,
{
    // A string's quotes are escaped, so this is structure.
    let empty = format!("\n{}\"{}\": []", "  ".repeat(slot.depth), slot.key);
    let at = match skeleton.match_indices(&empty).collect::<Vec<_>>()[..] {
        // Before the `]` of the empty list.
        [(at, _)] => at + empty.len() - 1,
        _ => return None,
    };
    if items.is_empty() {
        return Some(skeleton.to_string());
    }
    let indent = "  ".repeat(slot.depth + 1);
    let printed = printed(items, &indent, &builder);
    // Room for the items, their separators and a line break the caller may add.
    let room = printed.iter().map(|p| p.len() + 2).sum::<usize>();
    let mut out = String::with_capacity(skeleton.len() + room + indent.len() + 16);
    out.push_str(&skeleton[..at]);
    for (i, one) in printed.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        out.push_str(one);
    }
    out.push('\n');
    out.push_str(&indent[2..]);
    out.push_str(&skeleton[at..]);
    Some(out)
}

/// Each item built, printed and indented, in order.
fn printed<T, R, B>(items: &[T], indent: &str, builder: &(impl Fn() -> B + Sync)) -> Vec<String>
where
    T: Sync,
    R: Serialize,
    B: FnMut(&T) -> R,
{
    let print = |chunk: &[T]| -> Vec<String> {
        let mut build = builder();
        chunk
            .iter()
            .map(|item| indented(&pretty(&build(item)), indent))
            .collect()
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_THREADS);
    if items.len() < PARALLEL_FROM || threads < 2 {
        return print(items);
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || print(part)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// A value printed with serde_json's indentation.
pub(super) fn pretty(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// An item's lines indented to its depth in the document (JSON strings hold no raw line
/// break, so every one is between tokens).
fn indented(text: &str, indent: &str) -> String {
    let lines = 1 + text.bytes().filter(|b| *b == b'\n').count();
    let mut out = String::with_capacity(text.len() + lines * indent.len());
    out.push_str(indent);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(indent);
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Item {
        id: usize,
        text: String,
        tags: Vec<&'static str>,
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
            let set = set_in(&skeleton, &slot, &ids, || |i: &usize| item(*i));
            assert_eq!(set.as_deref(), Some(whole.as_str()), "{n} items");
        }
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
        assert!(set_in(&skeleton, &wrong, &[1usize], || |i: &usize| *i).is_none());
    }
}
