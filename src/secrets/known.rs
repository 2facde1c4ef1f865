//! The secret values one run was given — `--env` and `--header` values, the Action's `env`,
//! a sweep entry's secret inputs, variables and URL passwords — removed from every text
//! that comes from outside (a server's stdout, stderr and answers, an installer's output)
//! before that text is cut, escaped or serialised. A copy the server escaped (JSON, a
//! debug string, a shell word, a URL) is removed too. Keys, statuses, codes and the
//! project's own words are never rewritten: only untrusted text passes through here.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

/// Shortest value removed from free text: a shorter one would rewrite ordinary words
/// (`on`, `dev`). Such values still never appear where they were given (arguments,
/// variables), and a report says when one was given (a documented limit).
pub const MIN_SECRET_CHARS: usize = 4;

/// What replaces a given value that carries no name of its own.
pub const MASK: &str = "[REDACTED]";

/// The secret values of one run, each with what replaces it.
#[derive(Debug, Default)]
pub struct KnownSecrets {
    /// Every form of every value long enough to remove, with its mask.
    forms: Vec<(String, String)>,
    /// Values given as secret but too short to remove from free text.
    too_short: usize,
    searcher: std::sync::OnceLock<Option<aho_corasick::AhoCorasick>>,
}

impl Clone for KnownSecrets {
    fn clone(&self) -> Self {
        Self {
            forms: self.forms.clone(),
            too_short: self.too_short,
            searcher: std::sync::OnceLock::new(),
        }
    }
}

impl KnownSecrets {
    pub fn new() -> Self {
        Self::default()
    }

    /// A set of values, each shown as [`MASK`].
    pub fn of<'a>(values: impl IntoIterator<Item = &'a str>) -> Self {
        let mut known = Self::new();
        values.into_iter().for_each(|v| known.add(v, MASK));
        known
    }

    /// Adds `value`, shown as `mask` wherever it (or an escaped copy of it) appears.
    pub fn add(&mut self, value: &str, mask: &str) {
        if value.trim().is_empty() {
            return;
        }
        if value.chars().count() < MIN_SECRET_CHARS {
            self.too_short += 1;
            return;
        }
        for form in forms(value) {
            if !self.forms.iter().any(|(f, _)| *f == form) {
                self.forms.push((form, mask.to_string()));
            }
        }
        self.searcher = std::sync::OnceLock::new();
    }

    /// Adds every value of `other`, with its mask.
    pub fn extend(&mut self, other: &KnownSecrets) {
        for (form, mask) in &other.forms {
            if !self.forms.iter().any(|(f, _)| f == form) {
                self.forms.push((form.clone(), mask.clone()));
            }
        }
        self.too_short += other.too_short;
        self.searcher = std::sync::OnceLock::new();
    }

    pub fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }

    /// How many values were given as secret but are too short to remove from free text.
    pub fn too_short(&self) -> usize {
        self.too_short
    }

    /// `text` without any given value, in any of its forms.
    pub fn remove<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let Some(searcher) = self.searcher() else {
            return Cow::Borrowed(text);
        };
        if !searcher.is_match(text) {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for m in searcher.find_iter(text) {
            out.push_str(&text[last..m.start()]);
            out.push_str(&self.forms[m.pattern().as_usize()].1);
            last = m.end();
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }

    /// `text` without any given value and without any credential by its shape: what every
    /// text from outside goes through before it is kept.
    pub fn clean(&self, text: &str) -> String {
        crate::secrets::redact(&self.remove(text))
    }

    /// Every string of a JSON value from outside cleaned; keys are left as they are, so
    /// what the value means to the checks does not change.
    pub fn clean_json(&self, value: &mut serde_json::Value) {
        use serde_json::Value;
        match value {
            Value::String(s) => {
                let cleaned = self.clean(s);
                if cleaned != *s {
                    *s = cleaned;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.clean_json(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.clean_json(v)),
            _ => {}
        }
    }

    fn searcher(&self) -> Option<&aho_corasick::AhoCorasick> {
        if self.forms.is_empty() {
            return None;
        }
        self.searcher
            .get_or_init(|| {
                aho_corasick::AhoCorasick::builder()
                    .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                    .build(self.forms.iter().map(|(f, _)| f))
                    .ok()
            })
            .as_ref()
    }
}

/// A value and the copies of it a server or a runtime may print: JSON-escaped, as a debug
/// string, as the project's own excerpts escape it, as a shell word, percent-encoded.
fn forms(value: &str) -> Vec<String> {
    let mut out = vec![value.to_string()];
    let mut push = |form: String| {
        if form.chars().count() >= MIN_SECRET_CHARS && !out.contains(&form) {
            out.push(form);
        }
    };
    if let Ok(json) = serde_json::to_string(value) {
        push(json[1..json.len() - 1].to_string());
    }
    let debug = format!("{value:?}");
    push(debug[1..debug.len() - 1].to_string());
    push(crate::text::escape_controls(value));
    push(shell_words::quote(value).into_owned());
    push(
        percent_encoding::utf8_percent_encode(value, percent_encoding::NON_ALPHANUMERIC)
            .to_string(),
    );
    out
}

tokio::task_local! {
    static IN_FORCE: Arc<KnownSecrets>;
}

/// Runs `work` with `known` in force: every excerpt made while it runs (the finding
/// module's) is cleaned before it is cut.
pub async fn in_force<F: Future>(known: Arc<KnownSecrets>, work: F) -> F::Output {
    IN_FORCE.scope(known, work).await
}

/// `text` cleaned by the secrets in force, when some are (inside [`in_force`]).
pub fn clean_in_force(text: &str) -> Option<String> {
    IN_FORCE.try_with(|known| known.clean(text)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_a_value_is_removed_and_nothing_else() {
        let known = KnownSecrets::of(["zq8\"Value\\Xyz\n123"]);
        let json = serde_json::to_string("key: zq8\"Value\\Xyz\n123!").expect("json");
        let cleaned = known.remove(&json).into_owned();
        assert_eq!(cleaned, "\"key: [REDACTED]!\"");
        assert_eq!(known.remove("a zq8\"Value\\Xyz\n123 b"), "a [REDACTED] b");
        assert_eq!(known.remove("status error pass"), "status error pass");
    }

    #[test]
    fn short_values_are_counted_not_removed() {
        let mut known = KnownSecrets::new();
        known.add("abc", MASK);
        known.add("error", "${LOG_LEVEL}");
        assert_eq!(known.too_short(), 1);
        assert_eq!(known.remove("abc error"), "abc ${LOG_LEVEL}");
    }

    #[test]
    fn json_keys_are_kept() {
        let known = KnownSecrets::of(["status"]);
        let mut v = serde_json::json!({"status": "status quo", "n": 1});
        known.clean_json(&mut v);
        assert_eq!(v, serde_json::json!({"status": "[REDACTED] quo", "n": 1}));
    }
}
