//! A releases mirror on loopback (`--releases-mirror`) for a registry agent whose
//! entry is a release archive on a host the tests do not reach: it serves, at the
//! mirror's path of the archive's URL, an archive of the registry's shape packed
//! from the same build that npm installed.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;

/// The running mirror.
pub struct Mirror {
    /// Its base URL, for `--releases-mirror`.
    pub base: String,
}

impl Mirror {
    /// Serves `url`'s archive (a `.tar.gz` holding `program` as `cmd`) until the
    /// test process ends; every other path is a 404.
    pub fn serving_release(url: &str, cmd: &str, program: &Path) -> Mirror {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let path = format!("/{}", url.split_once("://").map_or(url, |(_, rest)| rest));
        let archive = Arc::new(tar_gz(cmd.trim_start_matches("./"), program));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (path, archive) = (path.clone(), archive.clone());
                std::thread::spawn(move || answer(stream, &path, &archive));
            }
        });
        Mirror { base }
    }
}

/// A gzip-compressed tar archive holding `program` at `name`, executable.
fn tar_gz(name: &str, program: &Path) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    let mut header = tar::Header::new_gnu();
    let bytes = std::fs::read(program).unwrap();
    header.set_size(bytes.len() as u64);
    header.set_mode(0o755);
    header.set_cksum();
    builder
        .append_data(&mut header, name, bytes.as_slice())
        .unwrap();
    builder.into_inner().unwrap().finish().unwrap()
}

/// Answers one request: the archive at its path, else 404.
fn answer(stream: std::net::TcpStream, path: &str, archive: &[u8]) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let asked = request.split_whitespace().nth(1).unwrap_or_default();
    let mut stream = stream;
    let head = |status: &str, length: usize| {
        format!("HTTP/1.1 {status}\r\ncontent-length: {length}\r\nconnection: close\r\n\r\n")
    };
    let _ = if asked == path {
        stream
            .write_all(head("200 OK", archive.len()).as_bytes())
            .and_then(|()| stream.write_all(archive))
    } else {
        stream.write_all(head("404 Not Found", 0).as_bytes())
    };
}
