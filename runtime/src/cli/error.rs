//! The client commands' error type. A failed request keeps the daemon's problem
//! document: `sandbox-agent` prints it on stderr, then the one-line error.

use sandbox_agent_client::{ClientError, ProblemDetails};

/// Everything a client command can fail with.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The daemon answered with a problem document.
    #[error("{} {} ({}): {}", .0.status, .0.title, .0.code(), .0.detail.as_deref().unwrap_or(""))]
    Problem(Box<ProblemDetails>),
    /// The daemon could not be reached, or its answer could not be read.
    #[error("{} (daemon at {endpoint})", causes(.error))]
    Unreachable {
        endpoint: String,
        error: ClientError,
    },
    /// What the command was given, or what it has to write, cannot be used.
    #[error("{0}")]
    Invalid(String),
}

impl CliError {
    /// A failed request to the daemon at `endpoint`.
    pub fn request(endpoint: &str, error: ClientError) -> Self {
        match error {
            ClientError::Problem(problem) => CliError::Problem(problem),
            error => CliError::Unreachable {
                endpoint: endpoint.to_owned(),
                error,
            },
        }
    }

    /// A failure described by `message`.
    pub fn invalid(message: impl ToString) -> Self {
        CliError::Invalid(message.to_string())
    }

    /// The daemon's problem document, when it sent one.
    pub fn problem(&self) -> Option<&ProblemDetails> {
        match self {
            CliError::Problem(problem) => Some(problem),
            _ => None,
        }
    }
}

/// An error and its causes on one line.
fn causes(error: &ClientError) -> String {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    message
}
