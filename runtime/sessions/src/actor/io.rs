//! The adapter's I/O actions, carried out for the session task: processes
//! spawned, written to and killed, loopback requests and streams, timers, files
//! in the scratch folder.

use std::path::Path;
use std::time::Duration;

use agentplex_host::{Action, Input};
use agentplex_session::Incoming;

use super::{now_millis, processes, Actor, Attached, Subscriber};
use crate::moves::{in_place, native};

impl Actor {
    /// Carries out one of the adapter's I/O actions.
    pub(super) fn carry_out(&mut self, action: Action) {
        match action {
            Action::Emit(_) | Action::SetNativeSessionId(_) => {
                unreachable!("the session core keeps events and ids itself")
            }
            Action::Spawn(request) => {
                self.move_native_session_in_place();
                let process_id = request.process_id.clone();
                let subscriber = Subscriber {
                    session_id: self.shared.record.id.clone(),
                    process_id: process_id.clone(),
                    incoming: self.incoming_tx.clone(),
                };
                let spawned = match &request.share_key {
                    Some(key) => self.shared_processes.attach_or_spawn(
                        &self.shared.record.agent,
                        key,
                        &request,
                        &self.spawn,
                        subscriber,
                    ),
                    None => processes::spawn(&request, &self.spawn, subscriber),
                };
                match spawned {
                    Ok(entry) => {
                        // Never the arguments: they may hold secrets.
                        let (program, arguments) = (&request.argv[0], request.argv.len() - 1);
                        tracing::debug!(process = %process_id, %program, arguments, "spawned");
                        let started = Incoming::ProcessStarted {
                            process_id: process_id.clone(),
                            pid: entry.pid,
                            started: entry.started,
                        };
                        self.core.incoming(started, now_millis());
                        let attached = Attached {
                            entry,
                            share_key: request.share_key.clone(),
                        };
                        if let Some(old) = self.processes.insert(process_id, attached) {
                            // The replaced process's exit must not reach the new one's name.
                            old.entry.unsubscribe(&self.shared.record.id);
                            self.release(old);
                        }
                    }
                    Err(error) => {
                        let message = format!("cannot start {:?}: {error}", request.argv[0]);
                        let input = Input::SpawnFailed {
                            process_id,
                            message,
                        };
                        let _ = self.incoming_tx.send(Incoming::Adapter(input));
                    }
                }
            }
            Action::WriteStdin(write) => {
                if let Some(process) = self.processes.get(&write.process_id) {
                    process.entry.write_stdin(write.data);
                }
            }
            Action::CloseStdin(id) => {
                if let Some(process) = self.processes.get(&id) {
                    process.entry.close_stdin();
                }
            }
            Action::Kill(id) => {
                if let Some(process) = self.processes.remove(&id) {
                    self.release(process);
                }
            }
            Action::HttpRequest(request) => self.http.send(request, self.incoming_tx.clone()),
            Action::OpenSse(request) => {
                let id = request.stream_id.clone();
                let task = self.http.open_sse(request, self.incoming_tx.clone());
                if let Some(old) = self.streams.insert(id, task.abort_handle()) {
                    old.abort();
                }
            }
            Action::CloseSse(id) => {
                if let Some(stream) = self.streams.remove(&id) {
                    stream.abort();
                }
            }
            Action::SetTimer(timer) => {
                let incoming = self.incoming_tx.clone();
                let timer_id = timer.timer_id.clone();
                let task = tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(timer.delay_ms.into())).await;
                    let input = Input::Timer { timer_id };
                    let _ = incoming.send(Incoming::Adapter(input));
                });
                if let Some(old) = self.timers.insert(timer.timer_id, task.abort_handle()) {
                    old.abort();
                }
            }
            Action::CancelTimer(id) => {
                if let Some(timer) = self.timers.remove(&id) {
                    timer.abort();
                }
            }
            Action::WriteFile(file) => {
                let scratch = Path::new(&self.adapter.config().scratch_dir);
                if let Err(error) = crate::scratch::write_file(scratch, &file) {
                    let message = format!(
                        "cannot write {} in the session's scratch folder: {error}",
                        file.path
                    );
                    self.core.fail("scratch_write_failed", message);
                }
            }
        }
    }

    /// Before the agent starts again for a session it has begun (a resume),
    /// renames its own session's files where its adapter says they are safe from
    /// it (capability `move-before-resume`; see `moves::in_place`). A rename that
    /// fails leaves the files where they are, and the agent resumes as it would
    /// have.
    fn move_native_session_in_place(&self) {
        let adapter = self.adapter.adapter();
        let info = adapter.info();
        if !(info.has("move") && info.has(in_place::CAPABILITY)) {
            return;
        }
        let native_id = self.shared.state.lock().unwrap().native_session_id.clone();
        let Some(native_id) = native_id else {
            return;
        };
        let record = &self.shared.record;
        let place = native::place_of(adapter, record, Path::new(&record.directory));
        let moved =
            tokio::task::block_in_place(|| in_place::move_in_place(adapter, &native_id, &place));
        let refused = match moved {
            Ok(moved) => {
                if moved.renamed > 0 {
                    tracing::debug!(
                        session = %record.id,
                        renamed = moved.renamed,
                        "renamed the agent's session files before its resume"
                    );
                }
                moved.refused
            }
            Err(reason) => vec![reason],
        };
        for reason in refused {
            tracing::warn!(
                session = %record.id,
                %reason,
                "cannot rename the agent's session files before its resume"
            );
        }
    }
}
