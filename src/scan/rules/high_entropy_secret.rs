//! `high-entropy-secret`: a credential-named key (API_KEY, TOKEN, Authorization,
//! `--api-key`) holding a long random literal that no provider pattern recognised.

use super::{describe_place, option_value, ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::scan::config_file::{ServerEntry, Str};
use crate::scan::secrets;

pub struct HighEntropySecret;

impl ConfigRule for HighEntropySecret {
    fn code(&self) -> Code {
        Code::HighEntropySecret
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        let mut report = |name: &str, literal: &str, at: &Str| {
            if !crate::secrets::names_credential(name)
                || !secrets::is_high_entropy_literal(literal)
                || !crate::secrets::find_tokens(&at.value).is_empty()
            {
                return;
            }
            let shown = literal.trim();
            out.push(
                cx.finding(
                    Code::HighEntropySecret,
                    at,
                    format!(
                        "Server {:?}: {} holds a random-looking {}-character literal, most likely a real credential.",
                        crate::finding::excerpt(&server.name, 60),
                        describe_place(server, at),
                        shown.chars().count()
                    ),
                )
                .evidence(&crate::secrets::redacted(&format!("{} =", crate::finding::excerpt(name, 60)), shown)),
            );
        };
        // Values under a credential-named key: env, headers and any other field.
        for leaf in &server.leaves {
            if let Some(key) = leaf.key.as_deref() {
                report(key, &leaf.value.value, &leaf.value);
            }
        }
        // `--api-key=VALUE` and `--api-key VALUE` in the arguments.
        for (i, arg) in server.args.iter().enumerate() {
            let (name, inline) = option_value(&arg.value);
            if !name.starts_with('-') {
                continue;
            }
            match inline {
                Some(v) => report(name, v, arg),
                None => {
                    if let Some(next) = server.args.get(i + 1).filter(|n| !n.value.starts_with('-'))
                    {
                        report(name, &next.value, next);
                    }
                }
            }
        }
    }
}
