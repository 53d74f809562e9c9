//! A running session's modes, model and variant changed (`PUT
//! /v1/sessions/{id}/modes`) on the real CLIs whose adapters declare
//! `mode-change`, `model-change` and `variant-change`: the agent, already
//! running, takes the new permission mode with the next message, both ways (Pi,
//! which never asks, its tool set), and calls the new model at the new level.

use serde_json::{json, Value};

use super::common::api::{ok_json, pretty};
use super::harness::Harness;

/// Runs `command` through the agent; whether it asked permission (rejected) and
/// whether the file it touches exists after the turn.
fn touch(h: &Harness, session: &str, file: &str) -> (bool, bool) {
    let offset = h.last_sequence(session);
    h.send(session, &format!("run: touch {file}"));
    let events = h.wait_for(
        session,
        offset,
        "a permission request or the turn's end",
        |e| e["type"] == "turn.ended" || e["type"] == "permission.requested",
    );
    let asked = events.last().unwrap();
    if asked["type"] == "permission.requested" {
        let id = asked["data"]["permission_id"].as_str().unwrap();
        h.reply_permission(session, id, "reject");
        h.wait_for_type(session, offset, "turn.ended");
        return (true, h.path(file).exists());
    }
    assert!(
        h.path(file).exists(),
        "{file} not made unasked:\n{}",
        pretty(&events)
    );
    (false, true)
}

/// The same running agent asks, then runs without asking once the session's
/// permission mode is `bypass`, then asks again once it is `default`.
pub fn modes_change(h: &Harness) {
    let session = h.create("default");
    assert_eq!(touch(h, &session, "modes-1.txt"), (true, false));
    let put = |modes| {
        ok_json(
            h.api()
                .put_json(&format!("/v1/sessions/{session}/modes"), modes),
        )
    };
    assert_eq!(
        put(json!({"permissionMode": "bypass"})),
        json!({"agentMode": "build", "permissionMode": "bypass"})
    );
    assert_eq!(touch(h, &session, "modes-2.txt"), (false, true));
    put(json!({"permissionMode": "default"}));
    assert_eq!(touch(h, &session, "modes-3.txt"), (true, false));
}

/// Pi, which never asks: `plan` gives it read-only tools, so a command the model
/// is asked to run is not (the model server, offered no shell, says so); the running
/// session changed to `default` runs one (Pi started again on its session with its
/// whole tool set), and changed back to `plan` does not. One native session throughout.
pub fn read_only_plan_changes(h: &Harness) {
    let session = h.create("plan");
    let ran = |file: &str| {
        let events = h.turn(&session, &format!("run: touch {file}"));
        let shell_offered = !Value::Array(events.clone())
            .to_string()
            .contains("No tool to run commands with");
        (shell_offered, h.path(file).exists(), pretty(&events))
    };
    let put = |modes| {
        ok_json(
            h.api()
                .put_json(&format!("/v1/sessions/{session}/modes"), modes),
        )
    };
    let (offered, made, events) = ran("plan-1.txt");
    assert!(!offered && !made, "a shell in plan:\n{events}");
    let native = h.api().session_info(&session)["nativeSessionId"].clone();
    assert!(native.is_string(), "{native}");
    put(json!({"permissionMode": "default"}));
    let (offered, made, events) = ran("plan-2.txt");
    assert!(offered && made, "no shell in default:\n{events}");
    put(json!({"permissionMode": "plan"}));
    let (offered, made, events) = ran("plan-3.txt");
    assert!(!offered && !made, "a shell in plan again:\n{events}");
    assert_eq!(h.api().session_info(&session)["nativeSessionId"], native);
}

/// The models of the calls the model server answered for messages with
/// `marker` in their text.
fn models_asked(h: &Harness, marker: &str) -> Vec<String> {
    let asked = h.model_requests().into_iter().filter(|request| {
        let text = request["userText"].as_str().unwrap_or_default();
        text.contains(marker)
    });
    let model = |request: Value| request["model"].as_str().unwrap_or_default().to_owned();
    asked.map(model).collect()
}

