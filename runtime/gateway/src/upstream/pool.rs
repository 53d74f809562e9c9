//! The client's connections to upstreams, over TLS for an `https` one (with
//! the same roots as `reqwest`'s client), kept open between calls.

use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};
use tokio_rustls::TlsConnector;

/// How long a connection may wait unused before it is closed (as `reqwest`'s
/// pool does).
const IDLE: Duration = Duration::from_secs(90);
/// Most unused connections kept to one upstream.
const MAX_IDLE: usize = 64;

/// Where a base URL's calls go, read from the URL as the upstream made it
/// (`http[s]://host[:port][/path]`, no user, query or fragment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Origin<'a> {
    /// Whether it is reached over TLS (`https`).
    pub tls: bool,
    /// `host[:port]`, as the `Host` header says it.
    pub host: &'a str,
    /// The base URL's path, without a trailing `/` (empty for none).
    pub path: &'a str,
}

impl<'a> Origin<'a> {
    /// The origin of `base_url`; `None` for one the client does not
    /// reach (with a user in it).
    pub(crate) fn of(base_url: &'a str) -> Option<Origin<'a>> {
        let (tls, rest) = match base_url.strip_prefix("https://") {
            Some(rest) => (true, rest),
            None => (false, base_url.strip_prefix("http://")?),
        };
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let origin = Origin { tls, host, path };
        (!host.is_empty() && !host.contains('@')).then_some(origin)
    }

    /// The host's name or address, without its port or brackets.
    fn name(&self) -> &'a str {
        match self.host.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or(v6),
            None => self.host.split(':').next().unwrap_or(self.host),
        }
    }

    /// The address to connect to: the host with its port, the scheme's if
    /// it has none.
    fn address(&self) -> String {
        let has_port = match self.host.strip_prefix('[') {
            Some(v6) => v6.contains("]:"),
            None => self.host.contains(':'),
        };
        match (has_port, self.tls) {
            (true, _) => self.host.to_owned(),
            (false, true) => format!("{}:443", self.host),
            (false, false) => format!("{}:80", self.host),
        }
    }
}

/// A connection to an upstream.
pub(crate) enum Connection {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl Connection {
    /// Whether the upstream may still answer on it: it has not closed it,
    /// nor sent anything unasked (but TLS's own records).
    fn open(&self) -> bool {
        let (tcp, tls) = match self {
            Connection::Plain(tcp) => (tcp, false),
            Connection::Tls(stream) => (stream.get_ref().0, true),
        };
        let mut byte = [0; 1];
        let mut peeked = ReadBuf::new(&mut byte);
        match tcp.poll_peek(&mut Context::from_waker(Waker::noop()), &mut peeked) {
            Poll::Pending => true,
            Poll::Ready(Ok(0)) | Poll::Ready(Err(_)) => false,
            Poll::Ready(Ok(_)) => tls,
        }
    }
}

/// An upstream as the pool knows it: whether over TLS, and its host.
type Upstream = (bool, String);

/// Unused connections to one upstream, each with when it was last used.
type Kept = Vec<(Connection, Instant)>;

/// Connections by upstream.
pub(crate) struct Pool {
    idle: Mutex<HashMap<Upstream, Kept>>,
    connect_timeout: Duration,
    tls: TlsConnector,
}

impl Pool {
    /// An empty pool whose connections are given `connect_timeout` to open,
    /// and trust the web's roots (`webpki-roots`, as `reqwest`'s do).
    pub(crate) fn new(connect_timeout: Duration) -> Self {
        let roots = RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        Self::trusting(connect_timeout, roots)
    }

    /// An empty pool whose TLS connections trust `roots`.
    fn trusting(connect_timeout: Duration, roots: RootCertStore) -> Self {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("ring offers the default protocol versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Self {
            idle: Mutex::default(),
            connect_timeout,
            tls: TlsConnector::from(Arc::new(config)),
        }
    }

    /// A kept connection to `origin` that is still open, if there is one.
    pub(crate) fn take(&self, origin: Origin<'_>) -> Option<Connection> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = idle.get_mut(&(origin.tls, origin.host.to_owned()))?;
        while let Some((connection, since)) = kept.pop() {
            if since.elapsed() < IDLE && connection.open() {
                return Some(connection);
            }
        }
        None
    }

    /// Keeps `connection` to `origin` for a later call.
    pub(crate) fn put(&self, origin: Origin<'_>, connection: Connection) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = idle
            .entry((origin.tls, origin.host.to_owned()))
            .or_default();
        kept.retain(|(_, since)| since.elapsed() < IDLE);
        if kept.len() < MAX_IDLE {
            kept.push((connection, Instant::now()));
        }
    }

