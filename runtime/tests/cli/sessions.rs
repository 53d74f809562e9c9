//! `sessions`: create, list, send, events, watch, cancel, terminate, delete.

use super::*;

#[test]
fn sessions_create_prints_the_answer() {
    let daemon = start_daemon();
    let created = json_ok(&cli(
        &daemon,
        &["sessions", "create", "create-1", "--agent", "mock"],
    ));
    assert_eq!(created["healthy"], true, "{created}");
    assert_eq!(created["nativeSessionId"], "mock-create-1", "{created}");
    // Creating it again is refused.
    problem_failure(
        &cli(
            &daemon,
            &["sessions", "create", "create-1", "--agent", "mock"],
        ),
        "session_already_exists",
        409,
    );
    // An unknown agent is refused.
    problem_failure(
        &cli(
            &daemon,
            &["sessions", "create", "create-2", "--agent", "nope"],
        ),
        "unsupported_agent",
        400,
    );
}

#[test]
fn sessions_create_passes_every_option() {
    let daemon = start_daemon();
    let dir = tempfile::tempdir().unwrap();
    let dir_text = dir.path().to_str().unwrap();
    let created = json_ok(&cli(
        &daemon,
        &[
            "sessions",
            "create",
            "opts",
            "--agent",
            "mock",
            "--agent-mode",
            "plan",
            "--permission-mode",
            "plan",
            "--model",
            "mock-large",
            "--variant",
            "high",
            "--title",
            "My title",
            "--directory",
            dir_text,
            "--env",
            "GREETING=hi=there",
        ],
    ));
    assert_eq!(created["healthy"], true, "{created}");
    let list = json_ok(&cli(&daemon, &["sessions", "list"]));
    let session = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sessionId"] == "opts")
        .expect("session listed")
        .clone();
    assert_eq!(session["agent"], "mock", "{session}");
    assert_eq!(session["agentMode"], "plan", "{session}");
    assert_eq!(session["permissionMode"], "plan", "{session}");
    assert_eq!(session["model"], "mock-large", "{session}");
    assert_eq!(session["variant"], "high", "{session}");
    assert_eq!(session["title"], "My title", "{session}");
    assert_eq!(session["directory"], dir_text, "{session}");

    // `--env` reaches the agent's processes (value kept whole, `=` included), and the
    // directory is their working directory: a build-mode session runs `shell`.
    json_ok(&cli(
        &daemon,
        &[
            "sessions",
            "create",
            "env",
            "--agent",
            "mock",
            "--directory",
            dir_text,
            "--env",
            "GREETING=hi=there",
        ],
    ));
    let events = send_stream(&daemon, "env", "shell echo \"$GREETING\"; pwd");
    let result = events
        .iter()
        .rev()
        .find(|e| e["type"] == "item.completed" && e["data"]["item"]["kind"] == "tool_result")
        .unwrap_or_else(|| panic!("no tool result: {:?}", types(&events)));
    let output = result["data"]["item"]["content"][0]["output"]
        .as_str()
        .unwrap();
    let real_dir = dir.path().canonicalize().unwrap();
    assert_eq!(
        output,
        format!("hi=there\n{}\n", real_dir.display()),
        "{result}"
    );

    // A malformed `--env` is refused by the CLI before anything is sent.
    let output = cli(
        &daemon,
        &[
            "sessions", "create", "bad-env", "--agent", "mock", "--env", "NOEQUALS",
        ],
    );
    assert!(!output.status.success(), "{}", describe(&output));
    assert!(
        text(&output.stderr).contains("KEY=VALUE"),
        "{}",
        describe(&output)
    );
}

