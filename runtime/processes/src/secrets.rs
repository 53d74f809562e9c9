//! The daemon's own secrets (its token above all) kept where they belong: with the
//! daemon, not with the agents, tools and processes it starts.
//!
//! Whoever holds the token may drive the daemon; an agent inside a session must not
//! get it (it would answer its own permission requests, or send the token out). So:
//! - the token comes from `--token-file` or the environment ([`read_token_file`]);
//!   on the command line it is visible to every process through `ps` until the
//!   daemon hides it;
//! - at start, before any thread runs, [`hide_token`] overwrites the token where the
//!   kernel shows the process's start-up arguments and environment
//!   (`/proc/<pid>/cmdline`, `/proc/<pid>/environ`) and removes the token's variables
//!   from the environment, so no child can inherit them;
//! - every child the daemon starts also has [`SECRET_VARIABLES`] removed from its
//!   environment ([`keep_from_child`]), whatever the daemon's environment holds, and
//!   the trace exporter's headers are overwritten in `/proc/<pid>/environ` once read
//!   ([`hide_exporter_headers`]);
//! - [`refuse_inspection`] makes the daemon non-dumpable: processes of the same user
//!   (agents run as the daemon's user) cannot attach a debugger to it or read its
//!   memory and environment through `/proc`; `--debuggable` leaves that off.

use std::io;
use std::os::unix::fs::{FileExt, PermissionsExt};
use std::path::Path;

/// Variables that hold the daemon's own secrets: no child inherits them.
pub const SECRET_VARIABLES: &[&str] = &[
    "SANDBOX_AGENT_TOKEN",
    "SANDBOX_AGENT_TOKEN_FILE",
    "AGENTPLEX_TOKEN",
    "AGENTPLEX_TOKEN_FILE",
    // The session store's URL may hold the database's password.
    "AGENTPLEX_STORE",
    // The trace exporter's headers carry the tracing backend's key.
    EXPORTER_VARIABLES[0],
    EXPORTER_VARIABLES[1],
];

/// The trace exporter's headers (they carry the tracing backend's key).
const EXPORTER_VARIABLES: &[&str] = &[
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
];

/// The variables the token may come in.
const TOKEN_VARIABLES: &[&str] = &["SANDBOX_AGENT_TOKEN", "AGENTPLEX_TOKEN"];

/// The flag that takes the token on the command line.
const TOKEN_FLAG: &str = "--token";

/// Why a token file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TokenFileError {
    /// It cannot be read.
    #[error("{flag} {path}: {source}")]
    Unreadable {
        /// The flag that named it (`--token-file`).
        flag: &'static str,
        /// The file.
        path: String,
        /// What the system said.
        #[source]
        source: io::Error,
    },
    /// It holds nothing but white space.
    #[error("{flag} {path}: the file is empty")]
    Empty {
        /// The flag that named it.
        flag: &'static str,
        /// The file.
        path: String,
    },
}

/// The token in `path`, which `flag` named (`--token-file`): its first line,
/// without surrounding white space. Logs a warning when other users may read
/// the file.
pub fn read_token_file(path: &Path, flag: &'static str) -> Result<String, TokenFileError> {
    let shown = path.display().to_string();
    let unreadable = |source| TokenFileError::Unreadable {
        flag,
        path: shown.clone(),
        source,
    };
    let text = std::fs::read_to_string(path).map_err(unreadable)?;
    let token = text.lines().next().unwrap_or_default().trim();
    if token.is_empty() {
        return Err(TokenFileError::Empty { flag, path: shown });
    }
    if let Ok(metadata) = std::fs::metadata(path) {
        if metadata.permissions().mode() & 0o077 != 0 {
            eprintln!(
                "warning: {flag} {shown} may be read by other users (mode {:o}); chmod 600 it",
                metadata.permissions().mode() & 0o777
            );
        }
    }
    Ok(token.to_owned())
}

/// Whether the daemon's own command line holds `--token` (the token is visible
/// to every process until [`hide_token`] runs).
pub fn token_on_command_line() -> bool {
    std::env::args_os()
        .any(|arg| arg == TOKEN_FLAG || arg.to_str().is_some_and(|arg| arg.starts_with("--token=")))
}

/// Overwrites `token` in the process's start-up arguments and environment as the
/// kernel shows them, and removes the token's variables from the environment.
/// Must run before any other thread starts (it changes the environment).
pub fn hide_token(token: &str) -> io::Result<()> {
    let areas = StartupAreas::of_this_process()?;
    let memory = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/proc/self/mem")?;
    let mut argv = areas.read(&memory, areas.args)?;
    if mask_argument(&mut argv, token.as_bytes()) {
        memory.write_all_at(&argv, areas.args.0)?;
    }
    let mut environ = areas.read(&memory, areas.environ)?;
    if mask_variables(&mut environ, TOKEN_VARIABLES) {
        memory.write_all_at(&environ, areas.environ.0)?;
    }
    for name in TOKEN_VARIABLES {
        // Single-threaded still: nothing reads the environment meanwhile.
        std::env::remove_var(name);
    }
    Ok(())
}

/// Overwrites the values of the trace exporter's header variables where the kernel
/// shows the process's start-up environment, once the exporter has read them
/// (children do not inherit them: [`keep_from_child`]).
pub fn hide_exporter_headers() -> io::Result<()> {
    let areas = StartupAreas::of_this_process()?;
    let memory = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/proc/self/mem")?;
    let mut environ = areas.read(&memory, areas.environ)?;
    if mask_variables(&mut environ, EXPORTER_VARIABLES) {
        memory.write_all_at(&environ, areas.environ.0)?;
    }
    Ok(())
}

