//! Tests against a small in-process axum daemon on 127.0.0.1 that has the API's routes,
//! records every request as it arrives on the wire and serves canned answers.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use agentplex_universal::{EventSource, ItemDeltaData, UniversalEventData, UniversalEventType};
use axum::body::{Body, Bytes};
use axum::extract::{Path, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::sync::Notify;

use super::*;

mod unknown_types;

/// One request as the test daemon received it.
#[derive(Debug, Clone)]
struct Seen {
    /// `METHOD /raw/path?query`, exactly as sent.
    line: String,
    authorization: Option<String>,
    last_event_id: Option<String>,
    accept: Option<String>,
    content_type: Option<String>,
    body: String,
}

/// State of the test daemon.
#[derive(Clone, Default)]
struct Daemon {
    /// Every request, in order.
    seen: Arc<Mutex<Vec<Seen>>>,
    /// The path parameters as the router decoded them, one list per handled request.
    params: Arc<Mutex<Vec<Vec<String>>>>,
    /// Lets the `live` SSE answer send its last chunk.
    release: Arc<Notify>,
}

impl Daemon {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn lines(&self) -> Vec<String> {
        self.seen().into_iter().map(|seen| seen.line).collect()
    }

    fn params(&self) -> Vec<Vec<String>> {
        self.params.lock().unwrap().clone()
    }

    fn param(&self, params: &[&String]) {
        self.params
            .lock()
            .unwrap()
            .push(params.iter().map(|p| p.to_string()).collect());
    }
}

/// Starts the test daemon; returns its endpoint (`http://127.0.0.1:<port>`) and state.
async fn start() -> (String, Daemon) {
    let daemon = Daemon::default();
    let v1 = Router::new()
        .route(
            "/v1/health",
            get(|| async { Json(json!({"status": "ok", "version": "9.9.9"})) }),
        )
        .route("/v1/agents", get(agents))
        .route("/v1/agents/{agent}/modes", get(modes))
        .route("/v1/agents/{agent}/models", get(models))
        .route("/v1/agents/{agent}/install", post(accepted))
        .route("/v1/sessions", get(sessions))
        .route("/v1/sessions/{id}", post(create_session))
        .route("/v1/sessions/{id}/messages", post(accepted))
        .route("/v1/sessions/{id}/messages/stream", post(sse))
        .route("/v1/sessions/{id}/events", get(events))
        .route("/v1/sessions/{id}/events/sse", get(sse))
        .route(
            "/v1/sessions/{id}/questions/{qid}/reply",
            post(accepted_pair),
        )
        .route(
            "/v1/sessions/{id}/questions/{qid}/reject",
            post(accepted_pair),
        )
        .route(
            "/v1/sessions/{id}/permissions/{pid}/reply",
            post(accepted_pair),
        )
        .route("/v1/sessions/{id}/cancel", post(accepted))
        .route("/v1/sessions/{id}/terminate", post(accepted))
        .route("/v1/sessions/{id}", axum::routing::delete(accepted))
        .with_state(daemon.clone());
    let app = Router::new()
        .merge(v1.clone())
        .nest("/base", v1)
        .layer(middleware::from_fn_with_state(daemon.clone(), record));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (endpoint, daemon)
}

async fn record(State(daemon): State<Daemon>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
    let header = |name: header::HeaderName| {
        parts
            .headers
            .get(name)
            .map(|value| value.to_str().unwrap().to_owned())
    };
    let seen = Seen {
        line: format!("{} {}", parts.method, parts.uri),
        authorization: header(header::AUTHORIZATION),
        last_event_id: header(header::HeaderName::from_static("last-event-id")),
        accept: header(header::ACCEPT),
        content_type: header(header::CONTENT_TYPE),
        body: String::from_utf8(body.to_vec()).unwrap(),
    };
    daemon.seen.lock().unwrap().push(seen);
    next.run(Request::from_parts(parts, Body::from(body))).await
}

async fn agents() -> Json<AgentListResponse> {
    Json(AgentListResponse {
        agents: vec![AgentInfo {
            id: "mock".into(),
            name: None,
            installed: true,
            credentials_available: true,
            version: Some("1.0.0".into()),
            path: None,
            capabilities: AgentCapabilities {
                questions: true,
                ..Default::default()
            },
            server_status: None,
            adapter_version: "0.1.0".into(),
        }],
    })
}

async fn modes(
    State(daemon): State<Daemon>,
    Path(agent): Path<String>,
) -> Json<AgentModesResponse> {
    daemon.param(&[&agent]);
    Json(AgentModesResponse {
        modes: vec![AgentModeInfo {
            id: "build".into(),
            name: "Build".into(),
            description: agent,
        }],
    })
}

async fn models(
    State(daemon): State<Daemon>,
    Path(agent): Path<String>,
) -> Json<AgentModelsResponse> {
    daemon.param(&[&agent]);
    Json(AgentModelsResponse {
        models: vec![AgentModelInfo {
            id: "m1".into(),
            name: None,
            variants: Some(vec!["low".into(), "high".into()]),
            default_variant: Some("low".into()),
        }],
        default_model: Some("m1".into()),
    })
}

async fn sessions() -> Json<Value> {
    // Answered as a plain JSON value so that decoding the API type is what is tested.
    Json(json!({"sessions": [{
        "sessionId": "s1", "agent": "mock", "agentMode": "build", "permissionMode": "default",
        "ended": false, "eventCount": 4, "createdAt": 1, "updatedAt": 2,
        "status": "awaiting_input", "queuedMessages": 1
    }]}))
}

async fn create_session(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
    Json(request): Json<CreateSessionRequest>,
) -> Json<CreateSessionResponse> {
    daemon.param(&[&id, &request.agent]);
    Json(CreateSessionResponse {
        healthy: true,
        error: None,
        native_session_id: Some("native-1".into()),
    })
}

async fn accepted(State(daemon): State<Daemon>, Path(id): Path<String>) -> StatusCode {
    daemon.param(&[&id]);
    StatusCode::NO_CONTENT
}

async fn accepted_pair(
    State(daemon): State<Daemon>,
    Path((id, other)): Path<(String, String)>,
) -> StatusCode {
    daemon.param(&[&id, &other]);
    StatusCode::NO_CONTENT
}

fn problem_response(status: StatusCode, body: Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/problem+json")],
        body.to_string(),
    )
        .into_response()
}

