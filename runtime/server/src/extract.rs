//! Request extractors whose rejections are problem documents, not axum's plain
//! text: a bad body, path or query always answers in the API's error format.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::rejection::{BytesRejection, JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request, State};
use axum::http::header::CONTENT_LENGTH;
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tower_http::timeout::TimeoutBody;

use crate::error::ApiError;

/// A JSON body: one JSON object (every body of the API is one; serde alone would
/// also read a struct from an array of its fields in order).
pub struct Json<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Json<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        // axum checks the content type and the syntax; the shape is checked here.
        match axum::Json::<Value>::from_request(request, state).await {
            Ok(axum::Json(value)) => body_value(value).map(Json),
            Err(JsonRejection::BytesRejection(rejection)) => Err(body_error(rejection)),
            Err(rejection) => Err(ApiError::InvalidRequest(rejection.body_text())),
        }
    }
}

/// A JSON body that may also be absent (empty, with or without a content type, or
/// `null`), as 0.1.x clients send for `cancel`, `terminate`, `reject` and `install`.
pub struct OptionalJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Default> FromRequest<S> for OptionalJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(body_error)?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalJson(T::default()));
        }
        match serde_json::from_slice(&bytes) {
            Ok(Value::Null) => Ok(OptionalJson(T::default())),
            Ok(value) => body_value(value).map(OptionalJson),
            Err(e) => Err(ApiError::InvalidRequest(format!("invalid JSON body: {e}"))),
        }
    }
}

/// Reads a body's JSON value as `T`: it must be an object, and a whole number is
/// one however it is written (`80.0` is an integer to JSON Schema, not to serde).
fn body_value<T: DeserializeOwned>(mut value: Value) -> Result<T, ApiError> {
    if !value.is_object() {
        return Err(ApiError::InvalidRequest(
            "the body must be a JSON object".into(),
        ));
    }
    whole_numbers(&mut value);
    serde_path_to_error::deserialize(value).map_err(|e| {
        ApiError::InvalidRequest(format!(
            "Failed to deserialize the JSON body into the target type: {e}"
        ))
    })
}

/// Turns every number written with a fraction of zero (`4864.0`) into an integer.
fn whole_numbers(value: &mut Value) {
    match value {
        Value::Number(number) => {
            let Some(float) = number.as_f64().filter(|_| number.is_f64()) else {
                return;
            };
            if float.fract() != 0.0 {
                return;
            }
            // `as` saturates: a float past the integer's range stays a float.
            if float >= 0.0 && float < u64::MAX as f64 {
                *number = (float as u64).into();
            } else if float < 0.0 && float >= i64::MIN as f64 {
                *number = (float as i64).into();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers),
        Value::Object(map) => map.values_mut().for_each(whole_numbers),
        _ => {}
    }
}

fn body_error(rejection: BytesRejection) -> ApiError {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        too_large()
    } else {
        ApiError::InvalidRequest(rejection.body_text())
    }
}

fn too_large() -> ApiError {
    ApiError::PayloadTooLarge("the request body is larger than the daemon's --body-limit".into())
}

/// What [`guard_body`] holds a JSON body to.
#[derive(Clone, Copy)]
pub struct BodyGuard {
    /// `--body-limit`.
    pub limit: usize,
    /// Longest wait for the next part of the body (`--header-read-timeout-ms`).
    pub stall: Duration,
}

/// Refuses a request whose declared body length is over the limit before its body
/// is read (the limit alone would only trip once that much had arrived, and a
/// client that declares more than it sends would hold its request open), and ends
/// a body that stalls longer than the guard allows (then the request is refused
/// with `400`).
pub async fn guard_body(State(guard): State<BodyGuard>, request: Request, next: Next) -> Response {
    let declared = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > guard.limit as u64) {
        return too_large().into_response();
    }
    let request = request.map(|body| Body::new(TimeoutBody::new(guard.stall, body)));
    next.run(request).await
}

/// Query parameters.
pub struct Query<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Query(value)| Query(value))
            .map_err(|rejection: QueryRejection| ApiError::InvalidRequest(rejection.body_text()))
    }
}

/// Path parameters.
pub struct Path<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for Path<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Path(value)| Path(value))
            .map_err(|rejection| ApiError::InvalidRequest(rejection.body_text()))
    }
}
