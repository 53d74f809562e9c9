//! agentplex's HTTP server: router, middleware (auth, CORS, tracing, body limits),
//! the OpenAPI document and graceful shutdown. Handlers live in `routes` and the
//! files named for their group; [`error::ApiError`] is the one error a client
//! sees, every crate's error mapped to an RFC 7807 problem document. What the
//! server runs with is a [`config::DaemonConfig`].

mod acp;
mod auth;
pub mod config;
mod conn;
mod cors;
mod desktop_routes;
mod desktop_stream;
pub mod error;
mod events_page;
mod extract;
mod fleet;
mod fs_routes;
pub mod guard;
mod install_events;
mod metrics_routes;
mod move_routes;
pub mod openapi;
mod openapi_rules;
mod peers;
mod process_routes;
mod registry_routes;
pub mod request_log;
mod routes;
pub mod sse;
mod terminal_ws;
mod ui;
mod unread_body;

pub use cors::CorsError;

/// The daemon's version, reported by `GET /v1/health` and in the OpenAPI document.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

use std::sync::Arc;

use anyhow::Context;
use axum::extract::DefaultBodyLimit;
use axum::http::Uri;
use axum::routing::{get, post, put};
use axum::Router;

use crate::config::DaemonConfig;
use crate::error::ApiError;
use agentplex_sessions::agents::AgentCatalog;
use agentplex_sessions::{SessionManager, SessionSettings};
use agentplex_store::sqlite::SqliteStore;
use agentplex_store::{EphemeralStore, Store};

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub catalog: Arc<AgentCatalog>,
    pub sessions: Arc<SessionManager>,
    /// The `--adapters-dir` folder, when the daemon has one.
    pub adapters_folder: Option<Arc<agentplex_sessions::agents::folder::AdaptersFolder>>,
    /// The limits of `/v1/fs/*`, and its `--fs-root` when there is one.
    pub fs: Arc<agentplex_files::confine::FsPolicy>,
    /// The processes clients started (`/v1/processes`).
    pub processes: Arc<agentplex_processes::ProcessManager>,
    /// `--cors-allow-origin`: the pages, besides the daemon's own, that may open a
    /// terminal WebSocket (browsers do not apply CORS to WebSockets).
    pub allowed_origins: Arc<[String]>,
    /// The open ACP connections (`/v1/acp/{server_id}`).
    pub acp: Arc<acp::AcpServers>,
    /// The desktop (`/v1/desktop/*`).
    pub desktop: Arc<agentplex_desktop::Desktop>,
}

