//! Benchmark-only baseline client: the least a stdio MCP client can do to run the same session
//! as `mcpcheck guard --settle 0 --request tools/list`, with no validation at all.
//!
//! Usage: `bench_minimal_client CMD [ARGS...]`
//!
//! It spawns the server with piped stdin/stdout (stderr inherited), sends the same bytes the guard
//! sends — `initialize`, `notifications/initialized`, then `tools/list` twice (the guard's list
//! probe for the advertised `tools` capability, then the explicit `--request`) — waiting for each
//! answer line before the next request, then closes stdin, reads stdout to EOF and waits for the
//! server to exit. Exit code 0 if every request got a line and the server exited 0, else 1.

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, ExitCode, Stdio};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpcheck","version":"0.1.0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const TOOLS_LIST_PROBE: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
const TOOLS_LIST_REQUEST: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(program) = args.next() else {
        eprintln!("usage: bench_minimal_client CMD [ARGS...]");
        return ExitCode::from(2);
    };
    let mut child = match Command::new(&program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            eprintln!("bench_minimal_client: cannot start {program}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let mut answered = 0;

    for (message, expects_answer) in [
        (INITIALIZE, true),
        (INITIALIZED, false),
        (TOOLS_LIST_PROBE, true),
        (TOOLS_LIST_REQUEST, true),
    ] {
        if stdin
            .write_all(message.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush())
            .is_err()
        {
            break;
        }
        if expects_answer {
            line.clear();
            match stdout.read_line(&mut line) {
                Ok(n) if n > 0 => answered += 1,
                _ => break,
            }
        }
    }

    drop(stdin); // EOF tells the server to exit.
    let mut rest = Vec::new();
    let _ = stdout.read_to_end(&mut rest);
    let status = child.wait();

    match status {
        Ok(s) if s.success() && answered == 3 => ExitCode::SUCCESS,
        other => {
            eprintln!("bench_minimal_client: {answered}/3 answers, server exit {other:?}");
            ExitCode::FAILURE
        }
    }
}
