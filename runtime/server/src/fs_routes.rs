//! `/v1/fs/*`: the sandbox's files, wire-compatible with 0.1.x. Paths are absolute, or
//! relative to the directory of the session in `sessionId` (else the home directory).
//! File bodies are streamed both ways, up to `--fs-max-bytes`.

use std::path::{Path, PathBuf};

use agentplex_api::*;
use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json as JsonResponse, Router};
use tokio_util::io::ReaderStream;

use super::extract::{Json, Query};
use super::AppState;
use crate::error::{ApiError, Result};
use agentplex_files::{self as filesystem, ops, transfer, upload};

/// The routes of the filesystem group.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/fs/entries", get(entries))
        .route("/v1/fs/file", get(read_file).put(write_file))
        .route("/v1/fs/stat", get(stat))
        .route("/v1/fs/mkdir", post(mkdir))
        .route("/v1/fs/move", post(move_entry))
        .route("/v1/fs/entry", axum::routing::delete(delete_entry))
        .route("/v1/fs/upload-batch", post(upload_batch))
}

/// The absolute path a request names: absolute as given, else relative to the
/// session's directory (when `session_id` names one), or to the `--fs-root` folder or
/// the home directory. Under `--fs-root` it is resolved beneath the root (the last
/// symbolic link followed only when `follow_last`), and refused outside it.
fn resolve(
    state: &AppState,
    path: &str,
    session_id: Option<&str>,
    follow_last: bool,
) -> Result<PathBuf> {
    let base = match session_id {
        Some(id) if !Path::new(path).is_absolute() => {
            Some(PathBuf::from(&state.sessions.get(id)?.record().directory))
        }
        _ => None,
    };
    Ok(state.fs.locate(base.as_deref(), path, follow_last)?)
}

/// Refuses a body whose declared length is over the limit before reading it.
pub(crate) fn check_declared_length(headers: &HeaderMap, limit: u64) -> Result<()> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    match declared {
        Some(length) if length > limit => Err(transfer::too_large(limit).into()),
        _ => Ok(()),
    }
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

/// Lists a directory (the session's directory, or the home directory, without `path`).
#[utoipa::path(get, path = "/v1/fs/entries", tag = "fs", params(FsEntriesQuery),
    responses(
        (status = 200, description = "The directory's entries, sorted by name", body = Vec<FsEntry>),
        (status = 400, description = "A bad path", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 403, description = "Not permitted", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 404, description = "No such directory or session", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 409, description = "Not a directory (`path_conflict`)", body = ProblemDetails, content_type = "application/problem+json"),
    ))]
pub async fn entries(
    State(state): State<AppState>,
    Query(query): Query<FsEntriesQuery>,
) -> Result<JsonResponse<Vec<FsEntry>>> {
    let dir = resolve(
        &state,
        query.path.as_deref().unwrap_or("."),
        query.session_id.as_deref(),
        true,
    )?;
    let fs = state.fs.clone();
    Ok(JsonResponse(
        filesystem::blocking(move || ops::entries(&dir, fs.root.as_ref())).await?,
    ))
}

/// Reads a file's raw bytes, streamed.
#[utoipa::path(get, path = "/v1/fs/file", tag = "fs", params(FsPathQuery),
    responses(
        (status = 200, description = "The file's bytes (`content-length` only when the size can be trusted: `/proc` and sysfs files are read to their end)", content_type = "application/octet-stream", body = Vec<u8>),
        (status = 400, description = "A bad path", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 403, description = "Not permitted", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 404, description = "No such file or session", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 409, description = "A directory, a FIFO, a socket or a device (`path_conflict`)", body = ProblemDetails, content_type = "application/problem+json"),
    ))]
pub async fn read_file(
    State(state): State<AppState>,
    Query(query): Query<FsPathQuery>,
) -> Result<Response> {
    let path = resolve(&state, &query.path, query.session_id.as_deref(), true)?;
    let open = transfer::open(&path).await?;
    let mut response = match open.len {
        Some(len) => {
            let file = tokio::io::AsyncReadExt::take(open.file, len);
            let mut response = Body::from_stream(ReaderStream::new(file)).into_response();
            response
                .headers_mut()
                .insert(header::CONTENT_LENGTH, len.into());
            response
        }
        None => Body::from_stream(ReaderStream::new(open.file)).into_response(),
    };
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/octet-stream"),
    );
    Ok(response)
}

