//! Installing agent binaries from the recipe an adapter's `install-plan` returns:
//! the latest version learned from `latest-version-url` (or the pinned one), the
//! download sources tried in order (checked against the published checksum,
//! unpacked, placed atomically), then the npm package through the `npm` client.
//! Requests for an agent already being installed follow that install (one
//! download); progress goes to the daemon log and to followers.
//!
//! The agents' credentials ([`credentials`]) live here too: what an installed
//! agent is given to sign in with.

mod archive;
pub mod credentials;
mod download;
mod error;
mod locate;
mod npm;
mod place;
pub mod platform;
mod progress;
pub mod registry;
mod registry_install;
mod sources;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agentplex_host::{InstallRecipe, InstallSource, LoadedAdapter, Platform};
use futures::future::{BoxFuture, FutureExt, Shared};
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

pub use error::InstallError;
pub use locate::locate_program;
pub use progress::{InstallProgress, Progress, Stage};
pub use sources::{Mirror, SourcePreference};

/// How the daemon installs agents.
#[derive(Debug, Clone)]
pub struct InstallSettings {
    /// Where binaries are placed (`--install-dir`).
    pub dir: PathBuf,
    /// Install a missing agent when a session is created (off with `--no-install`).
    pub on_create: bool,
    /// Which sources are tried (`--install-source`).
    pub source: SourcePreference,
    /// Where vendor URLs are fetched from (`--releases-mirror`).
    pub mirror: Mirror,
    /// The platform recipes are asked for (detected, or `--install-platform`).
    pub platform: Platform,
    /// Where the ACP registry's index is read from (`--acp-registry`).
    pub acp_registry: registry::RegistrySource,
}

impl InstallSettings {
    /// Defaults for an install dir: this machine's platform, every source, no mirror.
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            on_create: true,
            source: SourcePreference::Auto,
            mirror: Mirror::default(),
            platform: platform::detect(),
            acp_registry: registry::RegistrySource::default(),
        }
    }
}

/// What a client asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstallRequest {
    /// A pinned version; the latest when absent.
    pub version: Option<String>,
    /// Install even when the wanted version is already there.
    pub reinstall: bool,
}

/// What an install did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallOutcome {
    pub agent: String,
    /// The version the installed binary reports (or the one installed, when it
    /// reports none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The binary (none for builtin agents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Nothing was downloaded: the wanted version was already installed.
    pub already_installed: bool,
    /// The URL or npm package installed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// The binary an agent already has, and its version.
#[derive(Debug, Clone)]
pub struct Installed {
    pub path: PathBuf,
    pub version: Option<String>,
}

/// The shared result of one install.
pub type InstallResult = Result<InstallOutcome, InstallError>;

/// An install to follow: its progress reports and its result.
pub struct Follow {
    pub progress: broadcast::Receiver<InstallProgress>,
    pub result: Shared<BoxFuture<'static, InstallResult>>,
}

/// An install under way.
#[derive(Clone)]
struct InFlight {
    id: u64,
    request: InstallRequest,
    progress: broadcast::Sender<InstallProgress>,
    result: Shared<BoxFuture<'static, InstallResult>>,
}

/// Runs installs, one at a time per agent.
pub struct Installer {
    settings: InstallSettings,
    client: reqwest::Client,
    in_flight: Arc<Mutex<HashMap<String, InFlight>>>,
    next_id: std::sync::atomic::AtomicU64,
}

impl Installer {
    /// An installer with these settings. Package folders of earlier installs
    /// that nothing runs from any more are removed.
    pub fn new(settings: InstallSettings) -> Self {
        place::remove_unused(&settings.dir);
        Self {
            settings,
            client: download::client(),
            in_flight: Arc::default(),
            next_id: Default::default(),
        }
    }

    /// The settings.
    pub fn settings(&self) -> &InstallSettings {
        &self.settings
    }

    /// Follows the install of `agent` for `request`: the one under way when it was
    /// asked for the same thing, else a new one (after any other under way) made by
    /// `job` and run in its own task, so a client that goes away does not cut it short.
    pub async fn follow<F>(&self, agent: &str, request: &InstallRequest, job: F) -> Follow
    where
        F: FnOnce(Arc<Progress>) -> BoxFuture<'static, InstallResult>,
    {
        loop {
            let other = {
                let mut in_flight = self.in_flight.lock().unwrap();
                match in_flight.get(agent) {
                    Some(install) if install.request == *request => {
                        return Follow {
                            progress: install.progress.subscribe(),
                            result: install.result.clone(),
                        }
                    }
                    Some(install) => install.clone(),
                    None => {
                        let install = self.spawn(agent, request, job);
                        let follow = Follow {
                            progress: install.progress.subscribe(),
                            result: install.result.clone(),
                        };
                        in_flight.insert(agent.to_owned(), install);
                        return follow;
                    }
                }
            };
            let _ = other.result.await;
            self.in_flight.lock().unwrap().remove_if_id(agent, other.id);
        }
    }

