//! The baseline for the async stack: a tokio current-thread runtime (mcpcheck has one anyway).
fn main() {
    let (url, n) = http_stacks::args();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{}},"url":"{url}"}}"#);
        for _ in 0..n {
            tokio::task::yield_now().await;
            http_stacks::check(200, std::hint::black_box(body.as_bytes()));
        }
    });
}
