//! The checks, written once against the HTTP API and run for every agent. A check
//! whose feature the adapter does not declare asserts the documented behaviour
//! instead (the turn still ends, no request the client could not answer).

use serde_json::{json, Value};
use std::time::{Duration, Instant};

pub use super::policy::policy_decides;
pub use super::policy_cases::policy_cases;

use super::harness::{Harness, Sandbox, AGENT_DEADLINE};
pub use super::modes::{registry_model_change, registry_model_kept};
use crate::common::api::{assistant_texts, check_turns, expect_no_content, ok_json, pretty, Api};

/// `GET /v1/agents` shows the agent installed with the pinned version.
pub fn installed_with_its_version(h: &Harness) {
    let info = h.agent_info();
    let pinned = h.agent.pinned_version();
    eprintln!("{} {} (expected {pinned})", h.agent.id, info["version"]);
    assert_eq!(info["installed"], json!(true), "{info:#}");
    assert_eq!(info["version"], json!(pinned), "{info:#}");
}

/// A text turn: user item, streamed assistant text, usage.
pub fn text_turn(h: &Harness) {
    let session = h.create("default");
    let events = h.turn(&session, "hello conformance");
    check_turns(&events, true);
    let texts = assistant_texts(&events);
    assert!(
        texts.iter().any(|t| t.contains("Echo: hello conformance")),
        "{texts:?}\n{}",
        pretty(&events)
    );
    if h.can("streamingDeltas") {
        assert!(
            events.iter().any(|e| e["type"] == "item.delta"),
            "streamingDeltas declared but no item.delta:\n{}",
            pretty(&events)
        );
    }
    let ended = events.last().unwrap();
    if h.can("usage") {
        assert!(
            ended["data"]["usage"]["input_tokens"].as_u64() > Some(0),
            "usage declared but missing: {ended:#}"
        );
    }
    let native = h.api().session_info(&session)["nativeSessionId"].clone();
    assert!(
        native.is_string(),
        "a native session id is reported: {native}"
    );
}

/// The completed items of `kind` in `events`.
pub fn items<'e>(events: &'e [Value], kind: &str) -> Vec<&'e Value> {
    events
        .iter()
        .filter(|e| e["type"] == "item.completed" && e["data"]["item"]["kind"] == kind)
        .map(|e| &e["data"]["item"])
        .collect()
}

/// A tool call and its result, then the final answer.
pub fn tool_call_and_result(h: &Harness) {
    let session = h.create("bypass");
    // The output is not in the command's text. No `$(( ))`: the Gemini CLI refuses
    // anything that looks like command substitution.
    let events = h.turn(&session, "run: printf tool-output-%d 42");
    check_turns(&events, true);
    assert!(
        !items(&events, "tool_call").is_empty(),
        "{}",
        pretty(&events)
    );
    let results = items(&events, "tool_result");
    assert!(
        results
            .iter()
            .any(|r| r.to_string().contains("tool-output-42")),
        "the command's output is in a tool_result:\n{}",
        pretty(&events)
    );
    assert!(
        assistant_texts(&events).iter().any(|t| t.contains("done")),
        "{}",
        pretty(&events)
    );
}

/// A file the agent writes exists, and the change is reported with a diff.
pub fn file_change(h: &Harness) {
    let session = h.create("bypass");
    let events = h.turn(&session, "write: notes.txt: hello file");
    check_turns(&events, true);
    let written = std::fs::read_to_string(h.path("notes.txt")).unwrap_or_default();
    assert!(
        written.contains("hello file"),
        "notes.txt: {written:?}\n{}",
        pretty(&events)
    );
    if h.can("fileChanges") {
        let file_ref = events.iter().find(|e| {
            e["type"] == "item.completed"
                && e["data"]["item"]["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|p| {
                        p["type"] == "file_ref"
                            && p["path"].as_str().is_some_and(|p| p.ends_with("notes.txt"))
                    })
        });
        assert!(
            file_ref.is_some(),
            "fileChanges declared but no file_ref:\n{}",
            pretty(&events)
        );
    }
}

/// Two turns in one session share the conversation.
pub fn multi_turn(h: &Harness) {
    let session = h.create("default");
    h.turn(&session, "first-turn-marker");
    let events = h.turn(&session, "second turn");
    check_turns(&h.events(&session), true);
    assert!(assistant_texts(&events)
        .iter()
        .any(|t| t.contains("Echo: second turn")));
    let last = h.model_requests().into_iter().rfind(|r| {
        r["userText"]
            .as_str()
            .is_some_and(|t| t.contains("second turn"))
    });
    let last = last.expect("the model saw the second turn");
    assert!(
        last["body"].to_string().contains("first-turn-marker"),
        "the second request carries the first turn"
    );
}

