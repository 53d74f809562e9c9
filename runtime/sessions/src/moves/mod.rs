//! Moving a session to another daemon: [`SessionManager::export`] writes one
//! archive ([`archive`]) with the universal transcript, the adapter's state, the
//! session's configuration and the agent's own session files ([`native`]);
//! [`SessionManager::import`] checks such an archive whole, writes the agent's
//! files where the adapter says they go in this sandbox, stores the session and
//! carries it on as a daemon restart would: the next message resumes the agent's
//! own session.

pub mod archive;
mod command;
pub mod in_place;
pub(crate) mod native;

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentplex_files::confine::UploadLimits;
use agentplex_host::Landing;
use agentplex_session::EncodedEvent;
use agentplex_store::{Checkpoint, Commit, SessionRecord, StoredSession};
use agentplex_universal::UniversalEvent;
use axum::body::Bytes;
use futures::Stream;
use tokio::sync::{mpsc, oneshot};

use crate::command::{Asked, Captured, Request};
use crate::{Session, SessionError, SessionManager};
use archive::{
    event_page_name, ArchiveWriter, Manifest, NativeFileRecord, NativeRecord, PlaceRecord,
    Unpacked, EVENTS_PER_PAGE, FORMAT, VERSION,
};
use command::CommandRunner;
use native::{Existing, Placed};

/// An export under way: what the archive holds, and its bytes as they are made.
pub struct Export {
    /// The archive's manifest (its `files` are filled in as the archive is written).
    pub manifest: Manifest,
    /// The archive's bytes: an error ends it early (the archive is then truncated,
    /// and an import refuses it).
    pub body: Box<dyn Stream<Item = io::Result<Bytes>> + Send + Unpin>,
}

/// How an archive is imported.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The session's working directory here; by default the one it had, when it
    /// exists here.
    pub directory: Option<String>,
    /// Values of the variables the export left out (`secrets` of the manifest).
    pub env: Vec<(String, String)>,
    /// The caps the unpacked archive is held to.
    pub limits: UploadLimits,
}

/// What an import did.
pub struct Imported {
    pub session: Arc<Session>,
    /// Secret variables the session had that were not supplied: the agent goes
    /// without them (or with the daemon's own).
    pub missing_secrets: Vec<String>,
    /// The agent's own session files written or handed to its import command.
    pub native_files: usize,
    /// Why the agent's own session did not come along, when it did not.
    pub lost: Option<String>,
}

/// Whether a variable's name says it holds a secret (`*_API_KEY`, `*_TOKEN`...).
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "KEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "AUTH",
        "COOKIE",
        "SESSION",
    ]
    .iter()
    .any(|word| upper.contains(word))
}

impl Session {
    /// The state the session's task stored last (for an ended session, the state it
    /// ended in).
    async fn capture(&self) -> Result<Captured, SessionError> {
        let (reply, captured) = oneshot::channel();
        let (done, outcome) = oneshot::channel();
        let sent = self.requests.send(Box::new(Request {
            command: Asked::Capture(reply),
            turn_started: None,
            done,
        }));
        if sent.is_ok() {
            match outcome.await {
                Ok(Ok(())) => {
                    if let Ok(captured) = captured.await {
                        return Ok(captured);
                    }
                }
                // The task ended while the request waited: as if it had none.
                Ok(Err(SessionError::SessionEnded { .. })) | Err(_) => {}
                Ok(Err(error)) => return Err(error),
            }
        }
        // No task: the session ended; its transcript and last state are all there is.
        let state = self.shared.state.lock().unwrap();
        Ok(Captured {
            checkpoint: Checkpoint {
                native_session_id: state.native_session_id.clone(),
                ended: true,
                updated_at: state.updated_at,
                usage: state.usage,
                modes: state.modes.clone().map(Box::new),
                ..Checkpoint::default()
            },
            snapshot: None,
            last_sequence: self.shared.log.last_sequence(),
        })
    }
}