/// The same running agent makes its next model calls with the model the
/// session changed to (`PUT .../modes {"model"}`): `first` at create, then
/// `second`, each sent to the model server as `wire(model)` names it. Then,
/// for an agent whose adapter declares `variant-change`, with the variant the
/// session changed to (`{"variant"}`), as `effort` reads it from a call's body
/// (see [`variant_change`]); another's is refused.
pub fn model_change(
    h: &Harness,
    first: &str,
    second: &str,
    wire: fn(&str) -> &str,
    effort: Option<fn(&Value) -> &Value>,
) {
    let session = session_with_model_changed(h, first, second, wire);
    match effort {
        Some(effort) => variant_change(h, &session, ["low", "high"], effort),
        None => {
            let refused = h.api().put_json(
                &format!("/v1/sessions/{session}/modes"),
                json!({ "variant": "high" }),
            );
            crate::common::api::expect_problem(refused, 400, "mode_not_supported");
        }
    }
}

/// The running agent of `session` makes its next model calls with each of
/// `variants` in turn once the session changed to it: `effort` reads it from
/// a call's body, as the variant's name or as a number (a thinking budget)
/// that grows with the variants.
fn variant_change(h: &Harness, session: &str, variants: [&str; 2], effort: fn(&Value) -> &Value) {
    let mut budgets = Vec::new();
    for variant in variants {
        let answer = ok_json(h.api().put_json(
            &format!("/v1/sessions/{session}/modes"),
            json!({ "variant": variant }),
        ));
        assert_eq!(answer["variant"], variant, "{answer}");
        let marker = format!("thinking {variant}");
        let events = h.turn(session, &format!("hello {marker}"));
        let errors: Vec<&Value> = events.iter().filter(|e| e["type"] == "error").collect();
        assert!(errors.is_empty(), "{variant}: {}", pretty(&events));
        let asked = h.model_requests().into_iter().filter(|request| {
            let text = request["userText"].as_str().unwrap_or_default();
            text.contains(&marker)
        });
        // (Side calls, such as a title, may go without it.)
        let read: Vec<Value> = asked.map(|r| effort(&r["body"]).clone()).collect();
        let named = read.iter().any(|value| value == variant);
        match read.iter().filter_map(Value::as_u64).max() {
            Some(budget) if !named => budgets.push(budget),
            _ => assert!(named, "{variant}: {read:?}"),
        }
    }
    assert!(
        budgets.is_empty() || budgets.windows(2).all(|pair| pair[0] < pair[1]),
        "{variants:?}: budgets {budgets:?}"
    );
}

/// [`model_change`]; the session's id.
fn session_with_model_changed(
    h: &Harness,
    first: &str,
    second: &str,
    wire: fn(&str) -> &str,
) -> String {
    let session = h.create_with("bypass", json!({ "model": first }));
    h.turn(&session, "hello to the first model");
    // (Agents may make side calls, such as a title, with a small model of theirs.)
    let asked = models_asked(h, "the first model");
    assert!(
        asked.iter().any(|model| model == wire(first)),
        "{first}: {asked:?}"
    );
    let answer = ok_json(h.api().put_json(
        &format!("/v1/sessions/{session}/modes"),
        json!({ "model": second }),
    ));
    assert_eq!(answer["model"], second, "{answer}");
    h.turn(&session, "hello to the second model");
    let asked = models_asked(h, "the second model");
    let errors = || {
        let events = h.events(&session).into_iter();
        let errors: Vec<Value> = events.filter(|e| e["type"] == "error").collect();
        pretty(&errors)
    };
    assert!(
        asked.iter().any(|model| model == wire(second)),
        "{second}: {asked:?}\n{}",
        errors()
    );
    assert!(
        !asked.iter().any(|model| model == wire(first)),
        "{first} still: {asked:?}"
    );
    assert_eq!(h.api().session_info(&session)["model"], second);
    session
}

