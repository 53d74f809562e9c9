//! The session archive: a gzip-compressed tar of one session, its manifest last.
//!
//! ```text
//! session.json          what the session was created with (secret variables left out)
//! checkpoint.json       the state its task committed last
//! snapshot.bin          the adapter's state as of that checkpoint (when it has one)
//! events/000001.jsonl   the universal transcript, a page per file, one event per line
//! native/0, native/1..  the agent's own session files (where they were: the manifest)
//! manifest.json         what the archive holds, each file's size and SHA-256
//! ```
//!
//! A reader trusts nothing before the manifest checks out: every file it names is
//! there with its size and digest, and nothing else is.

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The `format` of every manifest.
pub const FORMAT: &str = "agentplex-session";
/// The newest archive version this daemon writes and reads.
pub const VERSION: u32 = 1;
/// The manifest's name in the archive.
pub const MANIFEST: &str = "manifest.json";
/// Events per page file.
pub const EVENTS_PER_PAGE: usize = 1000;
/// What an agent's import command has replaced by the path of the file it takes in.
pub const EXPORT_PLACEHOLDER: &str = "{file}";

/// Where an agent ran, as the archive records it (see the contract's `place`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlaceRecord {
    pub home: String,
    pub directory: String,
    #[serde(default)]
    pub env: Vec<(String, String)>,
}

impl From<&agentplex_host::Place> for PlaceRecord {
    fn from(place: &agentplex_host::Place) -> Self {
        Self {
            home: place.home.clone(),
            directory: place.directory.clone(),
            env: place.env.clone(),
        }
    }
}

impl From<PlaceRecord> for agentplex_host::Place {
    fn from(place: PlaceRecord) -> Self {
        Self {
            home: place.home,
            directory: place.directory,
            env: place.env,
        }
    }
}

/// One of the agent's own session files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NativeFileRecord {
    /// Its absolute path where the session was exported, or the name of the
    /// agent's export command's output.
    pub path: String,
    /// Its name in the archive.
    pub entry: String,
}

/// The agent's own session as the archive carries it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NativeRecord {
    /// The agent's id for it, when it had one.
    pub session_id: Option<String>,
    /// Why the agent's own session did not come along, when it did not: the
    /// session then starts a new agent session after the move.
    pub lost: Option<String>,
    /// Its files.
    pub files: Vec<NativeFileRecord>,
}

/// Size and digest of an archived file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Digest256 {
    pub bytes: u64,
    pub sha256: String,
}

/// What an archive holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// The archive version ([`VERSION`] when written by this daemon).
    pub version: u32,
    /// The daemon that wrote it (`agentplex 0.3.0`).
    pub exported_by: String,
    /// RFC 3339.
    pub exported_at: String,
    pub session_id: String,
    pub agent: String,
    /// The version of the adapter that ran the session.
    pub adapter_version: String,
    /// Events in the transcript (numbered 1 to this).
    pub events: u64,
    /// Where the agent ran.
    pub place: PlaceRecord,
    /// Variables of the session left out because they hold secrets: the importer
    /// supplies them, or the agent goes without.
    pub secrets: Vec<String>,
    pub native: NativeRecord,
    /// Every other file of the archive.
    pub files: BTreeMap<String, Digest256>,
}

/// Writes an archive: files, then the manifest, into a gzip-compressed tar.
pub struct ArchiveWriter<W: Write> {
    tar: tar::Builder<flate2::write::GzEncoder<W>>,
    files: BTreeMap<String, Digest256>,
    mtime: u64,
}

impl<W: Write> ArchiveWriter<W> {
    /// An archive written to `out`, its files dated `mtime` (Unix seconds).
    pub fn new(out: W, mtime: u64) -> Self {
        let gzip = flate2::write::GzEncoder::new(out, flate2::Compression::fast());
        Self {
            tar: tar::Builder::new(gzip),
            files: BTreeMap::new(),
            mtime,
        }
    }

    /// Adds the file `name` holding `contents`.
    pub fn add(&mut self, name: &str, contents: &[u8]) -> io::Result<()> {
        let mut header = tar::Header::new_gnu();
        header.set_size(contents.len() as u64);
        header.set_mode(0o600);
        header.set_mtime(self.mtime);
        header.set_entry_type(tar::EntryType::Regular);
        self.tar.append_data(&mut header, name, contents)?;
        self.files.insert(name.to_owned(), digest(contents));
        Ok(())
    }

    /// Adds the manifest (its `files` filled in) and ends the archive.
    pub fn finish(mut self, mut manifest: Manifest) -> io::Result<W> {
        manifest.files = std::mem::take(&mut self.files);
        let json = serde_json::to_vec_pretty(&manifest).map_err(io::Error::other)?;
        let mut header = tar::Header::new_gnu();
        header.set_size(json.len() as u64);
        header.set_mode(0o600);
        header.set_mtime(self.mtime);
        header.set_entry_type(tar::EntryType::Regular);
        self.tar
            .append_data(&mut header, MANIFEST, json.as_slice())?;
        self.tar.into_inner()?.finish()
    }
}

