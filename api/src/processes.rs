//! Bodies and queries of the process routes (`/v1/processes/*`): one-shot runs,
//! managed processes with buffered logs, and PTY terminals.
//!
//! Route paths and field names follow the reference's 0.4+ process API, so a client
//! written for it works here; what this API adds (byte offsets in the logs, the
//! signal that ended a process, `outliveDaemon`...) is optional on input.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// How bytes travel in a JSON string.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProcessDataEncoding {
    /// UTF-8 text (`text` is accepted too). On output, bytes that are not valid
    /// UTF-8 are replaced with U+FFFD: ask for `base64` to get them exactly.
    #[default]
    #[serde(alias = "text")]
    Utf8,
    /// Standard base64 with padding: any bytes, exactly.
    Base64,
}

/// Body of `POST /v1/processes/run`: run a command to completion.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProcessRunRequest {
    /// The program: a path, or a name looked up in the daemon's `PATH`.
    #[schema(min_length = 1, pattern = "^[^\\x00]*$")]
    pub command: String,
    /// Its arguments (no shell: use `sh -c` for one).
    #[serde(default)]
    pub args: Vec<String>,
    /// Working directory; the daemon's when absent or empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^[^\\x00]*$")]
    pub cwd: Option<String>,
    /// Variables added to the daemon's environment.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Bytes written to the command's stdin, which is then closed; an empty stdin
    /// when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
    /// How `stdin` is encoded; `utf8` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin_encoding: Option<ProcessDataEncoding>,
    /// The command's process group is killed (SIGKILL) after this long; the
    /// daemon's `defaultRunTimeoutMs` when absent, at most `maxRunTimeoutMs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Most bytes kept of stdout, and of stderr; the daemon's `maxOutputBytes` when
    /// absent, and never more. Output past it is read and dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_bytes: Option<usize>,
    /// How `stdout` and `stderr` are encoded in the answer; `utf8` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_encoding: Option<ProcessDataEncoding>,
}

/// The answer of `POST /v1/processes/run`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProcessRunResponse {
    /// The exit status, when the command exited on its own.
    pub exit_code: Option<i32>,
    /// The signal that ended it (9 after a timeout), when one did.
    #[serde(default)]
    pub signal: Option<i32>,
    /// The timeout passed and the command was killed.
    pub timed_out: bool,
    /// What it printed on stdout (at most `maxOutputBytes` bytes).
    pub stdout: String,
    /// What it printed on stderr (at most `maxOutputBytes` bytes).
    pub stderr: String,
    /// It printed more on stdout than was kept.
    pub stdout_truncated: bool,
    /// It printed more on stderr than was kept.
    pub stderr_truncated: bool,
    /// How `stdout` and `stderr` are encoded.
    #[serde(default)]
    pub encoding: ProcessDataEncoding,
    /// From spawn to exit (and the end of its output), in milliseconds.
    pub duration_ms: u64,
}

/// Body of `POST /v1/processes`: start a managed process.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProcessCreateRequest {
    /// The program: a path, or a name looked up in the daemon's `PATH`.
    #[schema(min_length = 1, pattern = "^[^\\x00]*$")]
    pub command: String,
    /// Its arguments (no shell: use `sh -c` for one).
    #[serde(default)]
    pub args: Vec<String>,
    /// Working directory; the daemon's when absent or empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^[^\\x00]*$")]
    pub cwd: Option<String>,
    /// Variables added to the daemon's environment (`TERM` defaults to
    /// `xterm-256color` in a terminal).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Run it in a pseudo-terminal: one output stream (`pty`), input and the
    /// terminal WebSocket, resizable.
    #[serde(default)]
    pub tty: bool,
    /// Keep its stdin open for `POST .../input` (always so in a terminal); without
    /// it stdin is empty.
    #[serde(default)]
    pub interactive: bool,
    /// Terminal width in columns (with `tty`); 80 when absent.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "terminal_size::optional"
    )]
    #[schema(minimum = 1, maximum = 65535)]
    pub cols: Option<u16>,
    /// Terminal height in rows (with `tty`); 24 when absent.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "terminal_size::optional"
    )]
    #[schema(minimum = 1, maximum = 65535)]
    pub rows: Option<u16>,
    /// Leave the process running when the daemon stops (by default the daemon
    /// stops every process it started). Not with `tty`: a terminal ends with the
    /// daemon. Its output pipes close with the daemon: it should write elsewhere.
    #[serde(default)]
    pub outlive_daemon: bool,
}

/// Whether a managed process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProcessState {
    /// It runs.
    Running,
    /// It exited (on its own or by a signal); its record stays until deleted.
    Exited,
}

