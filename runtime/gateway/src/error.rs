//! The gateway's errors at its boundary: starting it (or a broker),
//! configuring upstreams, reading a price or keys file. Failures of single model calls are not errors of the
//! crate: the agent gets them in its format (`format.rs`) and the call's usage
//! says `complete: false`.

use std::net::SocketAddr;
use std::path::PathBuf;

/// What can go wrong when the gateway is set up.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The listener could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address asked for.
        addr: SocketAddr,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// A broker asked to listen on the network over plain HTTP without being
    /// allowed to (`BrokerConfig::plain_http_on_network`).
    #[error("refusing to listen on {addr} over plain HTTP: the sandboxes' tokens would travel in clear; listen on loopback behind a TLS proxy or a tunnel, or allow plain HTTP explicitly (--allow-plain-http)")]
    PlainHttpOnNetwork {
        /// The address asked for.
        addr: SocketAddr,
    },
    /// The shared HTTP client for upstreams could not be built (TLS roots, proxy settings).
    #[error("cannot build the upstream HTTP client: {0}")]
    Client(#[source] reqwest::Error),
    /// An upstream's base URL is not an absolute `http` or `https` URL.
    #[error("upstream base URL {url:?}: {reason}")]
    UpstreamUrl {
        /// The URL as given.
        url: String,
        /// Why it is refused.
        reason: String,
    },
    /// An upstream key that cannot be sent in a header (control characters).
    #[error("the upstream key for {url} cannot be sent in an HTTP header")]
    UpstreamKey {
        /// The upstream's base URL.
        url: String,
    },
    /// A provider name that cannot be one segment of a broker's path.
    #[error("{0:?} is not a provider name a broker routes: use letters, digits, '.', '_' and '-'")]
    ProviderName(String),
    /// A provider name that cannot name a lane in an endpoint's path.
    #[error(
        "{provider:?} cannot name a lane of the model gateway: use letters, digits, '_' and '-'"
    )]
    LaneName {
        /// The provider's name.
        provider: String,
    },
    /// A price file could not be read.
    #[error("cannot read the price file {path}: {source}")]
    PricesUnreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A price table is not valid: where, and why.
    #[error("price table {origin}, line {line} column {column}: {reason}")]
    Prices {
        /// The file, or `built-in` for the embedded table.
        origin: String,
        /// The line (from 1) the problem was found at.
        line: usize,
        /// The column (from 1) the problem was found at.
        column: usize,
        /// What is wrong.
        reason: String,
    },
    /// A broker's keys file could not be read.
    #[error("cannot read the keys file {path}: {source}")]
    KeysUnreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A broker's keys file is not valid: where, and why.
    #[error("keys file {origin}, line {line} column {column}: {reason}")]
    Keys {
        /// The file.
        origin: String,
        /// The line (from 1) the problem was found at.
        line: usize,
        /// The column (from 1) the problem was found at.
        column: usize,
        /// What is wrong.
        reason: String,
    },
}

/// Where and why a JSON file does not parse: its line and column (from 1), and
/// serde's reason without the position it ends with.
pub(crate) fn located(error: &serde_json::Error) -> (usize, usize, String) {
    let (line, column) = (error.line(), error.column());
    let message = error.to_string();
    let place = format!(" at line {line} column {column}");
    let reason = message.strip_suffix(&place).unwrap_or(&message).to_owned();
    (line, column, reason)
}
