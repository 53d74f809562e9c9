//! The metrics of the agents' metered model calls: calls, tokens by kind and
//! cost, by agent and model. Model ids come from the providers' answers, so the
//! first [`MAX_MODEL_LABELS`] distinct ones are labels and any later one is
//! counted as `other`: the number of series stays bounded.

use std::collections::HashSet;
use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

use agentplex_universal::ModelUsageData;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

/// Distinct model ids used as labels; later ones are counted as [`OTHER_MODEL`].
pub const MAX_MODEL_LABELS: usize = 64;
/// The model label of the ids past [`MAX_MODEL_LABELS`].
pub const OTHER_MODEL: &str = "other";

/// Labels of metered model calls.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ModelCallLabels {
    /// The session's agent.
    pub agent: String,
    /// The model that answered (capped, see [`MAX_MODEL_LABELS`]).
    pub model: String,
    /// The call's wire format (`anthropic-messages`...).
    pub format: String,
    /// The provider's HTTP status.
    pub status: u16,
}

/// Labels of the tokens of metered calls.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ModelTokenLabels {
    /// The session's agent.
    pub agent: String,
    /// The model (capped).
    pub model: String,
    /// `input`, `output`, `cache_read`, `cache_write` or `reasoning`.
    pub kind: &'static str,
}

/// Labels of the cost of metered calls.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ModelLabels {
    /// The session's agent.
    pub agent: String,
    /// The model (capped).
    pub model: String,
}

/// The model-call metrics of the daemon.
#[derive(Default)]
pub struct ModelMetrics {
    calls: Family<ModelCallLabels, Counter>,
    tokens: Family<ModelTokenLabels, Counter>,
    cost_usd: Family<ModelLabels, Counter<f64, AtomicU64>>,
    /// The model ids given a label of their own.
    models: Mutex<HashSet<String>>,
}

impl ModelMetrics {
    /// Adds the families to the daemon's registry.
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "model_calls",
            "Metered model calls of the agents, by agent, model, format and status",
            self.calls.clone(),
        );
        registry.register(
            "model_tokens",
            "Tokens of metered model calls, by agent, model and kind (input includes the cache reads and writes, output the reasoning)",
            self.tokens.clone(),
        );
        registry.register(
            "model_cost_usd",
            "What metered model calls of a known price cost, in US dollars",
            self.cost_usd.clone(),
        );
    }

    /// Counts one metered call of a session of `agent`.
    pub fn record(&self, agent: &str, call: &ModelUsageData) {
        let model = self.model_label(&call.model);
        let calls = ModelCallLabels {
            agent: agent.to_owned(),
            model: model.clone(),
            format: call.format.clone(),
            status: call.status,
        };
        self.calls.get_or_create(&calls).inc();
        let kinds = [
            ("input", call.input_tokens),
            ("output", call.output_tokens),
            ("cache_read", call.cache_read_tokens),
            ("cache_write", call.cache_write_tokens),
            ("reasoning", call.reasoning_tokens),
        ];
        for (kind, count) in kinds {
            let labels = ModelTokenLabels {
                agent: agent.to_owned(),
                model: model.clone(),
                kind,
            };
            self.tokens.get_or_create(&labels).inc_by(count);
        }
        if let Some(cost) = call.cost_usd {
            let labels = ModelLabels {
                agent: agent.to_owned(),
                model,
            };
            self.cost_usd.get_or_create(&labels).inc_by(cost);
        }
    }

    /// `model` when it has a label or there is room for one more, else [`OTHER_MODEL`].
    fn model_label(&self, model: &str) -> String {
        let mut models = self.models.lock().unwrap();
        if models.contains(model) || models.len() < MAX_MODEL_LABELS {
            models.insert(model.to_owned());
            model.to_owned()
        } else {
            OTHER_MODEL.to_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Metrics;
    use super::*;

    fn call(model: &str, cost: Option<f64>) -> ModelUsageData {
        ModelUsageData {
            model: model.into(),
            input_tokens: 100,
            output_tokens: 10,
            cache_read_tokens: 60,
            cache_write_tokens: 5,
            reasoning_tokens: 3,
            cost_usd: cost,
            format: "anthropic-messages".into(),
            status: 200,
            duration_ms: 12,
            complete: true,
            error: None,
        }
    }

    /// The lines of the `/metrics` document that start with `prefix`, sorted
    /// (the series of a family come in no fixed order).
    fn lines(document: &str, prefix: &str) -> Vec<String> {
        let mut lines: Vec<String> = document
            .lines()
            .filter(|line| line.starts_with(prefix))
            .map(str::to_owned)
            .collect();
        lines.sort();
        lines
    }

    #[test]
    fn calls_tokens_and_cost_show_in_the_document_by_agent_and_model() {
        let metrics = Metrics::new();
        metrics.model_call("mock", &call("m1", Some(0.25)));
        metrics.model_call("mock", &call("m1", Some(0.5)));
        metrics.model_call("mock", &call("m2", None));
        let document = metrics.render([]);
        assert_eq!(
            lines(&document, "agentplex_model_calls_total{"),
            [
                r#"agentplex_model_calls_total{agent="mock",model="m1",format="anthropic-messages",status="200"} 2"#,
                r#"agentplex_model_calls_total{agent="mock",model="m2",format="anthropic-messages",status="200"} 1"#,
            ],
            "{document}"
        );
        let m1_tokens = lines(
            &document,
            r#"agentplex_model_tokens_total{agent="mock",model="m1""#,
        );
        for (kind, count) in [
            ("input", 200),
            ("output", 20),
            ("cache_read", 120),
            ("cache_write", 10),
            ("reasoning", 6),
        ] {
            let line = format!(
                r#"agentplex_model_tokens_total{{agent="mock",model="m1",kind="{kind}"}} {count}"#
            );
            assert!(m1_tokens.contains(&line), "{line} in {document}");
        }
        assert_eq!(
            lines(&document, "agentplex_model_cost_usd_total{"),
            [r#"agentplex_model_cost_usd_total{agent="mock",model="m1"} 0.75"#],
            "{document}"
        );
        assert!(document.contains("# TYPE agentplex_model_calls counter"));
    }

    #[test]
    fn models_past_the_cap_are_counted_as_other() {
        let metrics = Metrics::new();
        for n in 0..MAX_MODEL_LABELS + 3 {
            metrics.model_call("mock", &call(&format!("model-{n}"), None));
        }
        metrics.model_call("mock", &call("model-0", None));
        let document = metrics.render([]);
        let calls = lines(&document, "agentplex_model_calls_total{");
        assert_eq!(calls.len(), MAX_MODEL_LABELS + 1, "{document}");
        assert!(calls.contains(
            &r#"agentplex_model_calls_total{agent="mock",model="other",format="anthropic-messages",status="200"} 3"#
                .to_owned()
        ));
        assert!(calls.contains(
            &r#"agentplex_model_calls_total{agent="mock",model="model-0",format="anthropic-messages",status="200"} 2"#
                .to_owned()
        ));
    }
}
