//! `config-file-exposure`: a config that holds a literal credential and that other users can
//! read (mode bits, through every directory above it), or that git tracks; or a config in a
//! directory anyone may write to, so anyone can change the commands the client runs.
//! Reported once per file, at its first credential (or its start), and only for files a
//! client loads by their name: any other JSON file with a token in it is an example, a
//! template or a test fixture, whose token hardcoded-secret reports already.

use super::{ConfigRule, RuleContext};
use crate::catalog::Code;
use crate::finding::{excerpt, Finding};
use crate::scan::config_file::{Client, Str};
use crate::scan::exposure;

pub struct ConfigFileExposure;

impl ConfigRule for ConfigFileExposure {
    fn code(&self) -> Code {
        Code::ConfigFileExposure
    }

    fn check_file(&self, cx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        let file = cx.file;
        if file.client == Client::Unknown {
            return;
        }
        let credentials: Vec<&Str> = file
            .servers
            .iter()
            .flat_map(|s| s.leaves.iter())
            .chain(file.other_leaves.iter())
            .filter(|l| holds_credential(l.key.as_deref(), &l.value.value))
            .map(|l| &l.value)
            .collect();
        let e = exposure::inspect(&file.path);
        let mut reasons = Vec::new();
        if !credentials.is_empty() {
            if let Some(who) = e.readable_by {
                reasons.push(format!(
                    "it is readable by {who} (mode {:04o})",
                    e.mode.unwrap_or(0)
                ));
            }
            if let Some(root) = &e.tracked_in {
                reasons.push(format!(
                    "git tracks it in {}, so the credential is in the repository and every clone",
                    excerpt(&root.display().to_string(), 120)
                ));
            }
        }
        if let Some(dir) = &e.world_writable_dir {
            reasons.push(format!(
                "{} is writable by every user (no sticky bit), so anyone can replace the file and choose the commands the client runs",
                excerpt(&dir.display().to_string(), 120)
            ));
        }
        if reasons.is_empty() {
            return;
        }
        let held = match credentials.len() {
            0 => String::new(),
            1 => " It holds a literal credential.".into(),
            n => format!(" It holds {n} literal credentials."),
        };
        let message = format!("{} is exposed: {}.{held}", file.display, reasons.join("; "));
        let mut f = match credentials.first() {
            Some(at) => cx.finding(Code::ConfigFileExposure, at, message),
            None => Finding::new(Code::ConfigFileExposure, message)
                .at(file.location("", crate::scan::jsonc::Span { start: 0, end: 0 })),
        };
        let mut evidence = Vec::new();
        if let Some(m) = e.mode {
            evidence.push(format!("mode {m:04o}"));
        }
        if e.tracked_in.is_some() && !credentials.is_empty() {
            evidence.push("tracked by git".into());
        }
        if e.world_writable_dir.is_some() {
            evidence.push("world-writable directory".into());
        }
        f = f.evidence(&evidence.join(", "));
        out.push(f.fix(fix_text(&e, !credentials.is_empty())));
    }
}

/// A provider token anywhere, or a random-looking literal under a credential-named key.
fn holds_credential(key: Option<&str>, value: &str) -> bool {
    !crate::secrets::find_tokens(value).is_empty()
        || key.is_some_and(|k| {
            crate::secrets::names_credential(k)
                && crate::scan::secrets::is_high_entropy_literal(value)
        })
}

fn fix_text(e: &exposure::Exposure, credentials: bool) -> String {
    let mut steps = Vec::new();
    if credentials {
        steps.push("Move the credentials out of the file (an environment reference or a prompted input) and revoke them".to_string());
        if e.readable_by.is_some() {
            steps.push("until then `chmod 600` the file".into());
        }
        if e.tracked_in.is_some() {
            steps.push("`git rm --cached` it or commit it without the values, and treat the history as leaked".into());
        }
    }
    if e.world_writable_dir.is_some() {
        steps.push(
            "keep the config in a directory only you can write to (chmod o-w, or the sticky bit)"
                .into(),
        );
    }
    format!("{}.", steps.join("; "))
}
