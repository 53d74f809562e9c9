//! The daemon's metrics, served at `GET /metrics` in the OpenMetrics text format
//! (which Prometheus scrapes): HTTP requests, sessions, events, turns, adapter
//! calls, store commits, the agents' metered model calls ([`models`]), and the
//! process's memory, files and threads.
//!
//! One set per process ([`metrics`]): the parts that count (the HTTP layer, the
//! session tasks) record into it as they go; what is a state (sessions by
//! status, process figures) is read when the document is asked for.

use std::sync::LazyLock;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::{Registry, Unit};

pub mod models;

/// The content type of [`Metrics::render`]'s document.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Labels naming an agent.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct AgentLabels {
    pub agent: String,
}

/// Labels of a set of sessions.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SessionLabels {
    pub agent: String,
    /// `idle`, `running`, `awaiting_input` or `ended`.
    pub status: String,
}

/// Labels of an answered request: the route as declared (`/v1/sessions/{session_id}`),
/// never the path as sent, so the number of series stays fixed.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub method: String,
    pub route: String,
    pub status: u16,
}

/// Labels of a route's latency.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabels {
    pub method: String,
    pub route: String,
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

/// Every metric of the daemon.
pub struct Metrics {
    registry: Registry,
    /// Answered requests by route and status.
    pub requests: Family<RequestLabels, Counter>,
    /// Time to the response's head, by route (an SSE stream's lasts longer).
    pub request_seconds: Histograms<RouteLabels>,
    /// Events stored and made readable, by agent.
    pub events: Family<AgentLabels, Counter>,
    /// Turns, from start to end, by agent.
    pub turn_seconds: Histograms<AgentLabels>,
    /// Calls into adapter components (each a converted line, command or answer).
    pub adapter_call_seconds: Histograms<AgentLabels>,
    /// Permission requests an approval policy answered, from the request's arrival
    /// to the answer's hand-over to the agent, by agent.
    pub policy_decision_seconds: Histograms<AgentLabels>,
    /// A session's commit, from queueing it to the store's answer.
    pub commit_seconds: Histogram,
    /// Commits the store refused (a full disk, a database that cannot be written).
    pub commit_failures: Counter,
    /// Client connections being served.
    pub connections: Gauge,
    /// Times the connection limit was reached (new connections waited).
    pub connection_limit_waits: Counter,
    /// Connections closed before they authenticated: over their address's share, or
    /// silent past the first-request deadline.
    pub unauthenticated_closed: Counter,
    /// Sessions holding an adapter instance (the others are parked).
    pub adapter_instances: Gauge,
    /// Instances parked early because the cap on live instances was reached.
    pub instances_parked_for_room: Counter,
    sessions: Family<SessionLabels, Gauge>,
    models: models::ModelMetrics,
    resident_bytes: Gauge,
    open_fds: Gauge,
    threads: Gauge,
}

/// The process's metrics.
pub fn metrics() -> &'static Metrics {
    static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);
    &METRICS
}

/// Buckets from 50 µs to about 1.6 s (adapter calls, commits).
fn fast_buckets() -> Histogram {
    Histogram::new(exponential_buckets(0.000_05, 2.0, 16))
}

/// Buckets from 100 µs to 1 s, finer around the 5 ms goal of a policy's answer.
fn decision_buckets() -> Histogram {
    let milliseconds = [
        0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 7.5, 10.0, 25.0, 100.0, 1000.0,
    ];
    Histogram::new(milliseconds.into_iter().map(|ms| ms / 1000.0))
}

/// Buckets from 1 ms to about 16 s (requests).
fn request_buckets() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 15))
}

/// Buckets from 100 ms to about 1.8 h (turns).
fn turn_buckets() -> Histogram {
    Histogram::new(exponential_buckets(0.1, 2.0, 16))
}

impl Metrics {
    fn new() -> Self {
        let metrics = Self {
            registry: Registry::with_prefix("agentplex"),
            requests: Family::default(),
            request_seconds: Family::new_with_constructor(request_buckets),
            events: Family::default(),
            turn_seconds: Family::new_with_constructor(turn_buckets),
            adapter_call_seconds: Family::new_with_constructor(fast_buckets),
            policy_decision_seconds: Family::new_with_constructor(decision_buckets),
            commit_seconds: fast_buckets(),
            commit_failures: Counter::default(),
            connections: Gauge::default(),
            connection_limit_waits: Counter::default(),
            unauthenticated_closed: Counter::default(),
            adapter_instances: Gauge::default(),
            instances_parked_for_room: Counter::default(),
            sessions: Family::default(),
            models: models::ModelMetrics::default(),
            resident_bytes: Gauge::default(),
            open_fds: Gauge::default(),
            threads: Gauge::default(),
        };
        metrics.register()
    }

