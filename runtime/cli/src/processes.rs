//! `agentplex processes ...` and `agentplex terminal ID`: the process API
//! from the command line; and the daemon's flags for it.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Duration;

use agentplex_client::{
    ProcessCreateRequest, ProcessDataEncoding, ProcessLogEntry, ProcessLogEvent, ProcessLogsQuery,
    ProcessLogsStream, ProcessRunRequest, ProcessRunResponse,
};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use clap::{Args, Subcommand};
use futures::StreamExt;
use tokio::io::AsyncReadExt;

use super::error::CliError;
use super::human;
use super::remote::{call, done, print_json, show, Connection};
use super::Failure;
use agentplex_processes::ProcessSettings;

/// `agentplex server` flags of the process API (`/v1/processes`).
#[derive(Debug, Args)]
pub struct ProcessFlags {
    /// Most processes held at once: managed ones not deleted (running or exited)
    /// plus runs in progress.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..), env = "AGENTPLEX_MAX_PROCESSES")]
    max_processes: u64,
    /// Log ring buffer of each process without a terminal, in bytes (older output
    /// is dropped; readers see what they missed).
    #[arg(long, default_value_t = 1 << 20, value_parser = clap::value_parser!(u64).range(1..), env = "AGENTPLEX_PROCESS_LOG_BYTES")]
    process_log_bytes: u64,
    /// Scrollback ring buffer of each terminal, in bytes (replayed to a viewer
    /// that connects).
    #[arg(long, default_value_t = 256 << 10, value_parser = clap::value_parser!(u64).range(1..), env = "AGENTPLEX_TERMINAL_SCROLLBACK_BYTES")]
    terminal_scrollback_bytes: u64,
    /// Most bytes a one-shot run keeps of its stdout, and of its stderr.
    #[arg(long, default_value_t = 1 << 20, env = "AGENTPLEX_PROCESS_OUTPUT_BYTES")]
    process_output_bytes: u64,
    /// Largest decoded input of one `POST /v1/processes/{id}/input` or terminal
    /// input frame, in bytes.
    #[arg(long, default_value_t = 1 << 20, env = "AGENTPLEX_PROCESS_INPUT_BYTES")]
    process_input_bytes: u64,
    /// Milliseconds between SIGTERM and SIGKILL when a process is stopped (and
    /// when the daemon stops its processes on shutdown).
    #[arg(
        long,
        default_value_t = agentplex_processes::DEFAULT_STOP_GRACE.as_millis() as u64,
        env = "AGENTPLEX_PROCESS_STOP_GRACE_MS"
    )]
    process_stop_grace_ms: u64,
}

impl ProcessFlags {
    /// The settings the flags give.
    pub fn into_settings(self) -> ProcessSettings {
        let size = |bytes: u64| usize::try_from(bytes).unwrap_or(usize::MAX);
        ProcessSettings {
            max_processes: size(self.max_processes),
            log_bytes: size(self.process_log_bytes),
            scrollback_bytes: size(self.terminal_scrollback_bytes),
            output_bytes: size(self.process_output_bytes),
            input_bytes: size(self.process_input_bytes),
            stop_grace: Duration::from_millis(self.process_stop_grace_ms),
        }
    }
}

/// `agentplex processes ...`.
#[derive(Debug, Subcommand)]
pub enum ProcessesCommand {
    /// Run a command to completion. For a person: its output, and the command's exit
    /// status as ours (128+N after signal N, 124 after the timeout); with `--json`,
    /// the daemon's answer.
    Run {
        #[command(flatten)]
        spec: CommandArgs,
        /// Kill it after this many milliseconds [default: the daemon's, 30000].
        #[arg(long)]
        timeout_ms: Option<u64>,
        /// Most bytes kept of its stdout, and of its stderr [default: the daemon's].
        #[arg(long)]
        max_output_bytes: Option<usize>,
        /// Send our stdin as its stdin (read to its end first).
        #[arg(long)]
        stdin: bool,
        #[command(flatten)]
        connection: Connection,
    },
    /// Start a managed process and print it.
    Start {
        #[command(flatten)]
        spec: CommandArgs,
        /// Run it in a terminal (attach with `agentplex terminal ID`).
        #[arg(long)]
        tty: bool,
        /// Keep its stdin open for `processes input`.
        #[arg(long)]
        interactive: bool,
        /// Terminal width, with `--tty` [default: 80].
        #[arg(long)]
        cols: Option<u16>,
        /// Terminal height, with `--tty` [default: 24].
        #[arg(long)]
        rows: Option<u16>,
        /// Leave it running when the daemon stops.
        #[arg(long)]
        outlive_daemon: bool,
        #[command(flatten)]
        connection: Connection,
    },
    /// List the managed processes.
    List {
        #[command(flatten)]
        connection: Connection,
    },
    /// One managed process.
    Get {
        /// Process id (`proc_1`).
        id: String,
        #[command(flatten)]
        connection: Connection,
    },
    /// Print a process's buffered output (raw for a person, JSON with `--json`).
    Logs {
        /// Process id.
        id: String,
        /// Go on printing new output until the process exits.
        #[arg(long, short = 'f')]
        follow: bool,
        /// Which output: stdout, stderr, combined or pty [default: pty for a terminal, else combined].
        #[arg(long, value_parser = parse_stream)]
        stream: Option<ProcessLogsStream>,
        /// Only the last N entries.
        #[arg(long)]
        tail: Option<usize>,
        /// Only output from this byte offset on.
        #[arg(long)]
        offset: Option<u64>,
        #[command(flatten)]
        connection: Connection,
    },
    /// Write to a process's stdin (or terminal): TEXT, or our stdin to its end.
    Input {
        /// Process id.
        id: String,
        /// The text to write [default: our stdin].
        text: Option<String>,
        #[command(flatten)]
        connection: Connection,
    },
    /// Stop a process: SIGTERM, then SIGKILL after the daemon's grace.
    Stop {
        /// Process id.
        id: String,
        /// Wait up to this many milliseconds for it to exit.
        #[arg(long)]
        wait_ms: Option<u64>,
        #[command(flatten)]
        connection: Connection,
    },
    /// Kill a process (SIGKILL to its process group).
    Kill {
        /// Process id.
        id: String,
        /// Wait up to this many milliseconds for it to exit.
        #[arg(long)]
        wait_ms: Option<u64>,
        #[command(flatten)]
        connection: Connection,
    },
    /// Forget an exited process and its output.
    Delete {
        /// Process id.
        id: String,
        #[command(flatten)]
        connection: Connection,
    },
}

