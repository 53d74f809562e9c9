//! A client still sending a body when the daemon refuses it reads the refusal.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use super::*;

/// Sends `head` and the first 64 KiB of a body of `length` bytes, waits until
/// the daemon has surely answered, sends the rest, and returns the status line
/// of the answer (or what went wrong).
fn slow_request(daemon: &Daemon, head: &str, length: usize) -> Result<String, String> {
    let mut socket = TcpStream::connect(("127.0.0.1", daemon.port)).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let chunk = vec![b'x'; 64 << 10];
    let describe = |error: std::io::Error| format!("{:?}: {error}", error.kind());
    write!(socket, "{head}Content-Length: {length}\r\n\r\n").map_err(describe)?;
    socket.write_all(&chunk).map_err(describe)?;
    std::thread::sleep(Duration::from_millis(300));
    let mut sent = chunk.len();
    while sent < length {
        let part = chunk.len().min(length - sent);
        socket.write_all(&chunk[..part]).map_err(describe)?;
        sent += part;
    }
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    while !answer.windows(2).any(|w| w == b"\r\n") {
        match socket.read(&mut buffer).map_err(describe)? {
            0 => return Err(format!("closed after {} bytes of answer", answer.len())),
            n => answer.extend_from_slice(&buffer[..n]),
        }
    }
    let text = String::from_utf8_lossy(&answer);
    Ok(text.lines().next().unwrap_or_default().to_owned())
}

#[test]
fn a_client_still_sending_reads_the_refusal() {
    let daemon = Daemon::start_with(Options {
        token: Some("secret".into()),
        args: ["--body-limit", "1000", "--fs-max-bytes", "1000"]
            .map(String::from)
            .to_vec(),
        ..Options::default()
    });
    let auth = "Authorization: Bearer secret\r\n";
    let host = "Host: 127.0.0.1\r\n";
    // Each is refused before its body is read: over --fs-max-bytes, over
    // --body-limit, and without the token.
    let refused = [
        (
            format!("PUT /v1/fs/file?path=f HTTP/1.1\r\n{host}{auth}"),
            "413",
        ),
        (
            format!(
                "POST /v1/sessions/s HTTP/1.1\r\n{host}{auth}Content-Type: application/json\r\n"
            ),
            "413",
        ),
        (format!("PUT /v1/fs/file?path=f HTTP/1.1\r\n{host}"), "401"),
    ];
    for (head, status) in refused {
        let line = slow_request(&daemon, &head, 2 << 20);
        assert!(
            line.as_deref().is_ok_and(|line| line.contains(status)),
            "{}: {line:?}",
            head.lines().next().unwrap()
        );
    }
}