/// Sends a command in `default` mode and waits for its permission request.
fn ask_permission(h: &Harness, session: &str, command: &str) -> (u64, String) {
    let offset = h.last_sequence(session);
    h.send(session, &format!("run: {command}"));
    let events = h.wait_for_type(session, offset, "permission.requested");
    let request = events.last().unwrap();
    let id = request["data"]["permission_id"]
        .as_str()
        .unwrap()
        .to_owned();
    (offset, id)
}

/// An agent without permission prompts (`permissions` not declared, Pi) runs the
/// command in `default` mode without asking.
fn runs_without_asking(h: &Harness, file: &str) {
    let session = h.create("default");
    let events = h.turn(&session, &format!("run: touch {file}"));
    assert!(
        !events.iter().any(|e| e["type"] == "permission.requested"),
        "permissions not declared but asked:\n{}",
        pretty(&events)
    );
    assert!(h.path(file).exists(), "{}", pretty(&events));
}

/// Permission answered `once`: the command runs; the next one asks again.
pub fn permission_once(h: &Harness) {
    if !h.asks_permission() {
        return runs_without_asking(h, "once.txt");
    }
    let session = h.create("default");
    let (offset, id) = ask_permission(h, &session, "touch once.txt");
    h.reply_permission(&session, &id, "once");
    let events = h.wait_for_type(&session, offset, "turn.ended");
    assert!(h.path("once.txt").exists(), "{}", pretty(&events));
    let resolved = events
        .iter()
        .find(|e| e["type"] == "permission.resolved")
        .expect("permission.resolved");
    assert_eq!(resolved["data"]["permission_id"], json!(id));
    // Once means once.
    let (offset, id) = ask_permission(h, &session, "touch twice.txt");
    h.reply_permission(&session, &id, "once");
    h.wait_for_type(&session, offset, "turn.ended");
    assert!(h.path("twice.txt").exists());
}

/// Permission answered `always`: the same kind of command no longer asks.
pub fn permission_always(h: &Harness) {
    if !h.asks_permission() {
        return runs_without_asking(h, "always.txt");
    }
    let session = h.create("default");
    let (offset, id) = ask_permission(h, &session, "touch always.txt");
    h.reply_permission(&session, &id, "always");
    h.wait_for_type(&session, offset, "turn.ended");
    assert!(h.path("always.txt").exists());
    let events = h.turn(&session, "run: touch always.txt");
    assert!(
        !events.iter().any(|e| e["type"] == "permission.requested"),
        "asked again after always:\n{}",
        pretty(&events)
    );
}

/// Permission rejected: the command does not run and the turn ends.
pub fn permission_reject(h: &Harness) {
    if !h.asks_permission() {
        return runs_without_asking(h, "unasked.txt");
    }
    let session = h.create("default");
    let (offset, id) = ask_permission(h, &session, "touch rejected.txt");
    h.reply_permission(&session, &id, "reject");
    let events = h.wait_for_type(&session, offset, "turn.ended");
    assert!(!h.path("rejected.txt").exists(), "{}", pretty(&events));
    let resolved = events
        .iter()
        .find(|e| e["type"] == "permission.resolved")
        .expect("permission.resolved");
    assert_eq!(resolved["data"]["status"], json!("reject"), "{resolved:#}");
}

/// A question answered by the client (agents with questions); otherwise the
/// turn ends without a question.
pub fn question(h: &Harness) {
    let session = h.create(h.agent.question_mode);
    let offset = h.last_sequence(&session);
    h.send(&session, "ask: Proceed?");
    if !h.can("questions") {
        let events = h.wait_for_type(&session, offset, "turn.ended");
        assert!(
            !events.iter().any(|e| e["type"] == "question.requested"),
            "{}",
            pretty(&events)
        );
        return;
    }
    let events = h.wait_for_type(&session, offset, "question.requested");
    let question = &events.last().unwrap()["data"];
    assert!(
        question["prompt"]
            .as_str()
            .unwrap_or("")
            .contains("Proceed?"),
        "{question:#}"
    );
    assert_eq!(question["options"], json!(["yes", "no"]), "{question:#}");
    let id = question["question_id"].as_str().unwrap();
    expect_no_content(
        h.api().post_json(
            &format!("/v1/sessions/{session}/questions/{id}/reply"),
            json!({ "answers": [["yes"]] }),
        ),
        "question reply",
    );
    let events = h.wait_for_type(&session, offset, "turn.ended");
    let resolved = events
        .iter()
        .find(|e| e["type"] == "question.resolved")
        .expect("question.resolved");
    assert_eq!(
        resolved["data"]["status"],
        json!("answered"),
        "{resolved:#}"
    );
}

