//! The baseline: the same argument handling and check, no HTTP client, no runtime.
fn main() {
    let (url, n) = http_stacks::args();
    let body = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{}},"url":"{url}"}}"#);
    for _ in 0..n {
        http_stacks::check(200, std::hint::black_box(body.as_bytes()));
    }
}
