//! A PostgreSQL server of the tests' own: `initdb` into a temporary folder,
//! started on a free loopback port, stopped (and its folder removed) when it is
//! dropped, or when the test process exits for the one [`TempPostgres::shared`]
//! by the tests of a process.
//!
//! The server's binaries are looked for in `$POSTGRES_BIN`, then the
//! newest `/usr/lib/postgresql/*/bin` (Debian's `postgresql` package), then
//! `PATH`. PostgreSQL refuses to run as root: as root, the server runs as
//! `nobody`, its folder handed to that user. Without the binaries a test is
//! skipped with a message, unless `CI` is set: there it fails.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Sender, SyncSender};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

/// The role every test server has (trusted: no password).
pub const USER: &str = "agentplex";

/// How long a server has to start or stop.
const WAIT: Duration = Duration::from_secs(30);

/// A PostgreSQL server in a temporary folder.
pub struct TempPostgres {
    folder: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    /// Who the server runs as when the tests run as root.
    run_as: Option<(u32, u32)>,
    /// Settings the server starts with (`-c name=value`).
    settings: Vec<String>,
    server: Mutex<Option<Child>>,
}

impl TempPostgres {
    /// Makes a database cluster in a new temporary folder and starts its server.
    /// `Err` says why it cannot (no binaries, a failed start).
    pub fn start() -> Result<Self, String> {
        Self::start_with(false)
    }

    /// [`start`](Self::start), the server taking TLS connections with a
    /// certificate for 127.0.0.1 and `localhost` made for it (by `openssl`), and
    /// the file of the authority that signed it, to trust (`sslrootcert`).
    pub fn start_with_tls() -> Result<(Self, PathBuf), String> {
        let server = Self::start_with(true)?;
        let authority = server.folder.path().join("ca.pem");
        Ok((server, authority))
    }

