//! Moving a session between daemons: its archive out, an archive in.

use agentplex_api::{ImportSessionQuery, ImportSessionResponse, ProblemDetails, IMPORT_ENV_HEADER};
use agentplex_sessions::moves::ImportOptions;
use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::TryStreamExt;
use tokio_util::io::{StreamReader, SyncIoBridge};

use super::extract::{Path, Query};
use super::fs_routes::{check_archive_type, check_declared_length};
use super::AppState;
use crate::error::{ApiError, Result};

/// The routes that move sessions.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/sessions/{session_id}/export", get(export_session))
        .route("/v1/sessions/{session_id}/import", post(import_session))
}

/// Streams the session as one archive (gzip-compressed tar): its universal
/// transcript, the adapter's state, its configuration with secret variables left
/// out (named in the manifest), and the agent's own session files. A running
/// session keeps running; the archive holds it as of the answer.
#[utoipa::path(get, path = "/v1/sessions/{session_id}/export", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id")),
    responses(
        (status = 200, description = "The session archive. `x-agentplex-native-lost` says why the agent's own session is not in it, when it is not", content_type = "application/gzip", body = Vec<u8>),
        (status = 404, description = "No such session", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 503, description = "The session's events are not all stored yet", body = ProblemDetails, content_type = "application/problem+json"),
    ))]
pub async fn export_session(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
) -> Result<Response> {
    let export = state.sessions.export(&session_id).await?;
    let mut response = Body::from_stream(export.body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/gzip"),
    );
    let file_name = format!("attachment; filename=\"{session_id}.agentplex.tar.gz\"");
    if let Ok(value) = HeaderValue::from_str(&file_name) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    if let Some(lost) = &export.manifest.native.lost {
        let lost: String = lost
            .chars()
            .filter(|c| c.is_ascii() && !c.is_ascii_control())
            .collect();
        if let Ok(value) = HeaderValue::from_str(&lost) {
            headers.insert("x-agentplex-native-lost", value);
        }
    }
    Ok(response)
}

/// Restores a session from an archive of `GET /v1/sessions/{id}/export` (the
/// body), under this id, in this daemon's home and data dir and in the working
/// directory asked for. The agent's own session files are written where the
/// agent looks for them here, with what depends on the home and the working
/// directory rewritten; the next message resumes the agent's own session. The
/// archive is checked whole first (its manifest, every file's size and SHA-256,
/// the transcript without gaps): a damaged, truncated, foreign or too-new archive
/// writes nothing. Secret variables the export left out are given in
/// `x-agentplex-env` headers, as form-encoded `NAME=value` pairs (`A=1&B=2`).
#[utoipa::path(post, path = "/v1/sessions/{session_id}/import", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id"), ImportSessionQuery),
    request_body(content = Vec<u8>, content_type = "application/gzip", description = "A session archive"),
    responses(
        (status = 200, body = ImportSessionResponse),
        (status = 400, description = "Not a session archive, a damaged, truncated or too new one, or a working directory that is not here", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 409, description = "A session with this id exists, or an agent's file of the session is here with other contents", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 413, description = "The archive is over `--fs-max-bytes` unpacked", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 415, description = "The body is not sent as an archive", body = ProblemDetails, content_type = "application/problem+json"),
    ))]
pub async fn import_session(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    Query(query): Query<ImportSessionQuery>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<ImportSessionResponse>> {
    check_archive_type(&headers)?;
    let limits = state.fs.upload_limits();
    check_declared_length(&headers, limits.max_bytes)?;
    let env = supplied_env(&headers)?;
    let stream = body.into_data_stream().map_err(std::io::Error::other);
    let reader = SyncIoBridge::new(StreamReader::new(stream));
    let options = ImportOptions {
        directory: query.directory,
        env,
        limits,
    };
    let imported = state.sessions.import(&session_id, reader, options).await?;
    Ok(Json(ImportSessionResponse {
        session: imported.session.info(),
        missing_secrets: imported.missing_secrets,
        native_files: imported.native_files as u64,
        lost: imported.lost,
    }))
}

/// The variables of the import's `x-agentplex-env` headers: each holds one or
/// more `NAME=value` pairs, form-encoded (`A=1&B=x%26y`), so a client whose
/// headers cannot repeat (`fetch` joins them) sends them all in one. A pair
/// without `=`, a name that is not a variable name (`[A-Za-z_][A-Za-z0-9_]*`) or
/// a value holding a NUL byte is refused.
fn supplied_env(headers: &HeaderMap) -> Result<Vec<(String, String)>> {
    let bad = |what: String| {
        ApiError::InvalidRequest(format!(
            "{IMPORT_ENV_HEADER}: {what}; it takes NAME=value pairs, form-encoded (A=1&B=2)"
        ))
    };
    let mut env = Vec::new();
    for value in headers.get_all(IMPORT_ENV_HEADER) {
        let text = value.to_str().map_err(|_| bad("not text".into()))?;
        for pair in text.trim().split('&').filter(|pair| !pair.is_empty()) {
            if !pair.contains('=') {
                return Err(bad(format!("{pair:?} has no `=`")));
            }
            for (name, value) in form_urlencoded::parse(pair.as_bytes()) {
                let mut chars = name.chars();
                let variable = chars
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !variable {
                    return Err(bad(format!("{name:?} is not a variable name")));
                }
                if value.contains('\0') {
                    return Err(bad(format!("the value of {name} holds a NUL byte")));
                }
                env.push((name.into_owned(), value.into_owned()));
            }
        }
    }
    Ok(env)
}
