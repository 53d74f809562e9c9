//! Test harness: runs the real `agentplex` binary on a loopback port it picks itself
//! (`--port 0`, read back from its listening line: a port found free beforehand can be
//! taken by another test's daemon before this one binds it).

#![allow(dead_code)]

pub mod acp;
pub mod api;
pub mod load;
pub mod procfs;
pub mod sse;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The daemon binary built by cargo for these tests, or the one
/// `AGENTPLEX_TEST_BINARY` names (to show a test fails against an older build).
pub fn binary() -> String {
    std::env::var("AGENTPLEX_TEST_BINARY")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_agentplex").to_owned())
}

/// A session config for driving an adapter directly through the host crate.
pub fn adapter_session_config() -> agentplex_host::SessionConfig {
    agentplex_host::SessionConfig {
        session_id: "s".into(),
        agent_mode: "build".into(),
        permission_mode: "default".into(),
        model: None,
        variant: None,
        directory: "/".into(),
        agent_binary: None,
        env: Vec::new(),
        resume_native_session_id: None,
        mcp_servers: Vec::new(),
        skills: Vec::new(),
        scratch_dir: String::new(),
        model_endpoints: Vec::new(),
        policy: None,
    }
}

/// A compile cache shared by every test run, so each daemon does not recompile
/// the adapter components.
pub fn shared_cache_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("adapter-cache")
}

/// The one cargo target folder (`CARGO_TARGET_DIR`) of the WebAssembly builds the
/// tests run: the test guests, the adapter template and the projects `adapters new`
/// writes. Built alike, they share most of their dependencies, which then compile
/// once per test run instead of once per project.
pub fn wasm_target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("wasm-builds")
}

/// Where a build in [`wasm_target_dir`] puts the component of library `name`.
pub fn wasm_component(name: &str) -> PathBuf {
    wasm_target_dir().join(format!("wasm32-wasip2/release/{name}.wasm"))
}

/// A running daemon, killed on drop.
pub struct Daemon {
    child: Child,
    pub port: u16,
    pub endpoint: String,
    pub token: Option<String>,
    pub data_dir: tempfile::TempDir,
}

/// How a daemon started with a token is given it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TokenIn {
    /// `--token TOKEN` on the command line.
    #[default]
    Argument,
    /// `AGENTPLEX_TOKEN` (what the SDKs do).
    Variable,
    /// `--token-file`, a file in the daemon's data dir.
    File,
}

/// How to start a daemon.
#[derive(Default)]
pub struct Options {
    /// `None` runs with `--no-token`.
    pub token: Option<String>,
    /// How the token is given.
    pub token_in: TokenIn,
    /// Extra flags for `agentplex server`.
    pub args: Vec<String>,
    /// Extra environment variables for the daemon (and so for its agents).
    pub env: Vec<(String, String)>,
    /// The data dir of an earlier daemon to carry on from; a fresh one otherwise.
    pub data_dir: Option<tempfile::TempDir>,
    /// The compile cache; the one shared by the test run otherwise.
    pub cache_dir: Option<PathBuf>,
    /// A file that gets the daemon's stdout and stderr (stdout is dropped and stderr
    /// inherited otherwise).
    pub output: Option<PathBuf>,
    /// The daemon's umask (the test process's otherwise).
    pub umask: Option<u32>,
}

impl Daemon {
    /// Starts a daemon with `--no-token`.
    pub fn start() -> Daemon {
        Daemon::start_with(Options::default())
    }

