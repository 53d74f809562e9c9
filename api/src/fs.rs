//! Bodies and queries of the filesystem routes (`/v1/fs/*`), with the 0.1.x wire names.
//!
//! Paths are absolute, or relative to the directory of the session named by
//! `sessionId` (`session_id` is accepted too), or, without a session, to the daemon
//! user's home directory as in 0.1.x.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// What a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum FsEntryType {
    /// A regular file (or a symbolic link to one).
    File,
    /// A directory (or a symbolic link to one).
    Directory,
}

/// What a path itself is, without following a symbolic link at it (`entryType` keeps
/// the 0.1.x two values, and follows links).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum FsEntryKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link.
    Symlink,
    /// A named pipe (FIFO).
    Fifo,
    /// A Unix socket.
    Socket,
    /// A character device.
    CharDevice,
    /// A block device.
    BlockDevice,
}

/// One entry of a directory listing (`GET /v1/fs/entries`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FsEntry {
    /// The entry's file name.
    pub name: String,
    /// Its absolute path.
    pub path: String,
    /// File or directory (what a symbolic link leads to; FIFOs, sockets and devices
    /// are `file` here, see `kind`).
    pub entry_type: FsEntryType,
    /// What the entry really is, a symbolic link not followed (absent from 0.1.x).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<FsEntryKind>,
    /// Size in bytes.
    pub size: u64,
    /// Last modification time (RFC 3339), when the filesystem records one.
    #[serde(default)]
    pub modified: Option<String>,
}

/// Metadata of one path (`GET /v1/fs/stat`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FsStat {
    /// The absolute path.
    pub path: String,
    /// File or directory (what a symbolic link leads to; FIFOs, sockets and devices
    /// are `file` here, see `kind`).
    pub entry_type: FsEntryType,
    /// What the entry really is, a symbolic link not followed (absent from 0.1.x).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<FsEntryKind>,
    /// Size in bytes.
    pub size: u64,
    /// Last modification time (RFC 3339), when the filesystem records one.
    #[serde(default)]
    pub modified: Option<String>,
}

/// The answer of `mkdir` and `DELETE /v1/fs/entry`: the absolute path acted on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FsActionResponse {
    /// The absolute path.
    pub path: String,
}

/// The answer of `PUT /v1/fs/file`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FsWriteResponse {
    /// The absolute path written.
    pub path: String,
    /// How many bytes the file now holds.
    pub bytes_written: u64,
}

/// Body of `POST /v1/fs/move`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FsMoveRequest {
    /// The path to move.
    #[schema(min_length = 1, pattern = "^[^\\x00]*$")]
    pub from: String,
    /// Where it goes; its parent directories are created.
    #[schema(min_length = 1, pattern = "^[^\\x00]*$")]
    pub to: String,
    /// Replace an existing `to` (a file, or an empty directory); refused (409) without it.
    #[serde(default)]
    pub overwrite: Option<bool>,
}

/// The answer of `POST /v1/fs/move`: both absolute paths.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FsMoveResponse {
    /// The absolute source path.
    pub from: String,
    /// The absolute destination path.
    pub to: String,
}

/// The answer of `POST /v1/fs/upload-batch`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FsUploadBatchResponse {
    /// The absolute paths written (files and directories), in archive order, at most
    /// [`FS_UPLOAD_LISTED_PATHS`] of them.
    pub paths: Vec<String>,
    /// The archive held more entries than `paths` lists (all were written).
    pub truncated: bool,
}

/// The most paths an upload-batch answer lists.
pub const FS_UPLOAD_LISTED_PATHS: usize = 1024;

/// Query of the routes that take one path.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct FsPathQuery {
    /// Absolute path, or relative to the session's directory (or the home directory).
    #[param(min_length = 1, pattern = "^[^\\x00]*$")]
    #[schema(min_length = 1, pattern = "^[^\\x00]*$")]
    pub path: String,
    /// Session whose directory relative paths start from; `session_id` is accepted too.
    #[serde(default, alias = "session_id")]
    pub session_id: Option<String>,
}

/// Query of `GET /v1/fs/entries`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct FsEntriesQuery {
    /// The directory to list: absolute, or relative to the session's directory (or the
    /// home directory); that directory itself when absent.
    #[serde(default)]
    #[param(min_length = 1, pattern = "^[^\\x00]*$")]
    #[schema(min_length = 1, pattern = "^[^\\x00]*$")]
    pub path: Option<String>,
    /// Session whose directory relative paths start from; `session_id` is accepted too.
    #[serde(default, alias = "session_id")]
    pub session_id: Option<String>,
}

/// Query of `POST /v1/fs/upload-batch`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct FsUploadBatchQuery {
    /// The directory to unpack into (created when missing): absolute, or relative to the
    /// session's directory (or the home directory); that directory itself when absent.
    #[serde(default)]
    #[param(min_length = 1, pattern = "^[^\\x00]*$")]
    #[schema(min_length = 1, pattern = "^[^\\x00]*$")]
    pub path: Option<String>,
    /// Session whose directory relative paths start from; `session_id` is accepted too.
    #[serde(default, alias = "session_id")]
    pub session_id: Option<String>,
}

/// Query of `DELETE /v1/fs/entry`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct FsDeleteQuery {
    /// Absolute path, or relative to the session's directory (or the home directory).
    #[param(min_length = 1, pattern = "^[^\\x00]*$")]
    #[schema(min_length = 1, pattern = "^[^\\x00]*$")]
    pub path: String,
    /// Session whose directory relative paths start from; `session_id` is accepted too.
    #[serde(default, alias = "session_id")]
    pub session_id: Option<String>,
    /// Delete a non-empty directory with everything in it (409 without it).
    #[serde(default)]
    pub recursive: Option<bool>,
}

/// Query of `POST /v1/fs/move`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct FsSessionQuery {
    /// Session whose directory relative paths start from; `session_id` is accepted too.
    #[serde(default, alias = "session_id")]
    pub session_id: Option<String>,
}