    /// Starts `job` in its own task; it leaves the in-flight table when done.
    fn spawn<F>(&self, agent: &str, request: &InstallRequest, job: F) -> InFlight
    where
        F: FnOnce(Arc<Progress>) -> BoxFuture<'static, InstallResult>,
    {
        let (sender, _) = broadcast::channel(256);
        let id = self
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let in_flight = self.in_flight.clone();
        let job = job(Arc::new(Progress::new(agent, sender.clone())));
        let owner = agent.to_owned();
        let task = tokio::spawn(async move {
            let result = job.await;
            in_flight.lock().unwrap().remove_if_id(&owner, id);
            result
        });
        let result = async move {
            task.await
                .unwrap_or_else(|error| Err(InstallError::Task(Arc::new(error))))
        }
        .boxed()
        .shared();
        InFlight {
            id,
            request: request.clone(),
            progress: sender,
            result,
        }
    }

    /// Installs `adapter`'s agent unless `installed` already is the wanted version.
    pub async fn install(
        &self,
        adapter: &LoadedAdapter,
        request: &InstallRequest,
        installed: Option<Installed>,
        progress: &Progress,
    ) -> Result<Done, InstallError> {
        let (version, recipe, latest_error) = self.resolve(adapter, request, progress).await?;
        if let Some(installed) = installed {
            let wanted = version.is_none() || installed.version == version;
            if wanted && !request.reinstall {
                return Ok(Done::AlreadyInstalled(installed));
            }
        }
        let binary_name = recipe.binary_name.as_str();
        if binary_name.is_empty()
            || binary_name.starts_with('.')
            || binary_name.contains(['/', '\\'])
        {
            return Err(InstallError::InvalidBinaryName(binary_name.to_owned()));
        }
        let mut failures = Vec::new();
        if self.settings.source.releases() {
            for source in &recipe.sources {
                let Some(url) = sources::with_version(&source.url, version.as_deref()) else {
                    failures.push(latest_error.clone().unwrap_or_else(|| {
                        InstallError::NoSource(format!("{} needs a version", source.url))
                    }));
                    continue;
                };
                let url = self.settings.mirror.rewrite(&url);
                match self
                    .install_release(adapter, &recipe, source, &url, version.as_deref(), progress)
                    .await
                {
                    Ok(path) => {
                        return Ok(Done::Placed {
                            path,
                            version,
                            source: url,
                        })
                    }
                    Err(error) => {
                        tracing::warn!(agent = adapter.id(), %error, "install source failed");
                        failures.push(error);
                    }
                }
            }
        }
        if let (true, Some(package)) = (self.settings.source.npm(), &recipe.npm_package) {
            let spec = sources::npm_spec(package, version.as_deref());
            match self.install_npm(&recipe, &spec, progress).await {
                Ok(path) => {
                    return Ok(Done::Placed {
                        path,
                        version,
                        source: format!("npm:{spec}"),
                    })
                }
                Err(error) => failures.push(error),
            }
        }
        Err(match failures.len() {
            0 => InstallError::NoSource(format!(
                "the recipe has no {} source",
                match self.settings.source {
                    SourcePreference::Npm => "npm",
                    SourcePreference::Release => "download",
                    SourcePreference::Auto => "download or npm",
                }
            )),
            1 => failures.remove(0),
            _ => InstallError::AllSourcesFailed(failures),
        })
    }

    /// The version to install and the recipe for it; when the latest version cannot
    /// be learned, the recipe without one and why.
    async fn resolve(
        &self,
        adapter: &LoadedAdapter,
        request: &InstallRequest,
        progress: &Progress,
    ) -> Result<(Option<String>, InstallRecipe, Option<InstallError>), InstallError> {
        let plan = |version: Option<&str>| {
            adapter
                .install_plan(self.settings.platform, version)
                .map_err(InstallError::adapter)?
                .ok_or_else(|| InstallError::NoBuild {
                    platform: platform::name(&self.settings.platform),
                })
        };
        let recipe = plan(request.version.as_deref())?;
        if request.version.is_some() {
            return Ok((request.version.clone(), recipe, None));
        }
        let Some(url) = &recipe.latest_version_url else {
            return Ok((None, recipe, None));
        };
        let url = self.settings.mirror.rewrite(url);
        progress.report(Stage::Resolving, &url, 0, None);
        let latest = download::fetch_text(&self.client, &url)
            .await
            .and_then(|body| {
                adapter
                    .parse_latest_version(&body)
                    .map_err(InstallError::adapter)?
                    .ok_or_else(|| InstallError::LatestVersion {
                        url: url.clone(),
                        reason: "the adapter found no version in it".into(),
                    })
            });
        match latest {
            Ok(version) => {
                let recipe = plan(Some(&version))?;
                Ok((Some(version), recipe, None))
            }
            Err(error) => {
                tracing::warn!(agent = adapter.id(), %error, "cannot learn the latest version");
                Ok((None, recipe, Some(error)))
            }
        }
    }

