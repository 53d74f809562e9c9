//! The CPU priority of what the daemon starts (`--agent-nice`): a session's agent,
//! with everything it runs, that many steps of `nice` below the daemon; a process
//! of `/v1/processes` at the daemon's own. A value out of range stops the daemon at
//! start.

use std::process::Command;

use agentplex_client::ProcessRunRequest;
use serde_json::json;

use super::common::api::{ok_json, Api};
use super::common::{binary, describe};
use super::*;

/// The niceness `nice` prints, run as a mock session's `shell` command (the agent's
/// child) and as a process of the API.
fn niceness(daemon: &Daemon) -> (i32, i32) {
    let api = Api::new(daemon);
    ok_json(api.post_json("/v1/sessions/nice", json!({ "agent": "mock" })));
    let agent = api
        .turn("nice", "shell nice")
        .iter()
        .find(|e| e["type"] == "item.completed" && e["data"]["item"]["kind"] == "tool_result")
        .map(|e| {
            e["data"]["item"]["content"][0]["output"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .expect("the shell's output");
    let client = client(daemon);
    let run = ProcessRunRequest {
        command: "nice".into(),
        ..ProcessRunRequest::default()
    };
    let process = block_on(client.run_process(&run)).unwrap().stdout;
    let parse = |text: &str| text.trim().parse::<i32>().expect(text);
    (parse(&agent), parse(&process))
}

#[test]
fn agents_run_below_the_daemon_and_client_processes_at_its_priority() {
    // The daemon starts at the test's own niceness.
    let own = Command::new("nice").output().unwrap();
    let own: i32 = String::from_utf8_lossy(&own.stdout).trim().parse().unwrap();
    for (flag, env, steps) in [(None, None, 10), (Some("3"), None, 3), (None, Some("0"), 0)] {
        let daemon = Daemon::start_with(Options {
            args: flag
                .map(|n| vec!["--agent-nice".into(), n.into()])
                .unwrap_or_default(),
            env: env
                .map(|n| vec![("AGENTPLEX_AGENT_NICE".into(), n.into())])
                .unwrap_or_default(),
            ..Options::default()
        });
        let (agent, process) = niceness(&daemon);
        assert_eq!(
            agent,
            (own + steps).min(19),
            "the agent's, {flag:?} {env:?}"
        );
        assert_eq!(process, own, "the API's process, {flag:?} {env:?}");
    }

    for bad in ["20", "-1", "low"] {
        let output = Command::new(binary())
            .args(["server", "--no-token", "--port", "0", "--ephemeral"])
            .arg(format!("--agent-nice={bad}"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
        assert!(stderr.contains("--agent-nice"), "{stderr}");
    }
}
