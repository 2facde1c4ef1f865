//! Thin edge: the command layer does everything and says how to exit.

/// Threads that allocate and free across each other (the proxy's) contend in glibc's arenas.
/// On glibc Linux, Cargo.toml's `override` feature gives the C libraries (tree-sitter) the
/// same allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(unix)]
fn main() -> std::process::ExitCode {
    mcpcheck::app::main()
}

/// The process layer needs process groups and signals; off Unix, one line and exit code 2.
#[cfg(not(unix))]
fn main() -> std::process::ExitCode {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "mcpcheck: error: runs on Linux and macOS only (this is {}-{}): its process handling \
         needs Unix process groups and signals; use WSL, a Linux or macOS machine or CI runner, \
         or the container image",
        std::env::consts::OS,
        std::env::consts::ARCH
    );
    std::process::ExitCode::from(2)
}
