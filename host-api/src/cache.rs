//! The compile cache: components compiled on this machine, kept as artifacts
//! (see [`crate::artifact`]) named by the SHA-256 of their WebAssembly.
//!
//! An entry is used only when its header, its checksums, the component it was
//! compiled from and the engine that compiled it all match; anything else (a
//! truncated write, a foreign file, another daemon build) is compiled again and
//! the entry replaced. Writes go to a temporary file renamed into place, so a
//! reader never sees half an entry.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::artifact::{self, Artifact};

/// A folder of compiled components.
#[derive(Debug, Clone)]
pub(crate) struct CompileCache {
    dir: PathBuf,
}

/// A cache entry that passed every check but wasmtime's own.
pub(crate) struct Entry {
    pub(crate) facts: artifact::AdapterFacts,
    pub(crate) code: Vec<u8>,
}

impl CompileCache {
    pub(crate) fn new(root: &Path) -> Self {
        Self {
            dir: root.join("adapters"),
        }
    }

    fn path(&self, source_sha256: &[u8; 32]) -> PathBuf {
        self.dir.join(format!("{}.precompiled", hex(source_sha256)))
    }

    /// The entry for a component, when there is a sound one made by an engine
    /// with `compatibility`. A missing entry is `None`; a damaged or foreign one is
    /// `None` with a warning.
    pub(crate) fn load(&self, source_sha256: &[u8; 32], compatibility: u64) -> Option<Entry> {
        let path = self.path(source_sha256);
        let bytes = std::fs::read(&path).ok()?;
        let checked = Artifact::decode(&bytes).and_then(|artifact| {
            let code = artifact.verified_code()?.into_owned();
            Ok((artifact, code))
        });
        match checked {
            Ok((artifact, code))
                if artifact.source_sha256 == *source_sha256
                    && artifact.compatibility == compatibility =>
            {
                Some(Entry {
                    facts: artifact.facts,
                    code,
                })
            }
            Ok(_) => {
                tracing::info!(path = %path.display(), "compile cache entry is from another component or daemon build; compiling again");
                None
            }
            Err(error) => {
                tracing::warn!(path = %path.display(), "ignoring damaged compile cache entry ({error}); compiling again");
                None
            }
        }
    }

    /// Stores an entry; failing to is only logged (the cache is an optimisation).
    pub(crate) fn store(&self, source_sha256: &[u8; 32], artifact: &[u8]) {
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(&self.dir)?;
            let mut file = tempfile::NamedTempFile::new_in(&self.dir)?;
            file.write_all(artifact)?;
            file.as_file().sync_all()?;
            file.persist(self.path(source_sha256))?;
            Ok(())
        };
        if let Err(error) = write() {
            tracing::warn!(dir = %self.dir.display(), "cannot write the compile cache: {error}");
        }
    }
}

/// Lowercase hex of some bytes.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
