//! Start-up: the sessions a previous daemon left in the store come back, ended
//! ones readable as they were, live ones carried on by a new session task.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc::unbounded_channel;
use tokio::sync::oneshot;

use super::{EventLog, Inbox, Session, SessionManager, SessionShared, SessionState};
use crate::SessionError;
use agentplex_session::{CarriedOn, Effect, Identity, SessionCore};
use agentplex_store::{Checkpoint, Commit, StoredSession};

impl SessionManager {
    /// Brings back every stored session. Call once, before serving: it returns
    /// when every carried-on session has taken its first steps (restart marker,
    /// lost processes reported), so the first client already sees them.
    pub async fn restore(&self, stored: Vec<StoredSession>) {
        self.carry_on_all(stored, CarriedOn::Restart).await
    }

    /// Brings back stored sessions that a daemon carries on for `why`.
    pub(crate) async fn carry_on_all(&self, stored: Vec<StoredSession>, why: CarriedOn) {
        let mut resumed = Vec::new();
        for mut session in stored {
            // The modes a client set are the session's from here on.
            if let Some(modes) = &session.checkpoint.modes {
                session.record.agent_mode = modes.agent_mode.clone();
                session.record.permission_mode = modes.permission_mode.clone();
                if let Some(model) = &modes.model {
                    session.record.model = Some(model.clone());
                }
                if let Some(variant) = &modes.variant {
                    session.record.variant = Some(variant.clone());
                }
            }
            let id = session.record.id.clone();
            let checkpoint = session.checkpoint.clone();
            let log = EventLog::restore(&id, self.store.clone(), session.tail.clone());
            let shared = Arc::new(SessionShared::new(&session.record, log));
            *shared.state.lock().unwrap() = SessionState {
                native_session_id: checkpoint.native_session_id.clone(),
                ended: checkpoint.ended,
                updated_at: checkpoint.updated_at,
                usage: checkpoint.usage,
                ..SessionState::default()
            };
            let handle = if checkpoint.ended {
                Ok(self.readable_only(shared.clone()))
            } else {
                // Past the cap on live instances, a session starts parked: a
                // restart does not build every instance at once.
                let parked = self
                    .settings
                    .max_live_instances
                    .is_some_and(|cap| resumed.len() >= cap);
                self.carry_on(shared.clone(), session, parked, why)
                    .map(|(handle, first_steps)| {
                        resumed.push(first_steps);
                        handle
                    })
            };
            let handle = handle.unwrap_or_else(|error| {
                tracing::warn!(session_id = %id, %error, "cannot resume session; ending it");
                self.end_unresumable(&shared, &checkpoint, &error.to_string());
                self.readable_only(shared)
            });
            self.sessions.write().unwrap().insert(id, handle);
        }
        #[cfg(target_env = "musl")]
        agentplex_host::instance_memory::give_back_instance_memory();
        for first_steps in resumed {
            let _ = first_steps.await;
        }
    }

    /// A handle whose commands all answer "session ended".
    fn readable_only(&self, shared: Arc<SessionShared>) -> Arc<Session> {
        let (requests, _) = unbounded_channel();
        let (inbox, _) = Inbox::new();
        Arc::new(Session {
            shared,
            requests,
            inbox,
            budget: None,
        })
    }

