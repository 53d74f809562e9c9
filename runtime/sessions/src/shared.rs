//! Processes shared by several sessions of one agent (one app server or HTTP
//! server of the agent for all of them), keyed by the adapter's share key.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use agentplex_api::{ServerStatus, ServerStatusInfo};
use agentplex_host::SpawnRequest;

use super::processes::{self, ProcessEntry, SpawnContext, Subscriber};

struct Shared {
    entry: Arc<ProcessEntry>,
    started_at: Instant,
}

/// Every shared process of the daemon, by (agent id, share key).
#[derive(Default)]
pub struct SharedProcesses {
    processes: Mutex<BTreeMap<(String, String), Shared>>,
    /// How many shared processes each agent has started.
    spawns: Mutex<BTreeMap<String, u64>>,
}

impl SharedProcesses {
    /// Attaches the subscriber to the live process under the key, or starts one.
    pub fn attach_or_spawn(
        &self,
        agent: &str,
        key: &str,
        request: &SpawnRequest,
        context: &SpawnContext,
        subscriber: Subscriber,
    ) -> std::io::Result<Arc<ProcessEntry>> {
        let mut processes = self.processes.lock().unwrap();
        let map_key = (agent.to_owned(), key.to_owned());
        let subscriber = match processes.get(&map_key) {
            Some(shared) => match shared.entry.attach(subscriber) {
                Ok(()) => return Ok(shared.entry.clone()),
                Err(subscriber) => subscriber,
            },
            None => subscriber,
        };
        let entry = processes::spawn(request, context, subscriber)?;
        processes.insert(
            map_key,
            Shared {
                entry: entry.clone(),
                started_at: Instant::now(),
            },
        );
        *self
            .spawns
            .lock()
            .unwrap()
            .entry(agent.to_owned())
            .or_default() += 1;
        Ok(entry)
    }

    /// Detaches a session; the process when no session is left on it (for the
    /// caller to end).
    pub fn detach(&self, agent: &str, key: &str, session_id: &str) -> Option<Arc<ProcessEntry>> {
        let mut processes = self.processes.lock().unwrap();
        let map_key = (agent.to_owned(), key.to_owned());
        let unused = processes.get(&map_key)?.entry.unsubscribe(session_id) == 0;
        unused
            .then(|| processes.remove(&map_key))
            .flatten()
            .map(|shared| shared.entry)
    }

    /// The `serverStatus` of an agent that has used a shared process.
    pub fn status(&self, agent: &str) -> Option<ServerStatusInfo> {
        let spawns = *self.spawns.lock().unwrap().get(agent)?;
        let processes = self.processes.lock().unwrap();
        let live = processes
            .iter()
            .find(|((a, _), shared)| a == agent && !shared.entry.exited());
        Some(ServerStatusInfo {
            status: if live.is_some() {
                ServerStatus::Running
            } else {
                ServerStatus::Stopped
            },
            restart_count: spawns.saturating_sub(1),
            base_url: None,
            last_error: None,
            uptime_ms: live.map(|(_, shared)| shared.started_at.elapsed().as_millis() as u64),
        })
    }
}