/// The router with every route and layer.
pub fn router(state: AppState, config: &DaemonConfig) -> Result<Router, CorsError> {
    // Everything but health and the document needs the adapter set: those routes
    // wait while the adapters folder is still being loaded after start-up.
    let adapters = Router::new()
        .route("/v1/agents", get(routes::list_agents))
        .route("/v1/agents/{agent}/modes", get(routes::agent_modes))
        .route("/v1/agents/{agent}/models", get(routes::agent_models))
        .route("/v1/agents/{agent}/install", post(routes::install_agent))
        .route("/v1/registry", get(registry_routes::list_registry))
        .route(
            "/v1/registry/{agent}",
            post(registry_routes::add_from_registry),
        )
        .route("/v1/sessions", get(routes::list_sessions))
        .route(
            "/v1/sessions/{session_id}",
            get(routes::get_session)
                .post(routes::create_session)
                .delete(routes::delete_session),
        )
        .route(
            "/v1/sessions/{session_id}/messages",
            post(routes::post_message),
        )
        .route(
            "/v1/sessions/{session_id}/messages/stream",
            post(routes::post_message_stream),
        )
        .route("/v1/sessions/{session_id}/events", get(routes::get_events))
        .route(
            "/v1/sessions/{session_id}/events/sse",
            get(routes::get_events_sse),
        )
        .route(
            "/v1/sessions/{session_id}/questions/{question_id}/reply",
            post(routes::reply_question),
        )
        .route(
            "/v1/sessions/{session_id}/questions/{question_id}/reject",
            post(routes::reject_question),
        )
        .route(
            "/v1/sessions/{session_id}/permissions/{permission_id}/reply",
            post(routes::reply_permission),
        )
        .route("/v1/adapters/reload", post(routes::reload_adapters))
        .route("/v1/acp", get(acp::list))
        .route(
            "/acp/{agent}",
            get(acp::remote::get)
                .post(acp::remote::post)
                .delete(acp::remote::delete),
        )
        .route(
            "/v1/acp/{server_id}",
            get(acp::stream).post(acp::post).delete(acp::close),
        )
        .route("/v1/sessions/{session_id}/cancel", post(routes::cancel))
        .route("/v1/sessions/{session_id}/budget", put(routes::set_budget))
        .route("/v1/sessions/{session_id}/policy", put(routes::set_policy))
        .route(
            "/v1/sessions/{session_id}/modes",
            get(routes::session_modes).put(routes::set_modes),
        )
        .route(
            "/v1/sessions/{session_id}/terminate",
            post(routes::terminate),
        )
        // A session of the fleet that this daemon does not drive is taken over
        // first (needs the adapters: the layer below runs before it).
        .route_layer(axum::middleware::from_fn_with_state(
            state.sessions.clone(),
            fleet::adopt_session,
        ))
        .route_layer(axum::middleware::from_fn_with_state(
            state.catalog.clone(),
            wait_for_adapters,
        ))
        .merge(process_routes::router())
        .merge(desktop_routes::router())
        // Their bodies are JSON under `--body-limit` (the `/v1/fs` routes stream theirs).
        .route_layer(axum::middleware::from_fn_with_state(
            extract::BodyGuard {
                limit: config.body_limit,
                stall: config.header_read_timeout,
            },
            extract::guard_body,
        ));
    let mut api = Router::new()
        .route("/v1/openapi.json", get(openapi::openapi))
        .route("/metrics", get(metrics_routes::get_metrics))
        .merge(fs_routes::router())
        .merge(
            move_routes::router().route_layer(axum::middleware::from_fn_with_state(
                state.sessions.clone(),
                fleet::adopt_session,
            )),
        )
        .merge(adapters)
        .fallback(|uri: Uri| async move { ApiError::NotFound(uri.path().to_owned()) })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .with_state(state)
        .layer(axum::middleware::from_fn(metrics_routes::record))
        .layer(DefaultBodyLimit::max(config.body_limit));
    if let Some(token) = &config.token {
        api = api.layer(axum::middleware::from_fn_with_state(
            Arc::new(token.clone()),
            auth::require_token,
        ));
    }
    // Outside the token and body checks: what they refuse is read to its end too.
    api = api.layer(axum::middleware::from_fn(unread_body::read_after_answer));
    api = api.layer(request_log::trace());
    // Liveness probes hit health often: it answers before the tracing, body limit
    // and token layers (it needs none of them), and everything else goes on to `api`.
    // The inspector's page and files need no token either: the page asks for it.
    let mut router = Router::new()
        .route("/v1/health", get(routes::health))
        .merge(ui::router())
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .fallback_service(api);
    if let Some(cors) = cors::layer(&config.cors)? {
        router = router.layer(cors);
    }
    let door = guard::FrontDoor::new(
        config.token.is_some(),
        &config.allowed_hosts,
        config.cors.allow_origins.clone().into(),
    );
    router = router.layer(axum::middleware::from_fn_with_state(
        Arc::new(door),
        guard::check,
    ));
    Ok(request_log::ids(router))
}

/// Holds a request until the adapters folder is loaded.
async fn wait_for_adapters(
    axum::extract::State(catalog): axum::extract::State<Arc<AgentCatalog>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    catalog.loaded().await;
    next.run(request).await
}

/// The file API's limits, and its root opened once (a root that cannot be opened
/// stops the start).
fn fs_policy(config: &DaemonConfig) -> anyhow::Result<agentplex_files::confine::FsPolicy> {
    let root = config
        .fs_root
        .as_deref()
        .map(|root| {
            agentplex_files::confine::FsRoot::open(root)
                .with_context(|| format!("--fs-root {}", root.display()))
        })
        .transpose()?;
    Ok(agentplex_files::confine::FsPolicy {
        max_bytes: config.fs_max_bytes,
        max_entries: config.fs_max_entries,
        root,
    })
}

