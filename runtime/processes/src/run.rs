//! One-shot runs (`POST /v1/processes/run`): a command to completion, its output
//! kept up to a cap (the rest read and dropped, so it never blocks on a full
//! pipe), its process group killed after the timeout, when it ends (what it left
//! running) or if the client goes away.

use std::os::unix::process::CommandExt as _;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agentplex_api::{ProcessRunRequest, ProcessRunResponse};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

use super::spawn::{exit_parts, CommandSpec};
use super::{encoding, ProcessManager, DRAIN_AFTER_EXIT};
use crate::group::{Leader, Pipes};
use crate::ProcessError;

/// A run's timeout when it names none.
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest timeout a run may ask for.
pub const MAX_RUN_TIMEOUT: Duration = Duration::from_secs(3600);

/// Output of one stream, kept up to a cap.
#[derive(Default)]
struct Capped {
    bytes: Vec<u8>,
    truncated: bool,
}

/// Kills the run's process group when the run ends (what the command left running
/// in it: a run leaves nothing behind), or when the client goes away before, gives
/// its place back to the manager, and reaps the run's process (at once, or once
/// it exits).
struct RunGuard<'a> {
    manager: &'a ProcessManager,
    leader: Arc<Leader>,
}

impl Drop for RunGuard<'_> {
    fn drop(&mut self) {
        self.leader.kill_group();
        self.manager.end_run(self.leader.pid());
        self.leader.reap();
    }
}

impl ProcessManager {
    /// Runs a command to completion.
    pub async fn run(
        &self,
        request: ProcessRunRequest,
    ) -> Result<ProcessRunResponse, ProcessError> {
        let timeout = request
            .timeout_ms
            .map_or(DEFAULT_RUN_TIMEOUT, Duration::from_millis)
            .min(MAX_RUN_TIMEOUT);
        let cap = request
            .max_output_bytes
            .unwrap_or(self.settings.output_bytes)
            .min(self.settings.output_bytes);
        let stdin = request
            .stdin
            .as_deref()
            .map(|text| encoding::decode(text, request.stdin_encoding.unwrap_or_default()))
            .transpose()?;
        let spec = CommandSpec {
            command: &request.command,
            args: &request.args,
            cwd: request.cwd.as_deref(),
            env: &request.env,
        };
        // The installed package folder it runs from is kept until the run ends.
        let (mut command, _package) = spec.command()?;
        command
            .process_group(0)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let reservation = self.reserve()?;
        let started = Instant::now();
        let (leader, mut child) = spec.spawn(&mut command)?;
        let leader = Arc::new(leader);
        let guard = RunGuard {
            manager: self,
            leader: leader.clone(),
        };
        reservation.into_run(leader.clone());
        let pipes =
            Pipes::take(&mut child).map_err(ProcessError::io("cannot read the run's output"))?;
        if let (Some(bytes), Some(mut pipe)) = (stdin, pipes.stdin) {
            // A command that does not read its stdin gets EPIPE here: not an error of the run.
            tokio::spawn(async move {
                let _ = pipe.write_all(&bytes).await;
            });
        }
        let stdout = Arc::new(Mutex::new(Capped::default()));
        let stderr = Arc::new(Mutex::new(Capped::default()));
        let readers = [
            pipes
                .stdout
                .map(|pipe| tokio::spawn(read_capped(pipe, cap, stdout.clone()))),
            pipes
                .stderr
                .map(|pipe| tokio::spawn(read_capped(pipe, cap, stderr.clone()))),
        ];
        let timed_out = tokio::time::timeout(timeout, leader.exited())
            .await
            .is_err();
        if timed_out {
            leader.kill_group();
        }
        let status = leader
            .exited()
            .await
            .map_err(ProcessError::io("waiting for the run"))?;
        // Output still held open by what the command left behind is not waited for long.
        for reader in readers.into_iter().flatten() {
            let abort = reader.abort_handle();
            if tokio::time::timeout(DRAIN_AFTER_EXIT, reader)
                .await
                .is_err()
            {
                leader.kill_group();
                abort.abort();
            }
        }
        drop(guard);
        let (exit_code, signal) = exit_parts(status);
        let output_encoding = request.output_encoding.unwrap_or_default();
        let (stdout, stderr) = (take(&stdout), take(&stderr));
        Ok(ProcessRunResponse {
            exit_code,
            signal,
            timed_out,
            stdout: encoding::encode(&stdout.bytes, output_encoding),
            stderr: encoding::encode(&stderr.bytes, output_encoding),
            stdout_truncated: stdout.truncated,
            stderr_truncated: stderr.truncated,
            encoding: output_encoding,
            duration_ms: started.elapsed().as_millis() as u64,
        })
    }
}

fn take(output: &Mutex<Capped>) -> Capped {
    std::mem::take(&mut *output.lock().unwrap())
}

/// Reads a pipe to its end, keeping the first `cap` bytes.
async fn read_capped(mut pipe: impl AsyncRead + Unpin, cap: usize, into: Arc<Mutex<Capped>>) {
    let mut buf = vec![0; 64 << 10];
    loop {
        let n = match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let mut kept = into.lock().unwrap();
        let room = cap.saturating_sub(kept.bytes.len());
        kept.bytes.extend_from_slice(&buf[..n.min(room)]);
        kept.truncated |= n > room;
    }
}
