//! The 0.1.0 contract (`wit/v0.1.0`), and its values converted to and from 0.5.0's
//! so the rest of the host speaks 0.5.0 only. Events are the same in both, so
//! 0.1.0 components use 0.5.0's event types directly.
//!
//! What 0.1.0 lacks gets its 0.1 meaning: capabilities come from the record of
//! booleans, a credential variable's provider (its first word) and kind from its
//! name, no
//! credential files, checksums read the way the 0.1 daemon read them, and no MCP
//! servers, skills or scratch files.

wasmtime::component::bindgen!({
    path: "../wit/v0.1.0",
    world: "adapter-component",
    with: {
        "sandbox-agent:adapter/events@0.1.0": crate::bindings::v0_5::events,
    },
});

use exports::sandbox_agent::adapter::adapter as old;
use sandbox_agent::adapter::actions as old_actions;

use super::v0_5::{actions as new_actions, guest as new};

use new::{
    Arch as NewArch, ArchiveKind as NewArchiveKind, Libc as NewLibc, MessagePart as NewPart,
    Os as NewOs, PermissionReply as NewReply,
};
use new_actions::Action as NewAction;
use old::{
    Arch as OldArch, ArchiveKind as OldArchiveKind, Libc as OldLibc, MessagePart as OldPart,
    Os as OldOs, PermissionReply as OldReply,
};
use old_actions::Action as OldAction;

// Host to guest: 0.5.0 values given to a 0.1.0 component.
same_enum!(NewOs => OldOs { Linux, Macos, Windows });
same_enum!(NewArch => OldArch { X8664, Aarch64 });
same_enum!(NewLibc => OldLibc { Gnu, Musl });
impl From<new::Platform> for old::Platform {
    fn from(platform: new::Platform) -> Self {
        Self {
            os: platform.os.into(),
            arch: platform.arch.into(),
            libc: platform.libc.map(Into::into),
        }
    }
}
same_record!(new::Attachment => old::Attachment { path, mime, filename });
same_enum!(NewPart => OldPart (Text, Image, File));
same_enum!(NewReply => OldReply { Once, Always, Reject });
same_record!(new_actions::ExitStatus => old_actions::ExitStatus { code, signal });
same_record!(new_actions::HttpResponse => old_actions::HttpResponse { request_id, status, headers, body });
same_record!(new_actions::SseEvent => old_actions::SseEvent { stream_id, event, data, id });

impl From<new::SessionConfig> for old::SessionConfig {
    fn from(config: new::SessionConfig) -> Self {
        Self {
            session_id: config.session_id,
            agent_mode: config.agent_mode,
            permission_mode: config.permission_mode,
            model: config.model,
            variant: config.variant,
            directory: config.directory,
            agent_binary: config.agent_binary,
            env: config.env,
            resume_native_session_id: config.resume_native_session_id,
        }
    }
}

// Guest to host: a 0.1.0 component's answers as 0.5.0 values.
same_record!(old::AgentMode => new::AgentMode { id, name, description });
same_record!(old::Model => new::Model { id, name, variants, default_variant });
same_enum!(OldArchiveKind => NewArchiveKind { None, TarGz, Zip });
same_record!(old_actions::SpawnRequest => new_actions::SpawnRequest { process_id, argv, env, cwd, share_key });
same_record!(old_actions::StdinWrite => new_actions::StdinWrite { process_id, data });
same_record!(old_actions::HttpRequest => new_actions::HttpRequest { request_id, method, url, headers, body, timeout_ms });
same_record!(old_actions::SseRequest => new_actions::SseRequest { stream_id, url, headers });
same_record!(old_actions::TimerRequest => new_actions::TimerRequest { timer_id, delay_ms });
same_enum!(OldAction => NewAction (
    Emit, SetNativeSessionId, Spawn, WriteStdin, CloseStdin, Kill, HttpRequest, OpenSse,
    CloseSse, SetTimer, CancelTimer,
));

impl From<old::InstallSource> for new::InstallSource {
    fn from(source: old::InstallSource) -> Self {
        Self {
            url: source.url,
            archive: source.archive.into(),
            binary_path: source.binary_path,
            checksum_url: source.sha256_url,
        }
    }
}

impl From<old::InstallRecipe> for new::InstallRecipe {
    fn from(recipe: old::InstallRecipe) -> Self {
        Self {
            binary_name: recipe.binary_name,
            latest_version_url: recipe.latest_version_url,
            sources: recipe.sources.into_iter().map(Into::into).collect(),
            npm_package: recipe.npm_package,
            npm_binary_path: recipe.npm_binary_path,
        }
    }
}

impl From<old::AdapterInfo> for new::AdapterInfo {
    fn from(info: old::AdapterInfo) -> Self {
        Self {
            id: info.id,
            name: info.name,
            version: info.version,
            agent_versions: info.agent_versions,
            capabilities: capability_names(&info.capabilities),
            modes: info.modes.into_iter().map(Into::into).collect(),
            default_mode: info.default_mode,
            models: info.models.into_iter().map(Into::into).collect(),
            default_model: info.default_model,
            credential_env: info
                .credential_env
                .into_iter()
                .map(credential_variable)
                .collect(),
            location_env: Vec::new(),
            builtin: info.builtin,
        }
    }
}

/// The names of the capabilities a 0.1.0 record sets.
fn capability_names(c: &old::Capabilities) -> Vec<String> {
    [
        ("plan-mode", c.plan_mode),
        ("permissions", c.permissions),
        ("questions", c.questions),
        ("tool-calls", c.tool_calls),
        ("tool-results", c.tool_results),
        ("text-messages", c.text_messages),
        ("images", c.images),
        ("file-attachments", c.file_attachments),
        ("session-lifecycle", c.session_lifecycle),
        ("error-events", c.error_events),
        ("reasoning", c.reasoning),
        ("status", c.status),
        ("command-execution", c.command_execution),
        ("file-changes", c.file_changes),
        ("mcp-tools", c.mcp_tools),
        ("streaming-deltas", c.streaming_deltas),
        ("item-started", c.item_started),
        ("shared-process", c.shared_process),
        ("resume", c.resume),
        ("cancel", c.cancel),
        ("usage", c.usage),
        ("variants", c.variants),
    ]
    .into_iter()
    .filter(|(_, set)| *set)
    .map(|(name, _)| name.to_owned())
    .collect()
}

/// A 0.1.0 credential variable, its provider and kind read from its name
/// (`ACME_API_KEY`: provider `acme`, an API key).
fn credential_variable(name: String) -> new::CredentialVariable {
    let provider = name.split('_').next().unwrap_or(&name).to_lowercase();
    let kind = if name.contains("OAUTH") {
        new::CredentialKind::OauthToken
    } else if name.ends_with("_KEY") {
        new::CredentialKind::ApiKey
    } else if name.ends_with("_TOKEN") {
        new::CredentialKind::Token
    } else {
        new::CredentialKind::Setting
    };
    new::CredentialVariable {
        name,
        provider,
        kind,
    }
}

/// The digest for `file_name` in the checksum document fetched from `url`, read
/// as the 0.1 daemon read it (see [`checksum`]).
pub(crate) fn parse_checksum(url: &str, body: &str, file_name: &str) -> Result<String, String> {
    let (_, pointer) = checksum::split_pointer(url);
    checksum::expected_digest(body, pointer, file_name)
}

#[path = "checksum_v0_1.rs"]
mod checksum;

#[cfg(test)]
#[path = "v0_1_fuzz.rs"]
mod fuzz;