#[test]
fn sessions_list_shows_sessions_and_counts() {
    let daemon = start_daemon();
    assert_eq!(
        json_ok(&cli(&daemon, &["sessions", "list"])),
        json!({ "sessions": [] })
    );
    create_mock_session(&daemon, "list-a");
    create_mock_session(&daemon, "list-b");
    send_stream(&daemon, "list-b", "hello");
    let list = json_ok(&cli(&daemon, &["sessions", "list"]));
    let sessions = list["sessions"].as_array().unwrap();
    let mut ids: Vec<&str> = sessions
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap())
        .collect();
    ids.sort();
    assert_eq!(ids, ["list-a", "list-b"], "{list}");
    let b = sessions
        .iter()
        .find(|s| s["sessionId"] == "list-b")
        .unwrap();
    assert_eq!(b["agent"], "mock");
    assert_eq!(b["ended"], false);
    assert_eq!(b["queuedMessages"], 0);
    assert_eq!(b["nativeSessionId"], "mock-list-b");
    assert_eq!(
        b["eventCount"].as_u64().unwrap() as usize,
        http_events(&daemon, "list-b").len(),
        "{b}"
    );
    assert_eq!(&json_ok(&cli(&daemon, &["sessions", "get", "list-b"])), b);
}

#[test]
fn sessions_send_queues_the_message() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "send");
    let output = cli(
        &daemon,
        &["sessions", "send", "send", "hello", "from", "the", "cli"],
    );
    assert_eq!(json_ok(&output), json!({ "ok": true }));
    let events = wait_for_events(&daemon, "send", "turn.ended", |events| {
        has_type(events, "turn.ended")
    });
    // The words are joined with spaces into one message, echoed by the mock.
    assert_eq!(last_assistant_text(&events), "hello from the cli");
    let user = events
        .iter()
        .find(|e| e["type"] == "item.completed" && e["data"]["item"]["role"] == "user")
        .expect("user item");
    assert_eq!(
        user["data"]["item"]["content"][0]["text"],
        "hello from the cli"
    );
}

#[test]
fn sessions_send_with_attachment() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "attach");
    let events = json_lines_ok(&cli(
        &daemon,
        &[
            "sessions",
            "send",
            "attach",
            "look",
            "--attach",
            "/tmp/notes.txt",
            "--stream",
        ],
    ));
    assert_eq!(
        last_assistant_text(&events),
        "look\n\nAttachments:\n- /tmp/notes.txt"
    );
}

#[test]
fn sessions_send_stream_prints_the_turn_as_json_lines() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "stream");
    let output = cli(
        &daemon,
        &[
            "sessions",
            "send",
            "stream",
            "hello streaming world",
            "--stream",
        ],
    );
    let events = json_lines_ok(&output);
    let kinds = types(&events);
    assert_eq!(
        kinds.first().map(String::as_str),
        Some("turn.started"),
        "{kinds:?}"
    );
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("turn.ended"),
        "{kinds:?}"
    );
    assert!(count_type(&events, "item.delta") >= 3, "{kinds:?}");
    let deltas: String = events
        .iter()
        .filter(|e| e["type"] == "item.delta")
        .map(|e| e["data"]["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, "hello streaming world");
    assert_eq!(last_assistant_text(&events), "hello streaming world");
    // Sequences are increasing and the lines are exactly the daemon's events.
    let logged = http_events(&daemon, "stream");
    let first = events[0]["sequence"].as_u64().unwrap() as usize;
    assert_eq!(
        &logged[first - 1..first - 1 + events.len()],
        &events[..],
        "printed events differ from the log"
    );
    // Without --include-raw no raw payloads; with it, the flag reaches the daemon.
    assert!(events.iter().all(|e| e.get("raw").is_none()));
    let raw = json_lines_ok(&cli(
        &daemon,
        &[
            "sessions",
            "send",
            "stream",
            "unparsed",
            "--stream",
            "--include-raw",
        ],
    ));
    let unparsed = last_of(&raw, "agent.unparsed");
    assert_eq!(unparsed["raw"], json!({ "raw": "mock" }), "{unparsed}");
}

#[test]
fn sessions_send_stream_stops_at_a_permission_request() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "stream-perm");
    let events = send_stream(&daemon, "stream-perm", "permission");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "permission.requested", "{:?}", types(&events));
    assert_eq!(last["data"]["permission_id"], "mock_1_permission");
    assert!(!has_type(&events, "turn.ended"));
}