/// Cancel interrupts a streaming turn; the session takes the next message.
pub fn cancel_mid_turn(h: &Harness) {
    let session = h.create("default");
    let offset = h.last_sequence(&session);
    h.send(&session, "slow: 200");
    h.wait_for_type(&session, offset, "item.delta");
    expect_no_content(
        h.api()
            .post_empty(&format!("/v1/sessions/{session}/cancel")),
        "cancel",
    );
    let events = h.wait_for_type(&session, offset, "turn.ended");
    let ticks = events.iter().filter(|e| e["type"] == "item.delta").count();
    assert!(ticks < 150, "the turn stopped early ({ticks} deltas)");
    let events = h.turn(&session, "after cancel");
    assert!(
        assistant_texts(&events)
            .iter()
            .any(|t| t.contains("Echo: after cancel")),
        "{}",
        pretty(&events)
    );
}

/// Terminate ends the session and stops the agent.
pub fn terminate(h: &Harness) {
    let session = h.create("default");
    h.turn(&session, "hello");
    expect_no_content(
        h.api()
            .post_empty(&format!("/v1/sessions/{session}/terminate")),
        "terminate",
    );
    let events = h.wait_for_type(&session, 0, "session.ended");
    let ended = &events.last().unwrap()["data"];
    assert_eq!(ended["reason"], json!("terminated"), "{ended:#}");
    assert_eq!(ended["terminated_by"], json!("daemon"), "{ended:#}");
    h.wait_agent_running(false);
}

/// The agent process dies mid-turn: `session.ended` with the exit, daemon fine.
pub fn agent_crash(h: &Harness) {
    let session = h.create("default");
    let offset = h.last_sequence(&session);
    h.send(&session, "slow: 400");
    h.wait_for_type(&session, offset, "item.delta");
    h.kill_agent();
    let events = h.wait_for_type(&session, offset, "session.ended");
    let ended = &events.last().unwrap()["data"];
    assert_eq!(ended["reason"], json!("error"), "{ended:#}");
    assert!(
        ended["exit_code"].is_number()
            || ended["message"]
                .as_str()
                .is_some_and(|m| m.contains("signal")),
        "the exit is reported: {ended:#}"
    );
    assert_eq!(h.api().get_ok("/v1/health")["status"], json!("ok"));
    // Other sessions still work.
    let other = h.create("default");
    let events = h.turn(&other, "still here");
    assert!(assistant_texts(&events)
        .iter()
        .any(|t| t.contains("Echo: still here")));
}

/// The agent process exits between turns: the next message resumes the native
/// session, with the earlier conversation; and so again after the resumed
/// process exits (an agent may load a session only once: Gemini CLI 0.61.0
/// deleted it at the start after a load).
pub fn resume_after_exit(h: &mut Harness) {
    early_in_a_minute(h);
    let session = h.create("default");
    h.turn(&session, "remember-marker-7");
    let native = h.api().session_info(&session)["nativeSessionId"].clone();
    for _ in 0..2 {
        let_the_agent_save();
        h.kill_agent();
        assert_resumed(h, &session, "remember-marker-7");
        assert_eq!(h.api().session_info(&session)["nativeSessionId"], native);
    }
}

/// The daemon is killed (SIGKILL) while the session is idle: the next daemon
/// lists the session with its whole transcript, marks that the agent's process
/// ended with the daemon, and the next message resumes the agent's own session.
pub fn resume_after_daemon_restart(h: &mut Harness) {
    early_in_a_minute(h);
    let session = h.create("default");
    h.turn(&session, "remember-marker-8");
    let native = h.api().session_info(&session)["nativeSessionId"].clone();
    let before = h.api().events(&session);
    let_the_agent_save();
    h.restart_daemon();
    let after = h.api().events(&session);
    assert_eq!(
        after[..before.len()],
        before[..],
        "the transcript survived as it was"
    );
    let info = h.api().session_info(&session);
    assert_eq!(info["ended"], json!(false), "{info}");
    assert_eq!(info["nativeSessionId"], native, "{info}");
    assert!(
        after[before.len()..]
            .iter()
            .any(|e| e["type"] == "item.completed" && e["data"]["item"]["kind"] == "status"),
        "a marker says the agent's process ended with the daemon: {}",
        pretty(&after[before.len()..])
    );
    assert_resumed(h, &session, "remember-marker-8");
}