impl SessionManager {
    /// Starts exporting the session `id`.
    pub async fn export(&self, id: &str) -> Result<Export, SessionError> {
        let session = self.get(id)?;
        let record = session.record().clone();
        let adapter = self.catalog.adapter(&record.agent)?;
        let captured = session.capture().await?;
        let place = native::place_of(&adapter, &record, Path::new(&record.directory));
        let mut native_record = NativeRecord {
            session_id: captured.checkpoint.native_session_id.clone(),
            ..NativeRecord::default()
        };
        let mut native_files = Vec::new();
        if let Some(native_id) = &captured.checkpoint.native_session_id {
            let runner = self.command_runner(&adapter, &record, Path::new(&record.directory));
            match native::read_native_files(&adapter, native_id, &place, &runner).await {
                Ok(files) => native_files = files,
                Err(reason) => native_record.lost = Some(reason),
            }
        }
        for (index, (path, _)) in native_files.iter().enumerate() {
            native_record.files.push(NativeFileRecord {
                path: path.clone(),
                entry: format!("native/{index}"),
            });
        }
        let (kept_env, secrets) = split_secrets(&record.env);
        let exported_record = SessionRecord {
            env: kept_env,
            ..record.clone()
        };
        let manifest = Manifest {
            format: FORMAT.to_owned(),
            version: VERSION,
            exported_by: format!("agentplex {}", env!("CARGO_PKG_VERSION")),
            exported_at: now_rfc3339(),
            session_id: record.id.clone(),
            agent: record.agent.clone(),
            adapter_version: adapter.info().version.clone(),
            events: captured.last_sequence,
            place: PlaceRecord::from(&place),
            secrets,
            native: native_record,
            files: Default::default(),
        };
        let (sender, receiver) = mpsc::channel::<io::Result<Bytes>>(8);
        let writing = WriteArchive {
            session,
            manifest: manifest.clone(),
            record: exported_record,
            captured,
            native_files,
        };
        let handle = tokio::runtime::Handle::current();
        tokio::task::spawn_blocking(move || {
            let out = io::BufWriter::with_capacity(64 << 10, Chunks(sender.clone()));
            if let Err(error) = writing.write(out, &handle) {
                tracing::warn!(%error, "the export of a session stopped");
                let _ = sender.blocking_send(Err(error));
            }
        });
        Ok(Export {
            manifest,
            body: Box::new(tokio_stream_from(receiver)),
        })
    }

    /// Imports an archive (read from `body`) as the session `id`.
    pub async fn import(
        &self,
        id: &str,
        body: impl Read + Send + 'static,
        options: ImportOptions,
    ) -> Result<Imported, SessionError> {
        crate::validate_session_id(id)?;
        self.refuse_existing(id)?;
        let staging_root = self.scratch_root.with_file_name("imports");
        crate::make_private_dir(&staging_root).map_err(|error| {
            SessionError::io(format!("cannot make {}", staging_root.display()), error)
        })?;
        let staging = tempfile::Builder::new()
            .prefix("import-")
            .tempdir_in(&staging_root)
            .map_err(|error| SessionError::io("cannot make an import folder", error))?;
        let unpack_into = staging.path().to_owned();
        let limits = options.limits;
        tokio::task::spawn_blocking(move || {
            agentplex_files::upload::unpack_from(&unpack_into, body, limits)
        })
        .await
        .map_err(|error| SessionError::Internal(error.to_string()))?
        .map_err(|error| match error {
            agentplex_files::FsError::TooLarge(_) => SessionError::WorkingDirectory(error),
            other => {
                SessionError::InvalidArchive(format!("the archive cannot be unpacked: {other}"))
            }
        })?;
        let prepared = self.prepare_import(id, staging.path(), options).await?;
        self.refuse_existing(id)?;
        let commands = prepared.landed.commands.len();
        let written = land(
            prepared.landed,
            &prepared.place,
            &prepared.runner,
            staging.path(),
            Existing::Refuse,
        )
        .await?;
        let carried = written.len() + commands;
        let stored = prepared.stored;
        let stored_in = tokio::task::block_in_place(|| {
            self.store.insert_session(&stored.record)?;
            self.store.commit(Commit {
                session_id: stored.record.id.clone(),
                events: stored.tail.clone(),
                checkpoint: stored.checkpoint.clone(),
                snapshot: stored.snapshot.clone(),
            })
        });
        if let Err(error) = stored_in {
            native::undo(&written);
            let _ = self.store.delete_session(id);
            return Err(error.into());
        }
        let mut restored = stored;
        let keep = restored.tail.len().saturating_sub(crate::TAIL_EVENTS);
        restored.tail.drain(..keep);
        self.carry_on_all(vec![restored], agentplex_session::CarriedOn::Move)
            .await;
        Ok(Imported {
            session: self.get(id)?,
            missing_secrets: prepared.missing_secrets,
            native_files: carried,
            lost: prepared.lost,
        })
    }

