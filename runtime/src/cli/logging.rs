//! The daemon's log: `tracing` events on stderr, as text for people or as JSON
//! lines for log collectors, never with terminal colour codes in a file or pipe.

use std::io::IsTerminal;

use clap::{Args, ValueEnum};
use tracing_subscriber::EnvFilter;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// `pretty` on a terminal, `json` otherwise.
    Auto,
    /// One line of text per event (coloured only on a terminal).
    Pretty,
    /// One JSON object per line: `timestamp`, `level`, `target`, `fields`, and
    /// the `span` (request or session) it belongs to.
    Json,
}

/// The `server` command's logging flags.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// How log lines are written: `pretty` text, `json` lines, or `auto` (pretty
    /// on a terminal, json when stderr is a file or a pipe).
    #[arg(
        long,
        value_enum,
        default_value = "auto",
        env = "SANDBOX_AGENT_LOG_FORMAT"
    )]
    log_format: LogFormat,
    /// The least severe level logged: error, warn, info, debug or trace. Filter
    /// directives in `SANDBOX_AGENT_LOG` or else `RUST_LOG` (such as
    /// `info,sandbox_agent::access=off`) replace it.
    #[arg(long, default_value = "info", env = "SANDBOX_AGENT_LOG_LEVEL")]
    log_level: tracing::level_filters::LevelFilter,
}

/// Why logging could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("{variable}={value:?} is not a log filter ({reason}); e.g. `info` or `warn,sandbox_agent=debug`")]
pub struct FilterError {
    variable: &'static str,
    value: String,
    reason: String,
}

impl LogArgs {
    /// Installs the process's log subscriber.
    pub fn init(&self) -> Result<(), FilterError> {
        let filter = self.filter()?;
        let terminal = std::io::stderr().is_terminal();
        let json = match self.log_format {
            LogFormat::Auto => !terminal,
            LogFormat::Pretty => false,
            LogFormat::Json => true,
        };
        let builder = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr);
        if json {
            builder
                .json()
                .with_current_span(true)
                .with_span_list(false)
                .init();
        } else {
            builder.with_ansi(terminal).init();
        }
        Ok(())
    }

    /// `SANDBOX_AGENT_LOG`, else `RUST_LOG`, else `--log-level`.
    fn filter(&self) -> Result<EnvFilter, FilterError> {
        for variable in ["SANDBOX_AGENT_LOG", "RUST_LOG"] {
            let Ok(value) = std::env::var(variable) else {
                continue;
            };
            if value.trim().is_empty() {
                continue;
            }
            return EnvFilter::try_new(&value).map_err(|error| FilterError {
                variable,
                value,
                reason: error.to_string(),
            });
        }
        Ok(EnvFilter::new(self.log_level.to_string()))
    }
}
