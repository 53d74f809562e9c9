//! What an install is doing, for the daemon log and for clients that follow it
//! (`POST /v1/agents/{agent}/install` with `Accept: text/event-stream`).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

/// How often a running download is logged.
const LOG_EVERY: Duration = Duration::from_secs(2);
/// How many downloaded bytes make a report to followers.
const REPORT_EVERY_BYTES: u64 = 256 << 10;

/// A step of an install.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Stage {
    /// Learning the latest version.
    Resolving,
    Downloading,
    /// Checking the published checksum.
    Verifying,
    Extracting,
    /// Fetching the npm package with `npm`.
    Npm,
    /// Installing the PyPI package with `pip` (an agent of the ACP registry).
    Pypi,
}

/// One progress report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallProgress {
    pub agent: String,
    pub stage: Stage,
    /// The URL or package the stage works on.
    pub target: String,
    pub bytes_done: u64,
    /// Known when the server announced a length.
    pub bytes_total: Option<u64>,
}

/// Where an install reports: the daemon log and any followers.
#[derive(Debug)]
pub struct Progress {
    agent: String,
    followers: broadcast::Sender<InstallProgress>,
    /// When a download was last logged, and its bytes last reported.
    last: Mutex<(Option<Instant>, u64)>,
}

impl Progress {
    /// Reports for `agent` to the log and to `followers`.
    pub fn new(agent: &str, followers: broadcast::Sender<InstallProgress>) -> Self {
        Self {
            agent: agent.to_owned(),
            followers,
            last: Mutex::new((None, 0)),
        }
    }

    /// A step started or moved on (downloads are logged at most every two seconds).
    pub fn report(&self, stage: Stage, target: &str, bytes_done: u64, bytes_total: Option<u64>) {
        let report = InstallProgress {
            agent: self.agent.clone(),
            stage,
            target: target.to_owned(),
            bytes_done,
            bytes_total,
        };
        let (log, send) = {
            let mut last = self.last.lock().unwrap();
            let milestone =
                stage != Stage::Downloading || bytes_done == 0 || Some(bytes_done) == bytes_total;
            let log = milestone || last.0.is_none_or(|at| at.elapsed() >= LOG_EVERY);
            let send = milestone || bytes_done >= last.1 + REPORT_EVERY_BYTES;
            if log {
                last.0 = Some(Instant::now());
            }
            if send {
                last.1 = bytes_done;
            }
            (log, send)
        };
        if log {
            tracing::info!(agent = %self.agent, ?stage, target, bytes_done, bytes_total, "installing");
        }
        if send {
            // Nobody following is fine.
            let _ = self.followers.send(report);
        }
    }

    /// A download completed.
    pub fn finish_download(&self, url: &str, bytes: u64) {
        tracing::info!(agent = %self.agent, url, bytes, "downloaded");
    }
}