#[test]
fn sessions_events_pages_with_offset_and_limit() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "events");
    send_stream(&daemon, "events", "hello there");
    let all = json_ok(&cli(&daemon, &["sessions", "events", "events"]));
    let events = all["events"].as_array().unwrap();
    assert_eq!(all["hasMore"], false, "{all}");
    assert!(events.len() >= 8, "{:?}", types(events));
    let sequences: Vec<u64> = events
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(sequences, (1..=events.len() as u64).collect::<Vec<_>>());
    assert_eq!(events[0]["type"], "session.started");
    assert_eq!(
        events,
        &http_events(&daemon, "events"),
        "CLI output differs from the HTTP answer"
    );

    let page = json_ok(&cli(
        &daemon,
        &[
            "sessions", "events", "events", "--offset", "2", "--limit", "3",
        ],
    ));
    let sequences: Vec<u64> = page["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(sequences, [3, 4, 5], "{page}");
    assert_eq!(page["hasMore"], true, "{page}");

    let total = events.len() as u64;
    let tail = json_ok(&cli(
        &daemon,
        &[
            "sessions",
            "events",
            "events",
            "--offset",
            &(total - 1).to_string(),
            "--limit",
            "10",
        ],
    ));
    assert_eq!(tail["events"].as_array().unwrap().len(), 1, "{tail}");
    assert_eq!(tail["hasMore"], false, "{tail}");
    let past_end = json_ok(&cli(
        &daemon,
        &[
            "sessions",
            "events",
            "events",
            "--offset",
            &total.to_string(),
        ],
    ));
    assert_eq!(past_end, json!({ "events": [], "hasMore": false }));

    // --include-raw is passed on.
    send_stream(&daemon, "events", "unparsed");
    let with_raw = json_ok(&cli(
        &daemon,
        &[
            "sessions",
            "events",
            "events",
            "--offset",
            &total.to_string(),
            "--include-raw",
        ],
    ));
    let unparsed = last_of(with_raw["events"].as_array().unwrap(), "agent.unparsed");
    assert_eq!(unparsed["raw"], json!({ "raw": "mock" }), "{unparsed}");
    let without = json_ok(&cli(
        &daemon,
        &[
            "sessions",
            "events",
            "events",
            "--offset",
            &total.to_string(),
        ],
    ));
    assert!(
        last_of(without["events"].as_array().unwrap(), "agent.unparsed")
            .get("raw")
            .is_none()
    );
}

/// A `sessions watch` running in the background, its stdout read line by line.
struct Watch {
    child: Child,
    lines: mpsc::Receiver<String>,
    stderr: mpsc::Receiver<Vec<u8>>,
    seen: Vec<Value>,
}

impl Watch {
    fn start(daemon: &Daemon, args: &[&str]) -> Watch {
        let mut child = client_command(daemon, args)
            .spawn()
            .expect("starting sessions watch");
        let stdout = child.stdout.take().unwrap();
        let stderr = read_in_background(child.stderr.take().unwrap());
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Watch {
            child,
            lines,
            stderr,
            seen: Vec::new(),
        }
    }

