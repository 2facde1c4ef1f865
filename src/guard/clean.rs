//! What a finished run keeps of the server's words, without the run's secrets: once every
//! check has judged the raw transcript (so no secret changes a verdict), each text the
//! server wrote — stdout lines and the strings of its messages, stderr, error answers,
//! listed items, its identity — is cleaned in place, before any report reads, cuts or
//! escapes it. Keys and numbers stay as the server sent them.

use super::GuardRun;
use crate::finding::{excerpt, Finding};
use crate::protocol::jsonrpc::{ErrorObject, LineContent, Message};
use crate::secrets::KnownSecrets;
use crate::session::transcript::{Outcome, Transcript};
use serde_json::Value;

/// Characters of `serverInfo.name` and `.version` kept.
pub const SERVER_NAME_CHARS: usize = 128;

/// The server as it named itself in its `initialize` result, cleaned and bounded: the one
/// reading of it that every report and the sweep use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerIdentity {
    pub name: Option<String>,
    pub version: Option<String>,
}

impl ServerIdentity {
    /// Read once from a cleaned transcript; none when initialize was not answered with an
    /// object holding `serverInfo`.
    pub fn of(t: &Transcript) -> Option<Self> {
        let info = t.initialize_result()?.get("serverInfo")?;
        let field = |key: &str| {
            info.get(key)
                .and_then(Value::as_str)
                .map(|s| excerpt(s, SERVER_NAME_CHARS))
        };
        Some(Self {
            name: field("name"),
            version: field("version"),
        })
    }

    /// `name version`, or what there is of it.
    pub fn label(&self) -> Option<String> {
        match (&self.name, &self.version) {
            (Some(n), Some(v)) if !v.is_empty() => Some(format!("{n} {v}")),
            (Some(n), _) => Some(n.clone()),
            (None, Some(v)) => Some(v.clone()),
            (None, None) => None,
        }
    }
}

/// Cleans every text of `run` that came from the server, and every finding's text.
pub fn clean(run: &mut GuardRun, known: &KnownSecrets) {
    for session in &mut run.runs {
        clean_transcript(&mut session.transcript, known);
        session
            .findings
            .iter_mut()
            .for_each(|f| clean_finding(f, known));
        for check in &mut session.checks {
            check
                .findings
                .iter_mut()
                .for_each(|f| clean_finding(f, known));
        }
    }
    run.findings
        .iter_mut()
        .for_each(|f| clean_finding(f, known));
    for drift in &mut run.drift {
        drift
            .findings
            .iter_mut()
            .for_each(|f| clean_finding(f, known));
    }
    for probe in &mut run.probes {
        probe.observed = known.clean(&probe.observed);
        probe
            .findings
            .iter_mut()
            .for_each(|f| clean_finding(f, known));
    }
    for entry in &mut run.matrix {
        if let Some(v) = &entry.negotiated {
            entry.negotiated = Some(known.clean(v));
        }
    }
}

/// A finding's texts: the run's secrets, then credentials by their shape (a net under the
/// cleaning done before each excerpt was cut).
pub fn clean_finding(f: &mut Finding, known: &KnownSecrets) {
    let clean = |s: &mut String| {
        let cleaned = known.remove(s);
        if cleaned != *s {
            *s = cleaned.into_owned();
        }
    };
    clean(&mut f.message);
    if let Some(e) = &mut f.evidence {
        clean(e);
    }
    if let Some(fix) = &mut f.fix {
        clean(fix);
    }
    if let Some(lines) = &mut f.stderr_excerpt {
        lines.iter_mut().for_each(clean);
    }
    if let Some(logical) = &mut f.location.logical {
        clean(logical);
    }
    f.mask_secrets();
}

fn clean_transcript(t: &mut Transcript, known: &KnownSecrets) {
    for frame in &mut t.frames {
        match &mut frame.content {
            LineContent::NonJson { text } => *text = known.clean(text),
            LineContent::Single { message, value } => {
                clean_message(message, known);
                known.clean_json(value);
            }
            LineContent::Batch { messages } => {
                for (message, value) in messages {
                    clean_message(message, known);
                    known.clean_json(value);
                }
            }
            _ => {}
        }
    }
    for e in &mut t.exchanges {
        match &mut e.outcome {
            Outcome::Result(v) => known.clean_json(v),
            Outcome::Error(err) => clean_error(err, known),
            Outcome::RequestInstead { method } => *method = known.clean(method),
            Outcome::SendFailed(why) => *why = known.clean(why),
            _ => {}
        }
    }
    for list in &mut t.lists {
        list.items.iter_mut().for_each(|v| known.clean_json(v));
    }
    for r in &mut t.server_requests.sample {
        r.method = known.clean(&r.method);
    }
    clean_stderr(&mut t.process.stderr, known);
}

fn clean_message(message: &mut Message, known: &KnownSecrets) {
    match message {
        Message::Request { method, params, .. } | Message::Notification { method, params } => {
            *method = known.clean(method);
            if let Some(p) = params {
                known.clean_json(p);
            }
        }
        Message::Response { outcome, .. } => match outcome {
            Ok(v) => known.clean_json(v),
            Err(err) => clean_error(err, known),
        },
        Message::Invalid { .. } => {}
    }
}

fn clean_error(err: &mut ErrorObject, known: &KnownSecrets) {
    err.message = known.clean(&err.message);
    if let Some(d) = &mut err.data {
        known.clean_json(d);
    }
}

/// The kept end of stderr, cleaned; when its start was cut away, the cut line goes too, so
/// no secret is left in part where its beginning fell off.
fn clean_stderr(stderr: &mut crate::process::StderrCapture, known: &KnownSecrets) {
    let mut text = stderr.tail_text();
    if stderr.total_bytes > stderr.tail.len() as u64 {
        text = match text.split_once('\n') {
            Some((_, rest)) => rest.to_string(),
            None => String::new(),
        };
    }
    stderr.tail = known.clean(&text).into_bytes().into();
}
