//! A client without the token holds the daemon's connections: it opens as many as
//! the daemon serves and sends nothing, so the token holder waits in the backlog.
//! Each address may hold only a few connections that have not authenticated (one
//! more closes the oldest), and a connection has a few seconds to send its first
//! request head. The attacker connects from 127.0.0.2: another host to the daemon
//! (clients that connect from the address they connect to, 127.0.0.1 here, are
//! local and not counted).

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use super::common::{Daemon, Options};

const TOKEN: &str = "connections-token-5b0e19c7";

/// A connection to `port` from the loopback address `from` (127.0.0.2 is another
/// client than 127.0.0.1, on the same machine).
async fn connect_from(from: [u8; 4], port: u16) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind((from, 0).into()).unwrap();
    socket
        .connect(([127, 0, 0, 1], port).into())
        .await
        .expect("connecting")
}

/// Whether the daemon closed `tcp` (reading gives the end, or a reset).
async fn closed(tcp: &mut TcpStream, within: Duration) -> bool {
    let mut byte = [0u8; 1];
    matches!(
        tokio::time::timeout(within, tcp.read(&mut byte)).await,
        Ok(Ok(0) | Err(_))
    )
}

/// One request with the token on a new connection from 127.0.0.1; its status.
async fn authenticated_request(port: u16) -> u16 {
    let mut tcp = connect_from([127, 0, 0, 1], port).await;
    let request = format!(
        "GET /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tcp.read_to_end(&mut answer).await.unwrap();
    String::from_utf8_lossy(&answer)
        .get(9..12)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0)
}

#[test]
fn silent_connections_of_one_address_cannot_take_every_slot() {
    let daemon = Daemon::start_with(Options {
        token: Some(TOKEN.into()),
        args: [
            "--max-connections",
            "16",
            "--max-unauthenticated-per-peer",
            "4",
        ]
        .map(String::from)
        .to_vec(),
        ..Options::default()
    });
    let port = daemon.port;
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        // The attacker opens as many connections as the daemon serves, and some.
        let mut attackers = Vec::new();
        for _ in 0..24 {
            attackers.push(connect_from([127, 0, 0, 2], port).await);
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        // The token holder is served at once, not after the attackers' 30 s.
        let started = Instant::now();
        let status = tokio::time::timeout(Duration::from_secs(5), authenticated_request(port))
            .await
            .expect("the token holder waited for the attacker's connections");
        assert_eq!(status, 200);
        assert!(started.elapsed() < Duration::from_secs(3));
        // All but the attacker's newest four were closed.
        let mut open = 0;
        for tcp in &mut attackers {
            if !closed(tcp, Duration::from_millis(200)).await {
                open += 1;
            }
        }
        assert!(
            open <= 4,
            "{open} silent connections of one address still open"
        );
    });
}

#[test]
fn a_connection_that_sends_nothing_is_closed_at_the_first_request_deadline() {
    let daemon = Daemon::start_with(Options {
        token: Some(TOKEN.into()),
        args: ["--unauthenticated-timeout-ms", "1000"]
            .map(String::from)
            .to_vec(),
        ..Options::default()
    });
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let started = Instant::now();
        let mut silent = connect_from([127, 0, 0, 2], daemon.port).await;
        assert!(
            closed(&mut silent, Duration::from_secs(10)).await,
            "a silent connection is held past the first-request deadline"
        );
        let held = started.elapsed();
        assert!(held >= Duration::from_millis(900), "closed after {held:?}");
        assert!(held < Duration::from_secs(5), "closed after {held:?}");

        // A client that authenticated keeps its connection across idle time and the
        // flood of a neighbour on the same address.
        let mut kept = connect_from([127, 0, 0, 2], daemon.port).await;
        let request = format!(
            "GET /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n\r\n"
        );
        kept.write_all(request.as_bytes()).await.unwrap();
        let mut buf = vec![0u8; 4096];
        let n = kept.read(&mut buf).await.unwrap();
        assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
        let mut flood = Vec::new();
        for _ in 0..40 {
            flood.push(connect_from([127, 0, 0, 2], daemon.port).await);
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        kept.write_all(request.as_bytes()).await.unwrap();
        let n = kept.read(&mut buf).await.unwrap();
        assert!(
            buf[..n].starts_with(b"HTTP/1.1 200"),
            "{}",
            String::from_utf8_lossy(&buf[..n])
        );
    });
}
