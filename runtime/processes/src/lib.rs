//! Processes clients start themselves (`/v1/processes`): one-shot runs, managed
//! processes with their output in a ring buffer, and PTY terminals.
//!
//! Every process leads its own process group (a terminal's leads its own session),
//! stays unreaped after it exits until it is deleted (a run's until the run ends:
//! see [`group`] for why), and is stopped with its whole group when
//! the daemon stops, unless it was started with `outliveDaemon`.

pub mod encoding;
mod error;
pub mod follow;
pub mod group;
pub mod in_use;
pub mod log;
pub mod managed;
pub mod priority;
pub mod pty;
mod run;
pub mod secrets;
pub mod spawn;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentplex_api::{ProcessConfig, ProcessCreateRequest, ProcessDataEncoding, ProcessInfo};

pub use error::ProcessError;
pub use managed::ManagedProcess;
pub use run::{DEFAULT_RUN_TIMEOUT, MAX_RUN_TIMEOUT};

use crate::group::Leader;

/// How long output may go on being read after a process exited (something it
/// started may hold its output open) before the exit is published anyway.
pub const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);

/// Time between SIGTERM and SIGKILL when a process is stopped, unless
/// `--process-stop-grace-ms` says otherwise (a dev server may take a moment to
/// shut down cleanly).
pub const DEFAULT_STOP_GRACE: Duration = Duration::from_secs(5);

/// The limits of the process API, from the daemon's flags.
#[derive(Debug, Clone)]
pub struct ProcessSettings {
    /// Most processes held at once: managed ones not deleted plus runs in progress.
    pub max_processes: usize,
    /// Log ring buffer of a process without a terminal, in bytes.
    pub log_bytes: usize,
    /// Scrollback ring buffer of a terminal, in bytes.
    pub scrollback_bytes: usize,
    /// Most bytes a run keeps of stdout, and of stderr.
    pub output_bytes: usize,
    /// Largest decoded input of one request or WebSocket frame.
    pub input_bytes: usize,
    /// Time between SIGTERM and SIGKILL when a process is stopped.
    pub stop_grace: Duration,
}

impl Default for ProcessSettings {
    fn default() -> Self {
        ProcessSettings {
            max_processes: 64,
            log_bytes: 1 << 20,
            scrollback_bytes: 256 << 10,
            output_bytes: 1 << 20,
            input_bytes: 1 << 20,
            stop_grace: DEFAULT_STOP_GRACE,
        }
    }
}

#[derive(Default)]
struct Table {
    processes: BTreeMap<u64, Arc<ManagedProcess>>,
    /// The runs in progress, by pid.
    runs: BTreeMap<u32, Arc<Leader>>,
    /// Runs reserved but not spawned yet.
    reserved: usize,
    next_id: u64,
    closing: bool,
}

impl Table {
    fn held(&self) -> usize {
        self.processes.len() + self.runs.len() + self.reserved
    }
}

/// Every process the clients started.
pub struct ProcessManager {
    settings: ProcessSettings,
    table: Mutex<Table>,
}

/// A place held for a process being started; given back when dropped unstarted.
struct Reservation<'a> {
    manager: &'a ProcessManager,
}

impl Reservation<'_> {
    /// The run started: its place is now its process's.
    fn into_run(self, leader: Arc<Leader>) {
        let mut table = self.manager.table.lock().unwrap();
        table.runs.insert(leader.pid(), leader);
        table.reserved -= 1;
        drop(table);
        std::mem::forget(self);
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.manager.table.lock().unwrap().reserved -= 1;
    }
}

impl ProcessManager {
    /// No processes yet.
    pub fn new(settings: ProcessSettings) -> Self {
        ProcessManager {
            settings,
            table: Mutex::new(Table {
                next_id: 1,
                ..Table::default()
            }),
        }
    }

    /// The limits, as `GET /v1/processes/config` reports them.
    pub fn config(&self) -> ProcessConfig {
        let s = &self.settings;
        ProcessConfig {
            max_concurrent_processes: s.max_processes,
            default_run_timeout_ms: DEFAULT_RUN_TIMEOUT.as_millis() as u64,
            max_run_timeout_ms: MAX_RUN_TIMEOUT.as_millis() as u64,
            max_output_bytes: s.output_bytes,
            max_log_bytes_per_process: s.log_bytes,
            terminal_scrollback_bytes: s.scrollback_bytes,
            max_input_bytes_per_request: s.input_bytes,
            stop_grace_ms: s.stop_grace.as_millis() as u64,
        }
    }

    /// The settings.
    pub fn settings(&self) -> &ProcessSettings {
        &self.settings
    }

