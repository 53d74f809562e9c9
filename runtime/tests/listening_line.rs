//! The stable line `agentplex server` prints on stdout once it listens
//! (`agentplex listening on http://HOST:PORT`, docs/cli.md): exactly one line, with
//! the port the system chose for `--port 0`, and the daemon answers at that address.
//! With JSON logs it is a JSON object like a log line, whose message is that text.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::Duration;

/// How the daemon is asked to log, and what its listening line then looks like.
#[derive(Clone, Copy)]
enum Format {
    Pretty,
    Json,
}

#[test]
fn server_prints_one_listening_line_with_the_chosen_port() {
    for format in [Format::Pretty, Format::Json] {
        check_listening_line(format, &[("AGENTPLEX_PORT", "0")]);
    }
    // The variables of 0.2 are still read.
    check_listening_line(Format::Pretty, &[("SANDBOX_AGENT_PORT", "0")]);
}

fn check_listening_line(format: Format, env: &[(&str, &str)]) {
    let data = tempfile::tempdir().expect("temporary data dir");
    let log_format = match format {
        Format::Pretty => "pretty",
        Format::Json => "json",
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentplex"))
        .args([
            "server",
            "--no-token",
            "--ephemeral",
            "--log-format",
            log_format,
        ])
        .arg("--data-dir")
        .arg(data.path())
        .env_remove("AGENTPLEX_TOKEN")
        .env_remove("AGENTPLEX_PORT")
        .env_remove("AGENTPLEX_HOST")
        .env_remove("SANDBOX_AGENT_PORT")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("running agentplex server");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("reading stdout");

    let text = match format {
        Format::Pretty => line.clone(),
        Format::Json => {
            let object: serde_json::Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line:?}"));
            assert_eq!(object["level"], "INFO", "{line}");
            assert!(object["timestamp"].is_string(), "{line}");
            format!(
                "{}\n",
                object["fields"]["message"].as_str().expect("a message")
            )
        }
    };
    let address = text
        .strip_prefix("agentplex listening on http://")
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
