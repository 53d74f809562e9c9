//! Static facts, install recipe, version probe and launch recipe.

use sandbox_agent_adapter_kit::prelude::*;
use serde_json::json;

use super::replay::config_of;
use crate::{launch, Claude};

#[test]
fn info_describes_claude_code() {
    let info = <Claude as Adapter>::info();
    assert_eq!(
        (info.id.as_str(), info.name.as_str(), info.builtin),
        ("claude", "Claude Code", false)
    );
    let modes: Vec<&str> = info.modes.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(modes, ["build", "plan"]);
    assert_eq!(
        info.credential_env,
        [
            CredentialVariable::new("ANTHROPIC_API_KEY", "anthropic", CredentialKind::ApiKey),
            CredentialVariable::new(
                "CLAUDE_CODE_OAUTH_TOKEN",
                "anthropic",
                CredentialKind::OauthToken
            ),
        ]
    );
    let caps = Capabilities::from_names(&info.capabilities);
    assert!(caps.permissions && caps.questions && caps.plan_mode && caps.cancel && caps.resume);
    assert!(caps.reasoning && caps.file_changes && caps.usage && caps.streaming_deltas);
    assert!(!caps.shared_process && !caps.images && !caps.file_attachments);
}

#[test]
fn the_install_recipe_names_the_platform_package() {
    let recipe = |os, arch, libc| {
        <Claude as Adapter>::install_plan(Platform { os, arch, libc }, None).expect("a recipe")
    };
    let linux = recipe(Os::Linux, Arch::X8664, Some(Libc::Gnu));
    assert_eq!(linux.binary_name, "claude");
    assert_eq!(
        linux.npm_package.as_deref(),
        Some("@anthropic-ai/claude-code-linux-x64")
    );
    assert_eq!(linux.npm_binary_path.as_deref(), Some("claude"));
    assert!(linux.sources[0]
        .url
        .ends_with("/{version}/linux-x64/claude"));
    let musl = recipe(Os::Linux, Arch::Aarch64, Some(Libc::Musl));
    assert_eq!(
        musl.npm_package.as_deref(),
        Some("@anthropic-ai/claude-code-linux-arm64-musl")
    );
    let mac = recipe(Os::Macos, Arch::Aarch64, None);
    assert_eq!(
        mac.npm_package.as_deref(),
        Some("@anthropic-ai/claude-code-darwin-arm64")
    );
    let windows = recipe(Os::Windows, Arch::X8664, None);
    assert_eq!(windows.binary_name, "claude.exe");
    assert_eq!(
        windows.npm_package.as_deref(),
        Some("@anthropic-ai/claude-code-win32-x64")
    );
}

#[test]
fn the_version_is_read_from_the_real_output() {
    assert_eq!(
        <Claude as Adapter>::version_args(),
        Some(vec!["--version".to_owned()])
    );
    let parse = |text: &str| <Claude as Adapter>::parse_version(text.to_owned());
    assert_eq!(parse("2.1.197 (Claude Code)\n").as_deref(), Some("2.1.197"));
    assert_eq!(parse("no version here"), None);
    assert_eq!(
        <Claude as Adapter>::parse_latest_version("2.1.200\n".to_owned()).as_deref(),
        Some("2.1.200")
    );
}

#[test]
fn modes_map_to_the_clis_permission_modes() {
    let mode = |agent_mode: &str, permission_mode: &str| {
        let config =
            config_of(&json!({ "agentMode": agent_mode, "permissionMode": permission_mode }));
        launch::permission_mode(&config)
    };
    assert_eq!(mode("build", "default"), "default");
    assert_eq!(mode("build", "plan"), "plan");
    assert_eq!(mode("build", "bypass"), "bypassPermissions");
    assert_eq!(mode("build", "acceptEdits"), "acceptEdits");
    assert_eq!(mode("plan", "bypass"), "plan");
}

#[test]
fn the_launch_passes_model_effort_and_the_binary_path() {
    let config = config_of(&json!({
        "model": "sonnet", "variant": "high", "agentBinary": "/opt/bin/claude",
    }));
    let spawn = launch::spawn(&config, "claude_1", Some("abc"));
    assert_eq!(spawn.argv[0], "/opt/bin/claude");
    let tail: Vec<&str> = spawn.argv[11..].iter().map(String::as_str).collect();
    assert_eq!(
        tail,
        ["default", "--model", "sonnet", "--effort", "high", "--resume", "abc"]
    );
    assert!(spawn.cwd.is_none());
    assert_eq!(
        spawn.env,
        [
            (
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".to_owned(),
                "1".to_owned()
            ),
            ("DISABLE_AUTOUPDATER".to_owned(), "1".to_owned()),
        ]
    );
}
