//! The gateway's own thread: one current-thread tokio runtime that runs every
//! gateway and broker listener of the process, their connections and their
//! upstream calls.
//!
//! On the daemon's multi-threaded runtime a call hopped between its workers at
//! each step (the agent's connection, the upstream connection's task, the
//! answer's body channel), and each hop woke a parked worker: on two cores the
//! context switches cost more than the forwarding. Here a call never leaves the
//! thread, and the daemon's own work (sessions, their store) keeps the
//! workers; only a call's usage crosses over, once, to its session's task. One
//! core forwards thousands of calls a second, far more than agents make.

use std::net::{SocketAddr, TcpListener as StdListener};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::net::TcpListener;
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

use crate::error::Error;
use crate::{listener, Shared};

/// Accepts connections on `listener`, bound to `addr`, on the gateway's thread
/// (started at the first call) until the handle is aborted; connections under
/// way go on.
pub(crate) fn serve(
    listener: StdListener,
    addr: SocketAddr,
    shared: Arc<Shared>,
) -> Result<JoinHandle<()>, Error> {
    let refused = |source| Error::Listen { addr, source };
    listener.set_nonblocking(true).map_err(refused)?;
    Ok(handle().map_err(refused)?.spawn(async move {
        // Registered with the reactor of the thread that polls it.
        match TcpListener::from_std(listener) {
            Ok(listener) => listener::accept(listener, shared).await,
            Err(error) => tracing::error!(%error, "model gateway: cannot accept connections"),
        }
    }))
}

/// The gateway thread's runtime, started at the first call.
fn handle() -> std::io::Result<Handle> {
    static HANDLE: Mutex<Option<Handle>> = Mutex::new(None);
    let mut handle = HANDLE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(handle) = &*handle {
        return Ok(handle.clone());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let started = runtime.handle().clone();
    std::thread::Builder::new()
        .name("model-gateway".into())
        .spawn(move || runtime.block_on(std::future::pending::<()>()))?;
    *handle = Some(started.clone());
    Ok(started)
}
