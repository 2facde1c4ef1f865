//! Byte-identical copies of a source file (a vendored package, a build copied into two
//! places) are parsed once. What the scan of a file's bytes finds follows from those bytes
//! and its language alone: its path enters only when its hits become findings and its facts
//! are filed under it. So the first scan of some bytes is kept, and a copy seen later, by any
//! worker, takes it with its own path: the results are those of scanning every copy.

use super::lang::transports::ModuleFacts;
use super::lang::{Hit, Lang};
use super::suppress::Suppressions;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex};

/// Most bytes of source kept to recognise copies by; past it, files are scanned anew.
const MAX_KEPT_BYTES: usize = 64 << 20;

/// What the scan of one file's bytes found.
#[derive(Debug)]
pub(super) struct Scanned {
    pub hits: Vec<Hit>,
    pub suppressions: Suppressions,
    pub syntax_error: bool,
    /// Parsed from a window (`Lang::parse_ranges`), not whole.
    pub in_part: bool,
    /// Bytes handed to the parser, every attempt counted.
    pub bytes_parsed: u64,
    /// The transport facts kept for `reach`: None if none were kept (no finding, a language
    /// without facts, --all-transports, or a parse that timed out).
    pub facts: Option<Option<ModuleFacts>>,
}

/// The scans kept so far, shared by the workers.
#[derive(Default)]
pub(super) struct Copies {
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    by_hash: HashMap<(Lang, u64), Vec<Arc<Copy>>>,
    bytes: usize,
}

/// One file's bytes with what their scan found.
#[derive(Debug)]
pub(super) struct Copy {
    bytes: Vec<u8>,
    pub scanned: Scanned,
}

fn hash(bytes: &[u8]) -> u64 {
    foldhash::fast::FixedState::with_seed(0).hash_one(bytes)
}

impl Copies {
    /// The scan of a file with exactly these bytes in this language, if one is kept.
    pub fn find(&self, lang: Lang, bytes: &[u8]) -> Option<Arc<Copy>> {
        let key = (lang, hash(bytes));
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.by_hash
            .get(&key)?
            .iter()
            .find(|c| c.bytes == bytes)
            .cloned()
    }

    /// Keeps the scan of `bytes` (while the bound allows) and hands it back.
    pub fn keep(&self, lang: Lang, bytes: &[u8], scanned: Scanned) -> Arc<Copy> {
        let key = (lang, hash(bytes));
        let copy = Arc::new(Copy {
            bytes: bytes.to_vec(),
            scanned,
        });
        // Hashing and copying stay outside the lock the other workers wait on.
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.bytes + bytes.len() <= MAX_KEPT_BYTES {
            kept.bytes += bytes.len();
            kept.by_hash.entry(key).or_default().push(Arc::clone(&copy));
        }
        copy
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(bytes_parsed: u64) -> Scanned {
        Scanned {
            hits: Vec::new(),
            suppressions: Suppressions::default(),
            syntax_error: false,
            in_part: false,
            bytes_parsed,
            facts: None,
        }
    }

    #[test]
    fn a_copy_is_found_by_its_exact_bytes_and_language() {
        let copies = Copies::default();
        copies.keep(Lang::Python, b"print(1)\n", scanned(9));
        let found = copies.find(Lang::Python, b"print(1)\n").expect("kept");
        assert_eq!(found.scanned.bytes_parsed, 9);
        assert!(copies.find(Lang::Python, b"print(2)\n").is_none());
        assert!(copies.find(Lang::JavaScript, b"print(1)\n").is_none());
    }

    #[test]
    fn bytes_with_the_same_hash_are_told_apart_by_their_content() {
        let copies = Copies::default();
        let copy = copies.keep(Lang::Python, b"a\n", scanned(1));
        // Another file under the same key, as a hash collision would file it.
        let other = Arc::new(Copy {
            bytes: b"b\n".to_vec(),
            scanned: scanned(2),
        });
        let key = (Lang::Python, hash(b"a\n"));
        copies
            .kept
            .lock()
            .expect("lock")
            .by_hash
            .get_mut(&key)
            .expect("kept")
            .insert(0, other);
        let found = copies.find(Lang::Python, b"a\n").expect("kept");
        assert_eq!(found.scanned.bytes_parsed, copy.scanned.bytes_parsed);
        assert!(
            copies.find(Lang::Python, b"b\n").is_none(),
            "b has another hash"
        );
    }

    #[test]
    fn past_the_bound_a_scan_is_handed_back_but_not_kept() {
        let copies = Copies::default();
        copies.kept.lock().expect("lock").bytes = MAX_KEPT_BYTES - 4;
        copies.keep(Lang::Python, b"x = 1\n", scanned(6));
        assert!(copies.find(Lang::Python, b"x = 1\n").is_none());
        copies.keep(Lang::Python, b"x\n", scanned(2));
        assert!(copies.find(Lang::Python, b"x\n").is_some());
    }
}
