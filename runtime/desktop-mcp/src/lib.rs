//! The desktop as tools for the agent of a session: an MCP server the daemon serves
//! over Streamable HTTP on 127.0.0.1, whose tools (`tools.rs`) look at and act on
//! the daemon's one desktop (`agentplex-desktop`).
//!
//! A session created with `desktop: true` gets a grant ([`DesktopTools::grant`]): a
//! random token and the server's URL, which the session hands its agent as one more
//! remote MCP server (`Authorization: Bearer <token>`). The token opens this server
//! only, never the daemon's API, and dies with the grant (the session's agent
//! process, or the daemon). The daemon's token is never accepted here.
//!
//! The server is stateless (every request stands alone, answered as JSON), accepts
//! only requests that name a loopback host (rmcp's DNS-rebinding check), and starts
//! the desktop at the first tool call if nobody has (or after its X server died).

mod tools;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use agentplex_desktop::Desktop;
use agentplex_processes::ProcessManager;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

pub use agentplex_desktop::DesktopError;
pub use tools::{Toolbox, TOOLS};

/// The name of the server in a session's `mcp` config, as agents show it
/// (`mcp__desktop__screenshot`...).
pub const SERVER_NAME: &str = "desktop";

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No port on 127.0.0.1.
    #[error("cannot listen on 127.0.0.1 for the desktop's MCP tools: {0}")]
    Listen(#[source] std::io::Error),
}

/// The session a grant's token belongs to, and where its relative paths start.
#[derive(Debug, Clone)]
pub struct Grantee {
    /// The session's id (for the daemon's log).
    pub session_id: String,
    /// The session's directory: `open` resolves relative paths against it.
    pub directory: PathBuf,
}

type Grants = Arc<RwLock<HashMap<String, Grantee>>>;

/// The running MCP server of the desktop's tools. Dropping it stops the server.
pub struct DesktopTools {
    desktop: Arc<Desktop>,
    addr: SocketAddr,
    grants: Grants,
    stop: CancellationToken,
}

impl DesktopTools {
    /// Starts the server on 127.0.0.1, on a port the system picks; its tools act
    /// on `desktop`, and start programs (`open`) as `processes` of the daemon.
    pub async fn start(
        desktop: Arc<Desktop>,
        processes: Arc<ProcessManager>,
    ) -> Result<Arc<DesktopTools>, Error> {
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .map_err(Error::Listen)?;
        let addr = listener.local_addr().map_err(Error::Listen)?;
        let stop = CancellationToken::new();
        let grants = Grants::default();
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_cancellation_token(stop.child_token());
        let toolbox = Toolbox::new(desktop.clone(), processes);
        let service = StreamableHttpService::new(
            move || Ok(toolbox.clone()),
            Arc::new(NeverSessionManager::default()),
            config,
        );
        let app = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(middleware::from_fn_with_state(grants.clone(), authorize));
        let stopped = stop.clone();
        tokio::spawn(async move {
            let serving = axum::serve(listener, app)
                .with_graceful_shutdown(async move { stopped.cancelled().await });
            if let Err(error) = serving.await {
                tracing::error!(%error, "the desktop's MCP server stopped");
            }
        });
        tracing::info!(%addr, "desktop MCP tools listening");
        Ok(Arc::new(DesktopTools {
            desktop,
            addr,
            grants,
            stop,
        }))
    }

    /// The server's URL (`http://127.0.0.1:PORT/mcp`).
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Whether the desktop can run here (its programs are installed); the error
    /// says what is missing and how to install it.
    pub fn available(&self) -> Result<(), DesktopError> {
        self.desktop.available()
    }

    /// A new token for `grantee`'s agent, valid until the grant is dropped.
    pub fn grant(&self, grantee: Grantee) -> Grant {
        let token = random_token();
        self.grants
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(token.clone(), grantee);
        Grant {
            url: self.url(),
            token,
            grants: self.grants.clone(),
        }
    }
}

impl Drop for DesktopTools {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A session's access to the tools: the URL and token its agent is given. The
/// token stops working when the grant is dropped.
pub struct Grant {
    url: String,
    token: String,
    grants: Grants,
}

impl Grant {
    /// The server's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The `Authorization` header's value the agent sends.
    pub fn authorization(&self) -> String {
        format!("Bearer {}", self.token)
    }
}

impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grant")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl Drop for Grant {
    fn drop(&mut self) {
        self.grants
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(&self.token);
    }
}

/// Lets through requests with the bearer token of a live grant, its grantee in
/// the request's extensions (the tools read it from there); 401 for the rest.
async fn authorize(State(grants): State<Grants>, mut request: Request, next: Next) -> Response {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    let grantee = token.and_then(|token| {
        grants
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(token)
            .cloned()
    });
    match grantee {
        Some(grantee) => {
            request.extensions_mut().insert(grantee);
            next.run(request).await
        }
        None => (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "this server takes the desktop token of a session\n",
        )
            .into_response(),
    }
}

/// 32 random bytes from the system, base64url, after `apd_`.
fn random_token() -> String {
    let mut bytes = [0u8; 32];
    // Without the system's randomness there is no safe token to give out.
    getrandom::fill(&mut bytes).expect("the system's random number generator");
    format!(
        "apd_{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    )
}
