//! An agent that offers session configuration options (`configOptions`, as
//! Codex's and Qwen Code's ACP builds do): its mode, model and thought level
//! are set with `session/set_config_option`, and what it offers follows its
//! answers and updates.

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::testing;
use sandbox_agent_adapter_kit::transcript::render;

use super::{first_calls, reply, update, writes};
use crate::GenericSession;

/// Codex's ACP build's select of its modes.
const MODE: &str = r#"{"id":"mode","name":"Approval Preset","category":"mode","type":"select","currentValue":"auto","options":[{"value":"read-only","name":"Read Only"},{"value":"auto","name":"Default"},{"value":"full-access","name":"Full Access"}]}"#;

/// A select of two models, `current` the current one.
fn model(current: &str) -> String {
    format!(
        r#"{{"id":"model","name":"Model","category":"model","type":"select","currentValue":"{current}","options":[{{"group":"new","name":"New","options":[{{"value":"c2","name":"C2"}}]}},{{"group":"old","name":"Old","options":[{{"value":"c1","name":"C1"}}]}}]}}"#
    )
}

/// A select of thought levels `levels`, `current` the current one.
fn effort(current: &str, levels: &[&str]) -> String {
    let levels: Vec<String> = levels
        .iter()
        .map(|level| format!(r#"{{"value":"{level}","name":"{level}"}}"#))
        .collect();
    format!(
        r#"{{"id":"reasoning_effort","name":"Reasoning Effort","category":"thought_level","type":"select","currentValue":"{current}","options":[{}]}}"#,
        levels.join(",")
    )
}

/// An answer to `session/new` with `options` and, when `legacy`, the older
/// `modes` and `models` as Codex's build sends them beside.
fn opened(options: &[&str], legacy: bool) -> String {
    let legacy = if legacy {
        r#""modes":{"currentModeId":"auto","availableModes":[{"id":"read-only","name":"Read Only"},{"id":"auto","name":"Default"},{"id":"full-access","name":"Full Access"}]},"models":{"currentModelId":"c2/medium","availableModels":[{"modelId":"c2/low"},{"modelId":"c2/medium"}]},"#
    } else {
        ""
    };
    format!(
        r#"{{"sessionId":"native-1",{legacy}"configOptions":[{}]}}"#,
        options.join(",")
    )
}

fn config(permission_mode: &str, model: Option<&str>, variant: Option<&str>) -> SessionConfig {
    SessionConfig {
        permission_mode: permission_mode.into(),
        model: model.map(Into::into),
        variant: variant.map(Into::into),
        ..testing::config()
    }
}

#[test]
fn the_mode_model_and_variant_are_set_as_configuration_options() {
    let three = opened(
        &[
            MODE,
            &model("c2"),
            &effort("medium", &["low", "medium", "high"]),
        ],
        true,
    );
    let set = |pair: &str| format!("session/set_config_option {pair}");
    for (config, answer, expected) in [
        // The variant and the prompt wait for the model's answer, which says
        // the model's own thought levels.
        (
            config("bypass", Some("c1"), Some("high")),
            &three,
            vec![set("mode=full-access"), set("model=c1")],
        ),
        (
            config("bypass", None, Some("high")),
            &three,
            vec![
                set("mode=full-access"),
                set("reasoning_effort=high"),
                "session/prompt ".into(),
            ],
        ),
        // What it runs already is not sent again.
        (
            config("default", Some("c2"), Some("medium")),
            &three,
            vec!["session/prompt ".into()],
        ),
        // A model its select does not list goes as `session/set_model` to an
        // agent that offers `models` too...
        (
            config("default", Some("c2/high"), None),
            &three,
            vec!["session/set_model c2/high".into(), "session/prompt ".into()],
        ),
        // ...and to its select when it has nothing else: it says whether it
        // takes it.
        (
            config("default", Some("c3"), None),
            &opened(&[&model("c2")], false),
            vec![set("model=c3")],
        ),
        // No thought levels offered: it keeps its own, and the session says so.
        (
            config("default", None, Some("high")),
            &opened(&[MODE], false),
            vec![
                "error \"the ACP agent offers no thought level over ACP: it keeps its own, \
                 not high\" code=variant_refused"
                    .into(),
                "session/prompt ".into(),
            ],
        ),
    ] {
        assert_eq!(first_calls(config, answer), expected, "{answer}");
    }
}

/// The ids of the offer's models, each with its variants and default.
fn models(offer: &AgentOffer) -> Vec<String> {
    let model = |m: &Model| {
        let default = m.default_variant.as_deref().unwrap_or("-");
        format!("{} [{}] {default}", m.id, m.variants.join(" "))
    };
    offer.models.iter().map(model).collect()
}

#[test]
fn what_the_options_offer_follows_the_agents_answers_and_updates() {
    let mut session = GenericSession::new(config("default", Some("c1"), Some("high")));
    session.start();
    let process = || "acp_1".to_owned();
    session.on_stdout(process(), reply(1, r#"{"protocolVersion":1}"#));
    let levels = ["low", "medium", "high"];
    let answer = opened(&[MODE, &model("c2"), &effort("medium", &levels)], true);
    session.on_stdout(process(), reply(2, &answer));
    // The options win over `modes` and `models`; the thought levels are the
    // current model's variants.
    let offer = session.agent_offer().expect("the offer of session/new");
    assert_eq!(models(&offer), ["c2 [low medium high] medium", "c1 [] -"]);
    assert_eq!(offer.modes.len(), 3);
    assert_eq!(offer.current_mode.as_deref(), Some("auto"));
    assert_eq!(session.agent_offer(), None, "told once");

    // The model (3) goes first. Its answer brings the model's own levels and
    // puts the agent at its default; then the level (4) and the prompt (5)
    // go, and the level's answer puts the agent at the session's.
    let sent = writes(render(
        &session.send_message(vec![MessagePart::Text("hi".into())]),
    ));
    assert!(
        sent.len() == 1 && sent[0].contains(r#"\"value\":\"c1\""#),
        "{sent:#?}"
    );
    let c1 = |level: &str| {
        opened(
            &[MODE, &model("c1"), &effort(level, &["low", "high"])],
            false,
        )
    };
    let sent = writes(render(&session.on_stdout(process(), reply(3, &c1("low")))));
    assert_eq!(sent.len(), 2, "{sent:#?}");
    assert!(
        sent[0].contains(r#"\"value\":\"high\""#) && sent[1].contains("session/prompt"),
        "{sent:#?}"
    );
    let offer = session.agent_offer().expect("the model's answer");
    assert_eq!(models(&offer), ["c2 [] -", "c1 [low high] low"]);
    session.on_stdout(process(), reply(4, &c1("high")));
    let offer = session.agent_offer().expect("the level's answer");
    assert_eq!(models(&offer), ["c2 [] -", "c1 [low high] high"]);
    session.on_stdout(process(), reply(5, r#"{"stopReason":"end_turn"}"#));

    // The agent changes its mode and its level itself: the offer says so,
    // the session's level goes out again before the next prompt (its mode is
    // the agent's until the session's changes).
    let mode_update = r#"{"sessionUpdate":"current_mode_update","currentModeId":"read-only"}"#;
    assert!(render(&session.on_stdout(process(), update(mode_update))).is_empty());
    let offer = session.agent_offer().expect("the mode's update");
    assert_eq!(offer.current_mode.as_deref(), Some("read-only"));
    let options = format!(
        r#"{{"sessionUpdate":"config_option_update","configOptions":[{MODE},{},{}]}}"#,
        model("c1"),
        effort("low", &["low", "high"])
    );
    assert!(render(&session.on_stdout(process(), update(&options))).is_empty());
    let offer = session.agent_offer().expect("the options' update");
    assert_eq!(offer.current_mode.as_deref(), Some("auto"), "the select's");
    assert_eq!(models(&offer), ["c2 [] -", "c1 [low high] low"]);
    let sent = writes(render(
        &session.send_message(vec![MessagePart::Text("again".into())]),
    ));
    assert_eq!(sent.len(), 2, "{sent:#?}");
    assert!(sent[0].contains(r#"\"value\":\"high\""#), "{}", sent[0]);

    // A level it does not take: the session says the agent kept its own.
    let refused = r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Unknown reasoning effort: high"}}"#;
    let lines = render(&session.on_stdout(process(), refused.into()));
    assert!(
        lines
            .iter()
            .any(|l| l.contains("variant_refused") && l.contains("kept its earlier thought level")),
        "{lines:#?}"
    );
}

/// A model the agent does not take: the session says it kept its own, and
/// the prompt that waited for the answer goes.
#[test]
fn after_a_model_refused_the_prompt_goes() {
    let mut session = GenericSession::new(config("default", Some("c3"), None));
    session.start();
    session.on_stdout("acp_1".into(), reply(1, r#"{"protocolVersion":1}"#));
    let answer = opened(&[&model("c2"), &effort("low", &["low"])], false);
    session.on_stdout("acp_1".into(), reply(2, &answer));
    session.send_message(vec![MessagePart::Text("hi".into())]);
    let refused = r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"no model c3"}}"#;
    let lines = render(&session.on_stdout("acp_1".into(), refused.into()));
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert!(
        lines[0].contains("model_refused") && lines[0].contains("no model c3"),
        "{lines:#?}"
    );
    assert!(lines[1].contains("session/prompt"), "{lines:#?}");
}

/// A variant changed while the session runs (the host rebuilds the session
/// from its snapshot with it, as after `PUT .../modes`) goes as the thought
/// level before the next prompt, once.
#[test]
fn a_changed_variant_goes_before_the_next_prompt_once() {
    let mut session = GenericSession::new(config("default", None, None));
    session.start();
    session.on_stdout("acp_1".into(), reply(1, r#"{"protocolVersion":1}"#));
    let answer = opened(&[&effort("medium", &["low", "medium"])], false);
    session.on_stdout("acp_1".into(), reply(2, &answer));
    let prompt = |session: &mut GenericSession, id: u64| {
        let sent = writes(render(
            &session.send_message(vec![MessagePart::Text("hi".into())]),
        ));
        let done = session.on_stdout("acp_1".into(), reply(id, r#"{"stopReason":"end_turn"}"#));
        assert!(!render(&done).is_empty());
        sent
    };
    let sent = prompt(&mut session, 3);
    assert!(
        sent.len() == 1 && sent[0].contains("session/prompt"),
        "{sent:#?}"
    );
    let mut session =
        GenericSession::restore(config("default", None, Some("low")), &session.snapshot()).unwrap();
    let sent = prompt(&mut session, 5);
    assert_eq!(sent.len(), 2, "{sent:#?}");
    assert!(
        sent[0].contains(r#"\"configId\":\"reasoning_effort\""#)
            && sent[0].contains(r#"\"value\":\"low\""#),
        "{}",
        sent[0]
    );
    let sent = prompt(&mut session, 6);
    assert!(sent.len() == 1, "told once: {sent:#?}");
}
