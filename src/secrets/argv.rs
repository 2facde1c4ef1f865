//! Keeps secrets out of reports: argv values that look like credentials are masked.

use super::{looks_like_token, mask_tokens, might_name_credential};

const MASK: &str = "[REDACTED]";

/// Masks `--token X`, `--token=X`, `API_KEY=X`, bare provider tokens and tokens inside
/// any other argument.
pub fn redact_argv(argv: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(argv.len());
    let mut mask_next = false;
    for arg in argv {
        if mask_next {
            out.push(MASK.to_string());
            mask_next = false;
            continue;
        }
        if let Some((name, value)) = arg.split_once('=') {
            if might_name_credential(name) || looks_like_token(value) {
                // What is before the `=` is shown, so a token in it is masked too.
                out.push(format!("{}={MASK}", mask_tokens(name)));
                continue;
            }
        } else if arg.starts_with('-') && might_name_credential(arg) {
            mask_next = true;
        } else if looks_like_token(arg) {
            out.push(MASK.to_string());
            continue;
        }
        out.push(mask_tokens(arg));
    }
    out
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
}
