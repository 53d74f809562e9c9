//! Git skill sources, cloned once per URL and ref into the daemon's skills cache
//! (`<data-dir>/skills`, mode 0700): one clone at a time per destination (the
//! other creates that want it wait for it), each in a folder of its own renamed
//! into place when whole, under a deadline after which git's whole process group
//! is killed. Git runs without the system's or the user's configuration, with
//! only the source's transport allowed, and with no hooks.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentplex_api::{redact_url, scrub_url, SkillSource};
use tokio::io::AsyncReadExt;
use tokio::time::Instant;

use super::source::{self, Transport};
use crate::SessionError;
use agentplex_processes::group::{Leader, Pipes};

/// How long fetching one git skill source may take unless told otherwise.
pub const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(120);

/// Most bytes of git's error output kept for the answer.
const STDERR_BYTES: u64 = 16 << 10;

/// The name of a clone in progress starts with this (left-overs are removed when
/// the daemon starts).
const PARTIAL_PREFIX: &str = ".partial-";

/// Variables that would point git at another repository or configuration.
const GIT_LOCAL_VARIABLES: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_SYSTEM",
    "GIT_NAMESPACE",
    "GIT_SHALLOW_FILE",
    "GIT_REPLACE_REF_BASE",
    "GIT_PROTOCOL_FROM_USER",
];

/// How git skill sources are fetched.
#[derive(Debug, Clone, Copy)]
pub struct GitSettings {
    /// `file://` URLs and local paths are allowed (`--allow-local-skill-repos`).
    pub allow_local: bool,
    /// How long fetching one source may take (`--skill-fetch-timeout-ms`).
    pub fetch_timeout: Duration,
}

impl Default for GitSettings {
    fn default() -> Self {
        Self {
            allow_local: false,
            fetch_timeout: DEFAULT_FETCH_TIMEOUT,
        }
    }
}

/// The daemon's cache of git skill sources.
pub struct GitCache {
    root: PathBuf,
    settings: GitSettings,
    /// One lock per destination folder, kept as long as the folder (a few bytes each).
    destinations: Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>,
}

impl GitCache {
    /// A cache in `root` (made when first needed), fetching as `settings` say.
    /// Clones left half done by an earlier daemon are removed.
    pub fn new(root: PathBuf, settings: GitSettings) -> Self {
        for entry in std::fs::read_dir(&root).into_iter().flatten().flatten() {
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with(PARTIAL_PREFIX)
            {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        Self {
            root,
            settings,
            destinations: Mutex::default(),
        }
    }

    /// The cache's folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The clone of `source` at its ref (a relative local path is taken from
    /// `directory`), fetched unless it is cached; checked first (400), then
    /// fetched within the timeout (504 past it).
    pub async fn fetch(
        &self,
        source: &SkillSource,
        directory: &Path,
    ) -> Result<PathBuf, SessionError> {
        let shown = redact_url(&source.source);
        let transport = source::transport(&source.source, &shown, self.settings.allow_local)?;
        let git_ref = source.git_ref.as_deref().unwrap_or("HEAD");
        source::check_ref(git_ref)?;
        let relative_path = transport == Transport::Local
            && !source.source.contains("://")
            && Path::new(&source.source).is_relative();
        let url = match relative_path {
            true => directory.join(&source.source).display().to_string(),
            false => source.source.clone(),
        };
        let dir = self.root.join(key(&url, source.git_ref.as_deref()));
        let lock = self
            .destinations
            .lock()
            .unwrap()
            .entry(dir.clone())
            .or_default()
            .clone();
        let _one_at_a_time = lock.lock().await;
        if dir.join(".git").is_dir() {
            return Ok(dir);
        }
        let fetch = Fetch {
            url: &url,
            shown: &shown,
            git_ref,
            transport,
        };
        fetch
            .run(&self.root, &dir, self.settings.fetch_timeout)
            .await
    }
}

/// The cache folder name of a URL and ref (the same as earlier releases used).
fn key(url: &str, git_ref: Option<&str>) -> String {
    use sha2::Digest;
    let key = format!("{url}\n{}", git_ref.unwrap_or(""));
    format!("{:x}", sha2::Sha256::digest(key.as_bytes()))
}

/// One fetch of a checked source.
struct Fetch<'a> {
    url: &'a str,
    /// The source with its credentials redacted, for messages.
    shown: &'a str,
    git_ref: &'a str,
    transport: Transport,
}

impl Fetch<'_> {
    /// Clones into a fresh folder under `root`, renamed to `dir` once whole; the
    /// folder is removed when anything fails (or the caller goes away).
    async fn run(
        &self,
        root: &Path,
        dir: &Path,
        timeout: Duration,
    ) -> Result<PathBuf, SessionError> {
        let internal = |error| SessionError::io(root.display().to_string(), error);
        crate::make_private_dir(root).map_err(internal)?;
        let partial = tempfile::Builder::new()
            .prefix(PARTIAL_PREFIX)
            .tempdir_in(root)
            .map_err(internal)?;
        let deadline = Instant::now() + timeout;
        let steps: [&[&str]; 3] = [
            &["init", "--quiet", "--template="],
            &[
                "fetch",
                "--quiet",
                "--no-tags",
                "--no-recurse-submodules",
                "--depth",
                "1",
                "--",
                self.url,
                self.git_ref,
            ],
            &["checkout", "--quiet", "FETCH_HEAD"],
        ];
        for args in steps {
            self.git(args, partial.path(), deadline, timeout).await?;
        }
        let clone = partial.keep();
        match std::fs::rename(&clone, dir) {
            Ok(()) => Ok(dir.to_owned()),
            // Another daemon sharing the data dir got there first.
            Err(_) if dir.join(".git").is_dir() => {
                let _ = std::fs::remove_dir_all(&clone);
                Ok(dir.to_owned())
            }
            Err(error) => {
                let _ = std::fs::remove_dir_all(&clone);
                Err(internal(error))
            }
        }
    }

