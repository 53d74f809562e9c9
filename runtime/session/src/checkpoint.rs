//! What a session's core keeps across a daemon restart: its checkpoint, committed
//! with every batch of events (the store keeps it as JSON).

use serde::{Deserialize, Serialize};

use agentplex_universal::BudgetLimits;

use crate::queue::Queued;
use crate::{Identity, MeteredUsage, Process, SessionCore};

/// The live state of a session as of its last committed event: what a restarted
/// daemon needs to carry on where the session was.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Checkpoint {
    /// The agent's own session id, once known.
    pub native_session_id: Option<String>,
    /// Whether the session ended.
    pub ended: bool,
    /// Whether a turn ran.
    pub turn_running: bool,
    /// The permissions asked and not answered.
    pub pending_permissions: Vec<String>,
    /// The questions asked and not answered.
    pub pending_questions: Vec<String>,
    /// Processes of the session that were running (they die with the daemon).
    pub processes: Vec<ProcessMark>,
    /// Timers the adapter had set and that had not fired.
    pub timers: Vec<String>,
    /// Unix milliseconds of the latest event.
    pub updated_at: i64,
    /// Messages accepted while a turn ran, waiting for it to end, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queued: Vec<Vec<StoredPart>>,
    /// What the daemon metered of the session's model calls (absent from the
    /// checkpoints of sessions that had none, and of older daemons).
    #[serde(skip_serializing_if = "MeteredUsage::is_empty")]
    pub usage: MeteredUsage,
    /// The caps on what the session's model calls may spend, once set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetLimits>,
    /// The session's approval policy as given, when it has one (the driver
    /// decides with it; absent from the checkpoints of older daemons). Boxed:
    /// most sessions have none, and a checkpoint travels in every commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<Box<serde_json::Value>>,
    /// The permission requests the policy left to the client, still waiting:
    /// what was decided then.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asked: Vec<agentplex_universal::PermissionDecidedData>,
    /// The modes a client set since the session was created (absent: the
    /// record's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modes: Option<Box<crate::Modes>>,
    /// What the agent offered last (absent: it said nothing, or an older
    /// daemon kept the session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offer: Option<Box<agentplex_universal::AgentOffer>>,
}

/// One part of a queued user message, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum StoredPart {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    Image {
        /// Where the file is.
        path: String,
        /// Its media type.
        mime: Option<String>,
        /// Its name as the user gave it.
        filename: Option<String>,
    },
    /// Another file.
    File {
        /// Where the file is.
        path: String,
        /// Its media type.
        mime: Option<String>,
        /// Its name as the user gave it.
        filename: Option<String>,
    },
}

impl Checkpoint {
    /// Whether a daemon restarted on this checkpoint carries the session on with a
    /// fresh adapter (the running turn died with its process: the agent's native
    /// session is resumed instead), so the adapter's snapshot is not used. Session
    /// tasks skip taking snapshots for such checkpoints: a turn streaming a
    /// process's output costs one adapter call per line, not one more per commit.
    pub fn restarts_fresh(&self) -> bool {
        self.turn_running && !self.processes.is_empty()
    }
}

/// A running process of a session, as the adapter names it and as the system
/// knows it (so a successor daemon can end it if it outlived its parent).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcessMark {
    /// The adapter's name for it.
    pub id: String,
    /// Its process id.
    pub pid: u32,
    /// Start time in clock ticks since boot (`/proc/<pid>/stat`).
    pub started: Option<u64>,
}

impl SessionCore {
    /// The core of a session a previous daemon committed `checkpoint` for, whose
    /// transcript ends at `last_sequence`. Its processes and timers are the
    /// previous daemon's until [`resume`](Self::resume) reports them gone.
    pub fn restore(identity: Identity, checkpoint: &Checkpoint, last_sequence: u64) -> Self {
        let mut core = Self::new(identity, checkpoint.updated_at);
        core.native_session_id = checkpoint.native_session_id.clone();
        core.ended = checkpoint.ended;
        core.turn_running = checkpoint.turn_running;
        core.pending_permissions = checkpoint.pending_permissions.iter().cloned().collect();
        core.pending_questions = checkpoint.pending_questions.iter().cloned().collect();
        core.processes = checkpoint
            .processes
            .iter()
            .map(|mark| {
                let process = Process {
                    mark: mark.clone(),
                    gone: false,
                };
                (mark.id.clone(), process)
            })
            .collect();
        core.timers = checkpoint.timers.iter().cloned().collect();
        core.queue = checkpoint
            .queued
            .iter()
            .map(|parts| Queued::from_stored(parts))
            .collect();
        core.last_sequence = last_sequence;
        core.usage = checkpoint.usage;
        core.budget = checkpoint.budget;
        core.decisions.policy = checkpoint.policy.as_deref().cloned();
        core.modes = checkpoint.modes.as_deref().cloned();
        core.offer = checkpoint
            .offer
            .as_deref()
            .cloned()
            .map(std::sync::Arc::new);
        core.decisions.asked = checkpoint
            .asked
            .iter()
            .map(|asked| (asked.permission_id.clone(), asked.clone()))
            .collect();
        core
    }

    /// The state a restarted daemon needs, as of now.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            native_session_id: self.native_session_id.clone(),
            ended: self.ended,
            turn_running: self.turn_running,
            pending_permissions: self.pending_permissions.iter().cloned().collect(),
            pending_questions: self.pending_questions.iter().cloned().collect(),
            processes: self.processes.values().map(|p| p.mark.clone()).collect(),
            timers: self.timers.iter().cloned().collect(),
            updated_at: self.updated_at,
            queued: self.queue.iter().map(Queued::stored).collect(),
            usage: self.usage,
            budget: self.budget,
            policy: self.decisions.policy.clone().map(Box::new),
            asked: self.decisions.asked.values().cloned().collect(),
            modes: self.modes.clone().map(Box::new),
            offer: self.offer.as_deref().cloned().map(Box::new),
        }
    }
}
