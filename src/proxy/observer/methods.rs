//! Method names: one shared copy of each, and the count of messages of each, both bounded.

use crate::finding::excerpt;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Distinct method names counted; the rest are counted together.
const MAX_METHODS: usize = 1_000;
const OTHER_METHODS: &str = "(other methods)";

/// Message counts per method name, bounded.
#[derive(Default, Clone)]
struct MethodCounts(BTreeMap<String, u64>);

impl MethodCounts {
    /// Counts `n` messages of `method`.
    fn add(&mut self, method: &str, n: u64) {
        if let Some(count) = self.0.get_mut(method) {
            *count += n;
            return;
        }
        // Distinct method names are bounded: a peer inventing names cannot grow this.
        let key = excerpt(method, 128);
        let key = if self.0.len() < MAX_METHODS || self.0.contains_key(&key) {
            key
        } else {
            OTHER_METHODS.to_string()
        };
        *self.0.entry(key).or_default() += n;
    }
}

/// A method name as the observer keeps it (in a pending request, a recent answer): its
/// place among the shared names, or past their bound a reference of its own. Copying a
/// place touches no shared count.
#[derive(Clone)]
pub(super) enum Name {
    Shared(u32),
    Own(Arc<str>),
}

/// The messages of each method: one shared copy of each method name (bounded like the
/// counts), so a request's pending entry, its recent answer and its records refer to it
/// instead of holding a string each; and the count of each. The name seen last is kept
/// apart with the messages of it not yet counted: a run of one method (a stream of calls,
/// a flood) costs one comparison a message.
#[derive(Default)]
pub(super) struct MethodNames {
    places: HashMap<Arc<str>, u32, foldhash::fast::RandomState>,
    shared: Vec<Arc<str>>,
    counts: MethodCounts,
    /// The name seen last, and how many of its messages `counts` does not hold yet.
    last: Option<(Name, u64)>,
}

impl MethodNames {
    /// Counts a message of `method`; returns its name.
    pub(super) fn count(&mut self, method: &str) -> Name {
        let (name, n) = match self.last.take() {
            Some((name, n)) if **self.get(&name) == *method => (name, n),
            previous => {
                // Another method: the run of the last one is counted.
                if let Some((name, n)) = previous {
                    let text = Arc::clone(self.get(&name));
                    self.counts.add(&text, n);
                }
                (self.name(method), 0)
            }
        };
        self.last = Some((name.clone(), n + 1));
        name
    }

    /// A name's text.
    pub(super) fn get<'a>(&'a self, name: &'a Name) -> &'a Arc<str> {
        match name {
            Name::Shared(place) => &self.shared[*place as usize],
            Name::Own(text) => text,
        }
    }

    /// `method`'s name, made a shared one if it is new and there is room.
    fn name(&mut self, method: &str) -> Name {
        if let Some(place) = self.places.get(method) {
            return Name::Shared(*place);
        }
        let text: Arc<str> = Arc::from(method);
        if self.shared.len() >= MAX_METHODS {
            return Name::Own(text);
        }
        let place = self.shared.len() as u32;
        self.shared.push(Arc::clone(&text));
        self.places.insert(text, place);
        Name::Shared(place)
    }

    /// Messages per method.
    pub(super) fn counts(&self) -> BTreeMap<String, u64> {
        let mut counts = self.counts.clone();
        if let Some((name, n)) = &self.last {
            counts.add(self.get(name), *n);
        }
        counts.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names and counts are those of counting each message as it comes (the counts'
    /// own `add`, once a message, as the observer did before names were cached): runs of one
    /// method, many methods (past the bound), names longer than a count's key.
    #[test]
    fn counting_runs_apart_counts_as_counting_each_message() {
        let long = "l".repeat(200);
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut names = MethodNames::default();
        let mut each = MethodCounts::default();
        for step in 0..20_000 {
            let method = match next(4) {
                0 => "tools/call".to_string(),
                1 => format!("x/{}", next(1_500)),
                2 => format!("{long}{}", next(3)),
                _ => format!("y/{}", next(20)),
            };
            for _ in 0..=next(5) {
                let name = names.count(&method);
                assert_eq!(**names.get(&name), *method);
                each.add(&method, 1);
            }
            if step % 1_000 == 0 {
                assert_eq!(names.counts(), each.0);
            }
        }
        assert_eq!(names.counts(), each.0);
        assert!(each.0.contains_key(OTHER_METHODS));
        assert!(names.shared.len() <= MAX_METHODS);
    }
}