/// Writes the request body to a file (creating it and its parent directories),
/// streamed into place: a failed upload leaves the old file as it was.
#[utoipa::path(put, path = "/v1/fs/file", tag = "fs", params(FsPathQuery),
    request_body(content = Vec<u8>, content_type = "application/octet-stream", description = "The file's new bytes"),
    responses(
        (status = 200, body = FsWriteResponse),
        (status = 400, description = "A bad path", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 403, description = "Not permitted", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 404, description = "No such session", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 409, description = "A directory, a FIFO, a socket or a device, or a file on the way (`path_conflict`)", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 413, description = "Larger than `--fs-max-bytes`", body = ProblemDetails, content_type = "application/problem+json"),
    ))]
pub async fn write_file(
    State(state): State<AppState>,
    Query(query): Query<FsPathQuery>,
    headers: HeaderMap,
    body: Body,
) -> Result<JsonResponse<FsWriteResponse>> {
    check_declared_length(&headers, state.fs.max_bytes)?;
    let path = resolve(&state, &query.path, query.session_id.as_deref(), true)?;
    let bytes_written = transfer::write(&path, body, state.fs.max_bytes).await?;
    Ok(JsonResponse(FsWriteResponse {
        path: shown(&path),
        bytes_written,
    }))
}

/// Metadata of a path.
#[utoipa::path(get, path = "/v1/fs/stat", tag = "fs", params(FsPathQuery),
    responses(
        (status = 200, body = FsStat),
        (status = 400, description = "A bad path", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 403, description = "Not permitted", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 404, description = "No such path or session", body = ProblemDetails, content_type = "application/problem+json"),
    ))]
pub async fn stat(
    State(state): State<AppState>,
    Query(query): Query<FsPathQuery>,
) -> Result<JsonResponse<FsStat>> {
    let path = resolve(&state, &query.path, query.session_id.as_deref(), true)?;
    Ok(JsonResponse(
        filesystem::blocking(move || ops::stat(&path)).await?,
    ))
}

/// Creates a directory and its missing parents (an existing directory is fine).
#[utoipa::path(post, path = "/v1/fs/mkdir", tag = "fs", params(FsPathQuery),
    responses(
        (status = 200, body = FsActionResponse),
        (status = 400, description = "A bad path", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 403, description = "Not permitted", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 404, description = "No such session", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 409, description = "A file is in the way", body = ProblemDetails, content_type = "application/problem+json"),
    ))]
pub async fn mkdir(
    State(state): State<AppState>,
    Query(query): Query<FsPathQuery>,
) -> Result<JsonResponse<FsActionResponse>> {
    let path = resolve(&state, &query.path, query.session_id.as_deref(), true)?;
    let created = path.clone();
    filesystem::blocking(move || ops::mkdir(&created)).await?;
    Ok(JsonResponse(FsActionResponse { path: shown(&path) }))
}

/// Moves or renames a file or directory.
#[utoipa::path(post, path = "/v1/fs/move", tag = "fs", params(FsSessionQuery), request_body = FsMoveRequest,
    responses(
        (status = 200, body = FsMoveResponse),
        (status = 400, description = "A bad path, or a move into itself", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 403, description = "Not permitted", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 404, description = "No such source or session", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 409, description = "The destination exists (without `overwrite`), or is a directory that is not empty, or a file is on the way", body = ProblemDetails, content_type = "application/problem+json"),
    ))]