/// The size and SHA-256 of `contents`.
pub fn digest(contents: &[u8]) -> Digest256 {
    Digest256 {
        bytes: contents.len() as u64,
        sha256: hex(&Sha256::digest(contents)),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// An archive unpacked in a folder, its manifest checked.
pub struct Unpacked<'a> {
    root: &'a Path,
    pub manifest: Manifest,
}

impl<'a> Unpacked<'a> {
    /// Reads and checks the manifest of the archive unpacked under `root`: its
    /// format and version, and that the folder holds exactly the files it names,
    /// each of its size and digest. The error says what is wrong.
    pub fn check(root: &'a Path) -> Result<Self, String> {
        let manifest_path = root.join(MANIFEST);
        let text = match std::fs::read(&manifest_path) {
            Ok(text) => text,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                return Err(format!(
                    "not an agentplex session archive: it has no {MANIFEST} (a truncated \
                     download, or another kind of archive)"
                ))
            }
            Err(error) => return Err(format!("cannot read {MANIFEST}: {error}")),
        };
        let head: serde_json::Value = serde_json::from_slice(&text)
            .map_err(|error| format!("{MANIFEST} is not JSON: {error}"))?;
        if head.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(format!(
                "not an agentplex session archive: its {MANIFEST} has no \"format\": \"{FORMAT}\""
            ));
        }
        match head.get("version").and_then(|v| v.as_u64()) {
            Some(version) if version > u64::from(VERSION) => {
                return Err(format!(
                    "the archive is version {version}, newer than this daemon reads (up to \
                     {VERSION}): upgrade agentplex here"
                ))
            }
            Some(0) | None => return Err(format!("{MANIFEST} has no valid \"version\"")),
            Some(_) => {}
        }
        let manifest: Manifest = serde_json::from_value(head)
            .map_err(|error| format!("{MANIFEST} is damaged: {error}"))?;
        let unpacked = Self { root, manifest };
        unpacked.check_files()?;
        Ok(unpacked)
    }

    /// Every file named is there, as described; nothing else is.
    fn check_files(&self) -> Result<(), String> {
        let mut found = Vec::new();
        for entry in walkdir::WalkDir::new(self.root).min_depth(1) {
            let entry = entry.map_err(|error| format!("cannot list the archive: {error}"))?;
            let relative = entry
                .path()
                .strip_prefix(self.root)
                .map_err(|error| error.to_string())?
                .to_string_lossy()
                .into_owned();
            if entry.file_type().is_dir() {
                continue;
            }
            if !entry.file_type().is_file() {
                return Err(format!(
                    "the archive entry {relative} is not a regular file"
                ));
            }
            if relative != MANIFEST {
                found.push(relative);
            }
        }
        for name in &found {
            if !self.manifest.files.contains_key(name) {
                return Err(format!(
                    "the archive holds {name}, which its manifest does not name"
                ));
            }
        }
        for (name, expected) in &self.manifest.files {
            let contents = self.read(name)?;
            if digest(&contents) != *expected {
                return Err(format!(
                    "the archive entry {name} is damaged: its size or SHA-256 differs from the manifest's"
                ));
            }
        }
        Ok(())
    }

    /// The contents of the archived file `name` (one the manifest names).
    pub fn read(&self, name: &str) -> Result<Vec<u8>, String> {
        if !self.manifest.files.contains_key(name)
            || name.split('/').any(|part| part == ".." || part.is_empty())
        {
            return Err(format!("the manifest names no file {name}"));
        }
        let mut contents = Vec::new();
        std::fs::File::open(self.root.join(name))
            .and_then(|mut file| file.read_to_end(&mut contents))
            .map_err(|error| match error.kind() {
                io::ErrorKind::NotFound => {
                    format!("the archive lacks {name}, which its manifest names")
                }
                _ => format!("cannot read the archive entry {name}: {error}"),
            })?;
        Ok(contents)
    }

    /// The JSON file `name`, decoded.
    pub fn json<T: serde::de::DeserializeOwned>(&self, name: &str) -> Result<T, String> {
        serde_json::from_slice(&self.read(name)?)
            .map_err(|error| format!("the archive entry {name} is damaged: {error}"))
    }

    /// The names of the event pages, in order.
    pub fn event_pages(&self) -> Vec<&str> {
        self.manifest
            .files
            .keys()
            .filter(|name| name.starts_with("events/") && name.ends_with(".jsonl"))
            .map(String::as_str)
            .collect()
    }
}

/// The name of the event page that starts at event `index` (0-based).
pub fn event_page_name(page: usize) -> String {
    format!("events/{:06}.jsonl", page + 1)
}
