//! Why a policy was refused.

/// A policy that cannot be used, with where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// The text is not JSON.
    #[error("line {line}, column {column}: {reason}")]
    Syntax {
        /// Line of the fault, from 1.
        line: usize,
        /// Column of the fault, from 1.
        column: usize,
        /// What is wrong there.
        reason: String,
    },
    /// A field holds what a policy cannot take.
    #[error("{field}: {reason}")]
    Invalid {
        /// The field, as a path from the policy's root (`rules[2].command`).
        field: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl PolicyError {
    /// A fault of `field`.
    pub(crate) fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// The field at fault (`None` for a syntax error).
    pub fn field(&self) -> Option<&str> {
        match self {
            Self::Syntax { .. } => None,
            Self::Invalid { field, .. } => Some(field),
        }
    }
}
