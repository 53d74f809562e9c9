//! One real agent behind one daemon, pointed at one scripted model server, with
//! the few operations the checks are written in.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use agentplex_model_server::ModelServer;
use serde_json::{json, Value};

use super::agents::{Agent, Source};
use crate::common::api::{expect_no_content, ok_json, types, Api};
use crate::common::{Daemon, Options};

/// How long a real agent may take for one step (start-up included).
pub const AGENT_DEADLINE: Duration = Duration::from_secs(90);

/// A daemon whose `agent` talks to a scripted model server.
pub struct Harness {
    pub agent: &'static Agent,
    pub model: ModelServer,
    /// The daemon, the agent's home and the sessions' working directory.
    pub sandbox: Sandbox,
    binary: PathBuf,
    sessions: AtomicU32,
}

impl Harness {
    /// A harness for the agent, or `None` (after saying why) when its CLI is not
    /// installed and this is not CI. Under CI a missing agent fails the test.
    pub fn start(id: &str) -> Option<Harness> {
        let agent = Agent::named(id);
        if let Source::Registry { passed, release } = &agent.source {
            return Self::from_registry(agent, passed, release.is_some());
        }
        let Some(binary) = agent.binary() else {
            let message =
                format!("{id}: the agent CLI is not installed; run `npm ci` in testing/agents");
            assert!(std::env::var_os("CI").is_none(), "{message}");
            eprintln!("skipped: {message}");
            return None;
        };
        let model = ModelServer::start().expect("starting the model server");
        let sandbox = Sandbox::start(agent, Some(&binary), &model);
        Some(Harness {
            agent,
            model,
            sandbox,
            binary: binary.canonicalize().unwrap(),
            sessions: AtomicU32::new(0),
        })
    }

