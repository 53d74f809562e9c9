//! The Agent Client Protocol from the agent's side: what agentplex needs to be an
//! ACP agent for every agent it runs (`agentplex acp`, `/v1/acp/{server_id}`).
//!
//! Pure, in the manner of a protocol state machine with its I/O outside: this
//! crate reads and writes JSON-RPC messages ([`rpc`]), reads ACP's calls
//! ([`calls`]), shows a session's modes ([`modes`]) and turns a session's universal events into `session/update`
//! notifications and the requests the client must answer ([`updates`]). The
//! server carries the messages and drives the sessions.

pub mod calls;
pub mod modes;
pub mod rpc;
pub mod updates;

/// The ACP protocol version spoken here.
pub const PROTOCOL_VERSION: u16 = 1;
