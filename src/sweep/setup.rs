//! An entry's `setup` command (install, build), run before the server in the same sandbox,
//! through the process layer: its own group, a deadline, and nothing left running after it.

use crate::finding::excerpt;
use crate::process::{ExitKind, GroupLeader, ServerCommand};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt};

/// Output read back from a failed setup; redacted whole, then only its end is kept.
const TAIL_BYTES: usize = 8192;
/// Characters of that end in the result line.
const SHOWN_CHARS: usize = 2000;

pub struct SetupOutcome {
    pub ok: bool,
    /// The `setup` object of the result line.
    pub facts: Value,
    /// The end of the output (stdout and stderr as they came), redacted, unescaped: for a
    /// caller that reads it line by line.
    pub output: String,
}

/// `secrets`: the entry's env, whose values are redacted from the output kept.
pub async fn run(
    command: &ServerCommand,
    deadline: Duration,
    secrets: &[(String, String)],
) -> SetupOutcome {
    let started = Instant::now();
    let spawned = GroupLeader::spawn(command);
    let (mut leader, stdin, stdout, stderr) = match spawned {
        Ok(parts) => parts,
        Err(e) => {
            return SetupOutcome {
                ok: false,
                facts: json!({"spawnError": e.to_string(), "hint": e.hint}),
                output: String::new(),
            }
        }
    };
    drop(stdin);
    let tail = std::sync::Arc::new(std::sync::Mutex::new(VecDeque::new()));
    let out_task = tokio::spawn(drain(stdout, std::sync::Arc::clone(&tail)));
    let err_task = tokio::spawn(drain(stderr, std::sync::Arc::clone(&tail)));
    let exit = tokio::time::timeout(deadline, leader.wait_exit())
        .await
        .ok();
    let escaped = leader.escaped_candidates();
    if exit.is_none() {
        leader.kill_now().await;
    } else {
        // Whatever setup left running (a watcher, a daemon) goes with it.
        leader
            .stop(escaped, true, Duration::ZERO, Duration::ZERO)
            .await;
    }
    for task in [out_task, err_task] {
        let abort = task.abort_handle();
        if tokio::time::timeout(Duration::from_millis(200), task)
            .await
            .is_err()
        {
            abort.abort();
        }
    }
    let wall_ms = started.elapsed().as_millis() as u64;
    let tail_text = tail
        .lock()
        .map(|t| String::from_utf8_lossy(&t.iter().copied().collect::<Vec<u8>>()).into_owned())
        .unwrap_or_default();
    let tail_text = redact_values(&tail_text, secrets);
    let ok = exit == Some(ExitKind::Code(0));
    let mut facts = json!({
        "command": crate::secrets::redact_argv(
            &std::iter::once(command.program.clone()).chain(command.args.iter().cloned()).collect::<Vec<_>>()
        ),
        "ok": ok,
        "timedOut": exit.is_none(),
        "exitCode": match exit { Some(ExitKind::Code(c)) => Some(c), _ => None },
        "signal": match exit { Some(ExitKind::Signal(s)) => Some(s), _ => None },
        "durationMs": wall_ms,
    });
    if !ok {
        // Redacted before trimming, so a secret cut at the buffer's start is trimmed away.
        let count = tail_text.chars().count();
        let end: String = tail_text
            .chars()
            .skip(count.saturating_sub(SHOWN_CHARS))
            .collect();
        facts["outputTail"] = json!(excerpt(&end, SHOWN_CHARS));
    }
    SetupOutcome {
        ok,
        facts,
        output: tail_text,
    }
}

async fn drain(
    mut pipe: impl AsyncRead + Unpin,
    tail: std::sync::Arc<std::sync::Mutex<VecDeque<u8>>>,
) {
    let mut buf = vec![0u8; 8192];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if let Ok(mut t) = tail.lock() {
                    t.extend(&buf[..n]);
                    let excess = t.len().saturating_sub(TAIL_BYTES);
                    t.drain(..excess);
                }
            }
        }
    }
}

/// The entry's env values never appear in results, even when setup echoes them.
pub fn redact_values(text: &str, env: &[(String, String)]) -> String {
    let mut out = text.to_string();
    for (_, value) in env {
        if value.len() >= 4 {
            out = out.replace(value.as_str(), "[REDACTED]");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_values_are_redacted_from_output() {
        let env = vec![
            ("TOKEN".to_string(), "s3cr3t-value".to_string()),
            ("SHORT".to_string(), "ab".to_string()),
        ];
        assert_eq!(
            redact_values("token is s3cr3t-value, ab stays", &env),
            "token is [REDACTED], ab stays"
        );
    }
}