    fn register(mut self) -> Self {
        let registry = &mut self.registry;
        let seconds = Unit::Seconds;
        registry.register(
            "http_requests",
            "Answered HTTP requests",
            self.requests.clone(),
        );
        registry.register_with_unit(
            "http_request_duration",
            "Time to an HTTP response's head",
            seconds.clone(),
            self.request_seconds.clone(),
        );
        registry.register(
            "http_connections",
            "Client connections being served",
            self.connections.clone(),
        );
        registry.register(
            "http_connection_limit_waits",
            "Times the connection limit made new connections wait",
            self.connection_limit_waits.clone(),
        );
        registry.register(
            "http_unauthenticated_connections_closed",
            "Connections closed before they authenticated: over their address's share, or no request head in time",
            self.unauthenticated_closed.clone(),
        );
        registry.register(
            "adapter_instances",
            "Sessions holding an adapter instance",
            self.adapter_instances.clone(),
        );
        registry.register(
            "adapter_instances_parked_for_room",
            "Instances parked early because the cap on live instances was reached",
            self.instances_parked_for_room.clone(),
        );
        registry.register(
            "sessions",
            "Sessions held, by agent and status",
            self.sessions.clone(),
        );
        registry.register(
            "events",
            "Events stored and made readable",
            self.events.clone(),
        );
        registry.register_with_unit(
            "turn_duration",
            "Turns from start to end",
            seconds.clone(),
            self.turn_seconds.clone(),
        );
        registry.register_with_unit(
            "adapter_call_duration",
            "Calls into adapter components",
            seconds.clone(),
            self.adapter_call_seconds.clone(),
        );
        registry.register_with_unit(
            "policy_decision_duration",
            "Permission requests an approval policy answered, arrival to answer",
            seconds.clone(),
            self.policy_decision_seconds.clone(),
        );
        registry.register_with_unit(
            "store_commit_duration",
            "Session commits, queued to durable",
            seconds,
            self.commit_seconds.clone(),
        );
        registry.register(
            "store_commit_failures",
            "Commits the store refused",
            self.commit_failures.clone(),
        );
        self.models.register(registry);
        registry.register_with_unit(
            "process_resident_memory",
            "Resident memory of the daemon",
            Unit::Bytes,
            self.resident_bytes.clone(),
        );
        registry.register(
            "process_open_fds",
            "Open file descriptors",
            self.open_fds.clone(),
        );
        registry.register(
            "process_threads",
            "Threads of the daemon",
            self.threads.clone(),
        );
        self
    }

    /// Counts one metered model call of a session of `agent`.
    pub fn model_call(&self, agent: &str, call: &agentplex_universal::ModelUsageData) {
        self.models.record(agent, call);
    }

    /// The OpenMetrics document, with the sessions held now (`(agent, status)`
    /// of each) and the process's current figures.
    pub fn render(&self, sessions: impl IntoIterator<Item = SessionLabels>) -> String {
        self.sessions.clear();
        for labels in sessions {
            self.sessions.get_or_create(&labels).inc();
        }
        let process = ProcessFigures::read();
        self.resident_bytes.set(process.resident_bytes);
        self.open_fds.set(process.open_fds);
        self.threads.set(process.threads);
        let mut document = String::new();
        prometheus_client::encoding::text::encode(&mut document, &self.registry)
            .expect("writing to a String cannot fail");
        document
    }
}

/// The metrics a session task records into, labelled with its agent once.
pub struct AgentMetrics {
    pub events: Counter,
    pub turns: Histogram,
    pub adapter_calls: Histogram,
    pub policy_decisions: Histogram,
}

impl AgentMetrics {
    /// The handles of `agent`'s metrics.
    pub fn of(agent: &str) -> Self {
        let metrics = metrics();
        let labels = AgentLabels {
            agent: agent.to_owned(),
        };
        Self {
            events: metrics.events.get_or_create(&labels).clone(),
            turns: metrics.turn_seconds.get_or_create(&labels).clone(),
            adapter_calls: metrics.adapter_call_seconds.get_or_create(&labels).clone(),
            policy_decisions: metrics
                .policy_decision_seconds
                .get_or_create(&labels)
                .clone(),
        }
    }
}

/// Records a duration in `histogram` (seconds).
pub fn observe(histogram: &Histogram, took: Duration) {
    histogram.observe(took.as_secs_f64());
}

/// What `/proc/self` says of the daemon (zeros where it cannot be read).
struct ProcessFigures {
    resident_bytes: i64,
    open_fds: i64,
    threads: i64,
}

impl ProcessFigures {
    fn read() -> Self {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let field = |name: &str| -> i64 {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|number| number.parse().ok())
                .unwrap_or(0)
        };
        let open_fds =
            std::fs::read_dir("/proc/self/fd").map_or(0, |entries| entries.count() as i64);
        Self {
            resident_bytes: field("VmRSS:") * 1024,
            open_fds,
            threads: field("Threads:"),
        }
    }
}
