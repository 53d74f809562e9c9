//! The fake vendor servers: one loopback listener answering each path with the
//! reply set for it (a body, an error status, a truncated or trickled body), and
//! the publishing of fake releases as each vendor lays them out.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use super::*;

/// How a path is answered.
#[derive(Clone)]
pub(crate) enum Reply {
    Body(Vec<u8>),
    Status(u16),
    /// Announces `claimed` bytes, sends the body, closes the connection.
    Truncated {
        body: Vec<u8>,
        claimed: usize,
    },
    /// Sends the body in small pieces with pauses.
    Trickle {
        body: Vec<u8>,
        piece: usize,
        pause: Duration,
    },
}

/// The fake vendor servers: one loopback listener, a reply per path, and how often
/// each path was asked for.
#[derive(Clone)]
pub(crate) struct Vendors {
    pub(crate) base: String,
    replies: Arc<Mutex<HashMap<String, Reply>>>,
    hits: Arc<Mutex<HashMap<String, usize>>>,
    pub(crate) trickled: Arc<Mutex<usize>>,
}

impl Vendors {
    pub(crate) fn start() -> Vendors {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let vendors = Vendors {
            base: format!("http://{}", listener.local_addr().unwrap()),
            replies: Arc::default(),
            hits: Arc::default(),
            trickled: Arc::default(),
        };
        let server = vendors.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let server = server.clone();
                std::thread::spawn(move || server.answer(stream));
            }
        });
        vendors
    }

    pub(crate) fn set(&self, path: &str, reply: Reply) {
        self.replies.lock().unwrap().insert(path.to_owned(), reply);
    }

    pub(crate) fn body(&self, path: &str, body: impl Into<Vec<u8>>) {
        self.set(path, Reply::Body(body.into()));
    }

    pub(crate) fn hits(&self, path: &str) -> usize {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }

    fn answer(&self, mut stream: TcpStream) {
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            match stream.read(&mut byte) {
                Ok(1) => head.push(byte[0]),
                _ => return,
            }
        }
        let head = String::from_utf8_lossy(&head);
        let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
        *self.hits.lock().unwrap().entry(path.clone()).or_default() += 1;
        let reply = self.replies.lock().unwrap().get(&path).cloned();
        // A folder's page (a package index's) is HTML, as pip wants it said.
        let kind = if path.ends_with('/') {
            "Content-Type: text/html\r\n"
        } else {
            ""
        };
        let ok = |length: usize| {
            format!(
                "HTTP/1.1 200 OK\r\n{kind}Content-Length: {length}\r\nConnection: close\r\n\r\n"
            )
        };
        match reply {
            None | Some(Reply::Status(404)) => {
                let _ = stream.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found",
                );
            }
            Some(Reply::Status(status)) => {
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
            }
            Some(Reply::Body(body)) => {
                let _ = stream.write_all(ok(body.len()).as_bytes());
                let _ = stream.write_all(&body);
            }
            Some(Reply::Truncated { body, claimed }) => {
                let _ = stream.write_all(ok(claimed).as_bytes());
                let _ = stream.write_all(&body);
            }
            Some(Reply::Trickle { body, piece, pause }) => {
                let _ = stream.write_all(ok(body.len()).as_bytes());
                for chunk in body.chunks(piece) {
                    if stream
                        .write_all(chunk)
                        .and_then(|()| stream.flush())
                        .is_err()
                    {
                        return;
                    }
                    *self.trickled.lock().unwrap() += chunk.len();
                    std::thread::sleep(pause);
                }
            }
        }
        let _ = stream.shutdown(std::net::Shutdown::Both);
    }

    /// A GitHub release asset of `repo` and the release's API document, which
    /// lists the asset with the digest GitHub computed (`digest` for those bytes).
    pub(crate) fn publish_github_asset(
        &self,
        repo: &str,
        tag: &str,
        file: &str,
        bytes: &[u8],
        digest: &[u8],
    ) {
        let download = format!("/github.com/{repo}/releases/download/{tag}/{file}");
        self.body(&download, bytes);
        let release = json!({"tag_name": tag, "assets": [
            {"name": file, "digest": format!("sha256:{}", sha256(digest))},
            {"name": "other.zip", "digest": format!("sha256:{}", sha256(b"other"))},
        ]});
        let document = format!("/api.github.com/repos/{repo}/releases/tags/{tag}");
        self.body(&document, release.to_string());
    }

    /// [`Vendors::publish_github_asset`] with its true digest.
    pub(crate) fn publish_github(&self, repo: &str, tag: &str, file: &str, bytes: &[u8]) {
        self.publish_github_asset(repo, tag, file, bytes, bytes);
    }

    /// Claude Code `version` in the bucket (with its manifest checksum), and as latest.
    pub(crate) fn publish_claude(&self, version: &str) -> Vec<u8> {
        let binary = fake_binary(version);
        self.publish_claude_binary(version, &binary);
        binary
    }

    /// Claude Code `version` with these bytes as its linux-x64 binary.
    pub(crate) fn publish_claude_binary(&self, version: &str, binary: &[u8]) {
        self.body(&format!("{CLAUDE}/latest"), version);
        self.body(&format!("{CLAUDE}/{version}/linux-x64/claude"), binary);
        let manifest = json!({"version": version, "platforms": {
            "linux-x64": {"checksum": sha256(binary)},
            "darwin-arm64": {"checksum": sha256(b"another build")},
        }});
        self.body(
            &format!("{CLAUDE}/{version}/manifest.json"),
            manifest.to_string(),
        );
    }
}
