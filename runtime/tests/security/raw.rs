//! Requests written byte by byte, with the headers a browser would send (`Host`,
//! `Origin`, `Sec-Fetch-Site`), which an HTTP client library sets for itself.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// An answer: its status and body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: String,
}

impl Answer {
    /// The problem `type` code of a problem answer (`host_not_allowed`...).
    pub fn code(&self) -> String {
        serde_json::from_str::<serde_json::Value>(&self.body)
            .ok()
            .and_then(|problem| problem["type"].as_str().map(str::to_owned))
            .and_then(|urn| urn.rsplit(':').next().map(str::to_owned))
            .unwrap_or_default()
    }
}

/// Sends `method path` to the daemon on `port` with `headers` (each `Name: value`)
/// and `body`, on a connection of its own, and reads the whole answer.
pub fn send(port: u16, method: &str, path: &str, headers: &[&str], body: &[u8]) -> Answer {
    let mut tcp = TcpStream::connect(("127.0.0.1", port)).expect("connecting");
    tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers
        .iter()
        .any(|h| h.to_ascii_lowercase().starts_with("host:"))
    {
        request.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for header in headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    tcp.write_all(request.as_bytes()).unwrap();
    tcp.write_all(body).unwrap();
    let mut bytes = Vec::new();
    tcp.read_to_end(&mut bytes).expect("reading the answer");
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let status = text
        .get(9..12)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    Answer { status, body }
}