    /// Runs one git step in `cwd`, killing git's process group at `deadline`.
    async fn git(
        &self,
        args: &[&str],
        cwd: &Path,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<(), SessionError> {
        let step = args[0];
        let cannot_run = |error: std::io::Error| {
            SessionError::InvalidRequest(format!(
                "skill source {:?}: cannot run git: {error}",
                self.shown
            ))
        };
        let (leader, mut child) =
            Leader::spawn(&mut self.command(args, cwd)).map_err(cannot_run)?;
        // Whatever git leaves in its group goes with it, also when the request is
        // dropped mid-fetch (the leader is reaped after, when `leader` is dropped).
        let _group = KillGroupOnDrop(&leader);
        let mut stderr = Pipes::take(&mut child).map_err(cannot_run)?.stderr;
        let finished = tokio::time::timeout_at(deadline, async {
            let mut kept = Vec::new();
            if let Some(stderr) = stderr.as_mut() {
                let _ = stderr.take(STDERR_BYTES).read_to_end(&mut kept).await;
                let _ = tokio::io::copy(stderr, &mut tokio::io::sink()).await;
            }
            (leader.exited().await, kept)
        })
        .await;
        let Ok((status, kept)) = finished else {
            // Its group (git and the transport it started) is stopped now.
            leader.kill_group();
            let _ = leader.exited().await;
            return Err(SessionError::Timeout(format!(
                "fetching skill source {:?} (ref {}) took longer than {} ms (--skill-fetch-timeout-ms); git was stopped",
                self.shown,
                self.git_ref,
                timeout.as_millis()
            )));
        };
        match status {
            Ok(status) if status.success() => Ok(()),
            outcome => {
                let why = match outcome {
                    Ok(_) => String::from_utf8_lossy(&kept).trim().to_owned(),
                    Err(error) => error.to_string(),
                };
                Err(SessionError::InvalidRequest(format!(
                    "skill source {:?} (ref {}): git {step} failed: {}",
                    self.shown,
                    self.git_ref,
                    scrub_url(&why, self.url)
                )))
            }
        }
    }

    /// `git ARGS` in `cwd`: no system or global configuration, no hooks, no
    /// transport but the source's, no prompt, in a session (and so a process
    /// group) of its own with no terminal.
    fn command(&self, args: &[&str], cwd: &Path) -> std::process::Command {
        let protocol = self.transport.protocol();
        let mut command = std::process::Command::new("git");
        agentplex_processes::secrets::keep_from_child(&mut command);
        command
            .args(["-c", "protocol.allow=never", "-c"])
            .arg(format!("protocol.{protocol}.allow=always"))
            .args([
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.fsmonitor=false",
            ])
            .args(["-c", "advice.detachedHead=false"])
            .args(args)
            .current_dir(cwd)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_ALLOW_PROTOCOL", protocol)
            .env("GIT_TERMINAL_PROMPT", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for variable in GIT_LOCAL_VARIABLES {
            command.env_remove(variable);
        }
        // SAFETY: only an async-signal-safe system call runs between fork and exec.
        use std::os::unix::process::CommandExt;
        unsafe {
            command.pre_exec(|| {
                rustix::process::setsid()?;
                Ok(())
            });
        }
        command
    }
}

/// Kills a git step's whole process group when dropped (its leader is not reaped
/// yet, so the group is still its).
struct KillGroupOnDrop<'a>(&'a Leader);

impl Drop for KillGroupOnDrop<'_> {
    fn drop(&mut self) {
        self.0.kill_group();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_keys_are_those_of_earlier_releases() {
        use sha2::Digest;
        let earlier = format!(
            "{:x}",
            sha2::Sha256::digest(b"https://host/r.git\nv1".as_slice())
        );
        assert_eq!(key("https://host/r.git", Some("v1")), earlier);
        assert_ne!(key("https://host/r.git", None), earlier);
    }
}