    /// A 409 when a session `id` exists here.
    fn refuse_existing(&self, id: &str) -> Result<(), SessionError> {
        match self.get(id) {
            Ok(_) => Err(SessionError::SessionAlreadyExists {
                session_id: id.to_owned(),
            }),
            Err(_) => Ok(()),
        }
    }

    /// Reads and checks the unpacked archive, and works out everything the import
    /// writes, before anything is written.
    async fn prepare_import(
        &self,
        id: &str,
        root: &Path,
        options: ImportOptions,
    ) -> Result<PreparedImport, SessionError> {
        let invalid = SessionError::InvalidArchive;
        let unpacked = Unpacked::check(root).map_err(invalid)?;
        let manifest = unpacked.manifest.clone();
        let adapter = self.catalog.adapter(&manifest.agent)?;
        let mut record: SessionRecord = unpacked.json("session.json").map_err(invalid)?;
        let mut checkpoint: Checkpoint = unpacked.json("checkpoint.json").map_err(invalid)?;
        let mut snapshot = match unpacked.manifest.files.contains_key("snapshot.bin") {
            true => Some(unpacked.read("snapshot.bin").map_err(invalid)?),
            false => None,
        };
        if record.agent != manifest.agent {
            return Err(invalid(format!(
                "session.json names agent {:?}, the manifest {:?}",
                record.agent, manifest.agent
            )));
        }
        let events = read_events(&unpacked, id, manifest.events).map_err(invalid)?;
        let directory = self.import_directory(&record, options.directory.as_deref())?;
        record.id = id.to_owned();
        record.directory = directory.display().to_string();
        let mut missing_secrets = Vec::new();
        for name in &manifest.secrets {
            if !options.env.iter().any(|(key, _)| key == name) {
                missing_secrets.push(name.clone());
            }
        }
        forget_place(&adapter, &mut record);
        record.env.extend(options.env.iter().cloned());
        record.skills.retain(|(name, folder)| {
            let there = Path::new(folder).is_dir();
            if !there {
                tracing::warn!(session_id = id, skill = %name, "the skill's folder {folder} is not here: the imported session goes without it");
            }
            there
        });
        // The processes were the old sandbox's: reported lost, never signalled here.
        for process in &mut checkpoint.processes {
            process.started = None;
        }
        if !checkpoint.ended {
            self.catalog.ensure_installed(&adapter, None).await?;
        }
        let to = native::place_of(&adapter, &record, &directory);
        let from = agentplex_host::Place::from(manifest.place.clone());
        let mut landed = match &manifest.native.lost {
            Some(reason) => Landed::lost(reason.clone()),
            None => {
                let mut files = Vec::new();
                for file in &manifest.native.files {
                    files.push((
                        file.path.clone(),
                        unpacked.read(&file.entry).map_err(invalid)?,
                    ));
                }
                landed(&adapter, files, &from, &to)?
            }
        };
        if landed.lost.is_some() {
            // The agent starts a new session of its own: neither the adapter's
            // state nor the native id would find the old one.
            checkpoint.native_session_id = None;
            snapshot = None;
            landed.files.clear();
            landed.commands.clear();
        }
        let runner = self.command_runner(&adapter, &record, &directory);
        Ok(PreparedImport {
            stored: StoredSession {
                record,
                checkpoint,
                snapshot,
                tail: events,
            },
            lost: landed.lost.clone(),
            landed,
            runner,
            place: to,
            missing_secrets,
        })
    }

    /// How the agent's own commands run for the session of `record` in `directory`.
    pub(crate) fn command_runner(
        &self,
        adapter: &agentplex_host::LoadedAdapter,
        record: &SessionRecord,
        directory: &Path,
    ) -> CommandRunner {
        let mut env = self
            .catalog
            .credentials_env(adapter, &record.env, directory);
        env.extend(record.env.iter().cloned());
        CommandRunner {
            env,
            env_remove: self.catalog.foreign_credential_env(&record.agent),
            cwd: directory.to_owned(),
            install_dir: self.catalog.install_dir().to_owned(),
        }
    }

