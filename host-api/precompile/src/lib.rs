//! What the builtins' build script (`runtime/builtins/build.rs`) uses of the adapter host: precompiling the builtin
//! adapters and embedding them. See `sandbox_agent_host::precompile`.

pub use sandbox_agent_host::artifact::{compress, compress_against, rebase, sha256, Artifact};
pub use sandbox_agent_host::{precompile, AdapterOrigin, HostConfig};
