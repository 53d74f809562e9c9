//! The `sandbox-agent` binary: parses the command line and hands over to the library.

fn main() -> std::process::ExitCode {
    sandbox_agent::cli::main()
}