/// A managed process (kept after it exits, until deleted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProcessInfo {
    /// The daemon's id for it (`proc_<n>`).
    pub id: String,
    /// The program, as asked for.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its working directory, when one was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// It runs in a terminal.
    pub tty: bool,
    /// Its stdin is open for input (always so in a terminal).
    pub interactive: bool,
    /// Whether it runs.
    pub status: ProcessState,
    /// Its pid, which is also its process group's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// The exit status, once it exited on its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// When it started (Unix milliseconds).
    pub created_at_ms: i64,
    /// When it exited (Unix milliseconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exited_at_ms: Option<i64>,
    /// It is left running when the daemon stops.
    #[serde(default)]
    pub outlive_daemon: bool,
}

/// `GET /v1/processes`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ProcessListResponse {
    /// Every process not deleted, oldest first.
    pub processes: Vec<ProcessInfo>,
}

/// The limits of the process API (`GET /v1/processes/config`), set by the daemon's flags.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProcessConfig {
    /// Most processes held at once: managed ones not deleted (running or exited)
    /// plus runs in progress (`--max-processes`).
    pub max_concurrent_processes: usize,
    /// Timeout of a run that names none, in milliseconds.
    pub default_run_timeout_ms: u64,
    /// Longest timeout a run may ask for, in milliseconds.
    pub max_run_timeout_ms: u64,
    /// Most bytes a run keeps of stdout, and of stderr (`--process-output-bytes`).
    pub max_output_bytes: usize,
    /// Log ring buffer of a process without a terminal, in bytes (`--process-log-bytes`).
    pub max_log_bytes_per_process: usize,
    /// Scrollback ring buffer of a terminal, in bytes (`--terminal-scrollback-bytes`).
    pub terminal_scrollback_bytes: usize,
    /// Largest decoded input of one `POST .../input` or WebSocket input frame
    /// (`--process-input-bytes`).
    pub max_input_bytes_per_request: usize,
    /// Time between SIGTERM and SIGKILL when a process is stopped, in
    /// milliseconds (`--process-stop-grace-ms`).
    pub stop_grace_ms: u64,
}

/// Which output of a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProcessLogsStream {
    /// Its standard output.
    Stdout,
    /// Its standard error.
    Stderr,
    /// Stdout and stderr in the order they were read.
    Combined,
    /// A terminal's output.
    Pty,
}

/// Query of `GET /v1/processes/{id}/logs`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ProcessLogsQuery {
    /// Which output; `pty` for a terminal, else `combined`, when absent.
    #[serde(default)]
    pub stream: Option<ProcessLogsStream>,
    /// Only the last N entries still held (without `follow`).
    #[serde(default)]
    pub tail: Option<usize>,
    /// Answer with an SSE stream: the entries held, then new ones as they come,
    /// ending after the process exited.
    #[serde(default)]
    pub follow: Option<bool>,
    /// Only entries whose `sequence` is greater (`Last-Event-ID` too).
    #[serde(default)]
    pub since: Option<u64>,
    /// Only output from this byte offset on (an entry that straddles it is cut).
    #[serde(default)]
    pub offset: Option<u64>,
}

/// One chunk of output, as read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProcessLogEntry {
    /// Its number, from 1, over all the process's streams.
    pub sequence: u64,
    /// Where its first byte is in everything the process printed (all streams, in
    /// the order read), from 0.
    #[serde(default)]
    pub offset: u64,
    /// Which output it came from.
    pub stream: ProcessLogsStream,
    /// When it was read (Unix milliseconds).
    pub timestamp_ms: i64,
    /// The bytes, in `encoding`.
    pub data: String,
    /// Always `base64`.
    pub encoding: String,
}

/// The answer of `GET /v1/processes/{id}/logs` (without `follow`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProcessLogsResponse {
    /// The process read.
    pub process_id: String,
    /// The output read.
    pub stream: ProcessLogsStream,
    /// The entries held that were asked for, oldest first.
    pub entries: Vec<ProcessLogEntry>,
    /// Offset of the oldest byte the ring buffer still holds: what came before
    /// was dropped.
    #[serde(default)]
    pub first_offset: u64,
    /// Offset one past the newest byte: where the next output will start.
    #[serde(default)]
    pub next_offset: u64,
    /// Bytes asked for that were dropped before this read (reading from an
    /// `offset`, or from the start).
    #[serde(default)]
    pub missed_bytes: u64,
    /// Entries asked for that were dropped before this read (reading `since` a
    /// sequence).
    #[serde(default)]
    pub missed_entries: u64,
}

/// Data of the SSE `missed` event of a followed log: output dropped from the ring
/// buffer before the reader got it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProcessLogsMissed {
    /// How many entries were skipped.
    pub missed_entries: u64,
    /// How many bytes were skipped (0 when the stream started `since` an entry
    /// already dropped: then only `missedEntries` is known).
    pub missed_bytes: u64,
    /// Where the stream goes on.
    pub first_offset: u64,
}

