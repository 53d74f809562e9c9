//! The daemon's errors as the JSON-RPC errors ACP clients read.

use agentplex_acp::rpc::{self, RpcError};
use agentplex_api::ErrorType;
use agentplex_sessions::SessionError;
use serde_json::json;

use crate::error::ApiError;

/// A daemon error as the JSON-RPC error ACP clients read: a session that is not
/// there is ACP's resource-not-found, bad input is invalid params, the rest is
/// internal; `data.type` is the problem's URN.
pub(super) fn api_error(error: ApiError) -> RpcError {
    let code = match error.error_type() {
        ErrorType::SessionNotFound | ErrorType::NotFound => rpc::code::RESOURCE_NOT_FOUND,
        ErrorType::InvalidRequest
        | ErrorType::UnsupportedAgent
        | ErrorType::ModeNotSupported
        | ErrorType::PathNotFound
        | ErrorType::PathConflict
        | ErrorType::PermissionDenied => rpc::code::INVALID_PARAMS,
        _ => rpc::code::INTERNAL_ERROR,
    };
    let problem = error.problem();
    RpcError {
        code,
        message: error.to_string(),
        data: Some(json!({"type": problem.problem_type})),
    }
}

/// A session error as a JSON-RPC error.
pub(super) fn session_error(error: SessionError) -> RpcError {
    api_error(error.into())
}
