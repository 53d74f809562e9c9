//! What a session's agent offers (WIT `agent-offer`), as the daemon keeps it:
//! the universal [`AgentOffer`], bounded, since an adapter's lists end up in
//! the transcript and in every ACP answer about the session.

use agentplex_universal::{AgentOffer, OfferedChoice};

use crate::bindings::guest as api;

/// The capability of an adapter whose sessions report what their agent offers
/// (`agent-offer`): the host asks after every input.
pub const OFFER_CAPABILITY: &str = "agent-offer";

/// The most modes, and the most models, kept of one offer.
const MOST_CHOICES: usize = 256;

/// The longest id, name or description kept, in characters: a choice whose id
/// is longer is left out, a longer name or description is left out alone.
const LONGEST_TEXT: usize = 1024;

/// `offer` as the daemon keeps it: at most [`MOST_CHOICES`] modes and models,
/// none with an empty or overlong id, each id once.
pub(crate) fn agent_offer(offer: api::AgentOffer) -> AgentOffer {
    let modes = offer
        .modes
        .into_iter()
        .map(|mode| choice(mode.id, Some(mode.name), Some(mode.description)));
    let models = offer.models.into_iter().map(|model| {
        let mut choice = choice(model.id, model.name, None)?;
        choice.variants = variants(model.variants);
        choice.default_variant = model.default_variant.filter(|id| fits(id));
        Some(choice)
    });
    AgentOffer {
        modes: bounded(modes),
        current_mode: offer.current_mode.filter(|id| fits(id)),
        models: bounded(models),
        current_model: offer.current_model.filter(|id| fits(id)),
    }
}

fn choice(id: String, name: Option<String>, description: Option<String>) -> Option<OfferedChoice> {
    let kept = |text: Option<String>| text.filter(|text| !text.is_empty() && fits(text));
    fits(&id).then(|| OfferedChoice {
        id,
        name: kept(name),
        description: kept(description),
        ..OfferedChoice::default()
    })
}

/// A model's variants, bounded as the choices are.
fn variants(variants: Vec<String>) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    for variant in variants.into_iter().filter(|id| fits(id)) {
        if kept.len() == MOST_CHOICES {
            break;
        }
        if !kept.contains(&variant) {
            kept.push(variant);
        }
    }
    kept
}

fn fits(text: &str) -> bool {
    !text.is_empty() && text.chars().count() <= LONGEST_TEXT
}

fn bounded(choices: impl Iterator<Item = Option<OfferedChoice>>) -> Vec<OfferedChoice> {
    let mut kept: Vec<OfferedChoice> = Vec::new();
    for choice in choices.flatten() {
        if kept.len() == MOST_CHOICES {
            break;
        }
        if !kept.iter().any(|known| known.id == choice.id) {
            kept.push(choice);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(id: &str, name: Option<&str>) -> api::Model {
        api::Model {
            id: id.into(),
            name: name.map(Into::into),
            variants: Vec::new(),
            default_variant: None,
        }
    }

    #[test]
    fn an_offer_is_kept_bounded_without_empty_long_or_repeated_ids() {
        let mut opus = model("opus", Some("Opus"));
        opus.variants = ["low", "", "high", "low"].map(String::from).to_vec();
        opus.default_variant = Some("high".into());
        let mut models = vec![
            opus,
            model("", Some("nameless")),
            model(&"m".repeat(LONGEST_TEXT + 1), None),
            model("opus", Some("again")),
            model("sonnet", Some("")),
        ];
        models.extend((0..MOST_CHOICES * 2).map(|n| model(&format!("m{n}"), None)));
        let offer = agent_offer(api::AgentOffer {
            modes: vec![api::AgentMode {
                id: "plan".into(),
                name: "Plan".into(),
                description: "d".repeat(LONGEST_TEXT + 1),
            }],
            current_mode: Some("plan".into()),
            models,
            current_model: Some(String::new()),
        });
        assert_eq!(offer.models.len(), MOST_CHOICES);
        assert_eq!(offer.models[0].name.as_deref(), Some("Opus"));
        assert_eq!(offer.models[0].variants, ["low", "high"]);
        assert_eq!(offer.models[0].default_variant.as_deref(), Some("high"));
        assert_eq!(
            (offer.models[1].id.as_str(), offer.models[1].name.as_deref()),
            ("sonnet", None)
        );
        assert_eq!(offer.models[2].id, "m0");
        assert_eq!(offer.modes[0].name.as_deref(), Some("Plan"));
        assert_eq!(offer.modes[0].description, None);
        assert_eq!(offer.current_mode.as_deref(), Some("plan"));
        assert_eq!(offer.current_model, None);
    }
}
