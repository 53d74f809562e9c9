//! The model gateway: a reverse proxy on 127.0.0.1 between agents and the model
//! APIs they call, which meters every call.
//!
//! Each session gets a [`Route`] and, for it, a token ([`Gateway::register`]).
//! The agent is pointed at `http://127.0.0.1:PORT/s/<token>/<format>` and given
//! the token as its key; the gateway forwards each call to the session's
//! upstream for that format, swapping the token for the real key, and relays
//! the answer byte for byte as it streams. A copy of the answer feeds the
//! format's usage tap (`taps/`), and when the call is over its
//! tokens and list price ([`Prices`]) go to the route's [`UsageSink`].
//! [`Budget`]s, the session's and the daemon's, cap what the calls may spend:
//! a call that does not fit is refused before it goes upstream, and a stream is
//! cut once a budget is exhausted (`budget/`).
//!
//! - `listener.rs` accepts connections and finds the route; `forward.rs` makes
//!   the upstream call; `relay.rs` streams the answer back through the tap; all
//!   of it runs on the gateway's own thread (`thread.rs`).
//! - `format.rs` knows each wire format's base URL form and error shape;
//!   `sse.rs` splits event streams; `prices.rs` holds the price table.
//! - `ws/` carries the Responses API over WebSocket, a response a call.
//!
//! The gateway listens apart from the API: no daemon token (the session token
//! is the credential), no body limit, no tower layers, and only requests that
//! name a loopback host. It depends on no session code: usage leaves through the
//! sink, so the daemon decides what a call's usage becomes.
//!
//! The same forwarding runs outside the sandbox as a [`Broker`] (`broker/`),
//! which holds the providers' keys; a daemon pointed at one ([`BrokerLink`],
//! in [`GatewayConfig::broker`]) sends its sessions' calls there with the
//! sandbox's token instead of a key, and holds no key itself.

mod broker;
mod budget;
mod error;
mod format;
mod forward;
mod listener;
mod prices;
mod relay;
mod route;
mod sse;
mod taps;
mod thread;
mod upstream;
mod usage;
mod ws;

use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::task::JoinHandle;

use broker::Keyring;
pub use broker::{Broker, BrokerConfig, BrokerLink, SandboxToken};
pub use budget::{Budget, BudgetAction, BudgetReached, BudgetScope, Limit, Limits, Spend};
pub use error::Error;
pub use format::{Format, KeyPlacement, UnknownFormat, FORMATS};
pub use prices::Prices;
use route::Registered;
pub use route::{Lane, Route, RouteGuard, Upstream};
pub use usage::{CallUsage, Tokens, UsageSink};

/// How the gateway runs.
#[derive(Debug, Clone)]
pub struct GatewayConfig {
    /// The price table calls are priced with.
    pub prices: Prices,
    /// Longest wait for a connection to an upstream.
    pub connect_timeout: Duration,
    /// Longest wait for an upstream's response head (a model that answers whole
    /// may think for minutes first).
    pub response_timeout: Duration,
    /// Longest silence within an upstream's answer, head or body.
    pub idle_timeout: Duration,
    /// The daemon's budget (`--budget-usd`), over every route's calls; its
    /// limits can be replaced at any time through the `Arc`.
    pub budget: Option<Arc<Budget>>,
    /// The broker the sessions' calls go through (`--broker`), in place of
    /// the providers and the keys the daemon would hold.
    pub broker: Option<BrokerLink>,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        Self {
            prices: Prices::built_in(),
            connect_timeout: Duration::from_secs(10),
            response_timeout: Duration::from_secs(600),
            idle_timeout: Duration::from_secs(300),
            budget: None,
            broker: None,
        }
    }
}

/// The running gateway. Dropping it stops accepting connections; calls under
/// way finish.
pub struct Gateway {
    addr: SocketAddr,
    shared: Arc<Shared>,
    broker: Option<BrokerLink>,
    accept: JoinHandle<()>,
}

