//! Both stacks in one binary, as mcpcheck has them: what one stack adds beside the other
//! (they share rustls, ring and tokio). `STACK=hyper` picks hyper, anything else ureq.
fn main() {
    let (url, n) = http_stacks::args();
    if std::env::var("STACK").as_deref() == Ok("hyper") {
        http_stacks::hyper_stack::run(&url, n);
    } else {
        http_stacks::ureq_stack::run(&url, n);
    }
}
