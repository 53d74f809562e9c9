//! The binaries a bench compares (ours and references) and a daemon of one of them
//! running in a fresh home of its own.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The token ours runs with (references run with `--no-token`).
pub const TOKEN: &str = "bench-token";

/// A daemon binary to measure.
pub struct Binary {
    pub name: String,
    pub path: PathBuf,
    /// Ours takes a token and our flags; references run with `--no-token`.
    pub ours: bool,
}

impl Binary {
    /// `AGENTPLEX_BENCH_BIN` (for instance the static release binary that
    /// `scripts/release.sh` builds), else the binary of this bench build.
    pub fn ours() -> Self {
        let path = std::env::var_os("AGENTPLEX_BENCH_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_agentplex")));
        Self {
            name: "ours".into(),
            path,
            ours: true,
        }
    }

    /// `AGENTPLEX_REFERENCES=0.1.11=/path/to/sandbox-agent,0.4.2=/path/...`: binaries
    /// taking `server --host --port --no-token --no-telemetry`; none by default. An entry
    /// whose name starts with `ours` is another build of ours (run with a token, like ours).
    pub fn references() -> Vec<Self> {
        let list = std::env::var("AGENTPLEX_REFERENCES").unwrap_or_default();
        list.split(',')
            .filter(|entry| !entry.trim().is_empty())
            .map(|entry| {
                let (name, path) = entry
                    .split_once('=')
                    .expect("AGENTPLEX_REFERENCES entries are NAME=PATH");
                Self {
                    name: name.trim().into(),
                    path: PathBuf::from(path.trim()),
                    ours: name.trim().starts_with("ours"),
                }
            })
            .collect()
    }

    /// Ours, then the references.
    pub fn all() -> Vec<Self> {
        let mut binaries = vec![Binary::ours()];
        binaries.extend(Binary::references());
        binaries
    }
}

/// A running daemon in a fresh home of its own (`HOME`, XDG folders and, for ours,
/// `--data-dir` and `--cache-dir` under it), with its default logging and its default
/// store. Stopped with SIGTERM when dropped.
pub struct Daemon {
    pub child: Child,
    pub port: u16,
    pub token: Option<String>,
    home: tempfile::TempDir,
}

impl Daemon {
    /// Starts `binary` with a fresh home and returns it once `GET /v1/health` answers 200,
    /// with the time that took. Its stderr goes nowhere.
    pub fn start(binary: &Binary, scratch: &Path) -> (Daemon, Duration) {
        Daemon::spawn(binary, scratch, false)
    }

    /// Like [`Daemon::start`], with its stderr kept in a file of its home ([`Daemon::log_tail`]).
    pub fn start_logged(binary: &Binary, scratch: &Path) -> (Daemon, Duration) {
        Daemon::spawn(binary, scratch, true)
    }

    fn spawn(binary: &Binary, scratch: &Path, logged: bool) -> (Daemon, Duration) {
        let home = tempfile::tempdir_in(scratch).expect("home");
        let port = super::free_port();
        let mut command = Command::new(&binary.path);
        command
            .args(["server", "--host", "127.0.0.1", "--port", &port.to_string()])
            .env("HOME", home.path())
            .env("XDG_DATA_HOME", home.path().join("data"))
            .env("XDG_CACHE_HOME", home.path().join("cache"))
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env_remove("AGENTPLEX_ADAPTERS_DIR")
            .env_remove("AGENTPLEX_DATA_DIR")
            .env_remove("AGENTPLEX_CACHE_DIR")
            // Each daemon logs as it does by default.
            .env_remove("AGENTPLEX_LOG")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        if logged {
            let log = std::fs::File::create(home.path().join("stderr.log")).expect("log file");
            command.stderr(log);
        } else {
            command.stderr(Stdio::null());
        }
        let token = if binary.ours {
            command
                .args(["--token", TOKEN])
                .arg("--data-dir")
                .arg(home.path().join("data-dir"))
                .arg("--cache-dir")
                .arg(home.path().join("cache-dir"));
            Some(TOKEN.to_owned())
        } else {
            command.args(["--no-token", "--no-telemetry"]);
            None
        };
        let begin = Instant::now();
        let child = command.spawn().expect("starting the daemon");
        let mut daemon = Daemon {
            child,
            port,
            token,
            home,
        };
        let deadline = begin + Duration::from_secs(120);
        loop {
            if let Some(status) = daemon.child.try_wait().unwrap() {
                panic!("{} exited during start-up: {status}", binary.name);
            }
            if super::http_get(port, "/v1/health", None) == Some(200) {
                return (daemon, begin.elapsed());
            }
            assert!(
                Instant::now() < deadline,
                "{} never became healthy",
                binary.name
            );
            std::thread::sleep(Duration::from_micros(250));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A client of this daemon (with its token, if any).
    pub fn client(&self) -> agentplex_client::Client {
        let endpoint = format!("http://127.0.0.1:{}", self.port);
        agentplex_client::Client::new(&endpoint, self.token.clone()).unwrap()
    }

    /// Whether the process is still running; its exit status if not.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// The last `lines` lines of stderr of a daemon started with [`Daemon::start_logged`].
    pub fn log_tail(&self, lines: usize) -> Vec<String> {
        let text = std::fs::read_to_string(self.home.path().join("stderr.log")).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..]
            .iter()
            .map(|line| strip_ansi(line))
            .collect()
    }
}

/// `line` without its terminal colour sequences (`ESC [ ... m`).
fn strip_ansi(line: &str) -> String {
    let mut text = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            chars.by_ref().find(|c| c.is_ascii_alphabetic());
        } else {
            text.push(c);
        }
    }
    text
}

impl Drop for Daemon {
    fn drop(&mut self) {
        super::stop(&mut self.child);
    }
}
