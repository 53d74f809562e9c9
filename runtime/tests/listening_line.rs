//! The stable line `sandbox-agent server` prints on stdout once it listens
//! (`sandbox-agent listening on http://HOST:PORT`, docs/cli.md): exactly one line, with
//! the port the system chose for `--port 0`, and the daemon answers at that address.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn server_prints_one_listening_line_with_the_chosen_port() {
    let data = tempfile::tempdir().expect("temporary data dir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentplex"))
        .args([
            "server",
            "--no-token",
            "--port",
            "0",
            "--ephemeral",
            "--data-dir",
        ])
        .arg(data.path())
        .env_remove("SANDBOX_AGENT_TOKEN")
        .env_remove("SANDBOX_AGENT_PORT")
        .env_remove("SANDBOX_AGENT_HOST")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("running sandbox-agent server");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("reading stdout");

    let address = line
        .strip_prefix("sandbox-agent listening on http://")
        .and_then(|rest| rest.strip_suffix('\n'))
        .unwrap_or_else(|| panic!("unexpected first stdout line: {line:?}"));
    let (host, port) = address.rsplit_once(':').expect("HOST:PORT");
    assert_eq!(host, "127.0.0.1");
    let port: u16 = port.parse().expect("a port number");
    assert_ne!(port, 0, "the line names the chosen port, not 0");

    let health = health(&format!("127.0.0.1:{port}"));
    assert!(
        health.starts_with("HTTP/1.1 200"),
        "health answer: {health}"
    );

    // Stop the daemon; stdout must hold nothing more than the one line.
    // SAFETY: `kill` with a child's pid and SIGTERM has no memory effects.
    let pid = i32::try_from(child.id()).expect("pid");
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("reading stdout");
    let status = child.wait().expect("waiting for the daemon");
    assert!(status.success(), "daemon exit: {status}");
    assert_eq!(rest, "", "stdout after the listening line");
}

/// A raw `GET /v1/health` (no client crate needed).
fn health(address: &str) -> String {
    use std::io::Write as _;
    let mut stream = std::net::TcpStream::connect(address).expect("connecting to the daemon");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("read timeout");
    stream
        .write_all(b"GET /v1/health HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n")
        .expect("sending the request");
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .expect("reading the answer");
    answer
}
