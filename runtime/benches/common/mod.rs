//! What the benches share: stopping a daemon, GETs over a plain socket, free ports,
//! resident memory, percentiles; the binaries to compare and their daemons
//! ([`daemons`]); the message-to-event latency over SSE ([`latency`]).

#![allow(dead_code)]

pub mod daemons;
pub mod latency;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Starts `command` (`what` names it in panics) with its standard output
/// piped, and reads the first line it prints (a listening line, say), trimmed.
pub fn spawn_and_read_line(command: &mut Command, what: &str) -> (Child, String) {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|error| panic!("starting {what}: {error}"));
    let mut line = String::new();
    let stdout = child.stdout.take().expect("a piped stdout");
    BufReader::new(stdout)
        .read_line(&mut line)
        .unwrap_or_else(|error| panic!("the first line of {what}: {error}"));
    (child, line.trim().to_owned())
}

/// SIGTERM, then SIGKILL if the daemon is still there after 10 s.
pub fn stop(child: &mut Child) {
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if child.try_wait().ok().flatten().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The status of one GET over a plain socket (no client library in the measurement).
pub fn http_get(port: u16, path: &str, token: Option<&str>) -> Option<u16> {
    let stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .ok()?;
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Connection: close\r\n\r\n");
    answer_status(stream, &request).ok()
}

/// The status of one `POST` of a JSON `body` on a new connection, closed after
/// the answer: what a client without a connection pool does for every request.
/// `address` is `host:port`.
pub fn http_post_new_connection(
    address: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> std::io::Result<u16> {
    let stream = TcpStream::connect(address)?;
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\n{auth}Content-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    answer_status(stream, &request)
}

/// Sends `request` (asking for the connection to close) and reads the whole
/// answer; its status.
fn answer_status(mut stream: TcpStream, request: &str) -> std::io::Result<u16> {
    stream.write_all(request.as_bytes())?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    String::from_utf8_lossy(&answer)
        .split_whitespace()
        .nth(1)
        .and_then(|status| status.parse().ok())
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidData, "no status line"))
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Resident set size of a process, from `/proc/<pid>/status`, in KiB.
pub fn rss_kib(pid: u32) -> u64 {
    proc_kib(&format!("/proc/{pid}/status"), "VmRSS:").expect("VmRSS in /proc status")
}

/// Proportional set size of a process (its private pages plus its share of pages
/// shared with other processes), from `/proc/<pid>/smaps_rollup`, in KiB.
pub fn pss_kib(pid: u32) -> u64 {
    proc_kib(&format!("/proc/{pid}/smaps_rollup"), "Pss:").expect("Pss in smaps_rollup")
}

/// The `<field> <n> kB` line of a `/proc` file.
fn proc_kib(file: &str, field: &str) -> Option<u64> {
    std::fs::read_to_string(file)
        .ok()?
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// How many entries a `/proc/<pid>/` folder or file has: memory maps (`maps`, lines),
/// open files (`fd`) or threads (`task`). `None` when the process is gone.
pub fn proc_count(pid: u32, what: &str) -> Option<usize> {
    let path = format!("/proc/{pid}/{what}");
    match std::fs::read_dir(&path) {
        Ok(entries) => Some(entries.count()),
        Err(_) => Some(std::fs::read_to_string(&path).ok()?.lines().count()),
    }
}

/// One kept-alive HTTP/1.1 connection for GETs back to back (no client library in
/// the measurement; `TCP_NODELAY` set). Bodies must carry a `content-length`.
pub struct KeepAlive {
    reader: BufReader<TcpStream>,
}

impl KeepAlive {
    pub fn connect(port: u16) -> std::io::Result<Self> {
        let stream = TcpStream::connect(("127.0.0.1", port))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        Ok(Self {
            reader: BufReader::new(stream),
        })
    }

    /// Sends `GET path` and reads the whole answer; returns its status.
    pub fn get(&mut self, path: &str) -> std::io::Result<u16> {
        let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        self.reader.get_mut().write_all(request.as_bytes())?;
        let invalid = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
        let mut line = String::new();
        self.reader.read_line(&mut line)?;
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| invalid("no status line"))?;
        let mut length = None;
        loop {
            line.clear();
            if self.reader.read_line(&mut line)? == 0 {
                return Err(invalid("connection closed in the headers"));
            }
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse::<usize>().ok();
                }
            }
        }
        let mut body = vec![0; length.ok_or_else(|| invalid("no content-length"))?];
        self.reader.read_exact(&mut body)?;
        Ok(status)
    }
}

/// The sample at percentile `p` (0 to 100) by nearest rank; sorts `samples`.
pub fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort_unstable();
    let rank = ((p / 100.0) * (samples.len() - 1) as f64).round() as usize;
    samples[rank.min(samples.len() - 1)]
}

/// A duration in µs below a millisecond, else in ms.
pub fn us(d: Duration) -> String {
    let micros = d.as_secs_f64() * 1e6;
    if micros >= 1000.0 {
        format!("{:.2} ms", micros / 1000.0)
    } else {
        format!("{micros:.1} µs")
    }
}

/// A count of rounds: the whole number in the variable `name` (above 1), else
/// `default`.
pub fn rounds(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .map(|value| {
            value
                .parse()
                .ok()
                .filter(|rounds| *rounds > 1)
                .unwrap_or_else(|| panic!("{name} is a whole number above 1"))
        })
        .unwrap_or(default)
}