    /// A new task for a session that had not ended, and what resolves once it has
    /// taken its first steps; `parked`: its adapter instance is dropped once
    /// built (the snapshot checked), until its next input.
    fn carry_on(
        &self,
        shared: Arc<SessionShared>,
        stored: StoredSession,
        parked: bool,
        why: CarriedOn,
    ) -> Result<(Arc<Session>, oneshot::Receiver<()>), SessionError> {
        let checkpoint = stored.checkpoint;
        let adapter = self.catalog.adapter(&stored.record.agent)?;
        // The turn cannot go on without its process: a fresh adapter resumes the
        // agent's own session instead of the snapshot that waits for that process.
        let fresh_adapter = checkpoint.restarts_fresh();
        if fresh_adapter && !adapter.info().has("resume") {
            return Err(SessionError::AdapterFailed {
                agent: stored.record.agent.clone(),
                detail: "the agent's process ended with the daemon in the middle of a turn, \
                         and this agent cannot resume a session"
                    .into(),
            });
        }
        let (inbox, inbox_rx) = Inbox::new();
        let launch = self
            .session_config(
                &adapter,
                &stored.record,
                checkpoint.native_session_id.clone(),
                &inbox,
                super::metering::BudgetStart {
                    limits: checkpoint.budget,
                    spent: checkpoint.usage.total,
                },
            )?
            .with_policy(
                checkpoint
                    .policy
                    .as_deref()
                    .and_then(|document| super::approval::read_policy(document).ok())
                    .as_ref(),
            );
        shared.state.lock().unwrap().metered = launch.held.route.is_some();
        let config = launch.config.clone();
        let budget = launch.budget.clone();
        // A snapshot the adapter no longer accepts (an upgraded component, say)
        // falls back to a fresh adapter on the native id too.
        let restored = match &stored.snapshot {
            Some(snapshot) if !fresh_adapter => adapter
                .restore_session(config.clone(), snapshot)
                .inspect_err(|error| {
                    tracing::warn!(session_id = %stored.record.id, %error, "snapshot not restorable; starting afresh on the native session id")
                })
                .ok(),
            _ => None,
        };
        let fresh_adapter = restored.is_none();
        let mut adapter_session = match restored {
            Some(session) => session,
            None => adapter
                .new_session(config)
                .map_err(|error| SessionError::AdapterFailed {
                    agent: stored.record.agent.clone(),
                    detail: error.to_string(),
                })?,
        };
        if parked {
            if let Err(error) = adapter_session.park() {
                tracing::warn!(session_id = %stored.record.id, %error, "cannot park the restored adapter instance");
            }
        }
        let mut actor = self
            .actor(
                shared.clone(),
                (inbox.clone(), inbox_rx),
                adapter_session,
                launch,
                PathBuf::from(&stored.record.directory),
            )
            .with_checkpoint(&checkpoint);
        let (requests, requests_rx) = unbounded_channel();
        for process in &checkpoint.processes {
            super::processes::kill_orphan(process.pid, process.started);
        }
        let (resumed, first_steps) = oneshot::channel();
        tokio::spawn(async move {
            Box::pin(actor.resume(fresh_adapter, why)).await;
            let _ = resumed.send(());
            actor.run(requests_rx).await;
        });
        let session = Session {
            shared,
            requests,
            inbox,
            budget,
        };
        Ok((Arc::new(session), first_steps))
    }

    /// Ends a stored session that cannot go on, with daemon-made events saying
    /// why (made by its core, as any session's end).
    fn end_unresumable(&self, shared: &SessionShared, checkpoint: &Checkpoint, reason: &str) {
        let message = format!("the session could not be resumed after a daemon restart: {reason}");
        let identity = Identity {
            session_id: shared.record.id.clone(),
            agent: shared.record.agent.clone(),
            max_line_bytes: 0,
        };
        let mut core = SessionCore::restore(identity, checkpoint, shared.log.last_assigned());
        let updated_at = super::now_millis();
        core.fail("resume_failed", message);
        while let Some(effect) = core.poll(updated_at) {
            if let Effect::Emit(event) = effect {
                shared.log.stage(event);
            }
        }
        let commit = Commit {
            session_id: shared.record.id.clone(),
            events: shared.log.staged(),
            checkpoint: core.checkpoint(),
            snapshot: None,
        };
        if let Err(error) = self.store.commit(commit) {
            tracing::error!(session_id = %shared.record.id, %error, "storing the end of a session failed");
        }
        let published = shared.log.publish();
        {
            let mut state = shared.state.lock().unwrap();
            state.ended = true;
            state.updated_at = updated_at;
        }
        if let Some(last) = published {
            shared.log.notify(last);
        }
    }
}