    /// The imported session's working directory: the one asked for, else the one it
    /// had when it exists here.
    fn import_directory(
        &self,
        record: &SessionRecord,
        asked: Option<&str>,
    ) -> Result<PathBuf, SessionError> {
        if let Some(asked) = asked {
            return crate::resolve_directory(Some(asked));
        }
        let old = Path::new(&record.directory);
        if old.is_dir() {
            return Ok(old.to_owned());
        }
        Err(SessionError::InvalidRequest(format!(
            "the session's working directory {} does not exist here: name one with `directory`",
            record.directory
        )))
    }
}

/// What an import writes, worked out.
struct PreparedImport {
    stored: StoredSession,
    landed: Landed,
    runner: CommandRunner,
    place: agentplex_host::Place,
    missing_secrets: Vec<String>,
    lost: Option<String>,
}

/// Where the agent keeps its files is this sandbox's to say: a session that
/// comes from another sandbox does not carry over the home and location
/// variables it had there (an importer may give them again).
pub(crate) fn forget_place(adapter: &agentplex_host::LoadedAdapter, record: &mut SessionRecord) {
    let location = &adapter.info().location_env;
    record
        .env
        .retain(|(name, _)| name != "HOME" && !location.contains(name));
}

/// The agent's own session files as this sandbox takes them: where each is
/// written, what the agent's import commands take in, or why they cannot come.
#[derive(Default)]
pub(crate) struct Landed {
    files: Vec<Placed>,
    /// The agent's import commands, with the file each takes in.
    commands: Vec<(agentplex_host::NativeCommand, Vec<u8>)>,
    /// Why the files cannot come (then there are none).
    pub(crate) lost: Option<String>,
}

impl Landed {
    /// Nothing comes, for `reason`.
    pub(crate) fn lost(reason: String) -> Self {
        Self {
            lost: Some(reason),
            ..Self::default()
        }
    }
}

/// Asks the adapter where each of the agent's `files`, read at `from`, goes at
/// `to`, each confined beneath `to`'s folders. An adapter that cannot move one
/// of them says why: then none comes (a part of a session is no session).
pub(crate) fn landed(
    adapter: &agentplex_host::LoadedAdapter,
    files: Vec<(String, Vec<u8>)>,
    from: &agentplex_host::Place,
    to: &agentplex_host::Place,
) -> Result<Landed, SessionError> {
    let mut landed = Landed::default();
    let agent = &adapter.info().id;
    for (path, contents) in files {
        let moved = adapter
            .move_native_file(&path, &contents, from, to)
            .map_err(|error| SessionError::AdapterFailed {
                agent: agent.clone(),
                detail: error.to_string(),
            })?;
        match moved {
            Ok(Landing::Command(command)) => landed.commands.push((command, contents)),
            Ok(Landing::File(moved)) => {
                let target = native::confined(&moved.path, to).map_err(|reason| {
                    SessionError::ImportConflict(format!(
                        "the adapter would write the agent's file {path} at {}: {reason}",
                        moved.path
                    ))
                })?;
                landed.files.push(Placed {
                    path: target,
                    contents: moved.contents,
                });
            }
            Err(reason) => return Ok(Landed::lost(reason)),
        }
    }
    Ok(landed)
}

/// Writes the landed files at `place` and runs the agent's import commands
/// (each given its file through a file in `scratch`); the files written, none
/// left behind when a step fails.
pub(crate) async fn land(
    landed: Landed,
    place: &agentplex_host::Place,
    runner: &CommandRunner,
    scratch: &Path,
    existing: Existing,
) -> Result<Vec<PathBuf>, SessionError> {
    let written = {
        let (files, place) = (landed.files, place.clone());
        tokio::task::spawn_blocking(move || native::write_native_files(&files, &place, existing))
            .await
            .map_err(|error| SessionError::Internal(error.to_string()))?
            .map_err(|error| match error {
                native::WriteError::Conflict(message) => SessionError::ImportConflict(message),
                native::WriteError::Io(message) => SessionError::Internal(message),
            })?
    };
    for (command, contents) in &landed.commands {
        let file = scratch.join("native-command-input");
        let ran = match std::fs::write(&file, contents) {
            Ok(()) => runner.run(&command.argv, Some(&file)).await,
            Err(error) => Err(format!("cannot write {}: {error}", file.display())),
        };
        if let Err(reason) = ran {
            native::undo(&written);
            return Err(SessionError::ImportConflict(format!(
                "the agent's import command refused the session: {reason}"
            )));
        }
    }
    Ok(written)
}