async fn events(State(daemon): State<Daemon>, Path(id): Path<String>) -> Response {
    daemon.param(&[&id]);
    match id.as_str() {
        "missing" => problem_response(
            StatusCode::NOT_FOUND,
            json!({"type": "urn:sandbox-agent:error:session_not_found", "title": "Session not found",
                   "status": 404, "detail": "no session \"missing\"", "sessionId": "missing"}),
        ),
        "plain" => (StatusCode::INTERNAL_SERVER_ERROR, "  boom\n").into_response(),
        "garbled" => (
            [(header::CONTENT_TYPE, "application/json")],
            "{\"events\": [",
        )
            .into_response(),
        _ => Json(json!({"events": [delta_event(4, "hi")], "hasMore": true})).into_response(),
    }
}

/// The event every canned SSE answer is made of.
fn delta_event(sequence: u64, delta: &str) -> UniversalEvent {
    UniversalEvent {
        event_id: format!("evt_{sequence}"),
        sequence,
        time: "2026-01-01T00:00:00Z".into(),
        session_id: "s".into(),
        native_session_id: None,
        source: EventSource::Agent,
        synthetic: false,
        event_type: UniversalEventType::ItemDelta,
        data: UniversalEventData::ItemDelta(ItemDeltaData {
            item_id: "i1".into(),
            native_item_id: None,
            delta: delta.into(),
        }),
        raw: None,
    }
}

/// The events of the canned SSE answers.
fn expected_events() -> Vec<UniversalEvent> {
    vec![
        delta_event(1, "héllo ✓"),
        delta_event(2, "wörld"),
        delta_event(3, "!"),
    ]
}

fn frame(event: &UniversalEvent) -> String {
    format!(
        "id: {}\ndata: {}\n\n",
        event.sequence,
        serde_json::to_string(event).unwrap()
    )
}