/// Body of `POST /v1/processes/{id}/input`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProcessInputRequest {
    /// The bytes, in `encoding`.
    pub data: String,
    /// `base64` when absent (as in the reference), or `utf8`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<ProcessDataEncoding>,
}

/// The answer of `POST /v1/processes/{id}/input`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProcessInputResponse {
    /// How many bytes were written (all of them).
    pub bytes_written: usize,
}

/// Query of `POST /v1/processes/{id}/stop` and `.../kill`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ProcessSignalQuery {
    /// Wait up to this long for the process to exit before answering; answer at
    /// once when absent (a stop still sends SIGKILL after the grace).
    #[serde(default)]
    pub wait_ms: Option<u64>,
}

/// Body of `POST /v1/processes/{id}/terminal/resize`, and its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProcessTerminalResizeRequest {
    /// Width in columns.
    #[serde(deserialize_with = "terminal_size::required")]
    #[schema(minimum = 1, maximum = 65535)]
    pub cols: u16,
    /// Height in rows.
    #[serde(deserialize_with = "terminal_size::required")]
    #[schema(minimum = 1, maximum = 65535)]
    pub rows: u16,
}

/// A terminal dimension from JSON: any whole number from 0 to 65535, written as
/// an integer or not (`80.0` is an integer to JSON Schema, not to serde).
mod terminal_size {
    use serde::de::{Error, Unexpected};
    use serde::{Deserialize, Deserializer};

    fn whole<E: Error>(value: f64) -> Result<u16, E> {
        if value.fract() == 0.0 && (0.0..=f64::from(u16::MAX)).contains(&value) {
            Ok(value as u16)
        } else {
            Err(E::invalid_value(
                Unexpected::Float(value),
                &"a whole number from 0 to 65535",
            ))
        }
    }

    pub fn required<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u16, D::Error> {
        whole(f64::deserialize(deserializer)?)
    }

    pub fn optional<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u16>, D::Error> {
        Option::<f64>::deserialize(deserializer)?
            .map(whole)
            .transpose()
    }

    #[cfg(test)]
    mod tests {
        use crate::ProcessTerminalResizeRequest;

        #[test]
        fn whole_numbers_are_read_written_either_way() {
            let read = |json: &str| serde_json::from_str::<ProcessTerminalResizeRequest>(json);
            let size = read(r#"{"cols": 80.0, "rows": 24}"#).unwrap();
            assert_eq!((size.cols, size.rows), (80, 24));
            for bad in [
                r#"{"cols": 80.5, "rows": 24}"#,
                r#"{"cols": 70000, "rows": 24}"#,
                r#"{"cols": -1, "rows": 24}"#,
                r#"{"cols": "80", "rows": 24}"#,
            ] {
                assert!(read(bad).is_err(), "{bad}");
            }
        }
    }
}

/// Query of `GET /v1/processes/{id}/terminal/ws`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ProcessWsQuery {
    /// The daemon's token, for browsers (a WebSocket cannot send headers); only
    /// this route accepts it.
    #[serde(default)]
    pub access_token: Option<String>,
}

/// A JSON text frame a client sends on the terminal WebSocket. Anything else
/// (a binary frame, text that is not one of these) closes the socket with a reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum TerminalClientFrame {
    /// Keystrokes for the terminal.
    Input {
        /// The bytes, in `encoding`.
        data: String,
        /// `utf8` when absent, or `base64`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encoding: Option<ProcessDataEncoding>,
    },
    /// Resize the terminal (every viewer shares its one size).
    Resize {
        /// Width in columns (at least 1).
        cols: u16,
        /// Height in rows (at least 1).
        rows: u16,
    },
    /// Close this viewer's socket (the process goes on).
    // Empty braces, not a unit variant: a unit variant would accept unknown fields.
    Close {},
}

/// A JSON text frame the daemon sends on the terminal WebSocket; the terminal's
/// output comes in binary frames.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum TerminalServerFrame {
    /// First frame: the socket is attached; the scrollback follows in binary frames.
    #[serde(rename_all = "camelCase")]
    Ready {
        /// The process whose terminal this is.
        process_id: String,
    },
    /// The process exited; the socket closes after it (normal closure).
    #[serde(rename_all = "camelCase")]
    Exit {
        /// Its exit status, when it exited on its own.
        exit_code: Option<i32>,
        /// The signal that ended it, when one did.
        #[serde(default)]
        signal: Option<i32>,
    },
    /// A control frame could not be carried out (the socket stays open).
    Error {
        /// Why.
        message: String,
    },
}