    fn start_with(tls: bool) -> Result<Self, String> {
        let bin = binaries()?;
        let folder = tempfile::Builder::new()
            .prefix("agentplex-postgres-")
            .tempdir()
            .map_err(|error| format!("creating a temporary folder: {error}"))?;
        let run_as = if rustix::process::getuid().is_root() {
            Some(nobody())
        } else {
            None
        };
        if let Some((uid, gid)) = run_as {
            std::os::unix::fs::chown(folder.path(), Some(uid), Some(gid)).map_err(|error| {
                format!("handing {} to nobody: {error}", folder.path().display())
            })?;
        }
        let settings = if tls {
            make_certificates(folder.path(), run_as)?;
            vec![
                "ssl=on".to_owned(),
                format!(
                    "ssl_cert_file={}",
                    folder.path().join("server.crt").display()
                ),
                format!(
                    "ssl_key_file={}",
                    folder.path().join("server.key").display()
                ),
            ]
        } else {
            Vec::new()
        };
        let server = Self {
            port: 0,
            bin,
            run_as,
            settings,
            server: Mutex::new(None),
            folder,
        };
        let mut initdb = server.command("initdb");
        initdb.arg("-D").arg(server.data()).args([
            "-U",
            USER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync",
        ]);
        let output = initdb
            .output()
            .map_err(|error| format!("running {}: {error}", server.bin.join("initdb").display()))?;
        if !output.status.success() {
            return Err(format!(
                "initdb failed ({}): {}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let mut server = server;
        let mut last = String::new();
        for _ in 0..5 {
            server.port = free_port().map_err(|error| format!("finding a free port: {error}"))?;
            match server.start_again() {
                Ok(()) => return Ok(server),
                Err(error) => last = error,
            }
        }
        Err(last)
    }

    /// [`start`](Self::start), or `None` with a message saying the test is
    /// skipped; under CI (`CI` set) a server that cannot start fails the test.
    pub fn start_or_skip() -> Option<Self> {
        match Self::start() {
            Ok(server) => Some(server),
            Err(error) => skip(&error),
        }
    }

    /// One server for every test of the process that asks (stopped when the
    /// process exits), or `None` as [`start_or_skip`](Self::start_or_skip) says.
    pub fn shared() -> Option<&'static Self> {
        static SHARED: OnceLock<Result<TempPostgres, String>> = OnceLock::new();
        let shared = SHARED.get_or_init(|| {
            let started = Self::start();
            if started.is_ok() {
                extern "C" fn stop_shared() {
                    if let Some(Ok(server)) = SHARED.get() {
                        server.stop();
                        let _ = std::fs::remove_dir_all(server.folder.path());
                    }
                }
                // SAFETY: registers a function without arguments to run at exit.
                unsafe { libc::atexit(stop_shared) };
            }
            started
        });
        match shared {
            Ok(server) => Some(server),
            Err(error) => skip(error),
        }
    }

    /// The loopback port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of database `name` (which may not exist).
    pub fn url(&self, name: &str) -> String {
        format!(
            "postgres://{USER}@127.0.0.1:{}/{name}?sslmode=disable",
            self.port
        )
    }

    /// Creates a new database `name`; its URL.
    pub fn create_database(&self, name: &str) -> String {
        self.execute(&format!("CREATE DATABASE \"{name}\""))
            .unwrap_or_else(|error| panic!("creating database {name}: {error}"));
        self.url(name)
    }

    /// Runs SQL statements in database `postgres` as the server's superuser.
    pub fn execute(&self, sql: &str) -> Result<(), String> {
        self.execute_in("postgres", sql)
    }

    /// Runs SQL statements in the database `name` as the server's superuser.
    pub fn execute_in(&self, name: &str, sql: &str) -> Result<(), String> {
        let url = self.url(name);
        off_runtime(move || {
            let mut client = postgres::Client::connect(&url, postgres::NoTls)?;
            client.batch_execute(sql)
        })
        .map_err(|error| error.to_string())
    }

    /// Stops the server (a fast shutdown: connections are closed, transactions
    /// rolled back); what was committed stays in its folder.
    pub fn stop(&self) {
        let Some(mut child) = self.server.lock().unwrap().take() else {
            return;
        };
        let pid = Pid::from_child(&child);
        let _ = rustix::process::kill_process(pid, Signal::INT);
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }

    /// Starts the server (again) on its folder and port, and waits until it
    /// takes connections.
    pub fn start_again(&self) -> Result<(), String> {
        let mut slot = self.server.lock().unwrap();
        if slot.is_some() {
            return Ok(());
        }
        let log = self.folder.path().join("server.log");
        let log_file = std::fs::File::create(&log).map_err(|error| error.to_string())?;
        if let Some((uid, gid)) = self.run_as {
            let _ = std::os::unix::fs::chown(&log, Some(uid), Some(gid));
        }
        let mut command = self.command("postgres");
        command
            .arg("-D")
            .arg(self.data())
            .arg("-k")
            .arg(self.folder.path())
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args(["-c", "max_connections=200"])
            .args(
                self.settings
                    .iter()
                    .flat_map(|setting| ["-c", setting.as_str()]),
            )
            .stdout(Stdio::null())
            .stderr(log_file);
        let mut child =
            spawn_kept(command).map_err(|error| format!("starting postgres: {error}"))?;
        let deadline = Instant::now() + WAIT;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("postgres exited ({status}): {}", read_log(&log)));
            }
            let url = self.url("postgres");
            if off_runtime(|| postgres::Client::connect(&url, postgres::NoTls).map(drop)).is_ok() {
                *slot = Some(child);
                return Ok(());
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "postgres did not start within {WAIT:?}: {}",
                    read_log(&log)
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The cluster's folder.
    fn data(&self) -> PathBuf {
        self.folder.path().join("data")
    }

    /// A command of the server's binaries, as the user the server runs as.
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(self.bin.join(program));
        command.current_dir(self.folder.path());
        if let Some((uid, gid)) = self.run_as {
            use std::os::unix::process::CommandExt;
            command.uid(uid).gid(gid);
        }
        command
    }
}

impl Drop for TempPostgres {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Runs `work` on a thread of its own: the synchronous client starts a runtime,
/// which a tokio worker (an async test's) must not.
fn off_runtime<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| scope.spawn(work).join().expect("the client panicked"))
}

/// Says why a test is skipped, or fails it under CI.
fn skip<T>(error: &str) -> Option<T> {
    if std::env::var_os("CI").is_some() {
        panic!("no PostgreSQL server for the tests (CI is set, so this fails): {error}");
    }
    eprintln!("skipped: no PostgreSQL server for the tests: {error} (apt-get install postgresql, or set POSTGRES_BIN)");
    None
}

