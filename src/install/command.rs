//! A command run before the server (a sweep entry's `setup`, an installer) by the process
//! layer's setup runner (`process::setup`, shared with the Action); this keeps the
//! redacted tail of its output and writes its facts.

use super::facts::{CommandRun, SetupFacts, SpawnFailure};
use crate::finding::excerpt;
use crate::process::{ExitKind, ServerCommand};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Output read back from a failed setup; redacted whole, then only its end is kept.
const TAIL_BYTES: usize = 8192;
/// Characters of that end in the result line.
const SHOWN_CHARS: usize = 2000;

pub struct SetupOutcome {
    pub ok: bool,
    /// The `setup` object of the result line.
    pub facts: SetupFacts,
    /// The end of the output (stdout and stderr as they came), redacted, unescaped: for a
    /// caller that reads it line by line.
    pub output: String,
}

/// `secrets`: the entry's secrets, removed from the output kept.
pub async fn run(
    command: &ServerCommand,
    deadline: Duration,
    secrets: &crate::secrets::KnownSecrets,
) -> SetupOutcome {
    let tail = Arc::new(Mutex::new(VecDeque::new()));
    let sink = Arc::clone(&tail);
    let keep_tail = Arc::new(move |chunk: &[u8]| {
        if let Ok(mut t) = sink.lock() {
            t.extend(chunk);
            let excess = t.len().saturating_sub(TAIL_BYTES);
            t.drain(..excess);
        }
    });
    let setup = match crate::process::setup::run(command, deadline, keep_tail).await {
        Ok(setup) => setup,
        Err(e) => {
            return SetupOutcome {
                ok: false,
                facts: SetupFacts::NotStarted(SpawnFailure {
                    spawn_error: e.to_string(),
                    hint: e.hint.to_string(),
                }),
                output: String::new(),
            }
        }
    };
    let tail_text = tail
        .lock()
        .map(|t| String::from_utf8_lossy(&t.iter().copied().collect::<Vec<u8>>()).into_owned())
        .unwrap_or_default();
    // The entry's values, and any credential by its shape (a registry URL with a token).
    let tail_text = crate::secrets::mask_tokens(&secrets.remove(&tail_text));
    let ok = setup.succeeded();
    let exit = setup.exit;
    let mut run = CommandRun {
        command: crate::secrets::redact_argv(
            &std::iter::once(command.program.clone())
                .chain(command.args.iter().cloned())
                .collect::<Vec<_>>(),
        ),
        ok,
        timed_out: setup.timed_out(),
        exit_code: match exit {
            Some(ExitKind::Code(c)) => Some(c),
            _ => None,
        },
        signal: match exit {
            Some(ExitKind::Signal(s)) => Some(s),
            _ => None,
        },
        duration_ms: setup.duration.as_millis() as u64,
        output_tail: None,
    };
    if !ok {
        // Redacted before trimming, so a secret cut at the buffer's start is trimmed away.
        let count = tail_text.chars().count();
        let end: String = tail_text
            .chars()
            .skip(count.saturating_sub(SHOWN_CHARS))
            .collect();
        // Each line escaped for the JSON it lands in, the line breaks kept as they are (an
        // escaped `\n` would be escaped again as JSON).
        let lines: Vec<String> = end.split('\n').map(|l| excerpt(l, SHOWN_CHARS)).collect();
        run.output_tail = Some(lines.join("\n"));
    }
    SetupOutcome {
        ok,
        facts: SetupFacts::Ran(run),
        output: tail_text,
    }
}
