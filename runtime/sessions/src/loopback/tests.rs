//! The loopback client against servers on 127.0.0.1: redirects kept on the
//! loopback interface, bodies and SSE events bounded.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use agentplex_host::{HttpRequest, Input, SseRequest};
use axum::body::Body;
use axum::response::{IntoResponse, Redirect};
use axum::routing::get;
use axum::Router;

use super::Loopback;
use crate::incoming::Inbox;
use agentplex_session::Incoming;

/// The limit the tests give the client.
const LIMIT: usize = 1024;

/// Serves `router` on 127.0.0.1; its base URL.
async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}")
}

/// A server that counts the connections it gets and answers none of them; the
/// URL that reaches it without naming a loopback address (`0.0.0.0` is this
/// machine on Linux).
async fn elsewhere() -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = connections.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            drop(socket);
        }
    });
    (format!("http://0.0.0.0:{port}/"), connections)
}

/// A body of `len` bytes sent in small chunks without a length.
fn streamed(len: usize) -> Body {
    let chunks = (0..len.div_ceil(100)).map(move |n| {
        let size = 100.min(len - n * 100);
        Ok::<_, std::io::Error>(vec![b'x'; size])
    });
    Body::from_stream(futures::stream::iter(chunks))
}

async fn fetch(loopback: &Loopback, url: String) -> Input {
    let (inbox, mut receiver) = Inbox::new();
    loopback.send(
        HttpRequest {
            request_id: "r".into(),
            method: "GET".into(),
            url,
            headers: Vec::new(),
            body: Vec::new(),
            timeout_ms: Some(5_000),
        },
        inbox,
    );
    let delivery = receiver.recv().await.expect("an answer");
    let Incoming::Adapter(input) = delivery.incoming else {
        panic!("not an adapter input");
    };
    input
}

#[tokio::test]
async fn redirects_are_followed_on_the_loopback_interface_only() {
    let (outside, connections) = elsewhere().await;
    let router = Router::new()
        .route("/ok", get(|| async { "ok" }))
        .route("/in", get(|| async { Redirect::temporary("/ok") }))
        .route(
            "/out",
            get(move || async move { Redirect::temporary(&outside) }),
        );
    let base = serve(router).await;
    let loopback = Loopback::new(LIMIT);
    match fetch(&loopback, format!("{base}/in")).await {
        Input::HttpResponse(response) => assert_eq!(response.body, b"ok"),
        other => panic!("{other:?}"),
    }
    match fetch(&loopback, format!("{base}/out")).await {
        Input::HttpError { message, .. } => {
            assert!(
                message.contains("not on the loopback interface"),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "the redirect was followed"
    );
}

#[tokio::test]
async fn a_body_over_the_limit_is_an_error_with_or_without_a_length() {
    let router = Router::new()
        .route("/fits", get(|| async { streamed(LIMIT) }))
        .route("/streamed", get(|| async { streamed(LIMIT + 1) }))
        .route("/sized", get(|| async { vec![b'x'; LIMIT + 1] }));
    let base = serve(router).await;
    let loopback = Loopback::new(LIMIT);
    match fetch(&loopback, format!("{base}/fits")).await {
        Input::HttpResponse(response) => assert_eq!(response.body.len(), LIMIT),
        other => panic!("{other:?}"),
    }
    for path in ["streamed", "sized"] {
        match fetch(&loopback, format!("{base}/{path}")).await {
            Input::HttpError { message, .. } => {
                assert!(message.contains("passed 1024 bytes"), "{path}: {message}")
            }
            other => panic!("{path}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn an_sse_event_over_the_limit_closes_the_stream_with_an_error() {
    // A small event, then one with `data`, sent in small chunks.
    let events = |data: String| {
        let big = format!("data: {data}\n\n").into_bytes();
        let chunks = std::iter::once(b"data: small\n\n".to_vec())
            .chain(big.chunks(100).map(<[u8]>::to_vec).collect::<Vec<_>>())
            .map(Ok::<_, std::io::Error>);
        let body = Body::from_stream(futures::stream::iter(chunks));
        ([("content-type", "text/event-stream")], body).into_response()
    };
    let router = Router::new()
        .route("/fits", get(move || async move { events("y".repeat(900)) }))
        .route(
            "/over",
            get(move || async move { events("y".repeat(LIMIT)) }),
        );
    let base = serve(router).await;
    let loopback = Loopback::new(LIMIT);
    for (path, error) in [
        ("fits", None),
        ("over", Some("an SSE event passed 1024 bytes")),
    ] {
        let (inbox, mut receiver) = Inbox::new();
        let request = SseRequest {
            stream_id: "s".into(),
            url: format!("{base}/{path}"),
            headers: Vec::new(),
        };
        let _task = loopback.open_sse(request, inbox);
        let mut data = Vec::new();
        let closed = loop {
            let delivery = receiver.recv().await.expect("the stream's end");
            match delivery.incoming {
                Incoming::Adapter(Input::SseEvent(event)) => data.push(event.data.len()),
                Incoming::Adapter(Input::SseClosed { error, .. }) => break error,
                _ => panic!("unexpected input"),
            }
        };
        match error {
            None => assert_eq!((data, closed), (vec![5, 900], None)),
            Some(error) => {
                assert_eq!(data, vec![5], "{path}");
                assert!(
                    closed.as_deref().is_some_and(|e| e.contains(error)),
                    "{closed:?}"
                );
            }
        }
    }
}
