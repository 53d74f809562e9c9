//! What the agent offers its session and how the session's choices reach it:
//! the mode, model and thought level the session asks for, sent before a
//! prompt (`session/set_mode`, `session/set_model`, or
//! `session/set_config_option` for an agent that offers configuration options),
//! and the offer kept from the agent's answers and updates.

use serde_json::{json, Value};

use super::native::Offered;
use super::options::Selects;
use super::state::{Call, Setting};
use super::{AcpAgent, AcpSession};
use crate::prelude::*;

impl<A: AcpAgent> AcpSession<A> {
    /// Sends `session/set_mode` before a prompt when the session's modes changed
    /// since the process started (or last set its mode): its agent mode when it
    /// is one the agent offered (a client picked the agent's own mode), else
    /// [`super::AcpAgent::mode_id`].
    pub(super) fn follow_mode(&mut self, out: &mut Actions, session_id: &str) {
        let Some(process) = self.state.header.process.as_mut() else {
            return;
        };
        let agent_mode = &self.config.agent_mode;
        let wanted = if process.offered_modes.contains(agent_mode) {
            Some(agent_mode.clone())
        } else {
            A::mode_id(&self.config, &process.offered_modes)
        };
        let Some(wanted) = wanted.or_else(|| process.opening_mode.clone()) else {
            return;
        };
        if process.mode.as_ref().is_none_or(|mode| *mode == wanted) {
            return;
        }
        process.mode = Some(wanted.clone());
        if let Some(setter) = &process.config_options.mode {
            let params = setter.params(session_id, &wanted);
            self.set_option(out, params, Setting::Mode);
            return;
        }
        let params = json!({"sessionId": session_id, "modeId": wanted});
        self.request(out, "session/set_mode", params, Call::SetMode);
    }

    /// Sends the session's model before a prompt when it names another than
    /// the process runs: as `session/set_config_option` when the agent's model
    /// option lists it, else as `session/set_model` to an agent that takes it
    /// (see [`super::AcpAgent::MODEL_CHANGE`]), else to the model option it
    /// does not list (the agent says whether it takes it); says once that an
    /// agent that offers no choice keeps its own.
    pub(super) fn follow_model(&mut self, out: &mut Actions, session_id: &str) {
        let Some(process) = self.state.header.process.as_mut() else {
            return;
        };
        let Some(wanted) = self.config.model_to_tell(&mut process.model) else {
            return;
        };
        let option = process.config_options.model.as_ref();
        let takes_model = A::MODEL_CHANGE || process.offers_models;
        if let Some(setter) = option.filter(|setter| setter.takes(wanted) || !takes_model) {
            let params = setter.params(session_id, wanted);
            self.set_option(out, params, Setting::Model);
            return;
        }
        if !takes_model {
            let message = format!(
                "{} offers no choice of model over ACP: it runs its own, not {wanted}",
                A::NAME
            );
            out.emit(event::error(message, Some("model_refused")));
            return;
        }
        let params = json!({"sessionId": session_id, "modelId": wanted});
        self.request(out, "session/set_model", params, Call::SetModel);
    }

    /// Sends the session's variant as the agent's thought level before a
    /// prompt, when the agent offers one (a configuration option of category
    /// `thought_level`) and runs another; says once that an agent that offers
    /// none keeps its own.
    pub(super) fn follow_variant(&mut self, out: &mut Actions, session_id: &str) {
        let Some(process) = self.state.header.process.as_mut() else {
            return;
        };
        let Some(wanted) = self.config.variant_to_tell(&mut process.variant) else {
            return;
        };
        let Some(setter) = process.config_options.thought_level.as_ref() else {
            let message = format!(
                "{} offers no thought level over ACP: it keeps its own, not {wanted}",
                A::NAME
            );
            out.emit(event::error(message, Some("variant_refused")));
            return;
        };
        let params = setter.params(session_id, wanted);
        self.set_option(out, params, Setting::Variant);
    }

    /// Sends `session/set_config_option` with `params` (a [`super::options::Setter`]'s),
    /// setting what `setting` names.
    fn set_option(&mut self, out: &mut Actions, params: Value, setting: Setting) {
        let call = Call::SetConfigOption(setting);
        self.request(out, "session/set_config_option", params, call);
    }

    /// Keeps what the agent offered for its session, and the mode, model and
    /// thought level it says it runs when the process started without the
    /// session's.
    pub(super) fn note_offered(&mut self, result: &Value) {
        let selects = Selects::of(&result["configOptions"]);
        let offered = Offered::of(result, selects.as_ref());
        let Some(process) = self.state.header.process.as_mut() else {
            return;
        };
        process.offered_modes = offered.mode_ids();
        // `models` (not a configuration option): it takes `session/set_model`.
        process.offers_models = result["models"]["availableModels"].is_array();
        process.config_options = selects.map(|s| s.setters()).unwrap_or_default();
        if process.variant.is_none() {
            process.variant.clone_from(&offered.current_variant);
        }
        self.state.offered = Some(offered.clone());
        self.state.offer_untold = true;
        if process.opening_mode.is_none() {
            process.opening_mode.clone_from(&offered.current_mode);
        }
        if process.mode.is_none() {
            process.mode = offered.current_mode;
        }
        if process.model.is_none() {
            process.model = offered.current_model;
        }
    }

    /// Follows what a `session/update` says of the agent's offer: its whole
    /// configuration options (`config_option_update`), or its mode
    /// (`current_mode_update`).
    pub(super) fn note_update(&mut self, update: &Value) {
        match update["sessionUpdate"].as_str() {
            Some("config_option_update") => self.note_config_options(&update["configOptions"]),
            Some("current_mode_update") => {
                let Some(offered) = self.state.offered.as_mut() else {
                    return;
                };
                let mode = update["currentModeId"].as_str().map(str::to_owned);
                if mode.is_some() && offered.current_mode != mode {
                    offered.current_mode = mode;
                    self.state.offer_untold = true;
                }
            }
            _ => {}
        }
    }

    /// Takes the agent's configuration options `list` (an answer to
    /// `session/set_config_option`, or an update) as what it now offers.
    pub(super) fn note_config_options(&mut self, list: &Value) {
        let Some(selects) = Selects::of(list) else {
            return;
        };
        let offered = self.state.offered.get_or_insert_with(Offered::default);
        offered.adopt(&selects);
        if let Some(process) = self.state.header.process.as_mut() {
            process.offered_modes = offered.mode_ids();
            process.config_options = selects.setters();
            // The thought level it now runs (a model of its own may have come
            // with its own): the session's goes out again before the next prompt.
            if let Some(level) = selects
                .thought_level
                .as_ref()
                .and_then(|l| l.current.clone())
            {
                process.variant = Some(level);
            }
        }
        self.state.offer_untold = true;
    }
}