    /// A new connection to `origin`.
    pub(crate) async fn connect(&self, origin: Origin<'_>) -> io::Result<Connection> {
        let timed_out = || io::Error::new(io::ErrorKind::TimedOut, "connecting timed out");
        let connecting = async {
            let tcp = TcpStream::connect(origin.address()).await?;
            tcp.set_nodelay(true)?;
            if !origin.tls {
                return Ok(Connection::Plain(tcp));
            }
            let name = ServerName::try_from(origin.name().to_owned())
                .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?;
            let tls = self.tls.connect(name, tcp).await?;
            Ok(Connection::Tls(Box::new(tls)))
        };
        tokio::time::timeout(self.connect_timeout, connecting)
            .await
            .map_err(|_| timed_out())?
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(tcp) => Pin::new(tcp).poll_read(cx, buf),
            Connection::Tls(tls) => Pin::new(tls).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Connection::Plain(tcp) => Pin::new(tcp).poll_write(cx, buf),
            Connection::Tls(tls) => Pin::new(tls).poll_write(cx, buf),
        }
    }

    /// A request's head and body go out in one write, so in one segment: the
    /// upstream reads the whole request when it wakes, not its head alone.
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Connection::Plain(tcp) => Pin::new(tcp).poll_write_vectored(cx, bufs),
            Connection::Tls(tls) => Pin::new(tls).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Connection::Plain(tcp) => tcp.is_write_vectored(),
            Connection::Tls(tls) => tls.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(tcp) => Pin::new(tcp).poll_flush(cx),
            Connection::Tls(tls) => Pin::new(tls).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(tcp) => Pin::new(tcp).poll_shutdown(cx),
            Connection::Tls(tls) => Pin::new(tls).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[test]
    fn an_origin_is_the_scheme_the_host_and_the_base_path() {
        let origin = Origin::of("http://127.0.0.1:8080/v1").unwrap();
        let expected = Origin {
            tls: false,
            host: "127.0.0.1:8080",
            path: "/v1",
        };
        assert_eq!(origin, expected);
        assert_eq!(origin.address(), "127.0.0.1:8080");
        let origin = Origin::of("http://models.internal").unwrap();
        assert_eq!(
            (origin.path, origin.address().as_str()),
            ("", "models.internal:80")
        );
        assert_eq!(Origin::of("http://[::1]").unwrap().address(), "[::1]:80");
        assert_eq!(Origin::of("http://[::1]:9").unwrap().name(), "::1");
        let origin = Origin::of("https://api.anthropic.com").unwrap();
        assert!(origin.tls);
        assert_eq!(origin.address(), "api.anthropic.com:443");
        assert_eq!(origin.name(), "api.anthropic.com");
        assert_eq!(Origin::of("http://user:pw@host"), None);
        assert_eq!(Origin::of("ftp://host"), None);
    }

    #[tokio::test]
    async fn a_connection_the_upstream_closed_is_not_taken_again() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let host = listener.local_addr().unwrap().to_string();
        let origin = Origin {
            tls: false,
            host: &host,
            path: "",
        };
        let pool = Pool::new(Duration::from_secs(5));
        let kept = pool.connect(origin).await.unwrap();
        // A request's head and body are written in one call (`send.rs`), so
        // they leave in one segment.
        assert!(kept.is_write_vectored());
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

    #[tokio::test]
    async fn an_https_upstream_is_reached_over_tls_and_kept() {
        let certified = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let certificate = certified.cert.der().clone();
        let key =
            rustls::pki_types::PrivateKeyDer::Pkcs8(certified.key_pair.serialize_der().into());
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let server = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![certificate.clone()], key)
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(server));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let mut asked = [0; 5];
                    while tls.read_exact(&mut asked).await.is_ok() {
                        let answer = asked.map(|byte| byte.to_ascii_uppercase());
                        tls.write_all(&answer).await.unwrap();
                    }
                });
            }
        });
        let mut roots = RootCertStore::empty();
        roots.add(certificate).unwrap();
        let pool = Pool::trusting(Duration::from_secs(5), roots);
        let host = format!("localhost:{port}");
        let origin = Origin::of("https://localhost").unwrap();
        let origin = Origin {
            host: &host,
            ..origin
        };
        let mut answers = Vec::new();
        for asked in [b"hello", b"again"] {
            let mut connection = match pool.take(origin) {
                Some(kept) => kept,
                None => pool.connect(origin).await.unwrap(),
            };
            assert!(connection.is_write_vectored());
            connection.write_all(asked).await.unwrap();
            connection.flush().await.unwrap();
            let mut answer = [0; 5];
            connection.read_exact(&mut answer).await.unwrap();
            answers.push(answer);
            pool.put(origin, connection);
        }
        assert_eq!(answers, [*b"HELLO", *b"AGAIN"]);
        // Its certificate is not one the web's roots vouch for.
        let untrusted = Pool::new(Duration::from_secs(5));
        let Err(error) = untrusted.connect(origin).await else {
            panic!("an untrusted certificate was taken");
        };
        assert!(error.to_string().contains("certificate"), "{error}");
    }
}