/// Gives the agent time to persist its session after the turn ended (Claude Code
/// writes its session file ~100 ms later).
fn let_the_agent_save() {
    std::thread::sleep(std::time::Duration::from_secs(1));
}

/// For an agent that names its session's files after the minute the session
/// began, waits for a minute to begin when less than half of this one is left:
/// the check's resume then falls in the minute its session began, where the
/// agent would write over the session but for the daemon.
fn early_in_a_minute(h: &Harness) {
    if h.agent.names_sessions_by_minute {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        if now % 60 >= 30 {
            std::thread::sleep(std::time::Duration::from_secs(61 - now % 60));
        }
    }
}

/// The next turn is answered, and the model saw the earlier turn's `marker`.
fn assert_resumed(h: &Harness, session: &str, marker: &str) {
    assert_next_turn(h, &h.api(), session, marker, true);
}

/// The next turn of `session` in the daemon of `api` is answered, and the model
/// saw the earlier turn's `marker` when `carried` (else it did not: the agent
/// started a session of its own).
fn assert_next_turn(h: &Harness, api: &Api<'_>, session: &str, marker: &str, carried: bool) {
    let offset = api.last_sequence(session);
    api.send(session, "what did I say");
    let events = api.wait_for_within(AGENT_DEADLINE, session, offset, "turn.ended", |e| {
        e["type"] == "turn.ended"
    });
    assert!(
        assistant_texts(&events)
            .iter()
            .any(|t| t.contains("Echo: what did I say")),
        "{}",
        pretty(&events)
    );
    let last = h.model_requests().into_iter().rfind(|r| {
        r["userText"]
            .as_str()
            .is_some_and(|t| t.contains("what did I say"))
    });
    let body = last.expect("the model saw the message")["body"].to_string();
    assert_eq!(
        body.contains(marker),
        carried,
        "{}: the model request after the resume {} the first turn: {body}",
        h.agent.id,
        if carried { "lacks" } else { "unexpectedly has" }
    );
}

/// The session moves to another sandbox (its own home, data dir, install dir and
/// working directory) as one archive, and the agent there resumes its own session:
/// the model receives the first turn as the agent itself sends it. An agent whose
/// session cannot move says so in its capabilities and in the import's `lost`, and
/// the session goes on with a new agent session.
pub fn moves_to_another_sandbox(h: &mut Harness) {
    let session = h.create("default");
    h.turn(&session, "remember-marker-9");
    let before = h.events(&session);
    let_the_agent_save();
    let movable = h.can("move");
    let archive = h.api().export(&session);
    let there = h.another_sandbox();
    let api = there.api();
    let query = format!("?directory={}", there.workspace.path().display());
    let answer = ok_json(api.import(&session, &query, archive, &[]));
    assert_eq!(
        answer["lost"].is_null(),
        movable,
        "{}: the `move` capability and what the import says differ: {answer}",
        h.agent.id
    );
    if movable {
        assert!(
            answer["nativeFiles"].as_u64().unwrap() > 0,
            "{}: the agent's own session files moved: {answer}",
            h.agent.id
        );
    }
    assert_eq!(
        answer["session"]["directory"],
        json!(there.workspace.path())
    );
    let after = api.events(&session);
    assert_eq!(
        after[..before.len()],
        before[..],
        "the transcript moved whole"
    );
    assert_next_turn(h, &api, &session, "remember-marker-9", movable);
    if h.asks_permission() {
        moves_while_asking(h, &there);
    }
}