/// The command of `run` and `start`.
#[derive(Debug, Args)]
pub struct CommandArgs {
    /// Working directory on the daemon's side [default: the daemon's].
    #[arg(long)]
    cwd: Option<String>,
    /// An environment variable, `NAME=VALUE` (repeatable).
    #[arg(long = "env", value_parser = parse_env)]
    env: Vec<(String, String)>,
    /// The program and its arguments (after `--` when they start with `-`).
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<String>,
}

impl CommandArgs {
    fn parts(
        self,
    ) -> (
        String,
        Vec<String>,
        Option<String>,
        BTreeMap<String, String>,
    ) {
        let mut words = self.command.into_iter();
        let program = words.next().unwrap_or_default();
        (
            program,
            words.collect(),
            self.cwd,
            self.env.into_iter().collect(),
        )
    }
}

fn parse_env(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .ok_or_else(|| format!("{text:?} is not NAME=VALUE"))
}

fn parse_stream(text: &str) -> Result<ProcessLogsStream, String> {
    serde_json::from_value(serde_json::Value::String(text.to_owned()))
        .map_err(|_| format!("{text:?} is not one of stdout, stderr, combined, pty"))
}

/// `agentplex processes ...`.
pub async fn processes(command: ProcessesCommand) -> Result<(), Failure> {
    match command {
        ProcessesCommand::Run {
            spec,
            timeout_ms,
            max_output_bytes,
            stdin,
            connection: c,
        } => {
            let (command, args, cwd, env) = spec.parts();
            let stdin = if stdin {
                Some(STANDARD.encode(read_stdin().await?))
            } else {
                None
            };
            let request = ProcessRunRequest {
                command,
                args,
                cwd,
                env,
                stdin_encoding: stdin.as_ref().map(|_| ProcessDataEncoding::Base64),
                stdin,
                timeout_ms,
                max_output_bytes,
                output_encoding: Some(ProcessDataEncoding::Base64),
            };
            let done = call(&c, c.client()?.run_process(&request)).await?;
            if !c.output.human() {
                return Ok(print_json(&done)?);
            }
            write_raw(&mut std::io::stdout(), &decode(&done.stdout)?)?;
            write_raw(&mut std::io::stderr(), &decode(&done.stderr)?)?;
            match run_status(&done) {
                0 => Ok(()),
                code => Err(Failure::silent(code)),
            }
        }
        ProcessesCommand::Start {
            spec,
            tty,
            interactive,
            cols,
            rows,
            outlive_daemon,
            connection: c,
        } => {
            let (command, args, cwd, env) = spec.parts();
            let request = ProcessCreateRequest {
                command,
                args,
                cwd,
                env,
                tty,
                interactive,
                cols,
                rows,
                outlive_daemon,
            };
            let started = call(&c, c.client()?.start_process(&request)).await?;
            Ok(show(&c, &started, human::process)?)
        }
        ProcessesCommand::List { connection: c } => {
            let list = call(&c, c.client()?.list_processes()).await?;
            Ok(show(&c, &list, |l| human::processes(&l.processes))?)
        }
        ProcessesCommand::Get { id, connection: c } => {
            let info = call(&c, c.client()?.get_process(&id)).await?;
            Ok(show(&c, &info, human::process)?)
        }
        ProcessesCommand::Logs {
            id,
            follow,
            stream,
            tail,
            offset,
            connection,
        } => {
            let query = ProcessLogsQuery {
                stream,
                tail,
                offset,
                ..ProcessLogsQuery::default()
            };
            Ok(logs(&connection, &id, &query, follow).await?)
        }
        ProcessesCommand::Input {
            id,
            text,
            connection: c,
        } => {
            let bytes = match text {
                Some(text) => text.into_bytes(),
                None => read_stdin().await?,
            };
            let written = call(&c, c.client()?.process_input(&id, &bytes)).await?;
            Ok(show(&c, &written, |w| {
                format!("wrote {} bytes to {id}", w.bytes_written)
            })?)
        }
        ProcessesCommand::Stop {
            id,
            wait_ms,
            connection: c,
        } => {
            let info = call(&c, c.client()?.stop_process(&id, wait_ms)).await?;
            Ok(show(&c, &info, human::process)?)
        }
        ProcessesCommand::Kill {
            id,
            wait_ms,
            connection: c,
        } => {
            let info = call(&c, c.client()?.kill_process(&id, wait_ms)).await?;
            Ok(show(&c, &info, human::process)?)
        }
        ProcessesCommand::Delete { id, connection: c } => {
            call(&c, c.client()?.delete_process(&id)).await?;
            Ok(done(&c, format!("deleted {id}"))?)
        }
    }
}

