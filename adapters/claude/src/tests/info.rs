//! The launch recipe (the static facts, install recipe and version probe are
//! `facts.json`'s).

use serde_json::json;

use super::replay::config_of;
use crate::launch;

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
