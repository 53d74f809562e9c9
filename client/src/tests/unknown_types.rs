//! A newer daemon's transcript holds event types this client does not know: they
//! are left out of pages and streams, and the other events come through.

use axum::extract::Query;

use super::*;

/// An event of a type added after this client was built.
fn newer_event(sequence: u64) -> Value {
    json!({"event_id": format!("evt_{sequence}"), "sequence": sequence,
           "time": "2026-01-01T00:00:00Z", "session_id": "s", "source": "daemon",
           "synthetic": true, "type": "session.forked", "data": {"into": "s2"}})
}

fn known_event(sequence: u64) -> Value {
    serde_json::to_value(delta_event(sequence, "x")).unwrap()
}

/// A page of session `mixed` (known, newer, known), of session `newer-first`
/// (two newer events, then a known one on the next page), or of session `broken`
/// (an `item.delta` without its `session_id`).
async fn page(Path(id): Path<String>, Query(query): Query<EventsQuery>) -> Json<Value> {
    let (events, has_more) = match (id.as_str(), query.offset) {
        ("mixed", _) => (vec![known_event(1), newer_event(2), known_event(3)], false),
        ("newer-first", None) => (vec![newer_event(1), newer_event(2)], true),
        ("newer-first", Some(2)) => (vec![known_event(3)], false),
        _ => {
            let mut broken = known_event(1);
            broken.as_object_mut().unwrap().remove("session_id");
            (vec![broken], false)
        }
    };
    Json(json!({"events": events, "hasMore": has_more}))
}

/// The SSE stream of `mixed`.
async fn stream() -> Response {
    let frames: String = [known_event(1), newer_event(2), known_event(3)]
        .iter()
        .map(|event| format!("id: {}\ndata: {event}\n\n", event["sequence"]))
        .collect();
    ([(header::CONTENT_TYPE, "text/event-stream")], frames).into_response()
}

async fn newer_daemon() -> (String, Daemon) {
    let daemon = Daemon::default();
    let app = Router::new()
        .route("/v1/sessions/{id}/events", get(page))
        .route("/v1/sessions/{id}/events/sse", get(stream))
        .layer(middleware::from_fn_with_state(daemon.clone(), record));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (endpoint, daemon)
}

#[tokio::test]
async fn events_of_unknown_types_are_left_out_of_pages_and_streams() {
    let (endpoint, _daemon) = newer_daemon().await;
    let client = Client::new(&endpoint, None).unwrap();
    let expected = vec![delta_event(1, "x"), delta_event(3, "x")];

    let page = client
        .events("mixed", &EventsQuery::default())
        .await
        .unwrap();
    assert_eq!(page.events, expected);
    assert!(!page.has_more);

    let stream = client.events_sse("mixed", None, false, None).await.unwrap();
    assert_eq!(collect(stream).await, expected);
}

#[tokio::test]
async fn a_page_of_unknown_events_only_is_followed_by_the_next() {
    let (endpoint, daemon) = newer_daemon().await;
    let client = Client::new(&endpoint, None).unwrap();
    let page = client
        .events("newer-first", &EventsQuery::default())
        .await
        .unwrap();
    assert_eq!(page.events, vec![delta_event(3, "x")]);
    assert_eq!(
        daemon.lines(),
        [
            "GET /v1/sessions/newer-first/events",
            "GET /v1/sessions/newer-first/events?offset=2"
        ]
    );
}

#[tokio::test]
async fn a_broken_event_of_a_known_type_is_still_an_error() {
    let (endpoint, _daemon) = newer_daemon().await;
    let client = Client::new(&endpoint, None).unwrap();
    let error = client
        .events("broken", &EventsQuery::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ClientError::Decode(m) if m.contains("broken")),
        "{error}"
    );
}
