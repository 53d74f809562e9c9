//! A daemon of a fleet: sessions kept in a store other daemons share
//! ([`agentplex_store::Fleet`]), each driven by the daemon holding its lease.
//!
//! - When a turn ends, the agent's own session files are read (as an export
//!   reads them) and kept in the store, with where they were read from.
//! - Asked for a session it does not hold, the daemon takes it over once its
//!   owner's lease ran out ([`SessionManager::adopt`]): it writes the agent's
//!   files where the adapter says they go in this sandbox (as an import does)
//!   and carries the session on, the next message resuming the agent's own
//!   session.
//! - A session whose lease another daemon took is let go of here: its task
//!   stops (what it had not stored is not stored: the store refuses it), its
//!   agent's processes end, and its streams close.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use agentplex_api::{SessionInfo, SessionScope, SessionStatus};
use agentplex_session::CarriedOn;
use agentplex_store::{FleetSession, NativeFiles, StoredSession, Taken};
use tokio::sync::mpsc::unbounded_channel;

use crate::moves::archive::PlaceRecord;
use crate::moves::{self, native};
use crate::{Command, Session, SessionError, SessionManager};

/// How long after a turn ends the agent's own files are kept (twice: some
/// agents finish writing them after the turn ended).
const KEEP_AFTER_TURN: [Duration; 2] = [Duration::from_millis(300), Duration::from_secs(3)];

impl SessionManager {
    /// Starts what a daemon of a fleet runs beside its sessions: letting go of
    /// the sessions other daemons took, keeping the agents' own files as turns
    /// end. Call before [`SessionManager::restore`]; nothing without a fleet.
    pub fn join_fleet(self: &Arc<Self>) {
        let Some(fleet) = self.store.fleet() else {
            return;
        };
        if let Some(mut lost) = fleet.lost() {
            let manager = Arc::downgrade(self);
            tokio::spawn(async move {
                while let Some(id) = lost.recv().await {
                    let Some(manager) = manager.upgrade() else {
                        return;
                    };
                    manager.let_go(&id).await;
                }
            });
        }
        let (turn_ended, mut ended) = unbounded_channel::<String>();
        if self.turn_ended.set(turn_ended).is_ok() {
            let manager = Arc::downgrade(self);
            tokio::spawn(async move {
                while let Some(id) = ended.recv().await {
                    let manager = manager.clone();
                    tokio::spawn(async move {
                        // Agents write their files around the end of a turn, some
                        // after saying it ended: kept soon, and again a little later.
                        for settle in KEEP_AFTER_TURN {
                            tokio::time::sleep(settle).await;
                            let Some(manager) = manager.upgrade() else {
                                return;
                            };
                            manager.keep_native_files(&id).await;
                        }
                    });
                }
            });
        }
    }

    /// The daemon driving sessions of this fleet (this one).
    pub fn daemon(&self) -> Option<&str> {
        self.store.fleet().map(|fleet| fleet.daemon())
    }

    /// A session's listing entry, with its owner (this daemon) in a fleet.
    pub fn info(&self, session: &Session) -> SessionInfo {
        let mut info = session.info();
        if let Some(daemon) = self.daemon() {
            info.owner = Some(daemon.to_owned());
            info.owner_alive = Some(true);
        }
        info
    }

    /// The sessions `scope` names, in id order: this daemon's, or the fleet's
    /// (those of other daemons as the store has them, with their owner and
    /// whether it lives).
    pub async fn listing(&self, scope: SessionScope) -> Result<Vec<SessionInfo>, SessionError> {
        let Some(fleet) = self.store.fleet().filter(|_| scope == SessionScope::Fleet) else {
            return Ok(self
                .list()
                .iter()
                .map(|session| self.info(session))
                .collect());
        };
        let stored = tokio::task::block_in_place(|| fleet.sessions())?;
        Ok(stored
            .into_iter()
            .map(|stored| match self.get(&stored.record.id) {
                Ok(session) => self.info(&session),
                Err(_) => fleet_info(stored),
            })
            .collect())
    }

    /// Makes sure this daemon drives the session `id` when the fleet has it:
    /// takes it over once its owner's lease runs out (waiting for that, one
    /// lease at most), or says which daemon drives it. Does nothing for a
    /// session this daemon drives, one nobody has, or without a fleet.
    pub async fn adopt(&self, id: &str) -> Result<(), SessionError> {
        if self.get(id).is_ok() || self.store.fleet().is_none() {
            return Ok(());
        }
        let mut waited = false;
        // One takeover at a time: two requests for one session take it once. Not
        // held while waiting out a live owner's lease: other takeovers go on.
        let (_one, stored) = loop {
            let one = self.adopting.lock().await;
            if self.get(id).is_ok() {
                return Ok(());
            }
            let taken = tokio::task::block_in_place(|| {
                let fleet = self.store.fleet().expect("checked above");
                fleet.take(id, crate::TAIL_EVENTS)
            })?;
            match taken {
                Taken::Missing => return Ok(()),
                Taken::Took(stored) => break (one, *stored),
                Taken::Held { for_ms, .. } if !waited => {
                    drop(one);
                    waited = true;
                    let lease = self.store.fleet().map_or(Duration::ZERO, |f| f.lease());
                    let left = Duration::from_millis(for_ms.max(0) as u64).min(lease);
                    tokio::time::sleep(left + Duration::from_millis(100)).await;
                }
                Taken::Held { owner, .. } => {
                    return Err(SessionError::SessionElsewhere {
                        session_id: id.to_owned(),
                        owner,
                    })
                }
            }
        };
        tracing::info!(
            session_id = id,
            "took the session over from another daemon of the fleet"
        );
        let stored = self.land_native_files(stored).await;
        self.carry_on_all(vec![stored], CarriedOn::Takeover).await;
        Ok(())
    }