    /// A harness for an agent of the ACP registry: its daemon reads the registry
    /// snapshot (and, for a release archive, a mirror serving the archive packed
    /// from the same build npm installed), and adds and installs the agent itself
    /// (`POST /v1/registry/{id}`), passing it the `passed` variables.
    fn from_registry(agent: &'static Agent, passed: &[&str], archived: bool) -> Option<Harness> {
        let snapshot = super::agents::registry_snapshot().display().to_string();
        let mut flags = vec!["--acp-registry".to_owned(), snapshot];
        let mirror = match archived {
            false => None,
            true => {
                let Some(program) = agent.binary() else {
                    let message = format!(
                        "{}: the release build is not installed; run `npm ci` in testing/agents",
                        agent.id
                    );
                    assert!(std::env::var_os("CI").is_none(), "{message}");
                    eprintln!("skipped: {message}");
                    return None;
                };
                let entry = super::agents::registry_entry(agent.id);
                let platform = format!("linux-{}", std::env::consts::ARCH);
                let release = &entry["distribution"]["binary"][platform];
                let mirror = super::mirror::Mirror::serving_release(
                    release["archive"].as_str().unwrap(),
                    release["cmd"].as_str().unwrap(),
                    &program,
                );
                flags.extend(["--releases-mirror".to_owned(), mirror.base.clone()]);
                Some(mirror)
            }
        };
        let model = ModelServer::start().expect("starting the model server");
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let sandbox = Sandbox::start_with(agent, None, &model, &flags);
        let response = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(600))
            .build()
            .unwrap()
            .post(sandbox.daemon.url(&format!("/v1/registry/{}", agent.id)))
            .json(&json!({ "env": passed }))
            .send()
            .expect("POST /v1/registry/{id}");
        assert_eq!(
            response.status().as_u16(),
            201,
            "adding {}: {}",
            agent.id,
            response.text().unwrap_or_default()
        );
        let launcher = sandbox.install.path().join(agent.id);
        drop(mirror);
        Some(Harness {
            agent,
            model,
            binary: launcher,
            sandbox,
            sessions: AtomicU32::new(0),
        })
    }

    /// Another sandbox for the agent, talking to the same model server: a daemon
    /// with a home, data dir, install dir and workspace of its own.
    pub fn another_sandbox(&self) -> Sandbox {
        Sandbox::start(self.agent, Some(&self.binary), &self.model)
    }

    /// Two sandboxes of the agent sharing one new PostgreSQL database, as the
    /// daemons `first` and `second` of a fleet (leases of a second), or `None`
    /// without a PostgreSQL server outside CI.
    pub fn fleet(&self) -> Option<(Sandbox, Sandbox, String)> {
        let server = agentplex_store::postgres::temp::TempPostgres::shared()?;
        let url = server.create_database(&format!("takeover_{}", self.agent.id));
        let member = |name: &str| {
            let fleet = ["--store", &url, "--daemon-id", name, "--lease-ms", "1000"];
            Sandbox::start_with(self.agent, Some(&self.binary), &self.model, &fleet)
        };
        Some((member("first"), member("second"), url))
    }

    /// Replaces the sandbox with one whose daemon sends the agent's model calls
    /// through its model gateway, pricing them with the table in `prices`.
    pub fn through_the_gateway(&mut self, prices: &Path) {
        let flags = ["--gateway", "--prices", &prices.display().to_string()];
        self.sandbox = Sandbox::start_with(self.agent, Some(&self.binary), &self.model, &flags);
    }

    /// Kills the daemon with SIGKILL and starts a new one on the same data dir.
    pub fn restart_daemon(&mut self) {
        let data_dir = self.sandbox.daemon.kill();
        let (args, env) = self.sandbox.launch.clone();
        self.sandbox.daemon = Daemon::start_with(Options {
            args,
            env,
            data_dir: Some(data_dir),
            ..Options::default()
        });
    }

    /// A client for the daemon.
    pub fn api(&self) -> Api<'_> {
        Api::new(&self.sandbox.daemon)
    }

    /// The agent's entry of `GET /v1/agents`.
    pub fn agent_info(&self) -> Value {
        // The daemon runs the agent's binary to read its version: a Node CLI on a
        // loaded machine may take longer than the client's usual deadline.
        let response = reqwest::blocking::Client::builder()
            .timeout(AGENT_DEADLINE)
            .build()
            .unwrap()
            .get(self.sandbox.daemon.url("/v1/agents"))
            .send()
            .expect("GET /v1/agents");
        let agents = ok_json(response);
        agents["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == self.agent.id)
            .unwrap_or_else(|| panic!("{} not listed: {agents}", self.agent.id))
            .clone()
    }

    /// Whether the adapter declares the capability (a `GET /v1/agents` name).
    pub fn can(&self, capability: &str) -> bool {
        self.agent_info()["capabilities"][capability] == json!(true)
    }

    /// Whether the agent asks before it runs a command: its capabilities say it
    /// may, and it is not one that never does (see [`Agent::runs_unasked`]).
    pub fn asks_permission(&self) -> bool {
        self.can("permissions") && !self.agent.runs_unasked
    }

    /// Creates a session in the workspace with the permission mode; returns its id.
    pub fn create(&self, permission_mode: &str) -> String {
        self.create_with(permission_mode, json!({}))
    }

    /// Creates a session with more fields of the create request (`mcp`, `skills`...).
    pub fn create_with(&self, permission_mode: &str, fields: Value) -> String {
        let id = format!("s{}", self.sessions.fetch_add(1, Ordering::SeqCst) + 1);
        let mut request = json!({
            "agent": self.agent.id,
            "permissionMode": permission_mode,
            "directory": self.sandbox.workspace.path(),
        });
        for (name, value) in fields.as_object().expect("fields are an object") {
            request[name] = value.clone();
        }
        let body = ok_json(self.api().post_json(&format!("/v1/sessions/{id}"), request));
        assert_eq!(body["healthy"], json!(true), "creating {id}: {body}");
        id
    }

    /// Sends a message (accepted with 204).
    pub fn send(&self, session: &str, text: &str) {
        self.api().send(session, text);
    }

    /// The session's whole transcript.
    pub fn events(&self, session: &str) -> Vec<Value> {
        self.api().events(session)
    }

    /// Polls until an event after `offset` matches; returns the events up to it.
    pub fn wait_for(
        &self,
        session: &str,
        offset: u64,
        what: &str,
        done: impl Fn(&Value) -> bool,
    ) -> Vec<Value> {
        let deadline = Instant::now() + AGENT_DEADLINE;
        loop {
            let events = self.api().events_after(session, offset);
            if let Some(position) = events.iter().position(&done) {
                return events[..=position].to_vec();
            }
            assert!(
                Instant::now() < deadline,
                "{} session {session}: no {what} after {offset}; got {}\n{}",
                self.agent.id,
                types(&events).join(", "),
                crate::common::api::pretty(&events)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Polls until an event of the type follows `offset`.
    pub fn wait_for_type(&self, session: &str, offset: u64, event_type: &str) -> Vec<Value> {
        self.wait_for(session, offset, event_type, |e| e["type"] == event_type)
    }

    /// Sends `text` and returns the events of its turn (through `turn.ended`).
    pub fn turn(&self, session: &str, text: &str) -> Vec<Value> {
        let offset = self.last_sequence(session);
        self.send(session, text);
        self.wait_for_type(session, offset, "turn.ended")
    }

    /// Sequence of the newest event.
    pub fn last_sequence(&self, session: &str) -> u64 {
        self.api().last_sequence(session)
    }

    /// Answers a permission request.
    pub fn reply_permission(&self, session: &str, permission_id: &str, reply: &str) {
        let response = self.post_permission_reply(session, permission_id, reply);
        expect_no_content(response, "permission reply");
    }

    /// POSTs an answer to a permission request; the daemon's response.
    pub fn post_permission_reply(
        &self,
        session: &str,
        permission_id: &str,
        reply: &str,
    ) -> reqwest::blocking::Response {
        self.api().post_json(
            &format!("/v1/sessions/{session}/permissions/{permission_id}/reply"),
            json!({ "reply": reply }),
        )
    }

    /// Replaces the session's approval policy.
    pub fn set_policy(&self, session: &str, policy: Value) {
        let response = self
            .api()
            .put_json(&format!("/v1/sessions/{session}/policy"), policy);
        ok_json(response);
    }

    /// Every request the model server answered (model API calls only).
    pub fn model_requests(&self) -> Vec<Value> {
        let requests: Value = reqwest::blocking::get(format!("{}/requests", self.model.url()))
            .unwrap()
            .json()
            .unwrap();
        requests
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["api"] != "models")
            .cloned()
            .collect()
    }

    /// The pids of the agent's processes (the daemon's children running its binary,
    /// or, for a script such as a Node CLI, its interpreter: `node` rewrites its
    /// command line to the CLI's title, so the interpreter is all there is to match).
    pub fn agent_pids(&self) -> Vec<i32> {
        let daemon = self.sandbox.daemon.pid() as i32;
        let interpreter = interpreter_of(&self.binary);
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| parent_of(*pid) == Some(daemon))
            .filter(|pid| {
                std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == self.binary)
                    || interpreter.as_deref().is_some_and(|name| {
                        std::fs::read_link(format!("/proc/{pid}/exe"))
                            .is_ok_and(|exe| exe.file_name() == Some(name.as_ref()))
                    })
            })
            .collect()
    }

    /// Waits until the agent runs (or runs no more).
    pub fn wait_agent_running(&self, running: bool) -> Vec<i32> {
        let deadline = Instant::now() + AGENT_DEADLINE;
        loop {
            let pids = self.agent_pids();
            if pids.is_empty() != running {
                return pids;
            }
            assert!(
                Instant::now() < deadline,
                "{}: agent process running={} never reached (pids {pids:?})",
                self.agent.id,
                running
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills every process of the agent with SIGKILL and waits until the daemon
    /// has reaped them. The next message must relaunch the agent at once: the
    /// daemon holds it until the adapter has heard of the exit.
    pub fn kill_agent(&self) {
        let pids = self.wait_agent_running(true);
        for pid in &pids {
            // SAFETY: sending a signal to a process we found as the daemon's child.
            unsafe {
                libc::kill(*pid, libc::SIGKILL);
            }
        }
        let deadline = Instant::now() + AGENT_DEADLINE;
        while pids
            .iter()
            .any(|pid| Path::new(&format!("/proc/{pid}")).exists())
        {
            assert!(
                Instant::now() < deadline,
                "the daemon never reaped {pids:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// A path in the workspace.
    pub fn path(&self, name: &str) -> PathBuf {
        self.sandbox.workspace.path().join(name)
    }
}

/// One sandbox of the agent: a daemon whose agent has a private home (its `XDG_*`
/// folders in it), an install dir holding the agent's binary, and a workspace.
pub struct Sandbox {
    pub daemon: Daemon,
    /// The sessions' working directory.
    pub workspace: tempfile::TempDir,
    /// What the daemon was started with, for a successor.
    launch: (Vec<String>, Vec<(String, String)>),
    home: tempfile::TempDir,
    install: tempfile::TempDir,
}

impl Sandbox {
    /// Starts a daemon for `agent` (its CLI at `binary`) talking to `model`.
    fn start(agent: &'static Agent, binary: Option<&Path>, model: &ModelServer) -> Sandbox {
        Self::start_with(agent, binary, model, &[])
    }

    /// The same, the daemon given the flags `extra` too; without a `binary`, the
    /// install dir starts empty.
    fn start_with(
        agent: &'static Agent,
        binary: Option<&Path>,
        model: &ModelServer,
        extra: &[&str],
    ) -> Sandbox {
        let home = tempfile::tempdir().unwrap();
        let install = tempfile::tempdir().unwrap();
        if let Some(binary) = binary {
            std::os::unix::fs::symlink(binary, install.path().join(agent.id)).unwrap();
        }
        let home_path = home.path().to_path_buf();
        let mut env = vec![("HOME".to_owned(), home_path.display().to_string())];
        for (var, dir) in [
            ("XDG_CONFIG_HOME", ".config"),
            ("XDG_DATA_HOME", ".local/share"),
            ("XDG_STATE_HOME", ".local/state"),
            ("XDG_CACHE_HOME", ".cache"),
            // What an agent leaves in its temporary folder goes with the sandbox
            // (one of them unpacks a 5 MB native library there at every start and
            // never removes it).
            ("TMPDIR", "tmp"),
        ] {
            env.push((var.to_owned(), home_path.join(dir).display().to_string()));
        }
        std::fs::create_dir(home_path.join("tmp")).unwrap();
        env.extend(agent.env(model, &home_path));
        let mut args = vec!["--install-dir".into(), install.path().display().to_string()];
        args.extend(extra.iter().map(|flag| flag.to_string()));
        let daemon = Daemon::start_with(Options {
            args: args.clone(),
            env: env.clone(),
            ..Options::default()
        });
        Sandbox {
            daemon,
            // No `.` or `-` in its name: Claude Code's ACP build cannot load a
            // session whose folder has them (it decodes its session folder's name
            // back into the path).
            workspace: tempfile::Builder::new()
                .prefix("workspace")
                .tempdir()
                .unwrap(),
            launch: (args, env),
            home,
            install,
        }
    }

    /// The agent's home (`HOME`).
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// A client for the daemon.
    pub fn api(&self) -> Api<'_> {
        Api::new(&self.daemon)
    }
}

/// A daemon killed with SIGKILL cannot stop its agents: their processes (a shared
/// `opencode serve`, an agent CLI mid-turn) outlive it. Every sandbox gives its
/// agent a private `HOME`, so what is left of its agents is found by it and
/// killed, keeping later tests from running on a loaded machine.
impl Drop for Sandbox {
    fn drop(&mut self) {
        kill_processes_at_home(self.home.path());
    }
}

/// The interpreter a script names in its `#!` line (`#!/usr/bin/env node` →
/// `node`), or `None` for a binary.
fn interpreter_of(path: &Path) -> Option<String> {
    let text = std::fs::read(path).ok()?;
    let line = text.strip_prefix(b"#!")?.split(|b| *b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?;
    let program = line.split_whitespace().last()?;
    Some(program.rsplit('/').next()?.to_owned())
}

/// The parent pid of a process, from `/proc/PID/stat`.
fn parent_of(pid: i32) -> Option<i32> {
    let stat =
        std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat")).ok()?;
    // The command name in parentheses may hold spaces: fields follow the last ')'.
    let after = &stat[stat.rfind(')')? + 2..];
    after.split(' ').nth(1)?.parse().ok()
}

/// Kills every process whose `HOME` is `home`: what is left of a sandbox's agents.
fn kill_processes_at_home(home: &Path) {
    let marker = format!("HOME={}", home.display());
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ
            .split(|byte| *byte == 0)
            .any(|variable| variable == marker.as_bytes())
        {
            // SAFETY: kill(2) with a pid read from /proc; at worst the process is gone.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}
