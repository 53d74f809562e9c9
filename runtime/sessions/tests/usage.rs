//! The usage of a session's model calls, delivered as a model gateway delivers
//! it (`SessionManager::usage_sink`), in a session of the mock agent: each call
//! is a `model.usage` event, the turn ends with their totals, the session's info
//! adds them up, the metrics count them, and a daemon restart keeps them.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentplex_api::CreateSessionRequest;
use agentplex_host::{HostConfig, MessagePart};
use agentplex_install::InstallSettings;
use agentplex_sessions::agents::AgentCatalog;
use agentplex_sessions::{Session, SessionManager, SessionSettings, TAIL_EVENTS};
use agentplex_store::sqlite::SqliteStore;
use agentplex_store::Store;
use agentplex_universal::{ModelUsageData, UniversalEvent, UniversalEventData, UniversalEventType};
use serde_json::json;

/// A session manager over the builtin adapters, keeping its sessions in `dir`, and
/// the sessions a previous one left there.
fn sessions_in(dir: &Path) -> (SessionManager, Vec<agentplex_store::StoredSession>) {
    let host = HostConfig {
        cache_dir: Some(Path::new(env!("CARGO_TARGET_TMPDIR")).join("adapter-cache")),
        ..HostConfig::default()
    };
    let registry = agentplex_builtins::builtin_registry(host).unwrap();
    let catalog = AgentCatalog::new(Arc::new(registry), InstallSettings::new(dir.join("bin")));
    let store = Arc::new(SqliteStore::open(dir).unwrap());
    let stored = store.load(TAIL_EVENTS).unwrap();
    let settings = SessionSettings {
        max_line_bytes: 1 << 20,
        agent_nice: 0,
        park_after: None,
        max_live_instances: None,
        stop_grace: Duration::from_secs(1),
        git: Default::default(),
    };
    let manager = SessionManager::new(Arc::new(catalog), settings, store, dir.join("scratch"));
    (manager, stored)
}

/// One call of `input` and `output` tokens.
fn call(input: u64, output: u64, cost: Option<f64>) -> ModelUsageData {
    ModelUsageData {
        model: "claude-test".into(),
        input_tokens: input,
        output_tokens: output,
        cache_read_tokens: input / 2,
        cache_write_tokens: 0,
        reasoning_tokens: 1,
        cost_usd: cost,
        format: "anthropic-messages".into(),
        status: 200,
        duration_ms: 20,
        complete: true,
        error: None,
    }
}

/// The session's transcript.
async fn transcript(session: &Session) -> Vec<UniversalEvent> {
    let page = session.events_after(0, 1000).await.unwrap();
    page.events.iter().map(|e| e.decode().unwrap()).collect()
}

/// The transcript once it holds an event of `event_type`.
async fn transcript_with(session: &Session, event_type: UniversalEventType) -> Vec<UniversalEvent> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let events = transcript(session).await;
        if events.iter().any(|e| e.event_type == event_type) {
            return events;
        }
        assert!(
            Instant::now() < deadline,
            "no {event_type:?} in {events:#?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `usage` of the session's info, as `GET /v1/sessions/{id}` answers it.
fn usage_json(session: &Session) -> serde_json::Value {
    serde_json::to_value(session.info()).unwrap()["usage"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delivered_usage_is_recorded_added_up_counted_and_kept_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (manager, _) = sessions_in(dir.path());
    let request = CreateSessionRequest {
        agent: "mock".into(),
        ..Default::default()
    };
    let session = manager.create("metered", request).await.unwrap();
    assert_eq!(usage_json(&session), serde_json::Value::Null);

    let sink = manager.usage_sink("metered").unwrap();
    assert_eq!(
        usage_json(&session),
        json!({"metered": true, "total": {"inputTokens": 0, "outputTokens": 0,
               "cacheReadTokens": 0, "cacheWriteTokens": 0, "reasoningTokens": 0,
               "modelCalls": 0}})
    );

    // Two calls while a turn of about three seconds runs.
    let started = session
        .send(vec![MessagePart::Text("slow 30".into())])
        .await
        .unwrap();
    started.await.unwrap();
    sink.deliver(call(100, 10, Some(0.25))).unwrap();
    sink.deliver(call(50, 6, None)).unwrap();

    let events = transcript_with(&session, UniversalEventType::TurnEnded).await;
    let metered: Vec<&UniversalEvent> = events
        .iter()
        .filter(|e| e.event_type == UniversalEventType::ModelUsage)
        .collect();
    assert_eq!(metered.len(), 2, "{events:#?}");
    assert!(metered.iter().all(|e| e.synthetic));
    assert_eq!(
        metered[0].data,
        UniversalEventData::ModelUsage(call(100, 10, Some(0.25)))
    );
    let ended = events.last().unwrap();
    assert_eq!(ended.event_type, UniversalEventType::TurnEnded);
    let UniversalEventData::Turn(turn) = &ended.data else {
        panic!("{ended:?}");
    };
    let usage = turn.usage.as_ref().unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens),
        (Some(150), Some(16))
    );
    assert_eq!(
        (usage.cached_tokens, usage.cost_usd),
        (Some(75), Some(0.25))
    );

    let totals = json!({"inputTokens": 150, "outputTokens": 16, "cacheReadTokens": 75,
                        "cacheWriteTokens": 0, "reasoningTokens": 2, "costUsd": 0.25,
                        "modelCalls": 2});
    assert_eq!(
        usage_json(&session),
        json!({"metered": true, "total": totals, "lastTurn": totals})
    );

    let metrics = agentplex_sessions::metrics::metrics().render([]);
    assert!(
        metrics.contains(
            r#"agentplex_model_calls_total{agent="mock",model="claude-test",format="anthropic-messages",status="200"} 2"#
        ),
        "{metrics}"
    );

    // A restarted daemon has the totals and the events; not metering the
    // session (yet), it says so.
    manager.shut_down().await;
    drop((manager, session, sink));
    let (restarted, stored) = sessions_in(dir.path());
    restarted.restore(stored).await;
    let session = restarted.get("metered").unwrap();
    assert_eq!(
        usage_json(&session),
        json!({"metered": false, "total": totals, "lastTurn": totals})
    );
    let events = transcript(&session).await;
    let kept = events
        .iter()
        .filter(|e| e.event_type == UniversalEventType::ModelUsage)
        .count();
    assert_eq!(kept, 2);
    restarted.shut_down().await;
}
