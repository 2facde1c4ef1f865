//! One client binary: the hyper stack alone.
fn main() {
    let (url, n) = http_stacks::args();
    http_stacks::hyper_stack::run(&url, n);
}
