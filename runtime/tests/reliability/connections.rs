//! The connection limit (`--max-connections`): at the limit new clients wait in the
//! listen backlog, neither refused nor taking the file descriptors the daemon needs
//! for itself, and one connection closing lets the next in.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::common::{Daemon, Options};
use crate::support::{get_request, status_of, wait_until};

/// A connection that made one request and stays open, idle, kept alive.
fn kept_alive(port: u16) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .write_all(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).expect("the response head");
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    assert_eq!(status_of(&head), Some(200), "{head}");
    let length: usize = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .expect("a content length");
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).unwrap();
    stream
}

#[test]
fn at_the_connection_limit_new_clients_wait_for_a_free_slot() {
    let daemon = Daemon::start_with(Options {
        args: vec!["--max-connections".into(), "8".into()],
        ..Options::default()
    });
    let mut held: Vec<TcpStream> = (0..8).map(|_| kept_alive(daemon.port)).collect();

    // A ninth client connects (the kernel's backlog takes it) but is not served...
    let mut ninth = TcpStream::connect(("127.0.0.1", daemon.port)).unwrap();
    ninth.write_all(&get_request("/v1/health", &[])).unwrap();
    ninth
        .set_read_timeout(Some(Duration::from_millis(700)))
        .unwrap();
    let mut answer = String::new();
    let waited = ninth.read_to_string(&mut answer);
    assert!(
        waited.is_err() && answer.is_empty(),
        "served past the limit: {answer:?}"
    );

    // ...until one of the eight closes: then it is, without sending again.
    drop(held.pop());
    ninth
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    ninth.read_to_string(&mut answer).unwrap();
    assert_eq!(status_of(&answer), Some(200), "{answer}");

    // The metrics count the wait, and the connections open: the seven held and
    // the one asking (the ninth is gone once its connection task ends).
    drop(ninth);
    let metrics = || {
        reqwest::blocking::get(daemon.url("/metrics"))
            .unwrap()
            .text()
            .unwrap()
    };
    let value = |metrics: &str, name: &str| -> f64 {
        metrics
            .lines()
            .find_map(|line| line.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("{name} in {metrics}"))
    };
    assert!(value(&metrics(), "agentplex_http_connection_limit_waits_total") >= 1.0);
    assert!(
        wait_until(Duration::from_secs(5), || value(
            &metrics(),
            "agentplex_http_connections "
        ) == 8.0),
        "{}",
        metrics()
    );
    drop(held);
}
