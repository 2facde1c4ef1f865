//! `hardcoded-secret`: a provider token (GitHub, OpenAI, AWS, Slack…) written into a config
//! value: env, args, headers, URLs or any other field of a server entry. Critical when the
//! token has its provider's exact documented shape, high when only the looser shape matches.

use super::{describe_place, ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::{Finding, Replacement, Risk};
use crate::scan::config_file::{Client, ServerEntry};
use crate::secrets;

pub struct HardcodedSecret;

impl ConfigRule for HardcodedSecret {
    fn code(&self) -> Code {
        Code::HardcodedSecret
    }

    fn check_file(&self, cx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for leaf in &cx.file.other_leaves {
            for t in secrets::find_tokens(&leaf.value.value) {
                out.push(
                    cx.finding(
                        Code::HardcodedSecret,
                        &leaf.value,
                        format!(
                            "A {} is written into {} of {}, outside any server entry. Anyone who can read the file can use it.",
                            t.provider,
                            crate::finding::excerpt(&leaf.value.pointer, 120),
                            cx.file.display
                        ),
                    )
                    .evidence(&t.evidence)
                    .risk(risk_of(&t))
                    .fix(format!(
                        "Revoke this {} now (it has been exposed) and remove it from the file; VS Code inputs can prompt for it instead of storing it.",
                        t.provider
                    )),
                );
            }
        }
    }

    fn check_server(&self, cx: &RuleContext<'_>, server: &ServerEntry, out: &mut Vec<Finding>) {
        for leaf in &server.leaves {
            let tokens = secrets::find_tokens(&leaf.value.value);
            for t in &tokens {
                let place = describe_place(server, &leaf.value);
                let mut f = cx
                    .finding(
                        Code::HardcodedSecret,
                        &leaf.value,
                        format!(
                            "Server {:?}: a {} is written into {place} of {}. Anyone who can read the file can use it.",
                            crate::finding::excerpt(&server.name, 60),
                            t.provider,
                            cx.file.display
                        ),
                    )
                    .evidence(&t.evidence)
                    .risk(risk_of(t));
                // An env value that is only the token can become a reference the client expands.
                let env_name = server
                    .env
                    .iter()
                    .find(|e| e.value.pointer == leaf.value.pointer)
                    .map(|e| e.name.clone());
                let whole = tokens.len() == 1 && t.start == 0 && t.end == leaf.value.value.len();
                let reference =
                    env_name
                        .as_deref()
                        .filter(|_| whole)
                        .and_then(|n| match cx.file.client {
                            Client::ClaudeCode => Some(format!("${{{n}}}")),
                            Client::VsCode | Client::Cursor => Some(format!("${{env:{n}}}")),
                            _ => None,
                        });
                f = match reference {
                    Some(r) => {
                        let loc = &f.location;
                        let replacement = Replacement {
                            description: format!("Reference {r} instead of the literal token"),
                            start_line: loc.line.unwrap_or(1),
                            start_column: loc.column.unwrap_or(1),
                            end_line: loc.end_line.unwrap_or(1),
                            end_column: loc.end_column.unwrap_or(1),
                            text: format!("\"{r}\""),
                        };
                        f.fix(format!(
                            "Revoke this {} now (it has been exposed), then replace the value with \"{r}\" and set {} in the environment the client starts from.",
                            t.provider,
                            env_name.as_deref().unwrap_or("it")
                        ))
                        .replacement(replacement)
                    }
                    None => f.fix(format!(
                        "Revoke this {} now (it has been exposed), then pass it from the environment or a prompted input instead of writing it into {place}.",
                        t.provider
                    )),
                };
                out.push(f);
            }
        }
    }
}

/// A token of its provider's exact documented shape is a working credential until revoked;
/// one that only has the looser shape (truncated, or a longer variant) may be a test value.
fn risk_of(t: &secrets::TokenMatch) -> Risk {
    if t.verified {
        Risk::Critical
    } else {
        Risk::High
    }
}