/// What the gateway's tasks share: the routes, the upstream client, the
/// prices, the daemon's budget; at a broker, the keys.
pub(crate) struct Shared {
    /// The sessions' routes, by token (none at a broker).
    routes: RwLock<HashMap<String, Registered>>,
    /// A broker's keys: its calls find their route by a sandbox's token
    /// (`broker/`), not in `routes`.
    keyring: Option<Keyring>,
    /// One client for every upstream: pooled connections, proxies from the
    /// environment (`HTTPS_PROXY`), no decompression.
    client: reqwest::Client,
    /// The gateway's own client, for every upstream it reaches without a
    /// proxy (`upstream/`).
    upstreams: upstream::Client,
    prices: Prices,
    response_timeout: Duration,
    calls: AtomicU64,
    budget: Option<Arc<Budget>>,
}

impl Shared {
    /// What a listener's tasks share, as `config` says, at a broker with its
    /// `keyring`.
    fn new(config: GatewayConfig, keyring: Option<Keyring>) -> Result<Self, Error> {
        // A redirect is the agent's to follow: the gateway never carries a key
        // to another address on its own.
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .read_timeout(config.idle_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(Error::Client)?;
        let upstreams = upstream::Client::new(&config);
        Ok(Shared {
            routes: RwLock::default(),
            keyring,
            client,
            upstreams,
            prices: config.prices,
            response_timeout: config.response_timeout,
            calls: AtomicU64::new(0),
            budget: config.budget,
        })
    }

    fn insert(&self, token: String, registered: Registered) {
        self.routes
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(token, registered);
    }

    fn remove(&self, token: &str) {
        self.routes
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(token);
    }

    /// The live route of `token`.
    fn route(&self, token: &str) -> Option<Registered> {
        self.routes
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(token)
            .cloned()
    }

    /// A number for a new call.
    fn next_call(&self) -> u64 {
        self.calls.fetch_add(1, Ordering::Relaxed) + 1
    }
}

impl Gateway {
    /// Starts the gateway on 127.0.0.1, on a port the system picks.
    pub async fn start(mut config: GatewayConfig) -> Result<Arc<Gateway>, Error> {
        let broker = config.broker.take();
        let (listener, addr) = bind(SocketAddr::from(([127, 0, 0, 1], 0)))?;
        let shared = Arc::new(Shared::new(config, None)?);
        let accept = thread::serve(listener, addr, shared.clone())?;
        let through = broker.as_ref().map(BrokerLink::url);
        tracing::info!(%addr, prices = shared.prices.as_of(), broker = through, "model gateway listening");
        Ok(Arc::new(Gateway {
            addr,
            shared,
            broker,
            accept,
        }))
    }

    /// The address the gateway listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Registers a session's route under a new token; the route works until
    /// the guard is dropped. Its calls fall under the daemon's budget, if any.
    pub fn register(&self, route: Route) -> RouteGuard {
        RouteGuard::register(&self.shared, self.addr, route, None)
    }

    /// As [`register`](Self::register), with the session's `budget` over the
    /// route's calls too. Its limits can be replaced at any time through the
    /// `Arc`; one with no limits only counts.
    pub fn register_with_budget(&self, route: Route, budget: Arc<Budget>) -> RouteGuard {
        RouteGuard::register(&self.shared, self.addr, route, Some(budget))
    }

    /// The daemon's budget, if it has one.
    pub fn budget(&self) -> Option<&Arc<Budget>> {
        self.shared.budget.as_ref()
    }

    /// The price table calls are priced with.
    pub fn prices(&self) -> &Prices {
        &self.shared.prices
    }

    /// The broker the sessions' calls go through, if the daemon has one.
    pub fn broker(&self) -> Option<&BrokerLink> {
        self.broker.as_ref()
    }
}

/// A listener on `addr`, and the address it got (its port, for port 0).
fn bind(addr: SocketAddr) -> Result<(TcpListener, SocketAddr), Error> {
    let refused = |source| Error::Listen { addr, source };
    let listener = TcpListener::bind(addr).map_err(refused)?;
    let bound = listener.local_addr().map_err(refused)?;
    Ok((listener, bound))
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}
