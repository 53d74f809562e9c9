//! The CORS layer the `--cors-*` flags ask for, and why a combination of them is
//! refused at start-up.

use axum::http::{HeaderName, HeaderValue, Method};
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::config::CorsConfig;

/// Why the `--cors-*` flags cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CorsError {
    /// Credentials may not be allowed for every origin.
    #[error("--cors-allow-credentials cannot be combined with --cors-allow-origin '*': name the origins")]
    CredentialsWithAnyOrigin,
    /// An origin is not a valid header value.
    #[error("invalid CORS origin {0:?}")]
    Origin(String),
    /// A header is not a valid header name.
    #[error("invalid CORS header {0:?}")]
    Header(String),
    /// A method is not a valid HTTP method.
    #[error("invalid CORS method {0:?}")]
    Method(String),
}

/// CORS is off unless origins are configured.
pub(super) fn layer(cors: &CorsConfig) -> Result<Option<CorsLayer>, CorsError> {
    if cors.allow_origins.is_empty() {
        return Ok(None);
    }
    let any_origin = cors.allow_origins.iter().any(|o| o == "*");
    if any_origin && cors.allow_credentials {
        return Err(CorsError::CredentialsWithAnyOrigin);
    }
    let origins = if any_origin {
        AllowOrigin::any()
    } else {
        let values = cors
            .allow_origins
            .iter()
            .map(|o| HeaderValue::from_str(o).map_err(|_| CorsError::Origin(o.clone())))
            .collect::<Result<Vec<_>, _>>()?;
        AllowOrigin::list(values)
    };
    let headers = if cors.allow_headers.is_empty() {
        vec![
            "content-type",
            "authorization",
            "x-sandbox-token",
            "last-event-id",
        ]
        .into_iter()
        .map(HeaderName::from_static)
        .collect()
    } else {
        cors.allow_headers
            .iter()
            .map(|h| HeaderName::from_bytes(h.as_bytes()).map_err(|_| CorsError::Header(h.clone())))
            .collect::<Result<Vec<_>, _>>()?
    };
    let methods = if cors.allow_methods.is_empty() {
        // Every method a route of the API answers to.
        vec![
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::DELETE,
            Method::OPTIONS,
        ]
    } else {
        cors.allow_methods
            .iter()
            .map(|m| {
                Method::from_bytes(m.to_ascii_uppercase().as_bytes())
                    .map_err(|_| CorsError::Method(m.clone()))
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    Ok(Some(
        CorsLayer::new()
            .allow_origin(origins)
            .allow_headers(headers)
            .allow_methods(methods)
            .allow_credentials(cors.allow_credentials),
    ))
}