    /// Starts a daemon and waits until `GET /v1/health` answers.
    pub fn start_with(options: Options) -> Daemon {
        let data_dir = options
            .data_dir
            .unwrap_or_else(|| tempfile::tempdir().expect("temp data dir"));
        let adapters_dir = options.args.iter().any(|arg| arg == "--adapters-dir");
        let mut command = Command::new(binary());
        command
            .args(["server", "--host", "127.0.0.1", "--port", "0"])
            .arg("--data-dir")
            .arg(data_dir.path())
            .arg("--cache-dir")
            .arg(options.cache_dir.unwrap_or_else(shared_cache_dir))
            .args(&options.args);
        // The test run's own settings of the daemon, under either name, stay out.
        for name in ["TOKEN", "ADAPTERS_DIR", "INSTALL_DIR", "LOG"] {
            command
                .env_remove(format!("AGENTPLEX_{name}"))
                .env_remove(format!("SANDBOX_AGENT_{name}"));
        }
        command
            // Quiet unless asked (by the test run or the options): warnings and errors only.
            .env(
                "AGENTPLEX_LOG",
                std::env::var("AGENTPLEX_LOG").unwrap_or_else(|_| "warn".into()),
            )
            .envs(options.env.iter().cloned())
            .stdin(Stdio::null());
        // Stdout is read for the listening line, then copied to the output file.
        command.stdout(Stdio::piped());
        let sink = match &options.output {
            Some(path) => {
                let file = std::fs::File::create(path).expect("creating the output file");
                command.stderr(file.try_clone().expect("sharing the output file"));
                Some(file)
            }
            None => {
                command.stderr(Stdio::inherit());
                None
            }
        };
        if let Some(mask) = options.umask {
            use std::os::unix::process::CommandExt as _;
            // SAFETY: umask is async-signal-safe and touches nothing of the parent.
            unsafe {
                command.pre_exec(move || {
                    libc::umask(mask as libc::mode_t);
                    Ok(())
                });
            }
        }
        match (&options.token, options.token_in) {
            (Some(token), TokenIn::Argument) => command.args(["--token", token]),
            (Some(token), TokenIn::Variable) => command.env("AGENTPLEX_TOKEN", token),
            (Some(token), TokenIn::File) => {
                use std::os::unix::fs::OpenOptionsExt as _;
                let file = data_dir.path().join("token");
                let mut open = std::fs::OpenOptions::new();
                let mut written = open.write(true).create_new(true).mode(0o600).open(&file);
                std::io::Write::write_all(
                    written.as_mut().expect("the token file"),
                    format!("{token}\n").as_bytes(),
                )
                .expect("writing the token file");
                command.arg("--token-file").arg(file)
            }
            (None, _) => command.arg("--no-token"),
        };
        let mut child = command.spawn().expect("starting agentplex");
        let port = listening_port(&mut child, sink, Duration::from_secs(60));
        let endpoint = format!("http://127.0.0.1:{port}");
        let mut daemon = Daemon {
            child,
            port,
            endpoint,
            token: options.token,
            data_dir,
        };
        daemon.wait_healthy(Duration::from_secs(60));
        if adapters_dir {
            daemon.wait_adapters_loaded(Duration::from_secs(120));
        }
        daemon
    }

    /// Waits until the daemon has loaded its adapters folder, which it does in the
    /// background after it answers health: `GET /v1/agents` is held until then. The
    /// folder's components are compiled while it loads, which in a debug build beside
    /// other tests can take longer than one request of a test may (`api::DEADLINE`).
    fn wait_adapters_loaded(&self, timeout: Duration) {
        let mut request = reqwest::blocking::Client::new()
            .get(self.url("/v1/agents"))
            .timeout(timeout);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Err(err) = request.send() {
            panic!("agentplex did not load its adapters folder within {timeout:?}: {err}");
        }
    }