    /// Stops driving a session another daemon took over.
    async fn let_go(&self, id: &str) {
        let Some(session) = self.sessions.write().unwrap().remove(id) else {
            return;
        };
        session.shared.state.lock().unwrap().elsewhere = true;
        let _ = session.command(Command::Suspend).await;
        session
            .shared
            .log
            .notify(session.shared.log.last_sequence());
    }

    /// Keeps the agent's own files of the session `id` in the fleet's store.
    async fn keep_native_files(&self, id: &str) {
        let Ok(session) = self.get(id) else { return };
        let Some(native_id) = session.native_session_id() else {
            return;
        };
        let record = session.record();
        let Ok(adapter) = self.catalog.adapter(&record.agent) else {
            return;
        };
        let directory = Path::new(&record.directory);
        let place = native::place_of(&adapter, record, directory);
        let runner = self.command_runner(&adapter, record, directory);
        let files = match native::read_native_files(&adapter, &native_id, &place, &runner).await {
            Ok(files) => files,
            Err(reason) => {
                tracing::warn!(session_id = id, %reason, "the agent's own session files cannot be kept for another daemon");
                return;
            }
        };
        let place = PlaceRecord::from(&place);
        let native = NativeFiles {
            place: serde_json::to_string(&place).unwrap_or_default(),
            files,
        };
        let kept = tokio::task::block_in_place(|| match self.store.fleet() {
            Some(fleet) => fleet.save_native(id, native),
            None => Ok(()),
        });
        if let Err(error) = kept {
            tracing::warn!(session_id = id, %error, "the agent's own session files were not kept");
        }
    }

    /// Writes the agent's own files of a session taken over where the adapter
    /// says they go in this sandbox. When they cannot come, the agent starts a
    /// session of its own, and the transcript goes on; when none were kept yet
    /// (no turn ended), the session goes on as after a restart.
    async fn land_native_files(&self, mut stored: StoredSession) -> StoredSession {
        let id = stored.record.id.clone();
        let Ok(adapter) = self.catalog.adapter(&stored.record.agent) else {
            return stored; // carrying it on says why it cannot go on
        };
        moves::forget_place(&adapter, &mut stored.record);
        let directory = Path::new(&stored.record.directory).to_owned();
        if let Err(error) = std::fs::create_dir_all(&directory) {
            tracing::warn!(session_id = %id, %error, "cannot make the session's working directory {}", directory.display());
        }
        if stored.checkpoint.ended || stored.checkpoint.native_session_id.is_none() {
            return stored;
        }
        let landed = async {
            self.catalog.ensure_installed(&adapter, None).await?;
            let kept = tokio::task::block_in_place(|| match self.store.fleet() {
                Some(fleet) => fleet.native(&id),
                None => Ok(None),
            })?;
            let Some(kept) = kept else {
                // No turn ended yet: as after a restart, the agent resumes what
                // it can (the mock's whole session is its snapshot).
                tracing::info!(session_id = %id, "none of the agent's own files were kept yet");
                return Ok(None);
            };
            let from: PlaceRecord = serde_json::from_str(&kept.place)
                .map_err(|error| SessionError::Internal(format!("the kept place: {error}")))?;
            let to = native::place_of(&adapter, &stored.record, &directory);
            let landed = moves::landed(&adapter, kept.files, &from.into(), &to)?;
            if let Some(reason) = landed.lost.clone() {
                return Ok(Some(reason));
            }
            let runner = self.command_runner(&adapter, &stored.record, &directory);
            let scratch = crate::scratch_dir(&self.scratch_root, &id);
            crate::make_private_dir(&scratch)
                .map_err(|error| SessionError::io("cannot make the scratch folder", error))?;
            moves::land(landed, &to, &runner, &scratch, native::Existing::Replace).await?;
            Ok::<_, SessionError>(None)
        };
        let lost = landed.await.unwrap_or_else(|error| Some(error.to_string()));
        if let Some(reason) = lost {
            tracing::warn!(session_id = %id, %reason, "the agent's own session did not come along: its next message starts a new one");
            stored.checkpoint.native_session_id = None;
            stored.snapshot = None;
        }
        stored
    }
}

/// The listing entry of a session another daemon drives (or drove), as the
/// fleet's store has it.
fn fleet_info(stored: FleetSession) -> SessionInfo {
    let checkpoint = &stored.checkpoint;
    let status = if checkpoint.ended {
        SessionStatus::Ended
    } else if !checkpoint.pending_permissions.is_empty() || !checkpoint.pending_questions.is_empty()
    {
        SessionStatus::AwaitingInput
    } else if checkpoint.turn_running {
        SessionStatus::Running
    } else {
        SessionStatus::Idle
    };
    let mut info = crate::listed(&stored.record, status, stored.last_sequence);
    info.native_session_id = checkpoint.native_session_id.clone();
    info.updated_at = checkpoint.updated_at.max(stored.record.created_at);
    info.queued_messages = checkpoint.queued.len() as u64;
    info.owner = stored.owner;
    info.owner_alive = Some(stored.alive);
    // Metered, if at all, by the daemon that drives it.
    info.usage = crate::usage::session_usage(&checkpoint.usage, false);
    info
}
