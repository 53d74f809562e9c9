//! The session's modes: the agent mode, the permission mode, the model and its
//! variant it was created with, until a client changes them
//! ([`crate::Command::SetModes`]).

use serde::{Deserialize, Serialize};

use crate::{events, Effect, SessionCore};

/// The agent mode, the permission mode, the model and its variant a session
/// runs with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Modes {
    /// The agent mode (`build`, `plan`...), one of the agent's.
    pub agent_mode: String,
    /// The permission mode (`default`, `plan`, `bypass`, `acceptEdits`).
    pub permission_mode: String,
    /// The model, once a client changed it (absent: the one the session was
    /// created with, if any; checkpoints of older daemons have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The model's variant (reasoning effort...), once a client changed it
    /// (absent: the one the session was created with, if any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

impl SessionCore {
    /// The modes a client set since the session was created (`None`: the ones
    /// it was created with).
    pub fn modes(&self) -> Option<&Modes> {
        self.modes.as_ref()
    }

    /// The session runs with `modes` from now on: the transcript says so, and
    /// the driver hands them to the adapter ([`Effect::Modes`]), which applies
    /// them from the next message on.
    pub(crate) fn change_modes(&mut self, modes: Modes) {
        self.append(events::modes_changed(&modes, self.now));
        self.effects.push_back(Effect::Modes(modes.clone()));
        self.modes = Some(modes);
    }
}