/// The session's variables without those that hold secrets, and those names.
fn split_secrets(env: &[(String, String)]) -> (Vec<(String, String)>, Vec<String>) {
    let mut secrets = Vec::new();
    let kept = env
        .iter()
        .filter(|(name, _)| {
            let secret = is_secret_name(name);
            if secret && !secrets.contains(name) {
                secrets.push(name.clone());
            }
            !secret
        })
        .cloned()
        .collect();
    (kept, secrets)
}

/// The archive's events, numbered 1 to `count` without a gap, as this daemon
/// stores them for the session `id`.
fn read_events(
    unpacked: &Unpacked<'_>,
    id: &str,
    count: u64,
) -> Result<Vec<Arc<EncodedEvent>>, String> {
    let mut events = Vec::with_capacity(count.min(1 << 20) as usize);
    for page in unpacked.event_pages() {
        let text = unpacked.read(page)?;
        for (line_number, line) in text.split(|byte| *byte == b'\n').enumerate() {
            if line.is_empty() {
                continue;
            }
            let mut event: UniversalEvent = serde_json::from_slice(line).map_err(|error| {
                format!(
                    "{page} line {} is not a universal event: {error}",
                    line_number + 1
                )
            })?;
            let expected = events.len() as u64 + 1;
            if event.sequence != expected {
                return Err(format!(
                    "{page} line {}: event {} where event {expected} was due (the transcript has a gap)",
                    line_number + 1,
                    event.sequence
                ));
            }
            event.session_id = id.to_owned();
            events.push(Arc::new(EncodedEvent::encode(&event)));
        }
    }
    if events.len() as u64 != count {
        return Err(format!(
            "the manifest counts {count} events, the archive holds {}",
            events.len()
        ));
    }
    Ok(events)
}

/// Everything an export writes, gathered before its first byte.
struct WriteArchive {
    session: Arc<Session>,
    manifest: Manifest,
    record: SessionRecord,
    captured: Captured,
    native_files: Vec<(String, Vec<u8>)>,
}

impl WriteArchive {
    /// Writes the archive to `out`, reading the transcript page by page.
    fn write(self, out: impl Write, runtime: &tokio::runtime::Handle) -> io::Result<()> {
        let mtime = (crate::now_millis() / 1000).max(0) as u64;
        let mut archive = ArchiveWriter::new(out, mtime);
        archive.add("session.json", &json(&self.record)?)?;
        archive.add("checkpoint.json", &json(&self.captured.checkpoint)?)?;
        if let Some(snapshot) = &self.captured.snapshot {
            archive.add("snapshot.bin", snapshot)?;
        }
        let mut after = 0;
        let mut page = 0;
        while after < self.captured.last_sequence {
            let wanted = EVENTS_PER_PAGE.min((self.captured.last_sequence - after) as usize);
            let read = runtime
                .block_on(self.session.events_after(after, wanted))
                .map_err(io::Error::other)?;
            if read.events.is_empty() {
                return Err(io::Error::other(format!(
                    "the transcript ends at event {after}, before event {}",
                    self.captured.last_sequence
                )));
            }
            let mut text = Vec::new();
            for event in &read.events {
                text.extend_from_slice(event.json(true).as_bytes());
                text.push(b'\n');
                after = event.sequence;
            }
            archive.add(&event_page_name(page), &text)?;
            page += 1;
        }
        for (record, (_, contents)) in self.manifest.native.files.iter().zip(&self.native_files) {
            archive.add(&record.entry, contents)?;
        }
        archive.finish(self.manifest)?.flush()
    }
}

/// A record of the archive as JSON.
fn json(value: &impl serde::Serialize) -> io::Result<Vec<u8>> {
    serde_json::to_vec_pretty(value).map_err(io::Error::other)
}

/// A writer that hands what it is given, chunk by chunk, to the response body.
struct Chunks(mpsc::Sender<io::Result<Bytes>>);

impl Write for Chunks {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .blocking_send(Ok(Bytes::copy_from_slice(buf)))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the client went away"))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The chunks of a channel as a stream.
fn tokio_stream_from(
    receiver: mpsc::Receiver<io::Result<Bytes>>,
) -> impl Stream<Item = io::Result<Bytes>> + Send + Unpin {
    Box::pin(futures::stream::unfold(
        receiver,
        |mut receiver| async move { receiver.recv().await.map(|chunk| (chunk, receiver)) },
    ))
}

/// Now as RFC 3339.
fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}
