//! The accept loop: each connection is served as HTTP/1.1 with a deadline for
//! request heads, and the stop is graceful but bounded.
//!
//! A client must send a whole request head within the deadline after the server
//! starts waiting for one (on connecting, and after each response on a kept-alive
//! connection): a connection that sends nothing, or trickles its headers
//! (slowloris), is closed instead of being held forever. Once the stop signal
//! comes, the listener closes at once, idle connections are closed, and requests
//! under way (SSE streams end with their sessions) may finish for
//! [`DRAIN_TIMEOUT`]; connections still open then are dropped.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

/// How long requests under way at the stop may take to finish.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the loop pauses after an accept error other than a failed handshake
/// (out of file descriptors, most often), so it does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Serves `app` on `listener` until `signal` resolves, then runs `stopping` while the
/// connections drain (see the module docs).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    header_timeout: Duration,
    signal: impl Future<Output = ()>,
    stopping: impl Future<Output = ()>,
) {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    // Every connection task holds a clone of `alive`: the drain is over when all are gone.
    let (stop, stopped) = watch::channel(false);
    let (alive, mut all_closed) = mpsc::channel::<()>(1);
    tokio::pin!(signal);
    loop {
        let tcp = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => tcp,
                Err(error) => {
                    accept_failed(error).await;
                    continue;
                }
            },
            () = &mut signal => break,
        };
        // Events are small writes that must leave at once (no Nagle delay on SSE).
        let _ = tcp.set_nodelay(true);
        // Upgrades carry the terminal WebSocket (`/v1/processes/{id}/terminal/ws`).
        let connection = builder
            .serve_connection(TokioIo::new(tcp), TowerToHyperService::new(app.clone()))
            .with_upgrades();
        let mut stopped = stopped.clone();
        let alive = alive.clone();
        tokio::spawn(async move {
            let _alive = alive;
            tokio::pin!(connection);
            let served = tokio::select! {
                served = connection.as_mut() => served,
                _ = stopped.changed() => {
                    // Closes an idle connection now, a busy one after its response.
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = served {
                tracing::debug!(%error, "connection ended with an error");
            }
        });
    }
    drop(listener);
    let _ = stop.send(true);
    drop(alive);
    let drain = tokio::time::timeout(DRAIN_TIMEOUT, all_closed.recv());
    let ((), drained) = tokio::join!(stopping, drain);
    if drained.is_err() {
        tracing::warn!(
            "requests still under way {}s after the stop are dropped",
            DRAIN_TIMEOUT.as_secs()
        );
    }
}

/// Logs an accept error; pauses unless only that one connection failed.
async fn accept_failed(error: std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        error.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::error!(%error, "cannot accept a connection");
    tokio::time::sleep(ACCEPT_BACKOFF).await;
}
