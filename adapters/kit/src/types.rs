//! The contract's types under short paths.
//!
//! The generated bindings nest them by WIT interface
//! (`bindings::sandbox_agent::adapter::events::Item`,
//! `bindings::exports::sandbox_agent::adapter::adapter::SessionConfig`...); this module
//! flattens them. See the WIT files (or the generated docs) for every field.

pub use crate::bindings::exports::sandbox_agent::adapter::adapter::{
    AdapterInfo, AgentMode, AgentOffer, ApprovalPolicy, Arch, ArchiveKind, Attachment,
    CommandOutput, CredentialKind, CredentialRead, CredentialValue, CredentialVariable, FileSearch,
    FoundCredential, InstallRecipe, InstallSource, Landing, Libc, McpAuth, McpLocal, McpOauth,
    McpRemote, McpRemoteTransport, McpServer, McpTransport, MessagePart, Model, ModelApi,
    ModelApiFormat, ModelApiPointing, ModelEndpoint, MovedFile, NativeCommand, NativeDecision,
    NativeSource, Os, PermissionReply, Place, Platform, PolicyDecision, PolicyRule, SessionConfig,
    Skill, ToolKind, ToolRequest,
};
pub use crate::bindings::sandbox_agent::adapter::actions::{
    Action, ExitStatus, FileWrite, HttpRequest, HttpResponse, SpawnRequest, SseEvent, SseRequest,
    StdinWrite, TimerRequest,
};
pub use crate::bindings::sandbox_agent::adapter::events::{
    ContentPart, EmittedEvent, ErrorInfo, Event, FileAction, FileRefPart, ImagePart, Item,
    ItemDelta, ItemKind, ItemRole, ItemStatus, Permission, PermissionStatus, Question,
    QuestionStatus, ReasoningPart, ReasoningVisibility, SessionEndReason, SessionEnded, StatusPart,
    StderrOutput, TerminatedBy, ToolCallPart, ToolResultPart, Turn, Unparsed, Usage,
};
pub use crate::info::Capabilities;

/// The generated trait a component's root type implements (blanket-implemented for
/// every [`crate::Adapter`]).
pub use crate::bindings::exports::sandbox_agent::adapter::adapter::Guest;
/// The generated trait of the `session` resource (implemented by
/// [`crate::SessionResource`]).
pub use crate::bindings::exports::sandbox_agent::adapter::adapter::GuestSession;
/// The handle of an exported `session` resource, as `restore` returns it.
pub use crate::bindings::exports::sandbox_agent::adapter::adapter::Session;
