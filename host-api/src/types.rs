//! The host's vocabulary: what the daemon feeds a session and what it gets back.
//!
//! Records that cross the WIT boundary unchanged (spawn requests, install plans...)
//! are the generated binding types, re-exported here; events are converted to the
//! universal schema so the daemon never sees WIT event types.

use std::path::PathBuf;
use std::time::Duration;

pub use crate::bindings::guest::{
    AdapterInfo, AgentMode, ApprovalPolicy, Arch, ArchiveKind, CommandOutput, CredentialKind,
    CredentialRead, CredentialValue, CredentialVariable, FileSearch, FoundCredential,
    InstallRecipe, InstallSource, Landing, Libc, McpAuth, McpLocal, McpOauth, McpRemote,
    McpRemoteTransport, McpServer, McpTransport, Model, ModelApi, ModelApiFormat, ModelApiPointing,
    ModelEndpoint, MovedFile, NativeCommand, NativeDecision, NativeSource, Os, Place, Platform,
    PolicyDecision, PolicyRule, SessionConfig, Skill, ToolKind, ToolRequest,
};
pub use agentplex_adapter_types::{
    Action, Attachment, EmittedEvent, ExitStatus, FileWrite, HttpRequest, HttpResponse, Input,
    MessagePart, PermissionReply, SpawnRequest, SseEvent, SseRequest, StdinWrite, TimerRequest,
};

impl AdapterInfo {
    /// Whether the adapter names `capability` (`resume`, `mcp-servers`...) among its
    /// capabilities.
    pub fn has(&self, capability: &str) -> bool {
        self.capabilities.iter().any(|name| name == capability)
    }
}

/// The default memory cap of one adapter instance (`--adapter-memory-mib 128`). The
/// engine reserves at least this much address space per instance, whatever the
/// cap, so that code compiled for the default settings fits every smaller cap.
pub const DEFAULT_MEMORY_LIMIT_BYTES: usize = 128 << 20;

/// Limits and caching for the adapter host.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Most linear memory one adapter instance may use.
    pub memory_limit_bytes: usize,
    /// Wall-clock budget of one call into a guest.
    pub call_timeout: Duration,
    /// An instance whose memory grew past this is rebuilt from its snapshot.
    pub recycle_threshold_bytes: usize,
    /// Where compiled components are cached; no cache when absent.
    pub cache_dir: Option<PathBuf>,
}

impl Default for HostConfig {
    fn default() -> Self {
        Self {
            memory_limit_bytes: DEFAULT_MEMORY_LIMIT_BYTES,
            call_timeout: Duration::from_secs(2),
            recycle_threshold_bytes: 8 << 20,
            cache_dir: None,
        }
    }
}