    /// Decodes a client's input for a process, refusing more than
    /// `--process-input-bytes`.
    pub fn decode_input(
        &self,
        data: &str,
        encoding: ProcessDataEncoding,
    ) -> Result<Vec<u8>, ProcessError> {
        let limit = self.settings.input_bytes;
        let bytes = encoding::decode(data, encoding)?;
        if bytes.len() > limit {
            return Err(ProcessError::InputTooLarge {
                bytes: bytes.len(),
                limit,
            });
        }
        Ok(bytes)
    }

    /// Holds a place for a new process, or says why there is none.
    fn reserve(&self) -> Result<Reservation<'_>, ProcessError> {
        let mut table = self.table.lock().unwrap();
        if table.closing {
            return Err(ProcessError::Conflict(
                "the daemon is shutting down: no process is started".into(),
            ));
        }
        if table.held() >= self.settings.max_processes {
            return Err(ProcessError::LimitReached(format!(
                "the daemon holds {} processes, its limit (--max-processes): delete exited ones (DELETE /v1/processes/{{id}}) or wait for runs to end",
                table.held()
            )));
        }
        table.reserved += 1;
        Ok(Reservation { manager: self })
    }

    /// A run ended.
    fn end_run(&self, pid: u32) {
        self.table.lock().unwrap().runs.remove(&pid);
    }

    /// Starts a managed process.
    pub fn start(&self, request: ProcessCreateRequest) -> Result<ProcessInfo, ProcessError> {
        if request.tty && request.outlive_daemon {
            return Err(ProcessError::InvalidRequest(
                "`outliveDaemon` cannot be combined with `tty`: a terminal ends with the daemon"
                    .into(),
            ));
        }
        if request.cols == Some(0) || request.rows == Some(0) {
            return Err(ProcessError::InvalidRequest(
                "a terminal needs at least one column and one row".into(),
            ));
        }
        let reservation = self.reserve()?;
        let number = {
            let mut table = self.table.lock().unwrap();
            table.next_id += 1;
            table.next_id - 1
        };
        let buffers = managed::Buffers {
            log_bytes: self.settings.log_bytes,
            scrollback_bytes: self.settings.scrollback_bytes,
        };
        let process = ManagedProcess::start(format!("proc_{number}"), request, &buffers)?;
        let info = process.info();
        let mut table = self.table.lock().unwrap();
        table.processes.insert(number, process);
        drop(table);
        drop(reservation);
        Ok(info)
    }

    /// A managed process by id.
    pub fn get(&self, id: &str) -> Result<Arc<ManagedProcess>, ProcessError> {
        id.strip_prefix("proc_")
            .and_then(|n| n.parse::<u64>().ok())
            .and_then(|n| self.table.lock().unwrap().processes.get(&n).cloned())
            .ok_or_else(|| ProcessError::NotFound(id.to_owned()))
    }

    /// Every managed process, oldest first.
    pub fn list(&self) -> Vec<ProcessInfo> {
        let processes: Vec<_> = self
            .table
            .lock()
            .unwrap()
            .processes
            .values()
            .cloned()
            .collect();
        processes.iter().map(|p| p.info()).collect()
    }

    /// Forgets an exited process and its log (and kills what it left running in
    /// its group, then reaps it: its group is never signalled again).
    pub fn delete(&self, id: &str) -> Result<(), ProcessError> {
        let process = self.get(id)?;
        if process.exit().is_none() || !process.reap() {
            return Err(ProcessError::Conflict(format!(
                "process {id:?} is running: stop or kill it first"
            )));
        }
        let mut table = self.table.lock().unwrap();
        table.processes.retain(|_, p| !Arc::ptr_eq(p, &process));
        Ok(())
    }

    /// SIGTERM to the process's group, SIGKILL after the grace (in the background).
    pub fn stop(&self, process: &Arc<ManagedProcess>) {
        if process.exit().is_some() {
            return;
        }
        let process = process.clone();
        let grace = self.settings.stop_grace;
        tokio::spawn(async move { process.stop(grace).await });
    }

    /// Stops every process started without `outliveDaemon` (SIGTERM, SIGKILL after
    /// the grace; all at once, so this takes the grace at most) and refuses new ones.
    pub async fn shut_down(&self) {
        let (processes, runs) = {
            let mut table = self.table.lock().unwrap();
            table.closing = true;
            let processes: Vec<_> = table.processes.values().cloned().collect();
            (processes, table.runs.clone())
        };
        for leader in runs.values() {
            leader.kill_group();
        }
        let grace = self.settings.stop_grace;
        let stops = processes
            .into_iter()
            .filter(|p| !p.outlives_daemon())
            .map(|p| async move {
                if !p.reap() {
                    p.stop(grace).await;
                }
            });
        futures::future::join_all(stops).await;
    }
}
