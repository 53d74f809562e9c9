//! The adapters folder of a running daemon, loaded again on
//! `POST /v1/adapters/reload` and whenever a `*.wasm` file in it changes: new and
//! changed components serve new sessions without a restart; running sessions keep
//! the adapter they started with.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agentplex_api::{AdaptersReloadResponse, LoadedAdapterInfo};
use agentplex_host::HostError;
use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;

use crate::agents::AgentCatalog;

/// How long the folder must be quiet after a change before it is loaded again
/// (a component being copied in changes several times).
const SETTLE: Duration = Duration::from_millis(300);

/// Why the folder could not be loaded again (the adapters stay as they were).
#[derive(Debug, thiserror::Error)]
pub enum ReloadError {
    /// The folder could not be read.
    #[error("{0}")]
    Folder(#[from] HostError),
    /// The loading task stopped before it finished.
    #[error("{0}")]
    Task(#[from] tokio::task::JoinError),
}

/// The adapters folder and the catalog it feeds.
pub struct AdaptersFolder {
    dir: PathBuf,
    catalog: Arc<AgentCatalog>,
    /// One reload at a time.
    reloading: tokio::sync::Mutex<()>,
}

impl AdaptersFolder {
    /// The folder `dir` of the catalog's adapters.
    pub fn new(dir: PathBuf, catalog: Arc<AgentCatalog>) -> Arc<Self> {
        Arc::new(Self {
            dir,
            catalog,
            reloading: tokio::sync::Mutex::new(()),
        })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Loads the folder again (see `AdapterRegistry::reload_dir`); a folder that
    /// cannot be read leaves the adapters as they were.
    pub async fn reload(&self) -> Result<AdaptersReloadResponse, ReloadError> {
        let _one = self.reloading.lock().await;
        let registry = self.catalog.registry().clone();
        let dir = self.dir.clone();
        let results = tokio::task::spawn_blocking(move || registry.reload_dir(&dir)).await??;
        self.catalog.adapters_changed();
        let mut report = AdaptersReloadResponse {
            adapters: Vec::new(),
            skipped: Vec::new(),
        };
        for result in results {
            match result {
                Ok(adapter) => report.adapters.push(LoadedAdapterInfo {
                    id: adapter.id().to_owned(),
                    adapter_version: adapter.info().version.clone(),
                    origin: adapter.origin().to_string(),
                    contract: adapter.contract().to_owned(),
                }),
                Err(error) => {
                    tracing::error!(%error, "skipping adapter component");
                    report.skipped.push(error.to_string());
                }
            }
        }
        tracing::info!(
            dir = %self.dir.display(),
            loaded = report.adapters.len(),
            skipped = report.skipped.len(),
            "adapters folder loaded again"
        );
        Ok(report)
    }

    /// Loads the folder again whenever a component in it is added, changed or
    /// removed, once it has been quiet for a moment. Without file notifications
    /// only `POST /v1/adapters/reload` reloads it (logged).
    pub fn watch(self: &Arc<Self>) {
        let (changed, mut changes) = mpsc::unbounded_channel();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let touches_a_component = event.is_ok_and(|event| {
                !event.kind.is_access()
                    && event
                        .paths
                        .iter()
                        .any(|path| path.extension().is_some_and(|ext| ext == "wasm"))
            });
            if touches_a_component {
                let _ = changed.send(());
            }
        });
        let watcher = watcher.and_then(|mut watcher| {
            watcher.watch(&self.dir, RecursiveMode::NonRecursive)?;
            Ok(watcher)
        });
        let watcher = match watcher {
            Ok(watcher) => watcher,
            Err(error) => {
                tracing::warn!(dir = %self.dir.display(), %error, "not watching the adapters folder; POST /v1/adapters/reload loads it again");
                return;
            }
        };
        let folder = self.clone();
        tokio::spawn(async move {
            let _watching = watcher;
            while changes.recv().await.is_some() {
                // Wait until the folder has been quiet for SETTLE.
                while let Ok(Some(())) = tokio::time::timeout(SETTLE, changes.recv()).await {}
                if let Err(error) = folder.reload().await {
                    tracing::error!(%error, "cannot load the adapters folder again");
                }
            }
        });
    }
}
