//! The broker: the gateway run outside the sandbox (`agentplex gateway --keys
//! FILE`), holding the providers' real keys so that no process inside needs one.
//!
//! A sandbox's daemon sends its sessions' calls to
//! `http://BROKER/<provider>/<format>/...` with the sandbox's token where the
//! agent put its session token ([`BrokerLink`]); the broker finds the sandbox by
//! that token's SHA-256 in its keys file (`keys.rs`), which it reads again
//! whenever it changes (`keyring.rs`), swaps the token for the provider's key,
//! and forwards and relays as the daemon's gateway does (the same listener,
//! forwarding and error shapes), logging each call's usage by sandbox. A token
//! that is unknown, or was taken out of the file, gets `401` in the format's
//! error shape.
//!
//! It listens on loopback unless told otherwise: its calls carry the tokens
//! in clear, so anything else wants TLS in front of it, and listening elsewhere
//! over plain HTTP takes [`BrokerConfig::plain_http_on_network`]. Unlike the
//! daemon's gateway it answers any `Host`, as a proxy in front of it may send
//! the name it was reached by: the sandbox's token is the credential.

mod keyring;
mod keys;
mod link;
pub(crate) mod passthrough;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::task::JoinHandle;

use crate::error::Error;
use crate::prices::Prices;
use crate::{bind, thread, GatewayConfig, Shared};
pub(crate) use keyring::Keyring;
pub use keys::SandboxToken;
pub use link::BrokerLink;

/// How a broker runs.
#[derive(Debug, Clone)]
pub struct BrokerConfig {
    /// The address to listen on.
    pub listen: SocketAddr,
    /// The keys file: providers and their keys, sandboxes by their token's hash.
    pub keys: PathBuf,
    /// The price table the calls logged are priced with.
    pub prices: Prices,
    /// Whether a `listen` address that is not loopback is allowed over plain
    /// HTTP (the sandboxes' tokens and calls then travel in clear).
    pub plain_http_on_network: bool,
}

/// A running broker. Dropping it stops accepting connections; calls under way
/// finish.
pub struct Broker {
    addr: SocketAddr,
    accept: JoinHandle<()>,
}

impl Broker {
    /// Reads the keys file and starts listening: a file that cannot be used, or
    /// a network address without `plain_http_on_network`, stops it first.
    pub async fn start(config: BrokerConfig) -> Result<Broker, Error> {
        let loopback = config.listen.ip().is_loopback();
        if !loopback && !config.plain_http_on_network {
            return Err(Error::PlainHttpOnNetwork {
                addr: config.listen,
            });
        }
        let keyring = Keyring::open(config.keys)?;
        let gateway = GatewayConfig {
            prices: config.prices,
            ..GatewayConfig::default()
        };
        let (listener, addr) = bind(config.listen)?;
        let shared = Arc::new(Shared::new(gateway, Some(keyring))?);
        if !loopback {
            tracing::warn!(%addr, "broker: listening on the network over plain HTTP: the sandboxes' tokens and calls travel in clear");
        }
        tracing::info!(%addr, prices = shared.prices.as_of(), "model key broker listening");
        let accept = thread::serve(listener, addr, shared)?;
        Ok(Broker { addr, accept })
    }

    /// The address the broker listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

impl std::fmt::Debug for Broker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Broker")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}
