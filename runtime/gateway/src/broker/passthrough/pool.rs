//! The passthrough's connections to its upstreams, kept open between calls.

use std::collections::HashMap;
use std::io;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::net::TcpStream;

/// How long a connection may wait unused before it is closed (as `reqwest`'s
/// pool does).
const IDLE: Duration = Duration::from_secs(90);
/// Most unused connections kept to one upstream.
const MAX_IDLE: usize = 64;

/// Where a plain-HTTP base URL's calls go, read from the URL as the upstream
/// made it (`http://host:port/path`, no user, query or fragment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Origin<'a> {
    /// `host[:port]`, as the `Host` header says it.
    pub host: &'a str,
    /// The base URL's path, without a trailing `/` (empty for none).
    pub path: &'a str,
}

impl<'a> Origin<'a> {
    /// The origin of `base_url`; `None` for one the passthrough does not
    /// reach (`https`, with a user).
    pub(super) fn of(base_url: &'a str) -> Option<Origin<'a>> {
        let rest = base_url.strip_prefix("http://")?;
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        (!host.is_empty() && !host.contains('@')).then_some(Origin { host, path })
    }

    /// The address to connect to: the host with its port, 80 if it has none.
    fn address(&self) -> String {
        let has_port = match self.host.strip_prefix('[') {
            Some(v6) => v6.contains("]:"),
            None => self.host.contains(':'),
        };
        match has_port {
            true => self.host.to_owned(),
            false => format!("{}:80", self.host),
        }
    }
}

/// Connections by upstream host, each with when it was last used.
pub(crate) struct Pool {
    idle: Mutex<HashMap<String, Vec<(TcpStream, Instant)>>>,
    connect_timeout: Duration,
}

impl Pool {
    /// An empty pool whose connections are given `connect_timeout` to open.
    pub(super) fn new(connect_timeout: Duration) -> Self {
        Self {
            idle: Mutex::default(),
            connect_timeout,
        }
    }

    /// A kept connection to `origin` that is still open, if there is one.
    pub(super) fn take(&self, origin: Origin<'_>) -> Option<TcpStream> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = idle.get_mut(origin.host)?;
        while let Some((stream, since)) = kept.pop() {
            // An upstream that closed the connection left it readable (at its end).
            let open = matches!(stream.try_read(&mut [0; 1]), Err(error) if error.kind() == io::ErrorKind::WouldBlock);
            if open && since.elapsed() < IDLE {
                return Some(stream);
            }
        }
        None
    }

    /// Keeps `stream` to `origin` for a later call.
    pub(super) fn put(&self, origin: Origin<'_>, stream: TcpStream) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = idle.entry(origin.host.to_owned()).or_default();
        kept.retain(|(_, since)| since.elapsed() < IDLE);
        if kept.len() < MAX_IDLE {
            kept.push((stream, Instant::now()));
        }
    }

    /// A new connection to `origin`.
    pub(super) async fn connect(&self, origin: Origin<'_>) -> io::Result<TcpStream> {
        let address = origin.address();
        let stream = tokio::time::timeout(self.connect_timeout, TcpStream::connect(&address))
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "connecting timed out"))??;
        stream.set_nodelay(true)?;
        Ok(stream)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_is_the_host_and_the_base_path_of_a_plain_url() {
        let origin = Origin::of("http://127.0.0.1:8080/v1").unwrap();
        assert_eq!(
            origin,
            Origin {
                host: "127.0.0.1:8080",
                path: "/v1"
            }
        );
        assert_eq!(origin.address(), "127.0.0.1:8080");
        let origin = Origin::of("http://models.internal").unwrap();
        assert_eq!(
            (origin.path, origin.address().as_str()),
            ("", "models.internal:80")
        );
        assert_eq!(Origin::of("http://[::1]").unwrap().address(), "[::1]:80");
        assert_eq!(Origin::of("http://[::1]:9").unwrap().address(), "[::1]:9");
        assert_eq!(Origin::of("https://api.anthropic.com"), None);
        assert_eq!(Origin::of("http://user:pw@host"), None);
    }

    #[tokio::test]
    async fn a_connection_the_upstream_closed_is_not_taken_again() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let host = listener.local_addr().unwrap().to_string();
        let origin = Origin {
            host: &host,
            path: "",
        };
        let pool = Pool::new(Duration::from_secs(5));
        let kept = pool.connect(origin).await.unwrap();
        let (accepted, _) = listener.accept().await.unwrap();
        pool.put(origin, kept);
        assert!(pool.take(origin).is_some(), "an open one is taken");
        let closing = pool.connect(origin).await.unwrap();
        let (accepted_too, _) = listener.accept().await.unwrap();
        pool.put(origin, closing);
        drop(accepted_too);
        drop(accepted);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(pool.take(origin).is_none(), "a closed one is dropped");
    }
}
