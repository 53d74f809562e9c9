//! The gateway's errors at its boundary: starting it, configuring upstreams,
//! reading a price file. Failures of single model calls are not errors of the
//! crate: the agent gets them in its format (`format.rs`) and the call's usage
//! says `complete: false`.

use std::path::PathBuf;

/// What can go wrong when the gateway is set up.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The loopback listener could not be bound.
    #[error("cannot listen on 127.0.0.1: {0}")]
    Listen(#[source] std::io::Error),
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
}
