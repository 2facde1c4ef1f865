//! A value a swept server is given, in parts: what may be shown, and the secrets in it.
//! A secret is every value an entry marks `isSecret` (an argument, a variable, a
//! `{variable}` inside a value), every URL's userinfo password and every credential by its
//! shape; it is shown as `${NAME}`, the name an operator exports it under to replay the run.

use crate::secrets::{argv_secrets, url_passwords, ArgSecret};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::ops::Range;

/// Shortest secret that is also masked in free text (a server's stderr, a message): a
/// shorter one would rewrite ordinary words. Arguments and variables are masked whatever
/// their length, by position.
const MIN_FREE_TEXT_SECRET: usize = 4;

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

    /// One POSIX shell word: literal text quoted, each secret expanded from its variable.
    pub fn shell_word(&self) -> String {
        if !self.0.iter().any(|p| matches!(p, Part::Secret { .. })) {
            return shell_words::quote(&self.value()).into_owned();
        }
        let mut word = String::from("\"");
        for part in &self.0 {
            match part {
                Part::Text(t) => {
                    for c in t.chars() {
                        if matches!(c, '\\' | '"' | '$' | '`') {
                            word.push('\\');
                        }
                        word.push(c);
                    }
                }
                Part::Secret { name, .. } => word.push_str(&format!("${{{name}}}")),
            }
        }
        word.push('"');
        word
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
/// else its letters and digits upper-cased (`--api-key` is `API_KEY`).
pub fn shell_name(hint: &str) -> String {
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

/// The secrets of a launch, each once, under names made unique: two values never share
/// a name, so exporting the names replays exactly.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Secrets(Vec<(String, String)>);

impl Secrets {
    /// Collects the secrets of `values`, renaming a secret whose name another value took.
    pub fn collect<'a>(values: impl Iterator<Item = &'a mut Shown>) -> Self {
        let mut seen: Vec<(String, String)> = Vec::new();
        for shown in values {
            for part in &mut shown.0 {
                let Part::Secret { name, value } = part else {
                    continue;
                };
                if let Some((n, _)) = seen.iter().find(|(_, v)| v == value) {
                    *name = n.clone();
                    continue;
                }
                let base = name.clone();
                let mut k = 1;
                while seen.iter().any(|(n, _)| n == name) {
                    k += 1;
                    *name = format!("{base}_{k}");
                }
                seen.push((name.clone(), value.clone()));
            }
        }
        Self(seen)
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

    /// `text` with every secret long enough to mask in free text shown as `${NAME}`.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        // Longest first, so a secret that holds another is masked whole.
        let mut by_length: Vec<&(String, String)> = self.0.iter().collect();
        by_length.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        for (name, value) in by_length {
            if value.len() >= MIN_FREE_TEXT_SECRET && out.contains(value.as_str()) {
                out = out.replace(value.as_str(), &format!("${{{name}}}"));
            }
        }
        out
    }

    /// A result line with every string but its `id` redacted (resuming reads the id).
    pub fn redacted_line(&self, mut line: Map<String, Value>) -> Value {
        let id = line.shift_remove("id");
        let mut value = Value::Object(line);
        self.redact_tree(&mut value);
        if let (Some(id), Value::Object(map)) = (id, &mut value) {
            map.shift_insert(0, "id".into(), id);
        }
        value
    }

    /// Every string in a JSON tree (keys too) redacted.
    pub fn redact_tree(&self, value: &mut Value) {
        if self.0.is_empty() {
            return;
        }
        match value {
            Value::String(s) => *s = self.redact(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact_tree(v)),
            Value::Object(map) => {
                let fields = std::mem::take(map);
                for (k, mut v) in fields {
                    self.redact_tree(&mut v);
                    map.insert(self.redact(&k), v);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_shown_by_name_and_quoted_for_the_shell() {
        let mut v = Shown::text("mongodb://u:");
        v.push(Shown::secret("conn pw", "p\"w$x"));
        v.push(Shown::text("@h/$db"));
        assert_eq!(v.value(), "mongodb://u:p\"w$x@h/$db");
        assert_eq!(v.display(), "mongodb://u:${CONN_PW}@h/$db");
        assert_eq!(v.shell_word(), "\"mongodb://u:${CONN_PW}@h/\\$db\"");
        assert_eq!(Shown::text("a b").shell_word(), "'a b'");
    }

    #[test]
    fn names_are_shell_variables() {
        assert_eq!(shell_name("conn"), "conn");
        assert_eq!(shell_name("--api-key"), "API_KEY");
        assert_eq!(shell_name("positional argument 1"), "POSITIONAL_ARGUMENT_1");
        assert_eq!(shell_name("1st"), "_1ST");
        assert_eq!(shell_name("--"), "SECRET");
    }

    #[test]
    fn credentials_no_input_marked_are_found_and_named() {
        let mut argv = vec![
            Shown::text("npx"),
            Shown::text("--db"),
            Shown::text("mongodb://admin:s3cretpw@db/x"),
            Shown::text("--token"),
            Shown::text("hunter2"),
            Shown::text("postgres://u:pw@h/d"),
        ];
        mark_credentials(&mut argv);
        let shown: Vec<String> = argv.iter().map(Shown::display).collect();
        assert_eq!(
            shown,
            [
                "npx",
                "--db",
                "mongodb://admin:${ARG2_PASSWORD}@db/x",
                "--token",
                "${TOKEN}",
                "postgres://u:${ARG5_PASSWORD}@h/d"
            ]
        );
        let secrets = Secrets::collect(argv.iter_mut());
        assert_eq!(
            secrets.names().collect::<Vec<_>>(),
            ["ARG2_PASSWORD", "TOKEN", "ARG5_PASSWORD"]
        );
    }

    #[test]
    fn a_variables_url_password_is_a_secret_under_its_name() {
        let mut value = Shown::text("postgres://app:pg-Secr3t@db:5432/x");
        mark_value_credentials(&mut value, "DATABASE_URL");
        assert_eq!(
            value.display(),
            "postgres://app:${DATABASE_URL_PASSWORD}@db:5432/x"
        );
        assert_eq!(value.value(), "postgres://app:pg-Secr3t@db:5432/x");
    }

    #[test]
    fn one_name_per_value_and_one_value_per_name() {
        let mut values = [
            Shown::secret("KEY", "first-value"),
            Shown::secret("KEY", "second-value"),
            Shown::secret("OTHER", "first-value"),
        ];
        let secrets = Secrets::collect(values.iter_mut());
        let shown: Vec<String> = values.iter().map(Shown::display).collect();
        assert_eq!(shown, ["${KEY}", "${KEY_2}", "${KEY}"]);
        assert_eq!(
            secrets.redact("a first-value b second-value c"),
            "a ${KEY} b ${KEY_2} c"
        );
    }

    #[test]
    fn a_tree_is_redacted_in_keys_and_values() {
        let mut values = [Shown::secret("PW", "hunter2")];
        let secrets = Secrets::collect(values.iter_mut());
        let mut tree = serde_json::json!({"hunter2": ["x hunter2 y", 1], "n": {"m": "hunter2"}});
        secrets.redact_tree(&mut tree);
        assert_eq!(
            tree,
            serde_json::json!({"${PW}": ["x ${PW} y", 1], "n": {"m": "${PW}"}})
        );
    }
}
