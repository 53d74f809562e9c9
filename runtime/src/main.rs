//! The `agentplex` binary: parses the command line and hands over to the library.

/// musl's own allocator serializes threads; the static release binaries use
/// mimalloc, with adapter instances in pages of their own.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: agentplex_host::instance_memory::Allocator =
    agentplex_host::instance_memory::Allocator;

fn main() -> std::process::ExitCode {
    #[cfg(target_env = "musl")]
    agentplex_host::instance_memory::set_daemon_options();
    agentplex_cli::main()
}