/// Two daemons share a PostgreSQL database; the one driving a session dies
/// (SIGKILL), and the other, asked for the session, takes it over once the
/// lease ran out: it writes the agent's own session files (kept when the turn
/// ended) into its own home, and the next turn resumes the agent's own
/// session: the model receives the first turn as the agent itself sends it.
pub fn taken_over_when_its_daemon_dies(h: &mut Harness) {
    let Some((mut first, second, url)) = h.fleet() else {
        return;
    };
    let response = first.api().post_json(
        "/v1/sessions/fleet-1",
        json!({ "agent": h.agent.id, "permissionMode": "default",
                "directory": first.workspace.path() }),
    );
    ok_json(response);
    let api = first.api();
    let offset = api.last_sequence("fleet-1");
    api.send("fleet-1", "remember-marker-11");
    api.wait_for_within(AGENT_DEADLINE, "fleet-1", offset, "turn.ended", |e| {
        e["type"] == "turn.ended"
    });
    let_the_agent_save();
    // The agent's files are kept in the database once the turn ended.
    let watcher = agentplex_store::postgres::PostgresStore::open_with(
        &url,
        &agentplex_store::postgres::Options {
            daemon: "watcher".into(),
            ..Default::default()
        },
    )
    .unwrap();
    crate::common::wait_until(Duration::from_secs(30), "the agent's files kept", || {
        use agentplex_store::Fleet;
        watcher
            .native("fleet-1")
            .unwrap()
            .is_some_and(|kept| !kept.files.is_empty())
    });
    drop(first.daemon.kill());
    let before = Instant::now();
    let there = second.api();
    // Asked for the session, the second daemon takes it over.
    let info = there.get_ok("/v1/sessions/fleet-1");
    assert_eq!(info["owner"], json!("second"), "{info}");
    eprintln!("{}: taken over in {:?}", h.agent.id, before.elapsed());
    assert_next_turn(h, &there, "fleet-1", "remember-marker-11", true);
}

/// A session that moves while its agent waits for a permission: the agent's
/// process stays behind, so the new daemon settles the request and ends the turn
/// (as after a daemon restart), and the session goes on in the agent's own session.
fn moves_while_asking(h: &Harness, there: &Sandbox) {
    let session = h.create("default");
    h.turn(&session, "remember-marker-10");
    let (offset, id) = ask_permission(h, &session, "touch asked.txt");
    let archive = h.api().export(&session);
    let api = there.api();
    let query = format!("?directory={}", there.workspace.path().display());
    ok_json(api.import(&session, &query, archive, &[]));
    let events = api.wait_for_within(AGENT_DEADLINE, &session, offset, "turn.ended", |e| {
        e["type"] == "turn.ended"
    });
    assert_eq!(
        events.last().unwrap()["data"]["metadata"]["reason"],
        json!("session_moved"),
        "{}",
        pretty(&events)
    );
    let resolved = events
        .iter()
        .find(|e| e["type"] == "permission.resolved" && e["data"]["permission_id"] == json!(id));
    assert!(
        resolved.is_some(),
        "the request is settled: {}",
        pretty(&events)
    );
    let info = api.session_info(&session);
    assert_eq!(info["status"], json!("idle"), "{info}");
    assert_next_turn(h, &api, &session, "remember-marker-10", true);
}

/// `include_raw=true` carries the native line on agent events, and only then.
pub fn include_raw(h: &Harness) {
    let session = h.create("default");
    h.turn(&session, "raw please");
    let with_raw = h.api().events_page(&session, "include_raw=true");
    let native: Vec<&Value> = with_raw["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["source"] == "agent" && e["synthetic"] == json!(false))
        .collect();
    assert!(!native.is_empty());
    for event in native {
        assert!(
            event["raw"].is_string() || event["raw"].is_object(),
            "no raw: {event:#}"
        );
    }
    assert!(h.events(&session).iter().all(|e| e.get("raw").is_none()));
}

/// The test MCP server (`testing/mcp-server/add.mjs`) as a session's `mcp` config,
/// logging what it is asked to `log`.
pub fn add_server(log: &std::path::Path) -> Value {
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testing/mcp-server/add.mjs");
    json!({ "calc": {
        "type": "local",
        "command": ["node", std::fs::canonicalize(script).unwrap()],
        "env": { "MCP_ADD_LOG": log },
    }})
}

/// An MCP server of the session reaches the agent in its native form: the model is
/// offered the server's tool, calls it, and the transcript shows the call and the
/// server's answer. An agent that cannot take MCP servers refuses such a session.
pub fn mcp_tool(h: &Harness) {
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("mcp-add.log");
    if !h.can("mcpServers") {
        let response = h.api().post_json(
            "/v1/sessions/without-mcp",
            json!({ "agent": h.agent.id, "mcp": add_server(&log) }),
        );
        crate::common::api::expect_problem(response, 400, "invalid_request");
        return;
    }
    let session = h.create_with("bypass", json!({ "mcp": add_server(&log) }));
    // The session list shows the servers as created, their environment values redacted.
    let listed = &h.api().session_info(&session)["mcp"]["calc"];
    assert_eq!(listed["type"], "local", "{listed}");
    assert_eq!(listed["env"]["MCP_ADD_LOG"], "<redacted>", "{listed}");
    let events = h.turn(&session, r#"mcp: add {"a": 2, "b": 3}"#);
    check_turns(&events, true);
    let asked = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        asked.contains("tools/list"),
        "the agent never listed the MCP server's tools: {asked:?}"
    );
    // Offered with the agent's tools, or found by its tool search (Codex, Qwen Code
    // defer MCP tools behind one).
    let offered = h.model_requests().iter().any(|request| {
        ["tools", "foundTools"].iter().any(|list| {
            request[list].as_array().is_some_and(|tools| {
                tools
                    .iter()
                    .any(|t| t.as_str().is_some_and(|t| t.ends_with("add")))
            })
        })
    });
    assert!(
        offered,
        "the model was never offered the MCP tool: {:#?}",
        h.model_requests()
    );
    assert!(
        !items(&events, "tool_call").is_empty(),
        "{}",
        pretty(&events)
    );
    assert!(
        items(&events, "tool_result")
            .iter()
            .any(|r| r.to_string().contains("sum: 5")),
        "the MCP tool's answer is in a tool_result:\n{}",
        pretty(&events)
    );
    let asked = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        asked.contains("tools/call"),
        "the MCP server was not called: {asked}"
    );
}