/// The canned SSE body in the chunks it is written in: a keep-alive comment split in
/// two, event 1 split inside a two-byte UTF-8 character and between the two line feeds
/// that end it, then one chunk with the rest of event 1, event 2, a keep-alive and event 3.
fn sse_chunks() -> Vec<Vec<u8>> {
    let [one, two, three] = expected_events().try_into().unwrap();
    let text = format!(
        ": keep-alive\n\n{}{}: ping\n\n{}",
        frame(&one),
        frame(&two),
        frame(&three)
    );
    let bytes = text.into_bytes();
    let in_comment = 6;
    let in_char = text_position(&bytes, "é".as_bytes()) + 1;
    let between_line_feeds = in_char + text_position(&bytes[in_char..], b"\n\n") + 1;
    vec![
        bytes[..in_comment].to_vec(),
        bytes[in_comment..in_char].to_vec(),
        bytes[in_char..between_line_feeds].to_vec(),
        bytes[between_line_feeds..].to_vec(),
    ]
}

fn text_position(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
        .unwrap()
}

/// Answers `text/event-stream` for both SSE routes. Each chunk is a separate write with a
/// pause before it; for session `live` the last chunk waits until the test releases it.
async fn sse(State(daemon): State<Daemon>, Path(id): Path<String>) -> Response {
    daemon.param(&[&id]);
    let chunks = match id.as_str() {
        "missing" => {
            return problem_response(
                StatusCode::NOT_FOUND,
                json!({"type": "urn:sandbox-agent:error:session_not_found",
                       "title": "Session not found", "status": 404}),
            )
        }
        "not-sse" => return Json(json!({"events": []})).into_response(),
        "bad-frame" => vec![format!(
            "{}id: 2\ndata: {{not json\n\n{}",
            frame(&delta_event(1, "a")),
            frame(&delta_event(3, "b"))
        )
        .into_bytes()],
        "live" => {
            let events = expected_events();
            vec![
                frame(&events[0]).into_bytes(),
                (frame(&events[1]) + &frame(&events[2])).into_bytes(),
            ]
        }
        _ => sse_chunks(),
    };
    let last = chunks.len() - 1;
    let gated = id == "live";
    let body = futures::stream::iter(chunks.into_iter().enumerate()).then(move |(index, chunk)| {
        let release = daemon.release.clone();
        async move {
            if gated && index == last {
                release.notified().await;
            }
            tokio::time::sleep(Duration::from_millis(15)).await;
            Ok::<_, Infallible>(Bytes::from(chunk))
        }
    });
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(body),
    )
        .into_response()
}

async fn collect(stream: EventStream) -> Vec<UniversalEvent> {
    stream
        .map(|event| event.expect("a decoded event"))
        .collect()
        .await
}

fn json_body(seen: &Seen) -> Value {
    assert_eq!(
        seen.content_type.as_deref(),
        Some("application/json"),
        "{seen:?}"
    );
    serde_json::from_str(&seen.body).unwrap()
}

#[tokio::test]
async fn json_routes_use_their_paths_and_decode_answers() {
    let (endpoint, daemon) = start().await;
    let client = Client::new(&endpoint, None).unwrap();

    assert_eq!(
        client.health().await.unwrap().version.as_deref(),
        Some("9.9.9")
    );
    let agents = client.list_agents().await.unwrap().agents;
    assert_eq!(agents[0].id, "mock");
    assert!(agents[0].capabilities.questions);
    let modes = client.agent_modes("claude code").await.unwrap();
    assert_eq!(modes.modes[0].description, "claude code");
    let models = client.agent_models("a/b").await.unwrap();
    assert_eq!(models.default_model.as_deref(), Some("m1"));
    assert_eq!(
        models.models[0].variants.as_deref(),
        Some(&["low".into(), "high".into()][..])
    );
    let sessions = client.list_sessions().await.unwrap().sessions;
    assert_eq!(sessions[0].status, SessionStatus::AwaitingInput);
    assert_eq!(sessions[0].queued_messages, 1);
    let request = CreateSessionRequest {
        agent: "mock".into(),
        agent_mode: Some("plan".into()),
        ..Default::default()
    };
    let created = client
        .create_session("a b/c?d#e%f", &request)
        .await
        .unwrap();
    assert!(created.healthy);
    assert_eq!(created.native_session_id.as_deref(), Some("native-1"));
    let query = EventsQuery {
        offset: Some(3),
        limit: Some(10),
        include_raw: Some(true),
    };
    let page = client.events("s1", &query).await.unwrap();
    assert!(page.has_more);
    assert_eq!(page.events, vec![delta_event(4, "hi")]);
    client.events("s2", &EventsQuery::default()).await.unwrap();

    assert_eq!(
        daemon.lines(),
        [
            "GET /v1/health",
            "GET /v1/agents",
            "GET /v1/agents/claude%20code/modes",
            "GET /v1/agents/a%2Fb/models",
            "GET /v1/sessions",
            "POST /v1/sessions/a%20b%2Fc%3Fd%23e%25f",
            "GET /v1/sessions/s1/events?offset=3&limit=10&include_raw=true",
            "GET /v1/sessions/s2/events",
        ]
    );
    assert_eq!(
        daemon.params(),
        [
            vec!["claude code"],
            vec!["a/b"],
            vec!["a b/c?d#e%f", "mock"],
            vec!["s1"],
            vec!["s2"],
        ]
    );
    let create = &daemon.seen()[5];
    let body = json_body(create);
    assert_eq!(body["agent"], "mock");
    assert_eq!(body["agentMode"], "plan");
}