pub async fn move_entry(
    State(state): State<AppState>,
    Query(query): Query<FsSessionQuery>,
    Json(request): Json<FsMoveRequest>,
) -> Result<JsonResponse<FsMoveResponse>> {
    let session = query.session_id.as_deref();
    let from = resolve(&state, &request.from, session, false)?;
    let to = resolve(&state, &request.to, session, false)?;
    let overwrite = request.overwrite.unwrap_or(false);
    let (source, destination) = (from.clone(), to.clone());
    filesystem::blocking(move || ops::rename(&source, &destination, overwrite)).await?;
    Ok(JsonResponse(FsMoveResponse {
        from: shown(&from),
        to: shown(&to),
    }))
}

/// Deletes a file, a symbolic link, or a directory (one that is not empty only with
/// `recursive=true`).
#[utoipa::path(delete, path = "/v1/fs/entry", tag = "fs", params(FsDeleteQuery),
    responses(
        (status = 200, body = FsActionResponse),
        (status = 400, description = "A bad path", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 403, description = "Not permitted", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 404, description = "No such path or session", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 409, description = "A directory that is not empty, without `recursive`, or a file on the way", body = ProblemDetails, content_type = "application/problem+json"),
    ))]
pub async fn delete_entry(
    State(state): State<AppState>,
    Query(query): Query<FsDeleteQuery>,
) -> Result<JsonResponse<FsActionResponse>> {
    let path = resolve(&state, &query.path, query.session_id.as_deref(), false)?;
    let recursive = query.recursive.unwrap_or(false);
    let removed = path.clone();
    filesystem::blocking(move || ops::remove(&removed, recursive)).await?;
    Ok(JsonResponse(FsActionResponse { path: shown(&path) }))
}

/// Unpacks a tar archive (plain or gzip-compressed), streamed from the body, under
/// `path` (created when missing). Entries that would land outside it are refused and
/// then nothing is written.
#[utoipa::path(post, path = "/v1/fs/upload-batch", tag = "fs", params(FsUploadBatchQuery),
    request_body(content = Vec<u8>, content_type = "application/x-tar", description = "A tar archive, optionally gzip-compressed"),
    responses(
        (status = 200, body = FsUploadBatchResponse),
        (status = 400, description = "Not a tar archive, an entry outside the target, or a bad path", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 403, description = "Not permitted", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 404, description = "No such session", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 409, description = "The target is not a directory, or an entry would replace a directory with a file (or the reverse), or go through a symbolic link out of the target", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 413, description = "The body or its unpacked size is over `--fs-max-bytes`", body = ProblemDetails, content_type = "application/problem+json"),
        (status = 415, description = "The body is not sent as an archive (`application/x-tar`, `application/gzip` or `application/octet-stream`)", body = ProblemDetails, content_type = "application/problem+json"),
    ))]
pub async fn upload_batch(
    State(state): State<AppState>,
    Query(query): Query<FsUploadBatchQuery>,
    headers: HeaderMap,
    body: Body,
) -> Result<JsonResponse<FsUploadBatchResponse>> {
    check_archive_type(&headers)?;
    check_declared_length(&headers, state.fs.max_bytes)?;
    let target = resolve(
        &state,
        query.path.as_deref().unwrap_or("."),
        query.session_id.as_deref(),
        true,
    )?;
    Ok(JsonResponse(
        upload::unpack(target, body, state.fs.upload_limits()).await?,
    ))
}

/// The content types an archive may be sent with: tar, gzip, or bytes.
const ARCHIVE_TYPES: &[&str] = &[
    "application/x-tar",
    "application/tar",
    "application/x-gtar",
    "application/gzip",
    "application/x-gzip",
    "application/x-compressed-tar",
    "application/octet-stream",
];

/// An archive is sent raw, and says so: a body without one of [`ARCHIVE_TYPES`] is
/// refused (a form, JSON, text, or none at all: what a web page can send without a
/// preflight).
pub(crate) fn check_archive_type(headers: &HeaderMap) -> Result<()> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("");
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if ARCHIVE_TYPES.contains(&essence.as_str()) {
        return Ok(());
    }
    let sent = if content_type.is_empty() {
        "no content type".to_owned()
    } else {
        format!("content type {content_type:?}")
    };
    Err(ApiError::UnsupportedMediaType(format!(
        "send the archive itself as the body with content type application/x-tar (or application/gzip), not {sent}"
    )))
}