/// A skill from a local folder reaches the agent: the model is told of it (its
/// description), calls the agent's skill tool, and the skill's instructions reach
/// the model. An agent that cannot take skills refuses such a session.
pub fn skill_from_a_folder(h: &Harness) {
    let skills = tempfile::tempdir().unwrap();
    let greet = skills.path().join("greet");
    std::fs::create_dir_all(&greet).unwrap();
    std::fs::write(
        greet.join("SKILL.md"),
        "---\nname: greet\ndescription: Greets in the conformance house style. Use when asked to greet.\n---\nAlways greet with the words \"Ahoy from the greet skill\".\n",
    )
    .unwrap();
    let config = json!({ "sources": [{ "type": "local", "source": skills.path() }] });
    if !h.can("skills") {
        let response = h.api().post_json(
            "/v1/sessions/without-skills",
            json!({ "agent": h.agent.id, "skills": config }),
        );
        crate::common::api::expect_problem(response, 400, "invalid_request");
        return;
    }
    let session = h.create_with("bypass", json!({ "skills": config }));
    assert_eq!(h.api().session_info(&session)["skills"], config);
    let events = h.turn(&session, "skill: greet");
    check_turns(&events, true);
    let requests = serde_json::to_string(&h.model_requests()).unwrap();
    assert!(
        requests.contains("conformance house style"),
        "the model was not told of the skill"
    );
    assert!(
        !items(&events, "tool_call").is_empty(),
        "{}",
        pretty(&events)
    );
    assert!(
        requests.contains("Ahoy from the greet skill"),
        "the skill's instructions never reached the model:\n{}",
        pretty(&events)
    );
}

/// The agent through the daemon as an ACP agent: the official ACP client library
/// (testing/acp-clients/stdio.mjs) drives `agentplex acp --agent <id>` over stdio:
/// a turn, a tool call, a permission allowed and one rejected (the files say
/// which commands ran); then a turn over HTTP (`/acp/{agent}`).
pub fn acp_client(h: &Harness) {
    let clients = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testing/acp-clients");
    if !clients
        .join("node_modules/@agentclientprotocol/sdk")
        .is_dir()
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "run `npm ci` in testing/acp-clients"
        );
        eprintln!("skipped: testing/acp-clients has no node_modules");
        return;
    }
    let output = std::process::Command::new("node")
        .args(["stdio.mjs", "conformance"])
        .current_dir(&clients)
        .env("AGENTPLEX_BIN", crate::common::binary())
        .env("AGENTPLEX_ENDPOINT", &h.sandbox.daemon.endpoint)
        .env("ACP_AGENT", h.agent.id)
        .env("ACP_CWD", h.sandbox.workspace.path())
        .output()
        .expect("running node");
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        crate::common::describe(&output)
    );
    assert!(
        out.contains("ok turn\n") && out.contains("ok tool call\n"),
        "{out}"
    );
    assert!(out.contains("ok turn over http\n"), "{out}");
    assert!(h.path("acp-once.txt").exists(), "{out}");
    if h.asks_permission() {
        assert!(out.contains("ok permissions (asked 2)"), "{out}");
        assert!(
            !h.path("acp-rejected.txt").exists(),
            "a rejected command ran: {out}"
        );
    } else {
        assert!(out.contains("ok permissions (asked 0)"), "{out}");
    }
}
