//! HTTP: small text documents (versions, checksums) and downloads streamed to a
//! file, hashed on the way, and rejected when empty or shorter than announced.

use std::path::Path;
use std::time::Duration;

use futures::StreamExt;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use super::progress::{Progress, Stage};
use super::InstallError;

/// Largest text document read (a GitHub release document is well under this).
const MAX_TEXT_BYTES: usize = 4 << 20;

/// The HTTP client of the installer: rustls with built-in roots, redirects followed,
/// and a stalled transfer given up after a minute.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .user_agent(concat!("agentplex/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(30))
        .read_timeout(Duration::from_secs(60))
        .build()
        .expect("the HTTP client's settings are valid")
}

/// The body of a small document at `url`.
pub async fn fetch_text(client: &reqwest::Client, url: &str) -> Result<String, InstallError> {
    let response = get(client, url).await?;
    let body = response.bytes().await.map_err(|e| transfer(url, &e))?;
    if body.len() > MAX_TEXT_BYTES {
        return Err(InstallError::Transfer {
            url: url.to_owned(),
            reason: format!("document larger than {MAX_TEXT_BYTES} bytes"),
        });
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// Streams `url` into `dest` (created), reporting progress; returns the body's
/// SHA-256 as lowercase hex.
pub async fn download(
    client: &reqwest::Client,
    url: &str,
    dest: &Path,
    progress: &Progress,
) -> Result<String, InstallError> {
    let response = get(client, url).await?;
    let total = response.content_length();
    let mut file = tokio::fs::File::create(dest)
        .await
        .map_err(|e| InstallError::io(dest, e))?;
    let mut hasher = Sha256::new();
    let mut done: u64 = 0;
    progress.report(Stage::Downloading, url, 0, total);
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| InstallError::Transfer {
            url: url.to_owned(),
            reason: format!("connection failed after {done} bytes: {}", error_chain(&e)),
        })?;
        hasher.update(&chunk);
        file.write_all(&chunk)
            .await
            .map_err(|e| InstallError::io(dest, e))?;
        done += chunk.len() as u64;
        progress.report(Stage::Downloading, url, done, total);
    }
    file.sync_all()
        .await
        .map_err(|e| InstallError::io(dest, e))?;
    if done == 0 {
        return Err(InstallError::Transfer {
            url: url.to_owned(),
            reason: "empty download".into(),
        });
    }
    if let Some(total) = total.filter(|total| *total != done) {
        return Err(InstallError::Transfer {
            url: url.to_owned(),
            reason: format!("truncated download: {done} of {total} bytes"),
        });
    }
    progress.finish_download(url, done);
    Ok(format!("{:x}", hasher.finalize()))
}

/// A successful response to `GET url`.
async fn get(client: &reqwest::Client, url: &str) -> Result<reqwest::Response, InstallError> {
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|e| transfer(url, &e))?;
    if !response.status().is_success() {
        return Err(InstallError::Status {
            url: url.to_owned(),
            status: response.status().as_u16(),
        });
    }
    Ok(response)
}

fn transfer(url: &str, error: &reqwest::Error) -> InstallError {
    InstallError::Transfer {
        url: url.to_owned(),
        reason: error_chain(error),
    }
}

/// An error with its causes (reqwest's own message hides the interesting part).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