/// The daemon's budget (`--budget-usd`), with what its stored sessions spent.
fn daemon_budget(
    usd: f64,
    stored: &[agentplex_store::StoredSession],
) -> Arc<agentplex_gateway::Budget> {
    let spent = stored
        .iter()
        .fold(agentplex_gateway::Spend::default(), |spent, session| {
            let total = &session.checkpoint.usage.total;
            agentplex_gateway::Spend {
                cost_usd: spent.cost_usd + total.cost_usd.unwrap_or(0.0),
                tokens: spent.tokens + total.input_tokens + total.output_tokens,
            }
        });
    let limits = agentplex_gateway::Limits {
        max_cost_usd: Some(usd),
        max_tokens: None,
    };
    Arc::new(agentplex_gateway::Budget::new(
        agentplex_gateway::BudgetScope::Daemon,
        limits,
        spent,
    ))
}

/// Loads the adapters, binds, and serves until SIGINT/SIGTERM, which ends every session.
///
/// Start-up compiles nothing: builtin adapters come precompiled and are loaded
/// when a session first needs them; the adapters folder is loaded (compiled once
/// into the cache) in the background while the daemon already answers.
pub async fn serve(config: DaemonConfig) -> anyhow::Result<()> {
    std::fs::create_dir_all(&config.data_dir)?;
    // Bind first: a taken port fails at once.
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    let registry = Arc::new(agentplex_builtins::builtin_registry(config.host.clone())?);
    let (loaded, loaded_signal) = tokio::sync::watch::channel(config.adapters_dir.is_none());
    let catalog = Arc::new(AgentCatalog::loading(
        registry.clone(),
        config.install.clone(),
        loaded_signal,
    ));
    let adapters_folder = config
        .adapters_dir
        .clone()
        .map(|dir| agentplex_sessions::agents::folder::AdaptersFolder::new(dir, catalog.clone()));
    if let Some(folder) = adapters_folder.clone() {
        tokio::spawn(async move {
            let dir = folder.dir().to_owned();
            let first = tokio::task::spawn_blocking(move || {
                agentplex_builtins::load_folder(&registry, &dir)
            })
            .await;
            match first {
                Ok(Ok(skipped)) => {
                    for error in skipped {
                        tracing::error!(%error, "skipping adapter component");
                    }
                }
                Ok(Err(error)) => tracing::error!(%error, "cannot load the adapters folder"),
                Err(error) => tracing::error!(%error, "loading the adapters folder failed"),
            }
            let _ = loaded.send(true);
            folder.watch();
        });
    }
    let store = open_store(&config)?;
    let stored = store.load(agentplex_sessions::TAIL_EVENTS)?;
    let mut sessions = SessionManager::new(
        catalog.clone(),
        SessionSettings {
            max_line_bytes: config.max_line_bytes,
            agent_nice: config.agent_nice,
            park_after: config.park_after,
            max_live_instances: config.max_live_instances,
            stop_grace: config.agent_stop_grace,
            git: config.skill_sources,
        },
        store,
        config.data_dir.join("scratch"),
    );
    let processes = Arc::new(agentplex_processes::ProcessManager::new(
        config.processes.clone(),
    ));
    let desktop = Arc::new(agentplex_desktop::Desktop::new(
        config.data_dir.join("desktop"),
    ));
    let desktop_tools =
        agentplex_desktop_mcp::DesktopTools::start(desktop.clone(), processes.clone()).await?;
    sessions = sessions
        .with_desktop_tools(desktop_tools)
        .with_default_policy(config.policy.clone());
    if let Some(mut gateway) = config.gateway.clone() {
        gateway.budget = config.budget_usd.map(|usd| daemon_budget(usd, &stored));
        sessions = sessions.with_gateway(agentplex_gateway::Gateway::start(gateway).await?);
    }
    let sessions = Arc::new(sessions);
    if !stored.is_empty() {
        tracing::info!(sessions = stored.len(), "restoring sessions");
        catalog.loaded().await;
    }
    sessions.join_fleet();
    sessions.restore(stored).await;
    if let Some(retention) = config.retention {
        sessions.spawn_retention(retention);
    }
    let state = AppState {
        catalog,
        sessions: sessions.clone(),
        adapters_folder,
        fs: Arc::new(fs_policy(&config)?),
        processes: processes.clone(),
        allowed_origins: config.cors.allow_origins.clone().into(),
        acp: Arc::new(acp::AcpServers::new(config.acp_idle_timeout)),
        desktop: desktop.clone(),
    };
    state.acp.spawn_reaper();
    let acp = state.acp.clone();
    let app = router(state, &config)?;
    let address = listener.local_addr()?;
    // Listening for SIGTERM and SIGINT before saying so: a signal sent the moment a
    // client learns the port stops the daemon gracefully too.
    let signal = shutdown_signal()?;
    tracing::info!(%address, auth = config.token.is_some(), "agentplex listening");
    if let Err(error) = announce(address, config.json_announcement) {
        tracing::warn!(%error, "cannot print the listening line on stdout");
    }
    // Ending the sessions lets their SSE streams finish, so the connections can drain;
    // the processes clients started are stopped with their process groups meanwhile.
    let stopping = async move {
        tracing::info!("shutting down: stopping sessions and processes");
        acp.close_all();
        tokio::join!(
            sessions.shut_down(),
            processes.shut_down(),
            desktop.shutdown()
        );
    };
    let open_files = conn::open_files_limit();
    let limits = conn::Limits {
        header_timeout: config.header_read_timeout,
        first_request_timeout: config.unauthenticated_timeout,
        max_unauthenticated_per_peer: config.max_unauthenticated_per_peer,
        max_connections: config
            .max_connections
            .unwrap_or_else(|| conn::default_max_connections(open_files)),
    };
    tracing::info!(
        open_files,
        max_connections = limits.max_connections,
        "connection limit"
    );
    let token = config.token.clone().map(Arc::new);
    conn::serve(listener, app, limits, token, signal, stopping).await;
    Ok(())
}