    /// Reads lines until one has type `event_type`.
    #[track_caller]
    fn wait_for(&mut self, event_type: &str) -> Value {
        let deadline = Instant::now() + EVENT_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let event: Value = serde_json::from_str(&line)
                        .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line:?}"));
                    self.seen.push(event.clone());
                    if event["type"] == event_type {
                        return event;
                    }
                }
                Err(_) => panic!(
                    "watch printed no {event_type} in time; printed {:?}",
                    types(&self.seen)
                ),
            }
        }
    }

    /// Waits for the process to exit on its own; returns its status and the rest of its output.
    #[track_caller]
    fn finish(mut self) -> (ExitStatus, Vec<Value>, String) {
        let status = wait_with_deadline(&mut self.child, EVENT_TIMEOUT).unwrap_or_else(|| {
            panic!(
                "sessions watch did not exit after the session ended; printed {:?}",
                types(&self.seen)
            )
        });
        let rest: Vec<String> = self.lines.iter().collect();
        let mut seen = std::mem::take(&mut self.seen);
        seen.extend(json_lines(&rest.join("\n")));
        (status, seen, text(&self.stderr.recv().unwrap()))
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn sessions_watch_follows_until_the_session_ends() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "watch");
    send_stream(&daemon, "watch", "before watching");
    let mut watch = Watch::start(&daemon, &["sessions", "watch", "watch"]);
    // The history is replayed first.
    let started = watch.wait_for("session.started");
    assert_eq!(started["sequence"], 1);
    watch.wait_for("turn.ended");
    // Then live events.
    assert_eq!(
        json_ok(&cli(
            &daemon,
            &["sessions", "send", "watch", "while watching"]
        )),
        json!({ "ok": true })
    );
    watch.wait_for("turn.ended");
    assert_eq!(last_assistant_text(&watch.seen), "while watching");
    // Still running until the session ends.
    assert!(
        watch.child.try_wait().unwrap().is_none(),
        "watch exited before the session ended"
    );
    assert_eq!(
        json_ok(&cli(&daemon, &["sessions", "terminate", "watch"])),
        json!({ "ok": true })
    );
    let (status, seen, stderr) = watch.finish();
    assert!(status.success(), "watch exited with {status}: {stderr}");
    let last = seen.last().unwrap();
    assert_eq!(last["type"], "session.ended", "{:?}", types(&seen));
    assert_eq!(last["data"]["reason"], "terminated");
    // Every event exactly once, in order.
    let sequences: Vec<u64> = seen
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(sequences, (1..=seen.len() as u64).collect::<Vec<_>>());
    assert_eq!(seen, http_events(&daemon, "watch"));
}

#[test]
fn sessions_watch_with_offset_and_on_an_ended_session() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "watch-end");
    send_stream(&daemon, "watch-end", "hello");
    // `end` makes the agent end the session itself.
    send_stream(&daemon, "watch-end", "end");
    let all = wait_for_events(&daemon, "watch-end", "session.ended", |e| {
        has_type(e, "session.ended")
    });
    let total = all.len();
    // On an ended session, watch prints the rest of the transcript and exits at once.
    let offset = (total - 3).to_string();
    let output = cli(
        &daemon,
        &["sessions", "watch", "watch-end", "--offset", &offset],
    );
    let events = json_lines_ok(&output);
    assert_eq!(events, all[total - 3..].to_vec());
    assert_eq!(events.last().unwrap()["type"], "session.ended");
    assert_eq!(events.last().unwrap()["data"]["terminated_by"], "agent");
}

#[test]
fn sessions_cancel_interrupts_the_running_turn() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "cancel");
    assert_eq!(
        json_ok(&cli(
            &daemon,
            &["sessions", "send", "cancel", "slow", "600"]
        )),
        json!({ "ok": true })
    );
    wait_for_events(&daemon, "cancel", "the first tick", |e| {
        has_type(e, "item.delta")
    });
    assert_eq!(
        json_ok(&cli(&daemon, &["sessions", "cancel", "cancel"])),
        json!({ "ok": true })
    );
    let events = wait_for_events(&daemon, "cancel", "turn.ended", |e| {
        has_type(e, "turn.ended")
    });
    let ended = last_of(&events, "turn.ended");
    assert_eq!(
        ended["data"]["metadata"],
        json!({ "cancelled": true }),
        "{ended}"
    );
    assert!(count_type(&events, "item.delta") < 600);
    // The session goes on.
    assert_eq!(
        last_assistant_text(&send_stream(&daemon, "cancel", "still here")),
        "still here"
    );
    // Cancelling when nothing runs is fine.
    assert_eq!(
        json_ok(&cli(&daemon, &["sessions", "cancel", "cancel"])),
        json!({ "ok": true })
    );
}

