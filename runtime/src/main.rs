//! The `sandbox-agent` binary: parses the command line and hands over to the library.

/// musl's own allocator serializes threads; the static release binaries use mimalloc.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    sandbox_agent::cli::main()
}
