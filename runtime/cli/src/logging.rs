//! The daemon's log: `tracing` events on stderr, as text for people or as JSON
//! lines for log collectors, never with terminal colour codes in a file or pipe;
//! and, when an OTLP endpoint is configured, its spans (requests, sessions) as
//! OpenTelemetry traces.

use std::io::IsTerminal;

use clap::{Args, ValueEnum};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::filter::{filter_fn, FilterExt, LevelFilter};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

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
#[derive(Debug, Clone, Args)]
pub struct LogArgs {
    /// How log lines are written: `pretty` text, `json` lines, or `auto` (pretty
    /// on a terminal, json when stderr is a file or a pipe).
    #[arg(long, value_enum, default_value = "auto", env = "AGENTPLEX_LOG_FORMAT")]
    log_format: LogFormat,
    /// The least severe level logged: error, warn, info, debug or trace. Filter
    /// directives in `AGENTPLEX_LOG` or else `RUST_LOG` (such as
    /// `info,agentplex::access=debug`, an access line for every request) replace it.
    #[arg(long, default_value = "info", env = "AGENTPLEX_LOG_LEVEL")]
    log_level: LevelFilter,
    /// Send traces (a span per request and per session task) to this OTLP/HTTP
    /// collector, e.g. http://127.0.0.1:4318 (`/v1/traces` is added) [default:
    /// none; the standard OTEL_EXPORTER_OTLP_ENDPOINT is honoured too].
    #[arg(long, env = "AGENTPLEX_OTLP_ENDPOINT")]
    otlp_endpoint: Option<String>,
}

/// Why logging could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum LoggingError {
    /// A filter in the environment does not parse.
    #[error("{variable}={value:?} is not a log filter ({reason}); e.g. `info` or `warn,agentplex=debug`")]
    Filter {
        variable: &'static str,
        value: String,
        reason: String,
    },
    /// The OTLP exporter cannot be built (a URL that does not parse...).
    #[error("--otlp-endpoint: {0}")]
    Otlp(String),
}

/// Keeps the trace exporter running; dropping it sends the spans not yet sent.
pub struct Telemetry(Option<SdkTracerProvider>);

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Some(provider) = self.0.take() {
            if let Err(error) = provider.shutdown() {
                eprintln!("warning: sending the last traces failed: {error}");
            }
        }
    }
}

impl LogArgs {
    /// Installs the process's log subscriber (call it outside an async runtime:
    /// the trace exporter has its own thread and HTTP client).
    pub fn init(&self) -> Result<Telemetry, LoggingError> {
        let filter = self.filter()?;
        let terminal = std::io::stderr().is_terminal();
        let json = self.json();
        let provider = self.trace_provider()?;
        // Traces take the info spans (requests, sessions) whatever the log's level.
        let traces = provider.as_ref().map(|provider| {
            tracing_opentelemetry::layer()
                .with_tracer(provider.tracer("agentplex"))
                .with_filter(LevelFilter::INFO)
        });
        let registry = tracing_subscriber::registry().with(traces);
        // Every span is kept whatever the level, so a warning logged in a request
        // or a session still names it.
        let filter = filter.or(filter_fn(|metadata| metadata.is_span()));
        let text = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
        if json {
            let text = text.json().with_current_span(true).with_span_list(false);
            registry.with(text.with_filter(filter)).init();
        } else {
            registry
                .with(text.with_ansi(terminal).with_filter(filter))
                .init();
        }
        Ok(Telemetry(provider))
    }

    /// Whether log lines are JSON objects (`json`, or `auto` with stderr not a
    /// terminal); the listening line on stdout is one then too.
    pub fn json(&self) -> bool {
        match self.log_format {
            LogFormat::Auto => !std::io::stderr().is_terminal(),
            LogFormat::Pretty => false,
            LogFormat::Json => true,
        }
    }

    /// The trace pipeline, when an endpoint is configured (by flag, or by the
    /// standard OpenTelemetry variables).
    fn trace_provider(&self) -> Result<Option<SdkTracerProvider>, LoggingError> {
        let standard = [
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        ]
        .iter()
        .any(|variable| std::env::var(variable).is_ok_and(|value| !value.is_empty()));
        if self.otlp_endpoint.is_none() && !standard {
            return Ok(None);
        }
        let mut exporter = opentelemetry_otlp::SpanExporter::builder().with_http();
        if let Some(base) = &self.otlp_endpoint {
            exporter = exporter.with_endpoint(format!("{}/v1/traces", base.trim_end_matches('/')));
        }
        let exporter = exporter
            .build()
            .map_err(|error| LoggingError::Otlp(error.to_string()))?;
        let resource = opentelemetry_sdk::Resource::builder()
            .with_service_name("agentplex")
            .build();
        Ok(Some(
            SdkTracerProvider::builder()
                .with_batch_exporter(exporter)
                .with_resource(resource)
                .build(),
        ))
    }

    /// `AGENTPLEX_LOG`, else `RUST_LOG`, else `--log-level` (the MCP library's
    /// errors only).
    fn filter(&self) -> Result<EnvFilter, LoggingError> {
        for variable in ["AGENTPLEX_LOG", "RUST_LOG"] {
            let Ok(value) = std::env::var(variable) else {
                continue;
            };
            if value.trim().is_empty() {
                continue;
            }
            return EnvFilter::try_new(&value).map_err(|error| LoggingError::Filter {
                variable,
                value,
                reason: error.to_string(),
            });
        }
        // The MCP library of the desktop's tools warns of every method a client asks
        // that the server does not offer (`prompts/list`...), which agents ask as a
        // matter of course: its errors only.
        let level = self.log_level.to_string();
        let mcp = if level == "off" { "off" } else { "error" };
        Ok(EnvFilter::new(format!("{level},rmcp={mcp}")))
    }
}