/// Our exit status for a run: its exit code, 128+N after signal N, 124 after the timeout.
fn run_status(done: &ProcessRunResponse) -> u8 {
    if done.timed_out {
        return 124;
    }
    match (done.exit_code, done.signal) {
        (Some(code), _) => u8::try_from(code).unwrap_or(1),
        (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(1),
        (None, None) => 1,
    }
}

/// Prints a process's logs: the bytes for a person (stderr's on stderr), JSON for
/// scripts (the answer, or one event per line when following).
async fn logs(
    c: &Connection,
    id: &str,
    query: &ProcessLogsQuery,
    follow: bool,
) -> Result<(), CliError> {
    let client = c.client()?;
    if !follow {
        let page = call(c, client.process_logs(id, query)).await?;
        if !c.output.human() {
            return print_json(&page);
        }
        if page.missed_bytes > 0 {
            eprintln!(
                "[{} earlier bytes were dropped from the daemon's buffer]",
                page.missed_bytes
            );
        }
        for entry in &page.entries {
            print_entry(entry)?;
        }
        return Ok(());
    }
    let mut events = call(c, client.follow_process_logs(id, query)).await?;
    while let Some(event) = events.next().await {
        let event = call(c, async { event }).await?;
        if !c.output.human() {
            print_json_line(&event)?;
            continue;
        }
        match event {
            ProcessLogEvent::Log(entry) => print_entry(&entry)?,
            ProcessLogEvent::Missed(missed) => eprintln!(
                "[{} bytes were dropped from the daemon's buffer before they were read]",
                missed.missed_bytes
            ),
            ProcessLogEvent::Exit(info) => eprintln!("[{}]", human::exit(&info)),
        }
    }
    Ok(())
}

/// One followed event as a JSON line: `{"event": "log" | "missed" | "exit", "data": ...}`.
fn print_json_line(event: &ProcessLogEvent) -> Result<(), CliError> {
    let (name, data) = match event {
        ProcessLogEvent::Log(entry) => ("log", serde_json::to_value(entry)),
        ProcessLogEvent::Missed(missed) => ("missed", serde_json::to_value(missed)),
        ProcessLogEvent::Exit(info) => ("exit", serde_json::to_value(info)),
    };
    let data = data.map_err(CliError::invalid)?;
    println!("{}", serde_json::json!({ "event": name, "data": data }));
    Ok(())
}

/// A log entry's bytes, on stderr when they came from the process's stderr.
fn print_entry(entry: &ProcessLogEntry) -> Result<(), CliError> {
    let bytes = decode(&entry.data)?;
    if entry.stream == ProcessLogsStream::Stderr {
        write_raw(&mut std::io::stderr(), &bytes)
    } else {
        write_raw(&mut std::io::stdout(), &bytes)
    }
}

fn decode(data: &str) -> Result<Vec<u8>, CliError> {
    STANDARD
        .decode(data)
        .map_err(|e| CliError::invalid(format!("the daemon sent bad base64: {e}")))
}

fn write_raw(out: &mut impl Write, bytes: &[u8]) -> Result<(), CliError> {
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| CliError::invalid(format!("writing the output: {e}")))
}

/// Our stdin, to its end.
async fn read_stdin() -> Result<Vec<u8>, CliError> {
    let mut bytes = Vec::new();
    tokio::io::stdin()
        .read_to_end(&mut bytes)
        .await
        .map_err(|e| CliError::invalid(format!("reading stdin: {e}")))?;
    Ok(bytes)
}
