//! What is left of a request body when the response does not need it.
//!
//! A route may answer before it has read the whole body (a body over a limit,
//! a bad token, an archive refused halfway). hyper then reads what has already
//! arrived and closes the connection; a client still sending gets a reset, and
//! a reset throws away the answer waiting in its socket: it never sees the
//! `413` or `401` it was sent. Here a body dropped before its end is read to its
//! end in the background, up to [`LINGER_BYTES`] and [`LINGER_TIME`], so the
//! client finishes sending and reads the answer (the connection then stays
//! usable). Past those bounds the connection is closed as before.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use futures::StreamExt;
use http_body::{Frame, SizeHint};

/// Most bytes read and thrown away after an answer was given.
const LINGER_BYTES: usize = 16 << 20;
/// Longest time spent reading them.
const LINGER_TIME: Duration = Duration::from_secs(5);

/// Middleware: hands the routes a body that is read to its end if they drop it early.
pub async fn read_after_answer(request: Request, next: Next) -> Response {
    next.run(request.map(|body| Body::new(Unread::new(body))))
        .await
}

/// A request body that, dropped before its end, is drained in the background.
struct Unread {
    body: Option<Body>,
    ended: bool,
}

impl Unread {
    fn new(body: Body) -> Self {
        Self {
            body: Some(body),
            ended: false,
        }
    }
}

impl http_body::Body for Unread {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        let Some(body) = this.body.as_mut() else {
            return Poll::Ready(None);
        };
        let polled = Pin::new(body).poll_frame(cx);
        if matches!(polled, Poll::Ready(None | Some(Err(_)))) {
            this.ended = true;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.ended
            || self
                .body
                .as_ref()
                .is_none_or(http_body::Body::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        self.body
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), http_body::Body::size_hint)
    }
}

impl Drop for Unread {
    fn drop(&mut self) {
        if http_body::Body::is_end_stream(self) {
            return;
        }
        let (Some(body), Ok(runtime)) = (self.body.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        runtime.spawn(async move {
            let mut left = LINGER_BYTES;
            let mut chunks = body.into_data_stream();
            let _ = tokio::time::timeout(LINGER_TIME, async {
                while let Some(Ok(chunk)) = chunks.next().await {
                    left = left.saturating_sub(chunk.len());
                    if left == 0 {
                        break;
                    }
                }
            })
            .await;
        });
    }
}
