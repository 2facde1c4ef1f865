//! What every client binary shares: the request, the answer check, the loop's arguments,
//! and the two stacks.

pub mod hyper_stack;
pub mod ureq_stack;

/// The body each client POSTs: a JSON-RPC `initialize`, as the session sends it.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcpcheck","version":"0.1.0"}}}"#;

/// `URL [REQUESTS]` from the command line: one request (cold start) unless told more.
pub fn args() -> (String, u32) {
    let mut args = std::env::args().skip(1);
    let url = args.next().expect("usage: CLIENT URL [REQUESTS]");
    let n = args
        .next()
        .map_or(1, |n| n.parse().expect("REQUESTS is a number"));
    (url, n.clamp(1, 1_000_000))
}

/// The answer is the server's initialize result.
pub fn check(status: u16, body: &[u8]) {
    assert_eq!(status, 200, "HTTP status");
    assert!(
        body.windows(8).any(|w| w == b"\"result\""),
        "no result in the answer"
    );
}
