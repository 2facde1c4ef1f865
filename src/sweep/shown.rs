//! A value a swept server is given, in parts: what may be shown, and the secrets in it.
//! A secret is every value an entry marks `isSecret` (an argument, a variable, a
//! `{variable}` inside a value), every URL's userinfo password and every credential by its
//! shape; it is shown as `${NAME}`, the name an operator exports it under to replay the run.

use crate::secrets::{argv_secrets, url_passwords, ArgSecret};
use crate::shell;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ops::Range;

/// Shortest secret that is also masked in free text (a server's stderr, a message): a
/// shorter one would rewrite ordinary words. Arguments and variables are masked whatever
/// their length, by position.
const MIN_FREE_TEXT_SECRET: usize = crate::secrets::known::MIN_SECRET_CHARS;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    /// A secret value and the variable name it is shown under.
    Secret {
        name: String,
        value: String,
    },
}

/// One argument or variable value.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Shown(Vec<Part>);

impl Shown {
    pub fn text(value: impl Into<String>) -> Self {
        Self(vec![Part::Text(value.into())])
    }

    pub fn secret(name: &str, value: impl Into<String>) -> Self {
        Self(vec![Part::Secret {
            name: shell_name(name),
            value: value.into(),
        }])
    }

    pub fn push(&mut self, other: Shown) {
        self.0.extend(other.0);
    }

    /// What the server is given.
    pub fn value(&self) -> String {
        self.0
            .iter()
            .map(|p| match p {
                Part::Text(t) => t.as_str(),
                Part::Secret { value, .. } => value.as_str(),
            })
            .collect()
    }

    /// What an output shows: each secret as `${NAME}`.
    pub fn display(&self) -> String {
        self.0
            .iter()
            .map(|p| match p {
                Part::Text(t) => t.clone(),
                Part::Secret { name, .. } => format!("${{{name}}}"),
            })
            .collect()
    }

    /// One shell word that means [`Shown::value`] to `sh`, `bash` and an interactive
    /// `bash` once each secret's variable is exported: literal text as [`shell::quote`]
    /// writes it, each secret `"${NAME}"` (`'--description '"${NAME}"' index'`).
    pub fn shell_word(&self) -> String {
        let mut word = String::new();
        let mut text = String::new();
        for part in &self.0 {
            match part {
                Part::Text(t) => text.push_str(t),
                Part::Secret { name, .. } => {
                    if !text.is_empty() {
                        word.push_str(&shell::quote(&std::mem::take(&mut text)));
                    }
                    word.push_str(&format!("\"${{{name}}}\""));
                }
            }
        }
        if !text.is_empty() || word.is_empty() {
            word.push_str(&shell::quote(&text));
        }
        word
    }

    /// Marks secret, under `name`, every place `value` appears in this one's text.
    fn mark_value(&mut self, value: &str, name: &str) {
        while let Some(range) = self.text_holding(value) {
            self.mark(range, name);
        }
    }

    /// Where `value` first appears inside one text part, in [`Shown::value`]'s offsets.
    fn text_holding(&self, value: &str) -> Option<Range<usize>> {
        let mut at = 0;
        for part in &self.0 {
            match part {
                Part::Text(t) => {
                    if let Some(i) = t.find(value) {
                        return Some(at + i..at + i + value.len());
                    }
                    at += t.len();
                }
                Part::Secret { value: v, .. } => at += v.len(),
            }
        }
        None
    }

    /// Marks `range` of [`Shown::value`] secret, under `name`, where it is shown as text.
    fn mark(&mut self, range: Range<usize>, name: &str) {
        let mut parts = Vec::with_capacity(self.0.len() + 2);
        let mut at = 0;
        for part in std::mem::take(&mut self.0) {
            let len = match &part {
                Part::Text(t) => t.len(),
                Part::Secret { value, .. } => value.len(),
            };
            let (start, end) = (at, at + len);
            at = end;
            let Part::Text(text) = part else {
                parts.push(part);
                continue;
            };
            let (from, to) = (range.start.max(start), range.end.min(end));
            if from >= to {
                parts.push(Part::Text(text));
                continue;
            }
            let (before, inside, after) = (
                &text[..from - start],
                &text[from - start..to - start],
                &text[to - start..],
            );
            if !before.is_empty() {
                parts.push(Part::Text(before.to_string()));
            }
            parts.push(Part::Secret {
                name: shell_name(name),
                value: inside.to_string(),
            });
            if !after.is_empty() {
                parts.push(Part::Text(after.to_string()));
            }
        }
        self.0 = parts;
    }
}

/// An input or variable the server.json marks `isSecret`.
pub fn is_secret(input: &Value) -> bool {
    input.get("isSecret").and_then(Value::as_bool) == Some(true)
}

