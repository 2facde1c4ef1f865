//! Thin edge: the command layer does everything and says how to exit.

#[cfg(target_os = "linux")]
fn main() -> std::process::ExitCode {
    mcpcheck::app::main()
}

/// The process layer needs Linux; anywhere else, one line and exit code 2 (work not done).
#[cfg(not(target_os = "linux"))]
fn main() -> std::process::ExitCode {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "mcpcheck: error: runs only on Linux (this is {}-{}): its process handling needs \
         Linux's child subreaper; use a Linux machine or CI runner, or the container image",
        std::env::consts::OS,
        std::env::consts::ARCH
    );
    std::process::ExitCode::from(2)
}
