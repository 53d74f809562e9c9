//! The accept loop: each connection is served as HTTP/1.1 with a deadline for
//! request heads, at most [`Limits::max_connections`] at once, and the stop is
//! graceful but bounded.
//!
//! At the connection limit the loop stops accepting until a connection closes:
//! new clients wait in the listen backlog instead of taking the file descriptors
//! the daemon needs for its database, its agents' pipes and its files. The default
//! limit is three quarters of the open-files limit ([`open_files_limit`]; the
//! daemon leaves it as it was given, since its agents inherit it: `ulimit -n`
//! raises both).
//!
//! A new connection must send its first request head within
//! [`Limits::first_request_timeout`] (a few seconds), and one client address holds at
//! most [`Limits::max_unauthenticated_per_peer`] connections that have not
//! authenticated yet (see [`super::peers`]): one more closes the oldest (local
//! clients are not counted).
//!
//! A client must send a whole request head within the deadline after the server
//! starts waiting for one (on connecting, and after each response on a kept-alive
//! connection): a connection that sends nothing, or trickles its headers
//! (slowloris), is closed instead of being held forever. Once the stop signal
//! comes, the listener closes at once, idle connections are closed, and requests
//! under way (SSE streams end with their sessions) may finish for
//! [`DRAIN_TIMEOUT`]; connections still open then are dropped.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};

use hyper::body::Incoming;
use tower::Service as _;

use super::peers::{Connection, Peers};
use agentplex_sessions::metrics::metrics;

/// How long requests under way at the stop may take to finish.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the loop pauses after an accept error other than a failed handshake
/// (out of file descriptors, most often), so it does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Open files kept for the daemon's own use when the connection limit is derived
/// from the open-files limit: at least this many, and at least a quarter of it.
const RESERVED_FILES: u64 = 64;

/// What the accept loop enforces.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// How long a client may take to send a request head.
    pub header_timeout: Duration,
    /// Most connections served at once.
    pub max_connections: usize,
    /// How long a new connection has to send its first request head.
    pub first_request_timeout: Duration,
    /// Most connections one address holds before they authenticate.
    pub max_unauthenticated_per_peer: usize,
}

/// The soft limit on open files, `None` when it is unlimited.
pub fn open_files_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Nofile).current
}

/// The default connection limit for a soft open-files limit (see the module docs).
pub fn default_max_connections(open_files: Option<u64>) -> usize {
    let Some(files) = open_files else {
        return usize::MAX >> 1;
    };
    let reserved = (files / 4).max(RESERVED_FILES);
    usize::try_from(files.saturating_sub(reserved).max(1)).unwrap_or(usize::MAX >> 1)
}

/// Serves `app` on `listener` until `signal` resolves, then runs `stopping` while the
/// connections drain (see the module docs). `token` is the daemon's, which
/// authenticates a connection.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    token: Option<Arc<String>>,
    signal: impl Future<Output = ()>,
    stopping: impl Future<Output = ()>,
) {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let mut slots = Slots::new(limits.max_connections);
    let peers = Peers::new(limits.max_unauthenticated_per_peer);
    // Every connection task holds a clone of `alive`: the drain is over when all are gone.
    let (stop, stopped) = watch::channel(false);
    let (alive, mut all_closed) = mpsc::channel::<()>(1);
    tokio::pin!(signal);
    loop {
        let slot = tokio::select! {
            slot = slots.take() => slot,
            () = &mut signal => break,
        };
        let (tcp, address) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    accept_failed(error).await;
                    continue;
                }
            },
            () = &mut signal => break,
        };
        // A local client connecting from the address it connects to is not counted
        // (see `peers`).
        let local = tcp.local_addr().is_ok_and(|own| own.ip() == address.ip());
        let pending = (!local).then(|| {
            let (pending, evicted) = peers.admit(address.ip());
            if evicted {
                tracing::debug!(%address, "closing the oldest unauthenticated connection of an address to make room");
            }
            pending
        });
        let watched = Connection::new(pending, token.clone());
        // Events are small writes that must leave at once (no Nagle delay on SSE).
        let _ = tcp.set_nodelay(true);
        let app = app.clone();
        let seen = watched.clone();
        let service = tower::service_fn(move |request: axum::http::Request<Incoming>| {
            seen.saw(&request);
            app.clone().call(request)
        });
        // Upgrades carry the terminal WebSocket (`/v1/processes/{id}/terminal/ws`).
        let connection = builder
            .serve_connection(TokioIo::new(tcp), TowerToHyperService::new(service))
            .with_upgrades();
        let mut stopped = stopped.clone();
        let alive = alive.clone();
        let open = Open::new(slot);
        let first_request_timeout = limits.first_request_timeout;
        tokio::spawn(async move {
            let _alive = alive;
            tokio::pin!(connection);
            let silent = async {
                tokio::time::sleep(first_request_timeout).await;
                if watched.requested() {
                    std::future::pending::<()>().await;
                }
            };
            let served = tokio::select! {
                served = connection.as_mut() => served,
                _ = stopped.changed() => {
                    // Closes an idle connection now, a busy one after its response.
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
                () = silent => {
                    metrics().unauthenticated_closed.inc();
                    tracing::debug!(%address, "closing a connection that sent no request head in time");
                    Ok(())
                }
                () = watched.must_close() => {
                    metrics().unauthenticated_closed.inc();
                    Ok(())
                }
            };
            if let Err(error) = served {
                tracing::debug!(%error, "connection ended with an error");
            }
            drop(open);
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

/// How often the limit being reached is logged, at most.
const LIMIT_WARNING_EVERY: Duration = Duration::from_secs(10);

/// The connection slots, and when reaching their limit was last logged.
struct Slots {
    free: Arc<Semaphore>,
    max: usize,
    warned: Option<tokio::time::Instant>,
}

impl Slots {
    fn new(max: usize) -> Self {
        Slots {
            free: Arc::new(Semaphore::new(max.min(Semaphore::MAX_PERMITS))),
            max,
            warned: None,
        }
    }

    /// A free slot, waited for at the limit (counted, and logged now and then).
    async fn take(&mut self) -> OwnedSemaphorePermit {
        if let Ok(slot) = self.free.clone().try_acquire_owned() {
            return slot;
        }
        metrics().connection_limit_waits.inc();
        if self
            .warned
            .is_none_or(|at| at.elapsed() >= LIMIT_WARNING_EVERY)
        {
            self.warned = Some(tokio::time::Instant::now());
            tracing::warn!(
                max_connections = self.max,
                "connection limit reached: new connections wait until one closes"
            );
        }
        self.free
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed")
    }
}

/// A connection being served: its slot (given back when dropped), and its place
/// in the open-connections gauge.
struct Open {
    _slot: OwnedSemaphorePermit,
}

impl Open {
    fn new(slot: OwnedSemaphorePermit) -> Self {
        metrics().connections.inc();
        Open { _slot: slot }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        metrics().connections.dec();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_limit_leaves_files_for_the_daemon() {
        assert_eq!(default_max_connections(Some(1024)), 768);
        assert_eq!(default_max_connections(Some(1 << 20)), 786_432);
        // A small limit still keeps its reserve, and never goes to zero.
        assert_eq!(default_max_connections(Some(200)), 136);
        assert_eq!(default_max_connections(Some(10)), 1);
        assert!(default_max_connections(None) > 1 << 30);
    }

    #[test]
    fn the_open_files_limit_is_the_soft_one() {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
        assert_eq!(open_files_limit(), limit.current);
    }
}
