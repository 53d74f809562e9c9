//! The 0.2.0 contract (`wit/v0.2.0`), and its values converted to and from 0.3.0's
//! so the rest of the host speaks 0.3.0 only. Events and actions are the same in
//! both, so 0.2.0 components use 0.3.0's types for them directly; the adapter
//! interface's own records are the same field for field.
//!
//! What 0.2.0 lacks gets its 0.2 meaning: the agent's own session cannot move
//! (no `native-session-files`, no `move` capability).

wasmtime::component::bindgen!({
    path: "../wit/v0.2.0",
    world: "adapter-component",
    with: {
        "sandbox-agent:adapter/events@0.2.0": crate::bindings::v0_3::events,
        "sandbox-agent:adapter/actions@0.2.0": crate::bindings::v0_3::actions,
    },
});

pub use exports::sandbox_agent::adapter::adapter as guest;
pub use sandbox_agent::adapter::host;

use super::v0_3::guest as new;
use guest as old;

use new::{
    Arch as NewArch, ArchiveKind as NewArchiveKind, CredentialKind as NewKind,
    CredentialValue as NewValue, Libc as NewLibc, McpAuth as NewAuth,
    McpRemoteTransport as NewRemoteTransport, McpTransport as NewTransport, MessagePart as NewPart,
    Os as NewOs, PermissionReply as NewReply,
};
use old::{
    Arch as OldArch, ArchiveKind as OldArchiveKind, CredentialKind as OldKind,
    CredentialValue as OldValue, Libc as OldLibc, McpAuth as OldAuth,
    McpRemoteTransport as OldRemoteTransport, McpTransport as OldTransport, MessagePart as OldPart,
    Os as OldOs, PermissionReply as OldReply,
};

// Host to guest: 0.3.0 values given to a 0.2.0 component.
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
same_record!(new::McpLocal => old::McpLocal { command, env, cwd, timeout_ms });
same_enum!(NewRemoteTransport => OldRemoteTransport { Http, Sse });
same_record!(new::McpOauth => old::McpOauth { client_id, client_secret, scope });
impl From<NewAuth> for OldAuth {
    fn from(auth: NewAuth) -> Self {
        match auth {
            NewAuth::AgentDefault => Self::AgentDefault,
            NewAuth::Disabled => Self::Disabled,
            NewAuth::Oauth(oauth) => Self::Oauth(oauth.into()),
        }
    }
}
same_record!(new::McpRemote => old::McpRemote { url, transport, headers, auth, timeout_ms });
same_enum!(NewTransport => OldTransport (Local, Remote));
same_record!(new::McpServer => old::McpServer { name, transport });
same_record!(new::Skill => old::Skill { name, path });

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
            mcp_servers: config.mcp_servers.into_iter().map(Into::into).collect(),
            skills: config.skills.into_iter().map(Into::into).collect(),
            scratch_dir: config.scratch_dir,
        }
    }
}

// Guest to host: a 0.2.0 component's answers as 0.3.0 values.
same_enum!(OldKind => NewKind { ApiKey, OauthToken, Token, Command, Setting });
same_record!(old::CredentialVariable => new::CredentialVariable { name, provider, kind });
same_record!(old::AgentMode => new::AgentMode { id, name, description });
same_record!(old::Model => new::Model { id, name, variants, default_variant });
same_enum!(OldArchiveKind => NewArchiveKind { None, TarGz, Zip });
same_record!(old::InstallSource => new::InstallSource { url, archive, binary_path, checksum_url });
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
same_enum!(OldValue => NewValue (Literal, VariableOrLiteral));
same_record!(old::FoundCredential => new::FoundCredential { provider, kind, key, value, env });
impl From<old::CredentialRead> for new::CredentialRead {
    fn from(read: old::CredentialRead) -> Self {
        Self {
            found: read.found.into_iter().map(Into::into).collect(),
            problems: read.problems,
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
            // `move` means 0.3.0's functions: a 0.2.0 component cannot claim it.
            capabilities: info
                .capabilities
                .into_iter()
                .filter(|name| name != "move")
                .collect(),
            modes: info.modes.into_iter().map(Into::into).collect(),
            default_mode: info.default_mode,
            models: info.models.into_iter().map(Into::into).collect(),
            default_model: info.default_model,
            credential_env: info.credential_env.into_iter().map(Into::into).collect(),
            location_env: info.location_env,
            builtin: info.builtin,
        }
    }
}