#[test]
fn sessions_modes_change_a_running_sessions_modes_model_and_variant() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "modes");
    assert_eq!(
        json_ok(&cli(
            &daemon,
            &["sessions", "modes", "modes", "--agent-mode", "plan"]
        )),
        json!({ "agentMode": "plan", "permissionMode": "default" })
    );
    assert_eq!(
        last_assistant_text(&send_stream(&daemon, "modes", "shell echo hi")),
        "Plan mode: I would run `echo hi`."
    );
    let failure = problem_failure(
        &cli(
            &daemon,
            &["sessions", "modes", "modes", "--agent-mode", "architect"],
        ),
        "mode_not_supported",
        400,
    );
    assert!(
        failure.error_line.contains(r#"no mode "architect""#),
        "{}",
        failure.error_line
    );
    assert_eq!(
        json_ok(&cli(
            &daemon,
            &["sessions", "modes", "modes", "--model", "mock-large"]
        )),
        json!({ "agentMode": "plan", "permissionMode": "default", "model": "mock-large" })
    );
    assert_eq!(
        last_assistant_text(&send_stream(&daemon, "modes", "settings")),
        "Agent mode plan, permission mode default, model mock-large."
    );
    let changed = cli(
        &daemon,
        &["sessions", "modes", "modes", "--variant", "high"],
    );
    assert_eq!(json_ok(&changed)["variant"], "high");
    assert_eq!(
        last_assistant_text(&send_stream(&daemon, "modes", "settings")),
        "Agent mode plan, permission mode default, model mock-large, variant high."
    );
}

#[test]
fn sessions_terminate_ends_the_session() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "term");
    assert_eq!(
        json_ok(&cli(&daemon, &["sessions", "terminate", "term"])),
        json!({ "ok": true })
    );
    let events = wait_for_events(&daemon, "term", "session.ended", |e| {
        has_type(e, "session.ended")
    });
    let ended = last_of(&events, "session.ended");
    assert_eq!(ended["data"]["reason"], "terminated", "{ended}");
    assert_eq!(ended["data"]["terminated_by"], "daemon", "{ended}");
    let list = json_ok(&cli(&daemon, &["sessions", "list"]));
    assert_eq!(list["sessions"][0]["ended"], true, "{list}");
    // An ended session takes no more messages; terminating it again is a no-op.
    problem_failure(
        &cli(&daemon, &["sessions", "send", "term", "hello"]),
        "session_ended",
        409,
    );
    assert_eq!(
        json_ok(&cli(&daemon, &["sessions", "terminate", "term"])),
        json!({ "ok": true })
    );
}

#[test]
fn sessions_delete_removes_the_session() {
    let daemon = start_daemon();
    create_mock_session(&daemon, "doomed");
    assert_eq!(
        json_ok(&cli(&daemon, &["sessions", "delete", "doomed"])),
        json!({ "ok": true })
    );
    let list = json_ok(&cli(&daemon, &["sessions", "list"]));
    assert_eq!(list["sessions"], json!([]), "{list}");
    problem_failure(
        &cli(&daemon, &["sessions", "delete", "doomed"]),
        "session_not_found",
        404,
    );
}

#[test]
fn sessions_create_sends_mcp_servers_and_skills() {
    let daemon = start_daemon();
    let dir = tempfile::tempdir().unwrap();
    let servers = dir.path().join("mcp.json");
    std::fs::write(
        &servers,
        r#"{"calc": {"type": "local", "command": ["node", "add.mjs"]}}"#,
    )
    .unwrap();
    let servers = servers.to_str().unwrap();
    // The mock takes neither: the daemon's refusal shows both reached it.
    let output = cli(
        &daemon,
        &[
            "sessions",
            "create",
            "m",
            "--agent",
            "mock",
            "--mcp-config",
            servers,
        ],
    );
    let failure = problem_failure(&output, "invalid_request", 400);
    assert!(failure.stderr.contains("mcp-servers"), "{}", failure.stderr);
    let skills = dir.path().to_str().unwrap();
    let output = cli(
        &daemon,
        &[
            "sessions", "create", "m", "--agent", "mock", "--skill", skills,
        ],
    );
    let failure = problem_failure(&output, "invalid_request", 400);
    assert!(failure.stderr.contains("skills"), "{}", failure.stderr);
    std::fs::write(dir.path().join("bad.json"), "[1]").unwrap();
    let bad = dir.path().join("bad.json");
    let output = cli(
        &daemon,
        &[
            "sessions",
            "create",
            "m",
            "--agent",
            "mock",
            "--mcp-config",
            bad.to_str().unwrap(),
        ],
    );
    let failure = expect_failure(&output);
    assert!(
        failure.stderr.contains("not an MCP server map"),
        "{}",
        failure.stderr
    );
}
