//! Recordings of the screen: ffmpeg grabs the display (x11grab) into an H.264 MP4
//! file in `<desktop dir>/recordings`, one recording at a time. A stop asks ffmpeg to
//! finish (`q` on its stdin) so the file is complete and plays; the files stay, listed
//! and downloadable, until deleted or the daemon's data dir is cleaned.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use agentplex_api::{DesktopRecordingInfo, DesktopRecordingStatus};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, Command};

use crate::{DesktopError, Running};

/// Frames per second when a start request gives none.
pub const DEFAULT_FPS: u32 = 15;
/// How long ffmpeg may take to start recording.
const READY_WITHIN: Duration = Duration::from_secs(10);
/// How long ffmpeg has to finish its file after `q`.
const FINISH_WITHIN: Duration = Duration::from_secs(10);

/// Every recording of this daemon's desktop.
pub struct Recordings {
    dir: PathBuf,
    table: Mutex<Table>,
    /// Held while a recording starts or stops.
    transition: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Table {
    next: u64,
    recordings: BTreeMap<u64, Recording>,
}

struct Recording {
    info: DesktopRecordingInfo,
    path: PathBuf,
    /// The ffmpeg recording it, while it records.
    ffmpeg: Option<Child>,
}

impl Recordings {
    /// No recordings yet; their files go to `dir`.
    pub fn new(dir: PathBuf) -> Recordings {
        Recordings {
            dir,
            table: Mutex::new(Table {
                next: 1,
                ..Table::default()
            }),
            transition: tokio::sync::Mutex::new(()),
        }
    }

    /// Starts recording the screen of `running`.
    pub async fn start(
        &self,
        running: &Running,
        fps: Option<u32>,
    ) -> Result<DesktopRecordingInfo, DesktopError> {
        let (display, screen) = (running.display(), running.resolution());
        let fps = fps.unwrap_or(DEFAULT_FPS);
        if !(1..=60).contains(&fps) {
            return Err(DesktopError::Invalid {
                field: "fps",
                reason: format!("{fps} is not between 1 and 60"),
            });
        }
        if crate::deps::find("ffmpeg").is_none() {
            return Err(DesktopError::Unavailable {
                missing: vec!["ffmpeg".into()],
                install_command: "apt-get install -y --no-install-recommends ffmpeg".into(),
            });
        }
        let _transition = self.transition.lock().await;
        if self
            .table
            .lock()
            .unwrap()
            .recordings
            .values()
            .any(|recording| recording.ffmpeg.is_some())
        {
            return Err(DesktopError::Conflict(
                "a recording is running: stop it first (POST /v1/desktop/recording/stop)".into(),
            ));
        }
        std::fs::create_dir_all(&self.dir).map_err(|error| io(&self.dir, error))?;
        let number = {
            let mut table = self.table.lock().unwrap();
            table.next += 1;
            table.next - 1
        };
        let id = format!("rec_{number}");
        let path = self.dir.join(format!("{id}.mp4"));
        let log = self.dir.join(format!("{id}.log"));
        let log_file = std::fs::File::create(&log).map_err(|error| io(&log, error))?;
        // The x11grab size must be even for yuv420p.
        let size = format!("{}x{}", screen.width & !1, screen.height & !1);
        // A file of an earlier daemon's recording of that id would look like ours started.
        let _ = std::fs::remove_file(&path);
        let ffmpeg = Command::new("ffmpeg")
            .args(["-hide_banner", "-loglevel", "error", "-nostats", "-y"])
            .args(["-f", "x11grab", "-draw_mouse", "1", "-video_size", &size])
            .args(["-framerate", &fps.to_string(), "-i", display])
            // XAUTHORITY: the display's cookie.
            .envs(running.env().iter().map(|(name, value)| (name, value)))
            .args([
                "-c:v",
                "libx264",
                "-preset",
                "ultrafast",
                "-pix_fmt",
                "yuv420p",
            ])
            .args(["-movflags", "+faststart"])
            .arg(&path)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(log_file)
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| DesktopError::StartFailed(format!("cannot start ffmpeg: {error}")))?;
        let mut ffmpeg = ffmpeg;
        writing(&mut ffmpeg, &path, &log).await?;
        let info = DesktopRecordingInfo {
            id: id.clone(),
            file_name: format!("{id}.mp4"),
            bytes: 0,
            started_at: now(),
            ended_at: None,
            status: DesktopRecordingStatus::Recording,
            process_id: ffmpeg.id().map(|pid| pid.to_string()),
        };
        let recording = Recording {
            info: info.clone(),
            path,
            ffmpeg: Some(ffmpeg),
        };
        self.table
            .lock()
            .unwrap()
            .recordings
            .insert(number, recording);
        Ok(info)
    }