#[tokio::test]
async fn input_routes_send_their_bodies_and_accept_no_content() {
    let (endpoint, daemon) = start().await;
    let client = Client::new(&endpoint, None).unwrap();

    let install = AgentInstallRequest {
        reinstall: Some(true),
        version: None,
    };
    client.install_agent("mock", &install).await.unwrap();
    let message = MessageRequest {
        message: Some("hi".into()),
        ..Default::default()
    };
    client.send_message("s", &message).await.unwrap();
    client
        .reply_question("s", "q/1", vec![vec!["yes".into()], vec![]])
        .await
        .unwrap();
    client.reject_question("s", "q 2").await.unwrap();
    client
        .reply_permission("s", "p1", PermissionReply::Always)
        .await
        .unwrap();
    client.cancel("s.1").await.unwrap();
    client.terminate("s_1-x").await.unwrap();
    client.delete_session("old one").await.unwrap();

    let seen = daemon.seen();
    let lines: Vec<_> = seen.iter().map(|seen| seen.line.as_str()).collect();
    assert_eq!(
        lines,
        [
            "POST /v1/agents/mock/install",
            "POST /v1/sessions/s/messages",
            "POST /v1/sessions/s/questions/q%2F1/reply",
            "POST /v1/sessions/s/questions/q%202/reject",
            "POST /v1/sessions/s/permissions/p1/reply",
            "POST /v1/sessions/s.1/cancel",
            "POST /v1/sessions/s_1-x/terminate",
            "DELETE /v1/sessions/old%20one",
        ]
    );
    assert_eq!(
        json_body(&seen[0]),
        json!({"reinstall": true, "version": null})
    );
    assert_eq!(json_body(&seen[1]), json!({"message": "hi"}));
    assert_eq!(json_body(&seen[2]), json!({"answers": [["yes"], []]}));
    assert_eq!(json_body(&seen[4]), json!({"reply": "always"}));
    for bodiless in [&seen[3], &seen[5], &seen[6], &seen[7]] {
        assert_eq!(bodiless.content_type, None, "{bodiless:?}");
        assert_eq!(bodiless.body, "", "{bodiless:?}");
    }
    assert_eq!(
        daemon.params(),
        [
            vec!["mock"],
            vec!["s"],
            vec!["s", "q/1"],
            vec!["s", "q 2"],
            vec!["s", "p1"],
            vec!["s.1"],
            vec!["s_1-x"],
            vec!["old one"],
        ]
    );
}

#[tokio::test]
async fn token_is_sent_as_bearer_only_when_set() {
    let (endpoint, daemon) = start().await;
    Client::new(&endpoint, Some("s3cret".into()))
        .unwrap()
        .list_sessions()
        .await
        .unwrap();
    let events = Client::new(&endpoint, Some("s3cret".into()))
        .unwrap()
        .events_sse("s", None, false, None)
        .await
        .unwrap();
    assert_eq!(collect(events).await, expected_events());
    Client::new(&endpoint, None)
        .unwrap()
        .list_sessions()
        .await
        .unwrap();

    let auth: Vec<_> = daemon
        .seen()
        .into_iter()
        .map(|seen| seen.authorization)
        .collect();
    assert_eq!(
        auth,
        [
            Some("Bearer s3cret".to_owned()),
            Some("Bearer s3cret".to_owned()),
            None
        ]
    );
}

