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
//!
//! The thread asks the kernel to run it before the daemon's other threads and
//! the agents' processes when they all want a core (`RAISE`), where the
//! process may: its work is a few microseconds a call, but a call that
//! arrives while the cores are busy otherwise waits for one.

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
        .spawn(move || {
            raise_priority();
            runtime.block_on(std::future::pending::<()>())
        })?;
    *handle = Some(started.clone());
    Ok(started)
}

/// How many steps of nice value the gateway's thread runs above the thread
/// that started it, where the process may lower its own (as root, or with
/// `CAP_SYS_NICE` or a `RLIMIT_NICE` that allows it). Under the Linux
/// scheduler five steps weigh about three times as much, so the thread runs
/// first when it wakes with the cores taken, without taking them from others
/// while it has nothing to do. Relative, so a daemon started with `nice`
/// keeps the gateway that much lower too. docs/internals/benchmarks.md has
/// what it changed, and why not more.
#[cfg(target_os = "linux")]
const RAISE: i32 = 5;

/// The nice value [`RAISE`] steps above `nice`, as far as there are.
#[cfg(target_os = "linux")]
fn raised(nice: i32) -> i32 {
    /// The lowest nice value there is.
    const HIGHEST: i32 = -20;
    (nice - RAISE).max(HIGHEST)
}

/// Raises the calling thread by `RAISE`, or leaves it as it was when the
/// process may not: Linux keeps a nice value per thread, so only the gateway's
/// thread is raised. Elsewhere the value is the process's, so nothing changes.
fn raise_priority() {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{getpriority_process, setpriority_process};
        let set = getpriority_process(None).and_then(|now| setpriority_process(None, raised(now)));
        if let Err(error) = set {
            tracing::debug!(%error, "model gateway: its thread keeps its priority");
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use rustix::process::{getpriority_process, setpriority_process};

    use super::raised;

    #[test]
    fn the_gateway_thread_runs_at_its_nice_value_where_the_process_may_give_it() {
        // What a new thread of this process starts at, and whether it may
        // take the gateway's value.
        let (before, may) = std::thread::spawn(|| {
            let before = getpriority_process(None).unwrap();
            (before, setpriority_process(None, raised(before)).is_ok())
        })
        .join()
        .unwrap();
        let (told, heard) = std::sync::mpsc::channel();
        super::handle()
            .unwrap()
            .spawn(async move { told.send(getpriority_process(None).unwrap()) });
        let gateway = heard.recv().unwrap();
        assert_eq!(gateway, if may { raised(before) } else { before });
        // The value is the gateway thread's alone.
        assert_eq!(getpriority_process(None).unwrap(), before);
    }
}
