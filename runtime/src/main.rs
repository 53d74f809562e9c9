//! The `agentplex` binary: parses the command line and hands over to the library.

/// musl's own allocator serializes threads; the static release binaries use
/// mimalloc, with adapter instances in pages of their own.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: agentplex::allocator::Allocator = agentplex::allocator::Allocator;

fn main() -> std::process::ExitCode {
    // mimalloc commits whole arenas up front by default: 7 MB of idle memory for
    // nothing. Before the first allocation of any thread, commit on demand instead.
    // And it returns freed pages to the system 10 ms later, but only when the
    // thread that freed them allocates again: the pages of a thousand sessions
    // parked at rest stayed resident (10 MiB of 1,000 sessions' 64). Returned at
    // once instead: the same event rates, measured (docs/benchmarks.md).
    #[cfg(target_env = "musl")]
    unsafe {
        // Positions in mimalloc v2's `mi_option_e` (the header leaves them out of
        // the stable constants libmimalloc-sys exports).
        const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
        const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
    }
    agentplex::cli::main()
}