#[tokio::test]
async fn endpoint_path_is_kept_in_front_of_v1() {
    let (endpoint, daemon) = start().await;
    for base in [format!("{endpoint}/base"), format!("{endpoint}/base/")] {
        let client = Client::new(&base, None).unwrap();
        client.health().await.unwrap();
        client.cancel("x y").await.unwrap();
    }
    assert_eq!(
        daemon.lines(),
        [
            "GET /base/v1/health",
            "POST /base/v1/sessions/x%20y/cancel",
            "GET /base/v1/health",
            "POST /base/v1/sessions/x%20y/cancel",
        ]
    );
}

#[tokio::test]
async fn sse_frames_split_across_writes_are_reassembled() {
    let (endpoint, daemon) = start().await;
    let client = Client::new(&endpoint, None).unwrap();

    let stream = client
        .events_sse("s 1", Some(5), true, Some(7))
        .await
        .unwrap();
    assert_eq!(collect(stream).await, expected_events());
    let stream = client.events_sse("s", None, false, None).await.unwrap();
    assert_eq!(collect(stream).await, expected_events());

    let seen = daemon.seen();
    assert_eq!(
        seen[0].line,
        "GET /v1/sessions/s%201/events/sse?offset=5&include_raw=true"
    );
    assert_eq!(seen[0].last_event_id.as_deref(), Some("7"));
    assert_eq!(seen[0].accept.as_deref(), Some("text/event-stream"));
    assert_eq!(seen[1].line, "GET /v1/sessions/s/events/sse");
    assert_eq!(seen[1].last_event_id, None);
    assert_eq!(daemon.params(), [vec!["s 1"], vec!["s"]]);
}

#[tokio::test]
async fn message_stream_posts_the_message_and_ends_with_the_answer() {
    let (endpoint, daemon) = start().await;
    let client = Client::new(&endpoint, None).unwrap();
    let message = MessageRequest {
        parts: Some(vec![MessagePart::Text { text: "hi".into() }]),
        ..Default::default()
    };

    let stream = client
        .send_message_stream("s/1", &message, true)
        .await
        .unwrap();
    assert_eq!(collect(stream).await, expected_events());
    let stream = client
        .send_message_stream("s", &message, false)
        .await
        .unwrap();
    assert_eq!(collect(stream).await, expected_events());

    let seen = daemon.seen();
    assert_eq!(
        seen[0].line,
        "POST /v1/sessions/s%2F1/messages/stream?include_raw=true"
    );
    assert_eq!(
        json_body(&seen[0]),
        json!({"parts": [{"type": "text", "text": "hi"}]})
    );
    assert_eq!(seen[1].line, "POST /v1/sessions/s/messages/stream");
}

#[tokio::test]
async fn sse_events_arrive_while_the_answer_is_still_open() {
    let (endpoint, daemon) = start().await;
    let client = Client::new(&endpoint, None).unwrap();
    let mut stream = client.events_sse("live", None, false, None).await.unwrap();

    // The daemon sends event 1, then holds back the chunk with events 2 and 3.
    let first = tokio::time::timeout(Duration::from_secs(5), stream.next()).await;
    let first = first
        .expect("event 1 before the answer ends")
        .unwrap()
        .unwrap();
    assert_eq!(first, expected_events()[0]);
    daemon.release.notify_one();
    assert_eq!(collect(stream).await, expected_events()[1..]);
}

#[tokio::test]
async fn an_undecodable_frame_is_an_error_item_and_the_stream_goes_on() {
    let (endpoint, _daemon) = start().await;
    let client = Client::new(&endpoint, None).unwrap();
    let items: Vec<_> = client
        .events_sse("bad-frame", None, false, None)
        .await
        .unwrap()
        .collect()
        .await;

    assert_eq!(items.len(), 3, "{items:?}");
    assert_eq!(items[0].as_ref().unwrap(), &delta_event(1, "a"));
    match &items[1] {
        Err(ClientError::Decode(message)) => assert!(message.contains("\"2\""), "{message}"),
        other => panic!("expected a decode error, got {other:?}"),
    }
    assert_eq!(items[2].as_ref().unwrap(), &delta_event(3, "b"));
}

