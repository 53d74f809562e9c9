//! The `sandbox-agent` binary: parses the command line and hands over to the library.

/// musl's own allocator serializes threads; the static release binaries use mimalloc.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // mimalloc commits whole arenas up front by default: 7 MB of idle memory for
    // nothing. Before the first allocation of any thread, commit on demand instead.
    #[cfg(target_env = "musl")]
    unsafe {
        // `mi_option_arena_eager_commit` of mimalloc v2's `mi_option_e` (the header
        // leaves it out of the stable constants libmimalloc-sys exports).
        const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
    }
    sandbox_agent::cli::main()
}