/// The folder holding `initdb` and `postgres`.
fn binaries() -> Result<PathBuf, String> {
    let holds =
        |folder: &Path| folder.join("initdb").is_file() && folder.join("postgres").is_file();
    if let Some(folder) = std::env::var_os("POSTGRES_BIN") {
        let folder = PathBuf::from(folder);
        return if holds(&folder) {
            Ok(folder)
        } else {
            Err(format!(
                "POSTGRES_BIN={} has no initdb and postgres",
                folder.display()
            ))
        };
    }
    let mut debian: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, folder)| holds(folder))
        .collect();
    debian.sort();
    if let Some((_, folder)) = debian.pop() {
        return Ok(folder);
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .find(|folder| holds(folder))
        .ok_or_else(|| {
            "initdb and postgres are not installed (/usr/lib/postgresql/*/bin, PATH)".to_owned()
        })
}

/// A certificate authority (`ca.pem`) and the server's key and certificate,
/// signed by it for 127.0.0.1 and `localhost`, in `folder`.
fn make_certificates(folder: &Path, run_as: Option<(u32, u32)>) -> Result<(), String> {
    std::fs::write(
        folder.join("server.ext"),
        "subjectAltName = DNS:localhost, IP:127.0.0.1\n\
         basicConstraints = CA:FALSE\n\
         extendedKeyUsage = serverAuth\n",
    )
    .map_err(|error| error.to_string())?;
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let steps: [&[&str]; 3] = [
        &[
            &["req", "-x509"],
            &ec[..],
            &[
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
                "-days",
                "2",
                "-subj",
                "/CN=agentplex test authority",
            ],
        ]
        .concat(),
        &[
            &["req"],
            &ec[..],
            &[
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
                "-subj",
                "/CN=localhost",
            ],
        ]
        .concat(),
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.crt",
            "-days",
            "2",
            "-extfile",
            "server.ext",
        ],
    ];
    for step in steps {
        let output = Command::new("openssl")
            .args(step)
            .current_dir(folder)
            .output()
            .map_err(|error| format!("running openssl: {error}"))?;
        if !output.status.success() {
            return Err(format!(
                "openssl {} failed: {}",
                step.join(" "),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    use std::os::unix::fs::PermissionsExt;
    let key = folder.join("server.key");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600))
        .map_err(|error| error.to_string())?;
    if let Some((uid, gid)) = run_as {
        for file in [&key, &folder.join("server.crt")] {
            std::os::unix::fs::chown(file, Some(uid), Some(gid))
                .map_err(|error| error.to_string())?;
        }
    }
    Ok(())
}

/// The user and group ids of `nobody` (65534 when /etc/passwd does not say).
fn nobody() -> (u32, u32) {
    std::fs::read_to_string("/etc/passwd")
        .ok()
        .and_then(|passwd| {
            passwd.lines().find_map(|line| {
                let fields: Vec<&str> = line.split(':').collect();
                (fields.first() == Some(&"nobody") && fields.len() > 3)
                    .then(|| Some((fields[2].parse().ok()?, fields[3].parse().ok()?)))
                    .flatten()
            })
        })
        .unwrap_or((65534, 65534))
}

/// A loopback port nobody listens on now.
fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// The end of the server's log.
fn read_log(path: &Path) -> String {
    let mut text = String::new();
    if let Ok(mut file) = std::fs::File::open(path) {
        let _ = file.read_to_string(&mut text);
    }
    let start = text.len().saturating_sub(2000);
    let start = (start..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    text[start..].to_owned()
}

/// Spawns `command` from a thread that lives as long as the process, the child
/// told to stop when that thread ends (when the process exits, even killed):
/// no server outlives its tests.
fn spawn_kept(mut command: Command) -> std::io::Result<Child> {
    type Spawn = (Command, SyncSender<std::io::Result<Child>>);
    static KEEPER: OnceLock<Mutex<Sender<Spawn>>> = OnceLock::new();
    let keeper = KEEPER.get_or_init(|| {
        let (spawns, line) = mpsc::channel::<Spawn>();
        std::thread::Builder::new()
            .name("temp-postgres".into())
            .spawn(move || {
                for (mut command, answer) in line {
                    let _ = answer.send(command.spawn());
                }
            })
            .expect("starting the thread that starts test servers");
        Mutex::new(spawns)
    });
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: only an async-signal-safe system call between fork and exec.
        unsafe {
            command.pre_exec(|| {
                rustix::process::set_parent_process_death_signal(Some(Signal::INT))
                    .map_err(std::io::Error::from)
            });
        }
    }
    let (answer, answered) = mpsc::sync_channel(1);
    keeper
        .lock()
        .unwrap()
        .send((command, answer))
        .map_err(|_| std::io::Error::other("the test servers' thread is gone"))?;
    answered
        .recv()
        .map_err(|_| std::io::Error::other("the test servers' thread is gone"))?
}