/// [`model_change`] for an agent of the ACP registry, run by the generic ACP
/// adapter: the model reaches it as `session/set_model`. The models the agent
/// offered are in the transcript (`agent offered`), and again each time the
/// agent said they changed. An agent that says so in its configuration
/// options (Codex's build) takes one of the models it lists through them
/// (`session/set_config_option`), and reports that model's thought levels as
/// its variants. One of the modes it offered is then the session's.
pub fn registry_model_change(h: &Harness) {
    fn same(model: &str) -> &str {
        model
    }
    let (first, second) = match h.agent.id {
        "claude-code-acp" => ("claude-scripted-a", "claude-scripted-b"),
        _ => ("scripted-a", "scripted-b"),
    };
    let session = session_with_model_changed(h, first, second, same);
    let events = h.events(&session);
    let offers = crate::common::api::status_records(&events, "agent offered");
    assert!(
        !offers.is_empty() && offers.windows(2).all(|pair| pair[0] != pair[1]),
        "{}",
        pretty(&events)
    );
    let models = offers[0]["models"].as_array().cloned().unwrap_or_default();
    assert!(
        !models.is_empty() && models.iter().all(|m| m["id"].is_string()),
        "{}",
        offers[0]
    );
    if offers.len() > 1 {
        let last = &offers[offers.len() - 1];
        assert_eq!(last["currentModel"], second, "{last}");
        listed_model_taken(h, &session, last, [first, second]);
    }
    // One of the agent's own modes, other than the one it opened in, is taken
    // as the session's agent mode, and the agent runs the next turn in it.
    // Codex's ACP build offers its modes only when its configuration is one
    // of its presets, which the harness's (`untrusted` with full access) is not.
    let modes = offers[0]["modes"].as_array().cloned().unwrap_or_default();
    let other = modes
        .iter()
        .filter_map(|mode| mode["id"].as_str())
        .find(|id| offers[0]["currentMode"] != *id);
    let Some(own) = other else {
        assert_eq!(h.agent.id, "codex-acp", "no other mode: {}", offers[0]);
        let refused = h.api().put_json(
            &format!("/v1/sessions/{session}/modes"),
            json!({ "agentMode": "read-only" }),
        );
        crate::common::api::expect_problem(refused, 400, "mode_not_supported");
        return;
    };
    let answer = ok_json(h.api().put_json(
        &format!("/v1/sessions/{session}/modes"),
        json!({ "agentMode": own }),
    ));
    assert_eq!(answer["agentMode"], own, "{answer}");
    let events = h.turn(&session, "hello in the agent's own mode");
    let errors: Vec<&Value> = events.iter().filter(|e| e["type"] == "error").collect();
    assert!(errors.is_empty(), "{own}: {}", pretty(&events));
    assert_eq!(h.api().session_info(&session)["agentMode"], own);
}

/// One of the models the agent listed in `offer` (none of `asked`) is taken
/// and makes the next turn's model calls; the agent's next offer names it,
/// with its thought levels as its variants.
fn listed_model_taken(h: &Harness, session: &str, offer: &Value, asked: [&str; 2]) {
    let models = offer["models"].as_array().cloned().unwrap_or_default();
    let listed = models
        .iter()
        .filter_map(|model| model["id"].as_str())
        .find(|id| !asked.contains(id))
        .unwrap_or_else(|| panic!("no other model listed: {offer}"))
        .to_owned();
    let answer = ok_json(h.api().put_json(
        &format!("/v1/sessions/{session}/modes"),
        json!({ "model": listed }),
    ));
    assert_eq!(answer["model"], listed, "{answer}");
    let events = h.turn(session, "hello to a listed model");
    let errors: Vec<&Value> = events.iter().filter(|e| e["type"] == "error").collect();
    assert!(errors.is_empty(), "{listed}: {}", pretty(&events));
    let asked = models_asked(h, "a listed model");
    assert!(asked.contains(&listed), "{listed}: {asked:?}");
    let events = h.events(session);
    let offers = crate::common::api::status_records(&events, "agent offered");
    let last = &offers[offers.len() - 1];
    assert_eq!(last["currentModel"], listed, "{last}");
    let mut now = last["models"].as_array().into_iter().flatten();
    let taken = now.find(|m| m["id"] == listed.as_str());
    let variants = taken.and_then(|model| model["variants"].as_array());
    let levels: Vec<&str> = variants
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    // Two of its levels in turn, the variant changed in the running session.
    let pair = match levels[..] {
        [.., a, b] => [a, b],
        _ => panic!("fewer than two thought levels: {last}"),
    };
    variant_change(h, session, pair, |body| &body["reasoning"]["effort"]);
}

/// A registry agent that offers no models over ACP (Pi's ACP build) keeps its
/// own, and the session says so once (an `error` coded `model_refused`).
pub fn registry_model_kept(h: &Harness) {
    let session = h.create_with("bypass", json!({ "model": "scripted-a" }));
    let events = h.turn(&session, "hello to its own model");
    let refused: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "error" && e["data"]["code"] == "model_refused")
        .collect();
    assert_eq!(refused.len(), 1, "{}", pretty(&events));
    let asked = models_asked(h, "its own model");
    assert!(
        !asked.is_empty() && !asked.iter().any(|m| m == "scripted-a"),
        "{asked:?}"
    );
}