/// Prints the one stable line that tells a launcher where the daemon listens, once it
/// accepts connections: `agentplex listening on http://HOST:PORT` on stdout (an IPv6
/// host in brackets), flushed at once; with JSON logs, a JSON object of the same shape
/// as a log line whose `message` is that text, so a log shipper reading stdout and
/// stderr together sees JSON only. Nothing else of the server goes to stdout; the
/// SDKs' `start()` find `listening on http://HOST:PORT` in it to learn the port chosen
/// with `--port 0` (docs/cli.md).
fn announce(address: std::net::SocketAddr, json: bool) -> std::io::Result<()> {
    use std::io::Write as _;
    let message = format!("agentplex listening on http://{address}");
    let line = if json {
        let timestamp = time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        serde_json::json!({
            "timestamp": timestamp,
            "level": "INFO",
            "fields": { "message": message, "address": format!("http://{address}") },
            "target": "agentplex",
        })
        .to_string()
    } else {
        message
    };
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{line}")?;
    stdout.flush()
}

/// The session store the flags ask for: the data dir's database, or memory only.
fn open_store(config: &DaemonConfig) -> anyhow::Result<Arc<dyn Store>> {
    if config.ephemeral {
        return Ok(Arc::new(EphemeralStore::default()));
    }
    if let Some(url) = &config.store {
        let options = agentplex_store::postgres::Options {
            daemon: match &config.daemon_id {
                Some(name) => name.clone(),
                None => daemon_id(&config.data_dir)?,
            },
            lease: config.lease,
            ..Default::default()
        };
        // Blocks while the database is tried (30 s at most): nothing is served yet.
        let store = agentplex_store::postgres::PostgresStore::open_with(url, &options)?;
        tracing::info!(database = store.name(), daemon = %options.daemon, "sessions are kept in PostgreSQL");
        return Ok(Arc::new(store));
    }
    Ok(Arc::new(SqliteStore::open(&config.data_dir)?))
}

/// This daemon's name among those sharing a database: the data dir's
/// `daemon-id` file, made with a new random name at first start (so a restart
/// finds the sessions it drove).
fn daemon_id(data_dir: &std::path::Path) -> anyhow::Result<String> {
    use anyhow::Context as _;
    let file = data_dir.join("daemon-id");
    if let Ok(kept) = std::fs::read_to_string(&file) {
        let kept = kept.trim();
        if !kept.is_empty() {
            return Ok(kept.to_owned());
        }
    }
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let host: String = host
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(40)
        .collect();
    let suffix: String = uuid::Uuid::new_v4().simple().to_string()[..16].to_owned();
    let name = match host.is_empty() {
        true => format!("agentplex-{suffix}"),
        false => format!("{host}-{suffix}"),
    };
    std::fs::create_dir_all(data_dir)
        .and_then(|()| std::fs::write(&file, format!("{name}\n")))
        .with_context(|| format!("cannot keep the daemon's name in {}", file.display()))?;
    Ok(name)
}

/// A future that ends at the daemon's first SIGTERM or SIGINT; the handlers are
/// installed when this is called, so a signal that comes before the future is
/// first polled is not lost (nor left to kill the daemon ungracefully).
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    // Both handlers are installed here, not when the future is first polled.
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}
