//! Keeps secrets out of reports: argv values that look like credentials are masked.

use super::{looks_like_token, mask_spans, might_name_credential, secret_spans};
use std::ops::Range;

const MASK: &str = "[REDACTED]";

/// A credential inside one argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgSecret {
    /// Which argument (0 is the program).
    pub arg: usize,
    /// Where in it, in bytes.
    pub span: Range<usize>,
    /// The flag or key that names it (`--api-key`, `API_KEY`), when one does.
    pub named_by: Option<String>,
}

/// Masks `--token X`, `--token=X`, `API_KEY=X`, bare provider tokens, and tokens and URL
/// passwords inside any other argument.
pub fn redact_argv(argv: &[String]) -> Vec<String> {
    redact_argv_as(argv, MASK)
}

/// [`redact_argv`] with another marker in place of each credential (a report contract's own,
/// such as mcp-stdio-guard's `<redacted>`).
pub fn redact_argv_as(argv: &[String], mask: &str) -> Vec<String> {
    let secrets = argv_secrets(argv);
    argv.iter()
        .enumerate()
        .map(|(i, arg)| {
            let spans: Vec<Range<usize>> = secrets
                .iter()
                .filter(|s| s.arg == i)
                .map(|s| s.span.clone())
                .collect();
            mask_spans(arg, &spans, mask)
        })
        .collect()
}

/// Every credential [`redact_argv`] masks, in order, with the name that marks it.
pub fn argv_secrets(argv: &[String]) -> Vec<ArgSecret> {
    let mut found = Vec::new();
    let mut named_by: Option<&str> = None;
    for (i, arg) in argv.iter().enumerate() {
        let spans = |text: &str| -> Vec<ArgSecret> {
            secret_spans(text)
                .into_iter()
                .map(|span| ArgSecret {
                    arg: i,
                    span,
                    named_by: None,
                })
                .collect()
        };
        if let Some(flag) = named_by.take() {
            found.push(ArgSecret {
                arg: i,
                span: 0..arg.len(),
                named_by: Some(flag.to_string()),
            });
            continue;
        }
        if let Some((name, value)) = arg.split_once('=') {
            if might_name_credential(name) || looks_like_token(value) {
                // What is before the `=` is shown, so a token in it is masked too.
                found.extend(spans(name));
                found.push(ArgSecret {
                    arg: i,
                    span: name.len() + 1..arg.len(),
                    named_by: Some(name.to_string()),
                });
                continue;
            }
        } else if arg.starts_with('-') && might_name_credential(arg) {
            named_by = Some(arg);
        } else if looks_like_token(arg) {
            found.push(ArgSecret {
                arg: i,
                span: 0..arg.len(),
                named_by: None,
            });
            continue;
        }
        found.extend(spans(arg));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn masks_credentials_in_every_form() {
        assert_eq!(
            redact_argv(&argv(&[
                "node",
                "server.js",
                "--api-key",
                "abc",
                "--token=xyz",
                "GITHUB_TOKEN=ghp_0123456789abcdefghij",
                "ghp_0123456789abcdefghij",
                "--port",
                "8080",
            ])),
            argv(&[
                "node",
                "server.js",
                "--api-key",
                MASK,
                "--token=[REDACTED]",
                "GITHUB_TOKEN=[REDACTED]",
                MASK,
                "--port",
                "8080",
            ])
        );
    }

    #[test]
    fn url_passwords_are_masked_and_flags_name_what_they_mask() {
        let given = argv(&[
            "npx",
            "x",
            "mongodb://admin:s3cretpw@db/x",
            "--token",
            "abc",
        ]);
        assert_eq!(
            redact_argv(&given),
            argv(&[
                "npx",
                "x",
                "mongodb://admin:[REDACTED]@db/x",
                "--token",
                MASK
            ])
        );
        let found = argv_secrets(&given);
        assert_eq!(found[0].arg, 2);
        assert_eq!(&given[2][found[0].span.clone()], "s3cretpw");
        assert_eq!(found[1].named_by.as_deref(), Some("--token"));
    }
}