/// `raw` with each `{name}` of a declared variable filled from the manifest's `inputs`,
/// else the variable's `value` or `default`, secret where the variable `isSecret`; the
/// names of the placeholders that have none of them. The values filled in are not read
/// again for placeholders.
pub fn fill(
    raw: &str,
    vars: Option<&Value>,
    inputs: &BTreeMap<String, String>,
) -> (Shown, Vec<String>) {
    let vars = vars.and_then(Value::as_object);
    let mut shown = Shown::default();
    let mut unfilled = Vec::new();
    let mut rest = raw;
    while let Some(open) = rest.find('{') {
        let placeholder = rest[open + 1..]
            .find('}')
            .map(|close| &rest[open + 1..open + 1 + close])
            .and_then(|name| Some((name, vars?.get(name)?)));
        let Some((name, var)) = placeholder else {
            shown.push(Shown::text(&rest[..=open]));
            rest = &rest[open + 1..];
            continue;
        };
        shown.push(Shown::text(&rest[..open]));
        let value = inputs.get(name).cloned().or_else(|| {
            var.get("value")
                .or_else(|| var.get("default"))
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        match value {
            Some(v) if is_secret(var) => shown.push(Shown::secret(name, v)),
            Some(v) => shown.push(Shown::text(v)),
            None => unfilled.push(name.to_string()),
        }
        rest = &rest[open + name.len() + 2..];
    }
    shown.push(Shown::text(rest));
    (shown, unfilled)
}

/// A shell variable name from an input's name: kept when it is one (`conn`, `API_KEY`),
/// else its letters and digits upper-cased (`--api-key` is `API_KEY`); one of the shell's
/// own names ([`shell::SHELLS_OWN`]) is prefixed (`PATH` is `MCPCHECK_PATH`), since
/// `${PATH}` would read the operator's own value and `${RANDOM}` a random number.
pub fn shell_name(hint: &str) -> String {
    shell::own_name(&variable_name(hint)).into_owned()
}

fn variable_name(hint: &str) -> String {
    let valid = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if valid(hint) {
        return hint.to_string();
    }
    let mut name: String = hint
        .trim_start_matches('-')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    name = name.trim_matches('_').to_string();
    if name.is_empty() {
        return "SECRET".into();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    name
}

/// Marks secret, in a whole command, every credential found by its shape or its flag
/// (`--token X`, `KEY=X`, a provider token, a URL password) that no input marked already.
pub fn mark_credentials(argv: &mut [Shown]) {
    let values: Vec<String> = argv.iter().map(Shown::value).collect();
    for ArgSecret {
        arg,
        span,
        named_by,
    } in argv_secrets(&values)
    {
        let is_password = url_passwords(&values[arg]).contains(&span);
        let name = match (named_by, is_password) {
            (Some(flag), _) => shell_name(&flag),
            (None, true) => format!("ARG{arg}_PASSWORD"),
            (None, false) => format!("ARG{arg}_TOKEN"),
        };
        argv[arg].mark(span, &name);
    }
}

/// Marks secret every URL password and token in a variable's value, under its name.
pub fn mark_value_credentials(value: &mut Shown, name: &str) {
    let text = value.value();
    for span in crate::secrets::secret_spans(&text) {
        let suffix = if url_passwords(&text).contains(&span) {
            "_PASSWORD"
        } else {
            "_TOKEN"
        };
        value.mark(span, &format!("{}{suffix}", shell_name(name)));
    }
}

/// The secrets of a launch, each once, under names made unique: a name holds one value,
/// so exporting the names replays exactly. Names belong to variables: two variables with
/// the same value keep their own names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Secrets(Vec<(String, String)>);

impl Secrets {
    /// Collects the secrets of `values`, renaming a secret whose name another value took;
    /// text that holds a secret's value (of [`MIN_FREE_TEXT_SECRET`] or more characters)
    /// is marked secret under that secret's name, so a command line reads it from there.
    pub fn collect<'a>(values: impl Iterator<Item = &'a mut Shown>) -> Self {
        let mut values: Vec<&'a mut Shown> = values.collect();
        let mut seen: Vec<(String, String)> = Vec::new();
        for shown in &mut values {
            for part in &mut shown.0 {
                let Part::Secret { name, value } = part else {
                    continue;
                };
                let base = name.clone();
                let mut k = 1;
                loop {
                    match seen.iter().find(|(n, _)| n == name) {
                        None => {
                            seen.push((name.clone(), value.clone()));
                            break;
                        }
                        Some((_, v)) if v == value => break,
                        Some(_) => {
                            k += 1;
                            *name = shell_name(&format!("{base}_{k}"));
                        }
                    }
                }
            }
        }
        let secrets = Self(seen);
        for shown in values {
            secrets.mark(shown);
        }
        secrets
    }

    /// Marks secret each place a secret's value (long enough to mask in free text)
    /// appears in `shown`'s text, longest first, under the first name that holds it.
    pub fn mark(&self, shown: &mut Shown) {
        let mut by_length: Vec<&(String, String)> = self
            .0
            .iter()
            .filter(|(_, v)| v.len() >= MIN_FREE_TEXT_SECRET)
            .collect();
        by_length.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        for (name, value) in by_length {
            shown.mark_value(value, name);
        }
    }

    /// `hint` as a variable name no secret of these holds.
    pub fn free_name(&self, hint: &str) -> String {
        let base = shell_name(hint);
        let mut name = base.clone();
        let mut k = 1;
        while self.names().any(|n| n == name) {
            k += 1;
            name = shell_name(&format!("{base}_{k}"));
        }
        name
    }

    /// The secrets as the run's known values, each shown as `${NAME}` wherever the server
    /// or an installer repeats it.
    pub fn known(&self) -> crate::secrets::KnownSecrets {
        let mut known = crate::secrets::KnownSecrets::new();
        for (name, value) in &self.0 {
            known.add(value, &format!("${{{name}}}"));
        }
        known
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(n, _)| n.as_str())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests;