#[tokio::test]
async fn problem_documents_become_problem_errors() {
    let (endpoint, _daemon) = start().await;
    let client = Client::new(&endpoint, None).unwrap();

    let error = client
        .events("missing", &EventsQuery::default())
        .await
        .unwrap_err();
    let problem = error.problem().expect("a problem");
    assert_eq!(problem.code(), "session_not_found");
    assert_eq!(problem.status, 404);
    assert_eq!(problem.session_id.as_deref(), Some("missing"));
    assert_eq!(
        error.to_string(),
        "404 Session not found (session_not_found): no session \"missing\""
    );

    let error = client
        .events_sse("missing", None, false, None)
        .await
        .err()
        .unwrap();
    assert_eq!(error.problem().unwrap().code(), "session_not_found");
}

#[tokio::test]
async fn other_error_answers_become_problems_with_their_status_and_body() {
    let (endpoint, _daemon) = start().await;
    let client = Client::new(&endpoint, None).unwrap();

    let error = client
        .events("plain", &EventsQuery::default())
        .await
        .unwrap_err();
    let problem = error.problem().unwrap();
    assert_eq!(problem.problem_type, UNTYPED_PROBLEM);
    assert_eq!(problem.status, 500);
    assert_eq!(problem.title, "Internal Server Error");
    assert_eq!(problem.detail.as_deref(), Some("boom"));
    assert_eq!(error.to_string(), "500 Internal Server Error: boom");

    // No such route: axum's own 404 with an empty body.
    let missing_route = Client::new(&format!("{endpoint}/nowhere"), None).unwrap();
    let problem = missing_route
        .health()
        .await
        .unwrap_err()
        .problem()
        .cloned()
        .unwrap();
    assert_eq!((problem.status, problem.detail), (404, None));
}

#[tokio::test]
async fn answers_in_an_unexpected_shape_are_decode_errors() {
    let (endpoint, _daemon) = start().await;
    let client = Client::new(&endpoint, None).unwrap();

    let error = client
        .events("garbled", &EventsQuery::default())
        .await
        .unwrap_err();
    assert!(matches!(&error, ClientError::Decode(m) if m.contains("/v1/sessions/garbled/events")));
    let error = client
        .events_sse("not-sse", None, false, None)
        .await
        .err()
        .unwrap();
    assert!(
        matches!(&error, ClientError::Decode(m) if m.contains("application/json")),
        "{error}"
    );
}

#[tokio::test]
async fn unsendable_arguments_are_refused_before_sending() {
    let (endpoint, daemon) = start().await;
    let client = Client::new(&endpoint, None).unwrap();

    let invalid = |result: Result<(), ClientError>| {
        assert!(
            matches!(result, Err(ClientError::InvalidArgument(_))),
            "{result:?}"
        )
    };
    invalid(client.terminate("..").await);
    invalid(client.cancel(".").await);
    invalid(client.reject_question("s", "").await);
    invalid(client.agent_modes("..").await.map(|_| ()));
    assert!(daemon.seen().is_empty());

    for endpoint in [
        "not a url",
        "localhost:2468",
        "https://127.0.0.1:1",
        "http://127.0.0.1:1/?a=b",
    ] {
        invalid(Client::new(endpoint, None).map(|_| ()));
    }
}

#[tokio::test]
async fn an_unreachable_daemon_is_an_http_error() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let error = Client::new(&endpoint, None)
        .unwrap()
        .health()
        .await
        .unwrap_err();
    assert!(matches!(error, ClientError::Http(_)), "{error:?}");
    assert!(error.problem().is_none());
}

#[test]
fn debug_output_hides_the_token() {
    let client = Client::new("http://127.0.0.1:1", Some("s3cret".into())).unwrap();
    let debug = format!("{client:?}");
    assert!(!debug.contains("s3cret"), "{debug}");
    assert!(debug.contains("<redacted>"), "{debug}");
}