/// Makes the daemon non-dumpable (see the module docs).
pub fn refuse_inspection() -> io::Result<()> {
    rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
        .map_err(io::Error::from)
}

/// Removes the daemon's secret variables from a child's environment (a
/// `tokio::process::Command` through its `as_std_mut`).
pub fn keep_from_child(command: &mut std::process::Command) -> &mut std::process::Command {
    for name in SECRET_VARIABLES {
        command.env_remove(name);
    }
    command
}

/// Where the kernel keeps the start-up arguments and environment of this process
/// (from `/proc/self/stat`): (start address, end address) of each.
struct StartupAreas {
    args: (u64, u64),
    environ: (u64, u64),
}

impl StartupAreas {
    fn of_this_process() -> io::Result<Self> {
        let stat = std::fs::read_to_string("/proc/self/stat")?;
        Self::parse(&stat).ok_or_else(|| io::Error::other("/proc/self/stat has no argument area"))
    }

    /// Fields 48 to 51 of `stat` (`arg_start`, `arg_end`, `env_start`, `env_end`).
    fn parse(stat: &str) -> Option<Self> {
        // The command name (field 2) may hold spaces; the fields after it do not.
        let fields: Vec<u64> = stat[stat.rfind(')')? + 1..]
            .split_whitespace()
            .map(|field| field.parse().unwrap_or(0))
            .collect();
        // Field n is at index n - 3 after the name.
        let field = |n: usize| fields.get(n - 3).copied();
        let areas = StartupAreas {
            args: (field(48)?, field(49)?),
            environ: (field(50)?, field(51)?),
        };
        let sound = |(start, end): (u64, u64)| start > 0 && end >= start;
        (sound(areas.args) && sound(areas.environ)).then_some(areas)
    }

    fn read(&self, memory: &std::fs::File, (start, end): (u64, u64)) -> io::Result<Vec<u8>> {
        let mut bytes = vec![0; usize::try_from(end - start).map_err(io::Error::other)?];
        memory.read_exact_at(&mut bytes, start)?;
        Ok(bytes)
    }
}

/// Masks the value of `--token VALUE` or `--token=VALUE` in NUL-separated
/// arguments; true if something was masked.
fn mask_argument(args: &mut [u8], token: &[u8]) -> bool {
    let mut masked = false;
    let mut after_flag = false;
    for arg in args.split_mut(|&b| b == 0) {
        if after_flag && arg == token {
            arg.fill(b'*');
            masked = true;
        } else if arg.starts_with(b"--token=") && arg[b"--token=".len()..] == *token {
            arg[b"--token=".len()..].fill(b'*');
            masked = true;
        }
        after_flag = arg == TOKEN_FLAG.as_bytes();
    }
    masked
}

/// Masks the values of the `names` variables in a NUL-separated environment; true
/// if something was masked.
fn mask_variables(environ: &mut [u8], names: &[&str]) -> bool {
    let mut masked = false;
    for entry in environ.split_mut(|&b| b == 0) {
        for name in names {
            let prefix = name.len() + 1;
            if entry.len() > prefix
                && entry.starts_with(name.as_bytes())
                && entry[name.len()] == b'='
            {
                entry[prefix..].fill(b'*');
                masked = true;
            }
        }
    }
    masked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_argument_is_masked_in_both_spellings() {
        let mut args = b"agentplex\0server\0--token\0s3cret\0--port\0s3cret\0".to_vec();
        assert!(mask_argument(&mut args, b"s3cret"));
        assert_eq!(
            args,
            b"agentplex\0server\0--token\0******\0--port\0s3cret\0"
        );
        let mut args = b"x\0--token=s3cret\0".to_vec();
        assert!(mask_argument(&mut args, b"s3cret"));
        assert_eq!(args, b"x\0--token=******\0");
        let mut args = b"x\0--no-token\0".to_vec();
        assert!(!mask_argument(&mut args, b"s3cret"));
    }

    #[test]
    fn only_the_named_variables_are_masked() {
        let mut environ = b"HOME=/root\0SANDBOX_AGENT_TOKEN=abc\0SANDBOX_AGENT_TOKENS=x\0".to_vec();
        assert!(mask_variables(&mut environ, TOKEN_VARIABLES));
        assert_eq!(
            environ,
            b"HOME=/root\0SANDBOX_AGENT_TOKEN=***\0SANDBOX_AGENT_TOKENS=x\0"
        );
    }

    #[test]
    fn the_startup_areas_are_read_after_the_command_name() {
        let areas = StartupAreas::of_this_process().unwrap();
        assert!(areas.args.1 > areas.args.0);
        assert!(areas.environ.1 >= areas.environ.0);
        // A command name with spaces and parentheses does not shift the fields.
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
        let rest = &stat[stat.rfind(')').unwrap()..];
        let odd = format!("1 (a b) c){rest}");
        let parsed = StartupAreas::parse(&odd).unwrap();
        assert_eq!(parsed.args, areas.args);
    }

    #[test]
    fn a_token_file_gives_its_first_line_and_an_empty_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "  abc123 \nsecond line\n").unwrap();
        assert_eq!(read_token_file(&path, "--token-file").unwrap(), "abc123");
        std::fs::write(&path, "\n \n").unwrap();
        let empty = read_token_file(&path, "--broker-token-file").unwrap_err();
        assert!(matches!(empty, TokenFileError::Empty { .. }));
        assert!(
            empty.to_string().starts_with("--broker-token-file "),
            "{empty}"
        );
        assert!(matches!(
            read_token_file(&dir.path().join("missing"), "--token-file"),
            Err(TokenFileError::Unreadable { .. })
        ));
    }
}
