//! Where the registry's index comes from: its URL (fetched, kept in a cache
//! file, fetched again when the copy is older than an hour, and the copy used
//! when a fetch fails), or a snapshot file pinned for a sandbox that reaches no
//! such URL (read as it is on every call).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::index::{Index, IndexError};
use crate::{download, Mirror};

/// The public registry's index.
pub const DEFAULT_URL: &str =
    "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json";

/// How old a cached copy of the index may be before it is fetched again.
pub const MAX_AGE: Duration = Duration::from_secs(3600);

/// Where the index is read from (`--acp-registry`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistrySource {
    /// An `http(s)` URL, fetched (through the releases mirror) and cached.
    Url(String),
    /// A snapshot file.
    File(PathBuf),
}

impl RegistrySource {
    /// A URL when `text` starts with `http://` or `https://`, else a file path.
    pub fn parse(text: &str) -> Self {
        if text.starts_with("http://") || text.starts_with("https://") {
            RegistrySource::Url(text.to_owned())
        } else {
            RegistrySource::File(PathBuf::from(text))
        }
    }
}

impl Default for RegistrySource {
    fn default() -> Self {
        RegistrySource::Url(DEFAULT_URL.to_owned())
    }
}

impl std::fmt::Display for RegistrySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegistrySource::Url(url) => f.write_str(url),
            RegistrySource::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// Why the index cannot be had.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SourceError {
    /// The URL gave no index and there is no cached copy.
    #[error("cannot fetch the ACP registry from {url}: {reason}")]
    Fetch { url: String, reason: String },
    /// The snapshot file cannot be read.
    #[error("cannot read the ACP registry snapshot {path}: {reason}")]
    File { path: String, reason: String },
    /// What was read is no index.
    #[error("{origin}: {error}")]
    Index { origin: String, error: IndexError },
}

/// The index as read, and where from.
#[derive(Debug, Clone)]
pub struct Listing {
    /// The index.
    pub index: Index,
    /// The URL or file it came from.
    pub source: String,
    /// When the copy was fetched (the snapshot's modification time for a file).
    pub fetched_at: Option<SystemTime>,
    /// Why a cached copy older than [`MAX_AGE`] is shown (the fetch's failure).
    pub stale: Option<String>,
}

/// Reads the index from its source.
#[derive(Debug, Clone)]
pub struct Registry {
    source: RegistrySource,
    /// Where a fetched index is kept.
    cache: PathBuf,
    mirror: Mirror,
    client: reqwest::Client,
}

impl Registry {
    /// A registry read from `source`, its fetched copies kept at `cache`.
    pub fn new(source: RegistrySource, cache: PathBuf, mirror: Mirror) -> Self {
        Self {
            source,
            cache,
            mirror,
            client: download::client(),
        }
    }

    /// Where it is read from.
    pub fn source(&self) -> &RegistrySource {
        &self.source
    }

    /// The index: the snapshot file's, or the cached copy while it is fresh (and
    /// `refresh` is false), else fetched anew (the cached copy when that fails).
    pub async fn listing(&self, refresh: bool) -> Result<Listing, SourceError> {
        let url = match &self.source {
            RegistrySource::File(path) => return read_snapshot(path),
            RegistrySource::Url(url) => url,
        };
        let cached = read_cache(&self.cache, url);
        let fresh = |listing: &&Listing| {
            let age = listing
                .fetched_at
                .and_then(|at| SystemTime::now().duration_since(at).ok());
            !refresh && age.is_some_and(|age| age < MAX_AGE)
        };
        if let Some(listing) = cached.as_ref().filter(fresh) {
            return Ok(listing.clone());
        }
        let fetched_from = self.mirror.rewrite(url);
        let fetched = download::fetch_text(&self.client, &fetched_from)
            .await
            .map_err(|error| error.to_string())
            .and_then(|text| {
                let index = Index::parse(&text).map_err(|e| e.to_string())?;
                Ok((text, index))
            });
        match (fetched, cached) {
            (Ok((text, index)), _) => {
                write_cache(&self.cache, &text);
                Ok(Listing {
                    index,
                    source: url.clone(),
                    fetched_at: Some(SystemTime::now()),
                    stale: None,
                })
            }
            (Err(reason), Some(cached)) => {
                tracing::warn!(%url, %reason, "cannot fetch the ACP registry; using the cached copy");
                Ok(Listing {
                    stale: Some(reason),
                    ..cached
                })
            }
            (Err(reason), None) => Err(SourceError::Fetch {
                url: fetched_from,
                reason,
            }),
        }
    }
}

fn read_snapshot(path: &Path) -> Result<Listing, SourceError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| SourceError::File {
        path: origin.clone(),
        reason: e.to_string(),
    })?;
    let index = Index::parse(&text).map_err(|error| SourceError::Index {
        origin: origin.clone(),
        error,
    })?;
    Ok(Listing {
        index,
        source: origin,
        fetched_at: std::fs::metadata(path).and_then(|m| m.modified()).ok(),
        stale: None,
    })
}

/// The cached copy, when there is a readable one.
fn read_cache(cache: &Path, url: &str) -> Option<Listing> {
    let text = std::fs::read_to_string(cache).ok()?;
    let index = Index::parse(&text).ok()?;
    Some(Listing {
        index,
        source: url.to_owned(),
        fetched_at: std::fs::metadata(cache).and_then(|m| m.modified()).ok(),
        stale: None,
    })
}

/// Keeps a fetched index (written aside, then renamed: a reader never sees half).
fn write_cache(cache: &Path, text: &str) {
    let partial = cache.with_extension("partial");
    let written = cache
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&partial, text))
        .and_then(|()| std::fs::rename(&partial, cache));
    if let Err(error) = written {
        tracing::warn!(path = %cache.display(), %error, "cannot keep the ACP registry's index");
    }
}