    /// Downloads one source, checks it, unpacks it and places the binary.
    async fn install_release(
        &self,
        adapter: &LoadedAdapter,
        recipe: &InstallRecipe,
        source: &InstallSource,
        url: &str,
        version: Option<&str>,
        progress: &Progress,
    ) -> Result<PathBuf, InstallError> {
        let staging = place::Staging::new(&self.settings.dir, &recipe.binary_name)?;
        let file_name = url.rsplit('/').next().unwrap_or_default().to_owned();
        let download = staging.path().join("download");
        let digest = download::download(&self.client, url, &download, progress).await?;
        if let Some(template) = &source.checksum_url {
            let check = Check {
                file_name: &file_name,
                digest: &digest,
                url,
            };
            self.verify(adapter, template, version, check, progress)
                .await?;
        }
        progress.report(Stage::Extracting, url, 0, None);
        let unpacked_root = staging.path().join("unpacked");
        let unpacked = archive::unpack_into(
            download,
            source.archive,
            source.binary_path.clone(),
            unpacked_root.clone(),
            url,
        )
        .await?;
        self.place(&unpacked, &unpacked_root, &recipe.binary_name)
    }

    /// Checks a download against the checksum its vendor publishes at `template`:
    /// the host fetches the document (through the mirror), the adapter finds the
    /// digest in it.
    async fn verify(
        &self,
        adapter: &LoadedAdapter,
        template: &str,
        version: Option<&str>,
        check: Check<'_>,
        progress: &Progress,
    ) -> Result<(), InstallError> {
        let vendor_url = sources::with_version(template, version)
            .ok_or_else(|| InstallError::NoSource(format!("{template} needs a version")))?;
        let checksum_url = self.settings.mirror.rewrite(&vendor_url);
        progress.report(Stage::Verifying, &checksum_url, 0, None);
        // The fragment (an adapter may point into a document with one) is not sent.
        let document_url = checksum_url.split('#').next().unwrap_or_default();
        let body = download::fetch_text(&self.client, document_url).await?;
        let expected = adapter
            .parse_checksum(&vendor_url, &body, check.file_name)
            .map_err(InstallError::adapter)?
            .map_err(|reason| InstallError::BadArchive {
                url: checksum_url.clone(),
                reason,
            })?;
        if !expected.eq_ignore_ascii_case(check.digest) {
            return Err(InstallError::ChecksumMismatch {
                url: check.url.to_owned(),
                expected,
                actual: check.digest.to_owned(),
            });
        }
        Ok(())
    }

    /// Fetches the npm package and places its binary.
    async fn install_npm(
        &self,
        recipe: &InstallRecipe,
        spec: &str,
        progress: &Progress,
    ) -> Result<PathBuf, InstallError> {
        let binary_path = recipe
            .npm_binary_path
            .as_deref()
            .unwrap_or(&recipe.binary_name);
        let staging = place::Staging::new(&self.settings.dir, &recipe.binary_name)?;
        let unpacked = npm::fetch(spec, binary_path, staging.path(), progress).await?;
        let root = staging.path().join("unpacked/package");
        self.place(&unpacked, &root, &recipe.binary_name)
    }

    /// Places a lone binary as is, or its whole folder behind a symlink.
    fn place(
        &self,
        unpacked: &archive::Unpacked,
        root: &Path,
        binary_name: &str,
    ) -> Result<PathBuf, InstallError> {
        if unpacked.alone {
            place::place_file(&unpacked.binary, &self.settings.dir, binary_name)
        } else {
            place::place_package(root, &unpacked.binary, &self.settings.dir, binary_name)
        }
    }
}

/// How an install ended.
#[derive(Debug)]
pub enum Done {
    /// The wanted version was there already.
    AlreadyInstalled(Installed),
    /// A binary was placed.
    Placed {
        path: PathBuf,
        /// The version installed, when known before asking the binary.
        version: Option<String>,
        /// The URL or `npm:<spec>` installed from.
        source: String,
    },
}

/// `HashMap` removal of an entry only when it is still the same install.
trait RemoveIfId {
    fn remove_if_id(&mut self, agent: &str, id: u64);
}

impl RemoveIfId for HashMap<String, InFlight> {
    fn remove_if_id(&mut self, agent: &str, id: u64) {
        if self.get(agent).is_some_and(|install| install.id == id) {
            self.remove(agent);
        }
    }
}

/// A download to check against its published checksum.
struct Check<'a> {
    /// The downloaded file's name, as the checksum document names it.
    file_name: &'a str,
    /// Its SHA-256, lowercase hex.
    digest: &'a str,
    /// Where it was downloaded from.
    url: &'a str,
}
