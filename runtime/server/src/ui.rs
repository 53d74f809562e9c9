//! The web inspector at `/ui`: the files of `inspector/dist/` (built from `inspector/src/`
//! and committed), embedded in the binary. The page loads without a token; it asks for one
//! and sends it with every API request. Not part of the API (kept out of OpenAPI).

use std::sync::OnceLock;

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::error::ApiError;

/// One embedded file: its name under `/ui/`, content type and bytes.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
}

macro_rules! asset {
    ($name:literal, $type:literal) => {
        Asset {
            name: $name,
            content_type: $type,
            bytes: include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../inspector/dist/",
                $name
            )),
        }
    };
}

const ASSETS: &[Asset] = &[
    asset!("index.html", "text/html; charset=utf-8"),
    asset!("app.js", "text/javascript; charset=utf-8"),
    asset!("app.css", "text/css; charset=utf-8"),
];

/// Scripts and styles only from the daemon itself, no inline script (agent text can never
/// run even if it reached the page as HTML); requests may go to any daemon the user names.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src *; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// `index.html` as served at `/ui` (no trailing slash): its relative asset paths are made
/// relative to `/ui/`.
fn index_without_slash() -> &'static [u8] {
    static INDEX: OnceLock<Vec<u8>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let index = std::str::from_utf8(ASSETS[0].bytes).unwrap_or_default();
        index
            .replace("src=\"app.js\"", "src=\"ui/app.js\"")
            .replace("href=\"app.css\"", "href=\"ui/app.css\"")
            .into_bytes()
    })
}

/// A strong validator: the first 12 bytes of the content's SHA-256, in hex and quotes.
fn etag(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let hex: String = digest[..12]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("\"{hex}\"")
}

/// The validators of the assets (in `ASSETS` order) and of the page at `/ui`, computed once.
fn etags() -> &'static (Vec<String>, String) {
    static TAGS: OnceLock<(Vec<String>, String)> = OnceLock::new();
    TAGS.get_or_init(|| {
        let assets = ASSETS.iter().map(|asset| etag(asset.bytes)).collect();
        (assets, etag(index_without_slash()))
    })
}

/// Answers with `bytes`, or `304` when the client's copy is current. The files are not
/// fingerprinted, so browsers revalidate every time (`no-cache`): cheap, and never stale
/// after the daemon is upgraded.
fn serve(
    headers: &HeaderMap,
    content_type: &'static str,
    bytes: &'static [u8],
    tag: &str,
) -> Response {
    let mut response = if headers
        .get(header::IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.split(',').any(|candidate| candidate.trim() == tag))
    {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        ([(header::CONTENT_TYPE, content_type)], bytes).into_response()
    };
    let set = response.headers_mut();
    if let Ok(tag) = HeaderValue::from_str(tag) {
        set.insert(header::ETAG, tag);
    }
    set.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    set.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    set.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    set.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    response
}

/// `GET /ui`: the inspector's page.
pub async fn index(headers: HeaderMap) -> Response {
    serve(
        &headers,
        ASSETS[0].content_type,
        index_without_slash(),
        &etags().1,
    )
}

/// `GET /ui/`: the inspector's page.
pub async fn index_slash(headers: HeaderMap) -> Response {
    serve(
        &headers,
        ASSETS[0].content_type,
        ASSETS[0].bytes,
        &etags().0[0],
    )
}

/// `GET /ui/{file}`: one of the inspector's files; `404` `not_found` for any other name.
pub async fn file(Path(name): Path<String>, headers: HeaderMap) -> Response {
    match ASSETS.iter().position(|asset| asset.name == name) {
        Some(at) => serve(
            &headers,
            ASSETS[at].content_type,
            ASSETS[at].bytes,
            &etags().0[at],
        ),
        None => ApiError::NotFound(format!("/ui/{name}")).into_response(),
    }
}

/// The routes of the inspector (they need no token).
pub fn router<S: Clone + Send + Sync + 'static>() -> axum::Router<S> {
    axum::Router::new()
        .route("/ui", axum::routing::get(index))
        .route("/ui/", axum::routing::get(index_slash))
        .route("/ui/{*file}", axum::routing::get(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_asset_is_embedded_and_the_page_names_them() {
        let index = std::str::from_utf8(ASSETS[0].bytes).unwrap();
        for asset in &ASSETS[1..] {
            assert!(!asset.bytes.is_empty(), "{} is empty", asset.name);
            assert!(
                index.contains(&format!("\"{}\"", asset.name)),
                "{}",
                asset.name
            );
        }
        let without_slash = std::str::from_utf8(index_without_slash()).unwrap();
        assert!(without_slash.contains("src=\"ui/app.js\""));
        assert!(without_slash.contains("href=\"ui/app.css\""));
    }

    #[test]
    fn etags_differ_by_content_and_are_stable() {
        assert_eq!(etag(ASSETS[1].bytes), etags().0[1]);
        assert_ne!(etags().0[1], etags().0[2]);
        assert_ne!(etags().0[0], etags().1);
    }
}
