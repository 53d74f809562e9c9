//! Connections that have not authenticated yet, counted per client address.
//!
//! Anyone who can reach the port can open connections; only the token holder can
//! authenticate. So an address may hold at most a few connections that have not
//! yet sent a request with the token (without a token: that have not yet sent a
//! request head at all): one more closes the oldest of them. Each also has a short
//! time to send its first request head. One client can then not take every
//! connection slot by opening connections and sending nothing, while a client of the
//! same address that sends its request at once still gets in. IPv6 addresses are
//! counted by their /64 (one host usually has a whole /64 to choose from).
//!
//! Clients on the daemon's own machine that connect from the address they connect
//! to (`127.0.0.1` to `127.0.0.1`, the usual local client) are not counted: a
//! process there can stop the daemon in plainer ways, and local programs open
//! thousands of streams at once. The first-request deadline holds for them too.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::http::Request;
use tokio::sync::Notify;

/// The unauthenticated connections of each address, oldest first.
#[derive(Debug)]
pub struct Peers {
    max_per_peer: usize,
    pending: Mutex<HashMap<IpAddr, VecDeque<Waiting>>>,
    next_id: AtomicU64,
}

/// One unauthenticated connection in its address's line.
#[derive(Debug)]
struct Waiting {
    id: u64,
    close: Arc<Notify>,
}

impl Peers {
    /// At most `max_per_peer` (at least one) unauthenticated connections per address.
    pub fn new(max_per_peer: usize) -> Arc<Self> {
        Arc::new(Peers {
            max_per_peer: max_per_peer.max(1),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(0),
        })
    }

    /// Counts a new connection from `address`; when the address holds its most
    /// unauthenticated connections already, the oldest of them is told to close.
    /// Answers the new connection's place and whether one was told to close.
    pub fn admit(self: &Arc<Self>, address: IpAddr) -> (Pending, bool) {
        let key = peer_key(address);
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let close = Arc::new(Notify::new());
        let mut pending = self.pending.lock().expect("peer counts");
        let line = pending.entry(key).or_default();
        let evicted = line.len() >= self.max_per_peer;
        if evicted {
            if let Some(oldest) = line.pop_front() {
                oldest.close.notify_one();
            }
        }
        line.push_back(Waiting {
            id,
            close: close.clone(),
        });
        let place = Pending {
            peers: self.clone(),
            key,
            id,
            close,
        };
        (place, evicted)
    }

    /// How many unauthenticated connections `address` holds.
    #[cfg(test)]
    fn count(&self, address: IpAddr) -> usize {
        let pending = self.pending.lock().expect("peer counts");
        pending.get(&peer_key(address)).map_or(0, VecDeque::len)
    }
}

/// One unauthenticated connection's place in its address's line, given back when
/// dropped.
#[derive(Debug)]
pub struct Pending {
    peers: Arc<Peers>,
    key: IpAddr,
    id: u64,
    close: Arc<Notify>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        let mut pending = self.peers.pending.lock().expect("peer counts");
        if let Some(line) = pending.get_mut(&self.key) {
            line.retain(|waiting| waiting.id != self.id);
            if line.is_empty() {
                pending.remove(&self.key);
            }
        }
    }
}

/// What one connection has shown so far.
#[derive(Debug)]
pub struct Connection {
    /// Its place in the count while it has not authenticated.
    pending: Mutex<Option<Pending>>,
    /// Told when the connection must close to make room for a newer one.
    close: Arc<Notify>,
    /// Whether a request head arrived.
    requested: AtomicBool,
    /// The daemon's token; `None` without one.
    token: Option<Arc<String>>,
}

impl Connection {
    /// A new connection holding `pending` (`None`: a local client, not counted).
    pub fn new(pending: Option<Pending>, token: Option<Arc<String>>) -> Arc<Self> {
        Arc::new(Connection {
            close: pending
                .as_ref()
                .map_or_else(|| Arc::new(Notify::new()), |p| p.close.clone()),
            pending: Mutex::new(pending),
            requested: AtomicBool::new(false),
            token,
        })
    }

    /// Notes a request head: the connection has authenticated once a request
    /// carries the token (without a token, with its first request).
    pub fn saw<B>(&self, request: &Request<B>) {
        self.requested.store(true, Ordering::Relaxed);
        let authenticated = match &self.token {
            None => true,
            Some(token) => super::auth::presents_token(request.headers(), request.uri(), token),
        };
        if authenticated {
            self.pending.lock().expect("pending place").take();
        }
    }

    /// Whether a request head arrived.
    pub fn requested(&self) -> bool {
        self.requested.load(Ordering::Relaxed)
    }

    /// Resolves when a newer connection of the same address needs this one's place
    /// (never once it has authenticated).
    pub async fn must_close(&self) {
        self.close.notified().await;
    }
}

/// The address connections are counted under.
fn peer_key(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(prefix.into())
            }
        },
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn an_address_holds_at_most_its_share_and_the_oldest_makes_room() {
        let peers = Peers::new(2);
        let (a, _) = peers.admit(ip("10.0.0.1"));
        let (b, _) = peers.admit(ip("10.0.0.1"));
        let a = Connection::new(Some(a), Some(Arc::new("t".into())));
        let b = Connection::new(Some(b), Some(Arc::new("t".into())));
        // A request without the token does not authenticate.
        a.saw(&Request::builder().body(()).unwrap());
        assert!(a.requested());
        assert_eq!(peers.count(ip("10.0.0.1")), 2);
        // A third connection makes room: the oldest is told to close.
        let (_c, evicted) = peers.admit(ip("10.0.0.1"));
        assert!(evicted);
        assert_eq!(peers.count(ip("10.0.0.1")), 2);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            tokio::time::timeout(std::time::Duration::from_secs(1), a.must_close())
                .await
                .expect("the oldest is told to close");
        });
        // Another address has its own share.
        assert!(!peers.admit(ip("10.0.0.2")).1);
        // A connection that authenticates gives its place back.
        b.saw(
            &Request::builder()
                .header("authorization", "Bearer t")
                .body(())
                .unwrap(),
        );
        assert_eq!(peers.count(ip("10.0.0.1")), 1);
        drop(a);
        assert_eq!(peers.count(ip("10.0.0.1")), 1);
    }

    #[test]
    fn ipv6_addresses_count_by_their_64_and_mapped_ipv4_as_ipv4() {
        let peers = Peers::new(1);
        let _a = peers.admit(ip("2001:db8::1"));
        assert!(peers.admit(ip("2001:db8::ffff:2")).1);
        assert!(!peers.admit(ip("2001:db8:0:1::1")).1);
        let _v4 = peers.admit(ip("192.0.2.7"));
        assert!(peers.admit(ip("::ffff:192.0.2.7")).1);
    }

    #[test]
    fn without_a_token_the_first_request_authenticates() {
        let peers = Peers::new(1);
        let connection = Connection::new(Some(peers.admit(ip("127.0.0.1")).0), None);
        assert!(!connection.requested());
        connection.saw(&Request::builder().body(()).unwrap());
        assert_eq!(peers.count(ip("127.0.0.1")), 0);
    }
}