    /// Stops the running recording and answers it, its file complete.
    pub async fn stop(&self) -> Result<DesktopRecordingInfo, DesktopError> {
        let _transition = self.transition.lock().await;
        let (number, ffmpeg) = {
            let mut table = self.table.lock().unwrap();
            let running = table.recordings.iter_mut().find_map(|(number, recording)| {
                recording.ffmpeg.take().map(|ffmpeg| (*number, ffmpeg))
            });
            running.ok_or_else(|| DesktopError::Conflict("no recording is running".into()))?
        };
        let succeeded = finish(ffmpeg).await;
        let mut table = self.table.lock().unwrap();
        let recording = table
            .recordings
            .get_mut(&number)
            .expect("a stopped recording stays listed");
        recording.info.ended_at = Some(now());
        recording.info.process_id = None;
        recording.info.status = if succeeded {
            DesktopRecordingStatus::Completed
        } else {
            DesktopRecordingStatus::Failed
        };
        Ok(recording.describe())
    }

    /// Every recording, oldest first.
    pub fn list(&self) -> Vec<DesktopRecordingInfo> {
        self.table
            .lock()
            .unwrap()
            .recordings
            .values()
            .map(Recording::describe)
            .collect()
    }

    /// One recording.
    pub fn get(&self, id: &str) -> Result<DesktopRecordingInfo, DesktopError> {
        let number = number_of(id)?;
        let table = self.table.lock().unwrap();
        table
            .recordings
            .get(&number)
            .map(Recording::describe)
            .ok_or_else(|| not_found(id))
    }

    /// The file of a recording that has ended.
    pub fn file(&self, id: &str) -> Result<PathBuf, DesktopError> {
        let number = number_of(id)?;
        let table = self.table.lock().unwrap();
        let recording = table.recordings.get(&number).ok_or_else(|| not_found(id))?;
        if recording.ffmpeg.is_some() {
            return Err(DesktopError::Conflict(format!(
                "recording {id} is still running: stop it first"
            )));
        }
        Ok(recording.path.clone())
    }

    /// Deletes a recording that has ended, and its file.
    pub fn delete(&self, id: &str) -> Result<(), DesktopError> {
        let path = self.file(id)?;
        self.table
            .lock()
            .unwrap()
            .recordings
            .remove(&number_of(id)?);
        let _ = std::fs::remove_file(path.with_extension("log"));
        match std::fs::remove_file(&path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(io(&path, error)),
            _ => Ok(()),
        }
    }

    /// Stops the running recording, if any (the desktop stops).
    pub async fn stop_running(&self) {
        let _ = self.stop().await;
    }
}

impl Recording {
    fn describe(&self) -> DesktopRecordingInfo {
        let bytes = std::fs::metadata(&self.path)
            .map(|metadata| metadata.len())
            .unwrap_or(0);
        DesktopRecordingInfo {
            bytes,
            ..self.info.clone()
        }
    }
}

/// Waits until ffmpeg grabs the screen (it opens its output file once its input runs),
/// so that the recording starts when its start answers; ffmpeg's error if it ended first.
async fn writing(ffmpeg: &mut Child, path: &Path, log: &Path) -> Result<(), DesktopError> {
    let deadline = tokio::time::Instant::now() + READY_WITHIN;
    while !path.exists() {
        if let Ok(Some(status)) = ffmpeg.try_wait() {
            let said = std::fs::read_to_string(log).unwrap_or_default();
            return Err(DesktopError::StartFailed(format!(
                "ffmpeg exited ({status}): {}",
                said.trim()
            )));
        }
        if tokio::time::Instant::now() >= deadline {
            let _ = ffmpeg.kill().await;
            return Err(DesktopError::StartFailed(
                "ffmpeg did not start recording within 10 s".into(),
            ));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Ok(())
}

/// Asks ffmpeg to finish its file; whether it did.
async fn finish(mut ffmpeg: Child) -> bool {
    if let Some(mut stdin) = ffmpeg.stdin.take() {
        let _ = stdin.write_all(b"q").await;
        let _ = stdin.flush().await;
    }
    match tokio::time::timeout(FINISH_WITHIN, ffmpeg.wait()).await {
        Ok(Ok(status)) => status.success(),
        _ => {
            let _ = ffmpeg.kill().await;
            false
        }
    }
}

fn number_of(id: &str) -> Result<u64, DesktopError> {
    id.strip_prefix("rec_")
        .and_then(|number| number.parse().ok())
        .ok_or_else(|| not_found(id))
}

fn not_found(id: &str) -> DesktopError {
    DesktopError::RecordingNotFound(id.to_string())
}

fn io(path: &Path, error: std::io::Error) -> DesktopError {
    DesktopError::Io(format!("{}: {error}", path.display()))
}

fn now() -> String {
    OffsetDateTime::now_utc()
        .format(&Rfc3339)
        .unwrap_or_default()
}