    fn wait_healthy(&mut self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let url = format!("{}/v1/health", self.endpoint);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("polling the daemon") {
                panic!("agentplex exited during start-up: {status}");
            }
            if let Ok(response) = reqwest::blocking::get(&url) {
                if response.status().is_success() {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("agentplex did not become healthy within {timeout:?}");
    }

    /// The daemon's process id (its agents are its children).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A URL on this daemon.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.endpoint, path)
    }

    /// Kills the daemon with SIGKILL (no chance to clean up) and hands back its
    /// data dir for a successor.
    pub fn kill(&mut self) -> tempfile::TempDir {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reaping the daemon");
        std::mem::replace(&mut self.data_dir, tempfile::tempdir().unwrap())
    }

    /// Stops the daemon with SIGTERM and hands back its data dir for a successor.
    pub fn stop_keeping_data(mut self) -> tempfile::TempDir {
        let data_dir = std::mem::replace(&mut self.data_dir, tempfile::tempdir().unwrap());
        let status = self.stop();
        assert!(
            status.success(),
            "agentplex exited with {status} on SIGTERM"
        );
        data_dir
    }

    /// Sends SIGTERM and waits for the process to exit.
    pub fn stop(mut self) -> std::process::ExitStatus {
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        self.wait_exit(Duration::from_secs(20))
            .expect("agentplex did not stop after SIGTERM")
    }

    /// Waits up to `timeout` for the process to exit (after a signal the test sent);
    /// `None` if it still runs.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("polling the daemon") {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Bytes a command printed, as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A command's status and output, for assertion messages.
pub fn describe(output: &Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    )
}

/// The port a daemon or gateway started with `--port 0` and a piped stdout listens on,
/// read from its listening line (`... listening on http://HOST:PORT`, plain or JSON).
/// The rest of its stdout is copied to `sink` (or dropped) in the background, so the
/// process never blocks on a full pipe. Panics, saying why, if the process exits or
/// says nothing within `timeout`.
pub fn listening_port(child: &mut Child, sink: Option<std::fs::File>, timeout: Duration) -> u16 {
    use std::io::{BufRead as _, Write as _};
    let stdout = child.stdout.take().expect("the process's stdout is piped");
    let (found, ports) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut sink = sink;
        let mut found = Some(found);
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(port) = found.as_ref().and_then(|_| port_of_listening_line(&line)) {
                let _ = found.take().map(|found| found.send(port));
            }
            if let Some(sink) = sink.as_mut() {
                let _ = writeln!(sink, "{line}");
            }
        }
    });
    let deadline = Instant::now() + timeout;
    loop {
        match ports.recv_timeout(Duration::from_millis(50)) {
            Ok(port) => return port,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                let status = child.wait().expect("reaping the process");
                panic!("agentplex exited before listening: {status}");
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        if let Some(status) = child.try_wait().expect("polling the process") {
            panic!("agentplex exited during start-up: {status}");
        }
        assert!(
            Instant::now() < deadline,
            "agentplex printed no listening line within {timeout:?}"
        );
    }
}

/// The port in a listening line, if `line` is one.
fn port_of_listening_line(line: &str) -> Option<u16> {
    let (_, rest) = line.split_once("listening on http://")?;
    let address = rest.split(['"', ' ']).next()?;
    address.rsplit_once(':')?.1.parse().ok()
}

/// A port nothing listens on right now (for a daemon that must not be found there:
/// to start one, pass `--port 0` and read [`listening_port`]).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("binding a free port")
        .local_addr()
        .unwrap()
        .port()
}

/// Builds the test-only components of `testing/guests` (once per test process;
/// cargo's lock serializes concurrent builds) and returns the path of one of them
/// (`probe`, `mock_dropin`).
pub fn test_guest(name: &str) -> PathBuf {
    static BUILD: std::sync::Once = std::sync::Once::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("testing/guests");
    BUILD.call_once(|| {
        let status = Command::new(env!("CARGO"))
            .args([
                "build",
                "--release",
                "--target",
                "wasm32-wasip2",
                "--manifest-path",
            ])
            .arg(root.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", wasm_target_dir())
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .status()
            .expect("running cargo to build the test guests");
        assert!(status.success(), "building testing/guests failed");
    });
    let path = wasm_component(name);
    assert!(path.is_file(), "no component at {}", path.display());
    path
}

/// A fresh adapters folder holding copies of the given test components.
pub fn adapters_dir_with(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp adapters dir");
    for name in names {
        std::fs::copy(test_guest(name), dir.path().join(format!("{name}.wasm")))
            .expect("copying a component");
    }
    dir
}

/// Polls `done` every 20 ms until it holds; fails the test after `timeout`.
#[track_caller]
pub fn wait_until(timeout: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !done() {
        assert!(Instant::now() < deadline, "not {what} within {timeout:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Installs a stand-in `claude` in `install_dir`: it answers the version probe,
/// else runs the shell commands `body` and then reads its stdin until it closes
/// (as the real CLI waits for messages), keeping its command line in sight.
pub fn fake_claude(install_dir: &Path, body: &str) {
    fake_agent(install_dir, "claude", "2.1.197 (Claude Code)", body);
}

/// An executable `binary` in `install_dir` that prints `version` for
/// `--version` and otherwise runs `body` (shell), then reads its stdin until it
/// closes: a stand-in agent for tests of what the daemon hands its process.
pub fn fake_agent(install_dir: &Path, binary: &str, version: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let script = format!(
        "#!/bin/sh\nfor arg in \"$@\"; do [ \"$arg\" = --version ] && {{ echo '{version}'; exit 0; }}; done\n{body}\ncat >/dev/null\n"
    );
    let path = install_dir.join(binary);
    std::fs::write(&path, script).expect("writing the stand-in agent");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}
