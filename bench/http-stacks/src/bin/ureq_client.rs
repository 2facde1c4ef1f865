//! One client binary: the ureq stack alone.
fn main() {
    let (url, n) = http_stacks::args();
    http_stacks::ureq_stack::run(&url, n);
}
