//! A rendered report kept in the pieces it was printed in, written one after the other:
//! a large SARIF document's results are printed apart from the rest of it, and joining them
//! would copy megabytes into memory the process never touched, for nothing.

/// `text` with `inserted` set in at byte `at`, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Printed {
    text: String,
    at: usize,
    inserted: Vec<String>,
}

impl Printed {
    /// `text` with `inserted` at byte `at` (a char boundary of `text`, or its end if past it).
    pub fn with_inserted(text: String, at: usize, inserted: Vec<String>) -> Self {
        let at = if text.is_char_boundary(at) {
            at
        } else {
            text.len()
        };
        Self { text, at, inserted }
    }

    /// The length in bytes of the whole.
    pub fn len(&self) -> usize {
        self.text.len() + self.inserted.iter().map(String::len).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pieces, in order: their concatenation is the whole.
    pub fn parts(&self) -> impl Iterator<Item = &str> {
        let (before, after) = self.text.split_at(self.at);
        std::iter::once(before)
            .chain(self.inserted.iter().map(String::as_str))
            .chain(std::iter::once(after))
    }

    /// `tail` added at the end.
    pub fn push_str(&mut self, tail: &str) {
        self.text.push_str(tail);
    }

    /// The whole, joined.
    pub fn into_string(self) -> String {
        if self.inserted.is_empty() {
            return self.text;
        }
        let mut out = String::with_capacity(self.len());
        for part in self.parts() {
            out.push_str(part);
        }
        out
    }
}

impl From<String> for Printed {
    fn from(text: String) -> Self {
        let at = text.len();
        Self {
            text,
            at,
            inserted: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pieces_join_to_the_whole_wherever_the_insertion_is() {
        let inserted = vec!["<1>".to_string(), String::new(), "<2>".to_string()];
        for (at, whole) in [
            (0, "<1><2>héllo"),
            (3, "hé<1><2>llo"),
            (6, "héllo<1><2>"),
            // Not a char boundary (inside `é`), or past the end: at the end.
            (2, "héllo<1><2>"),
            (60, "héllo<1><2>"),
        ] {
            let mut printed = Printed::with_inserted("héllo".into(), at, inserted.clone());
            assert_eq!(printed.len(), whole.len(), "{at}");
            assert_eq!(printed.parts().collect::<String>(), whole, "{at}");
            printed.push_str("\n");
            assert_eq!(printed.clone().into_string(), format!("{whole}\n"), "{at}");
            assert_eq!(printed.len(), whole.len() + 1, "{at}");
        }
        let plain = Printed::from("text".to_string());
        assert_eq!(plain.parts().collect::<Vec<_>>(), ["text", ""]);
        assert_eq!(plain.into_string(), "text");
        assert!(Printed::default().is_empty());
    }
}
