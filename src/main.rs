//! Thin edge: the command layer does everything and says how to exit.

fn main() -> std::process::ExitCode {
    mcpcheck::app::main()
}
