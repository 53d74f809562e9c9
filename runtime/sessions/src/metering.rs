//! A session's model calls, pointed through the daemon's model gateway
//! (`--gateway`): for each wire format its adapter names (`model-apis`), the
//! upstream the agent would have called, a route for the session in the
//! gateway, and the environment that points the agent at it.
//!
//! The upstream is what the agent would have used without the gateway: the
//! first of the format's base-URL variables set in the session's variables or
//! the daemon's, else the adapter's default; its key, the first of the format's
//! key variables set there (the agent's credentials found in its files come in
//! as those variables too). The agent then sees its session's endpoint and
//! token instead: with `environment` pointing in the same variables (the token
//! only in the variable the key came from, so the agent sends it where it would
//! have sent the key and the gateway puts the key there), with `adapter`
//! pointing in `session-config.model-endpoints` alone. Either way none of those
//! variables is inherited from the daemon, so no real key reaches the agent. A
//! format the adapter points, with no key found, is left alone: its agent runs on
//! a login of its own, whose calls the daemon cannot stand in for.
//!
//! A format's first model API has the format's endpoint. Where the adapter
//! points the agent itself and names a second provider of a format (a built-in
//! provider beside a custom one speaking the same API), that one,
//! with a key, gets an endpoint of its own (`<format>@<provider>`, a lane), so
//! an agent that calls both has both metered. Pointed through variables, which
//! hold one value, and through a broker, a format has one upstream.
//!
//! With a broker (`--broker`), every format's upstream is instead the broker's
//! endpoint for the adapter's provider, keyed with the sandbox's token: the
//! session's and the daemon's variables are not looked at, the agent gets the
//! token in the format's first key variable, and the daemon holds no key.
//!
//! The route lives as long as the session's task: the token dies with it.
//! Restores and imports make a new one, so no token is ever stored.
//!
//! Each metered session has a budget in the gateway (with no caps until the
//! client sets some), starting from what the session spent before; a budget
//! reached comes back to the session's task as `budget.reached`.

use std::collections::HashMap;
use std::sync::Arc;

use agentplex_gateway::{
    BrokerLink, Budget, BudgetReached, CallUsage, Format, Gateway, KeyPlacement, Lane, Limits,
    Route, RouteGuard, Spend, Upstream,
};
use agentplex_host::{ModelApi, ModelApiFormat, ModelApiPointing, ModelEndpoint};
use agentplex_session::Incoming;
use agentplex_store::SessionRecord;
use agentplex_universal::{BudgetLimits, BudgetReachedData, ModelUsageData, UsageTotals};

use crate::usage::UsageSink;
use crate::SessionError;

/// What a metered session's launch gets from the gateway.
pub(crate) struct Metering {
    /// The session's route: its token works while this lives.
    pub route: RouteGuard,
    /// The endpoints, for the adapter (`session-config.model-endpoints`).
    pub endpoints: Vec<ModelEndpoint>,
    /// Variables the agent's processes must not inherit from the daemon: every
    /// base-URL and key variable of the formats.
    pub withheld: Vec<String>,
    /// The session's budget in the gateway.
    pub budget: Arc<Budget>,
}

/// What a session's budget starts from: its caps, and what it spent before
/// (a restored or imported session's metered totals).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BudgetStart {
    pub limits: Option<BudgetLimits>,
    pub spent: UsageTotals,
}

/// The session's sink, as the gateway calls it: each call's usage, and each
/// budget reached.
struct SessionSink(UsageSink);

impl agentplex_gateway::UsageSink for SessionSink {
    fn record(&self, call: CallUsage) {
        // A call that ends after its session: nobody is left to tell.
        let _ = self.0.deliver(usage_event(call));
    }

    fn budget_reached(&self, reached: BudgetReached) {
        let _ = self
            .0
            .send(Incoming::BudgetReached(reached_event(&reached)));
    }
}

/// One model API's upstream, and the variable its key came from.
struct Resolved {
    api: ModelApi,
    upstream: Upstream,
    key_variable: Option<String>,
    /// Its lane: the format's first, or, for a second provider of a format the
    /// adapter points, that provider's.
    lane: Lane,
}

/// Routes the session's model calls through `gateway` and rewrites `env` (the
/// session's variables, on top of the agent's credentials) to point the agent
/// there; `None` when the adapter names no format.
pub(crate) fn meter(
    gateway: &Gateway,
    apis: &[ModelApi],
    record: &SessionRecord,
    env: &mut Vec<(String, String)>,
    sink: UsageSink,
    start: BudgetStart,
) -> Result<Option<Metering>, SessionError> {
    let mut resolved: Vec<Resolved> = Vec::new();
    for api in apis {
        let format = format_of(api.format);
        let earlier: Vec<&Resolved> = resolved
            .iter()
            .filter(|seen| seen.api.format == api.format)
            .collect();
        // The format's first upstream is the first the adapter names; another
        // provider of it gets a lane of its own where the adapter points each
        // provider itself (an agent reads one variable of each name, and a
        // broker one provider per format).
        let lane = match earlier.first() {
            None => Lane::from(format),
            Some(first) => {
                let apart = api.pointing == ModelApiPointing::Adapter
                    && first.api.pointing == ModelApiPointing::Adapter
                    && gateway.broker().is_none()
                    && earlier.iter().all(|seen| seen.api.provider != api.provider);
                if !apart {
                    continue;
                }
                Lane::of(format, &api.provider).map_err(refused(api))?
            }
        };
        let one = match gateway.broker() {
            Some(broker) => brokered(api, broker, lane)?,
            None => resolve(api, env, |name| std::env::var(name).ok(), lane)?,
        };
        // An agent the adapter points itself, with no key the daemon could
        // stand in for, runs on its own login (a ChatGPT account, say), whose
        // calls may go elsewhere than the format's API: left as it is.
        let own_login = one.key_variable.is_none() && gateway.broker().is_none();
        if own_login && api.pointing == ModelApiPointing::Adapter {
            continue;
        }
        resolved.push(one);
    }
    if resolved.is_empty() {
        return Ok(None);
    }
    let upstreams = resolved
        .iter()
        .map(|one| (one.lane.clone(), one.upstream.clone()))
        .collect::<HashMap<_, _>>();
    let spent = Spend {
        cost_usd: start.spent.cost_usd.unwrap_or(0.0),
        tokens: start.spent.input_tokens + start.spent.output_tokens,
    };
    let limits = start.limits.map(gateway_limits).unwrap_or_default();
    let budget = Arc::new(Budget::new(
        agentplex_gateway::BudgetScope::Session,
        limits,
        spent,
    ));
    let route = Route {
        session_id: record.id.clone(),
        agent: record.agent.clone(),
        upstreams,
        sink: Arc::new(SessionSink(sink)),
    };
    let route = gateway.register_with_budget(route, budget.clone());
    let withheld: Vec<String> = resolved
        .iter()
        .flat_map(|one| one.api.base_url_env.iter().chain(&one.api.key_env))
        .cloned()
        .collect();
    env.retain(|(name, _)| !withheld.contains(name));
    let mut endpoints = Vec::new();
    for one in &resolved {
        let base_url = route.endpoint(one.lane.clone());
        if one.api.pointing == ModelApiPointing::Environment {
            for name in &one.api.base_url_env {
                env.push((name.clone(), base_url.clone()));
            }
            if let Some(name) = &one.key_variable {
                env.push((name.clone(), route.token().to_owned()));
            }
        }
        endpoints.push(ModelEndpoint {
            format: one.api.format,
            provider: one.api.provider.clone(),
            base_url,
            token: route.token().to_owned(),
        });
    }
    Ok(Some(Metering {
        route,
        endpoints,
        withheld,
        budget,
    }))
}

/// The upstream of one format: its base URL and key from the session's
/// variables (`env`, the last value of a name winning), then the daemon's
/// (`daemon_env`), else the adapter's default base URL and no key.
fn resolve(
    api: &ModelApi,
    env: &[(String, String)],
    daemon_env: impl Fn(&str) -> Option<String>,
    lane: Lane,
) -> Result<Resolved, SessionError> {
    let lookup = |name: &str| {
        env.iter()
            .rev()
            .find(|(set, _)| set == name)
            .map(|(_, value)| value.clone())
            .or_else(|| daemon_env(name))
            .filter(|value| !value.is_empty())
    };
    let base_url = api
        .base_url_env
        .iter()
        .find_map(|name| lookup(name))
        .unwrap_or_else(|| api.default_base_url.clone());
    let refused = refused(api);
    let mut upstream = Upstream::new(&base_url).map_err(&refused)?;
    let key = api
        .key_env
        .iter()
        .find_map(|name| lookup(name).map(|key| (name.clone(), key)));
    if let Some((_, key)) = &key {
        upstream = upstream
            .with_key(key, KeyPlacement::AsSent)
            .map_err(&refused)?;
    }
    Ok(Resolved {
        api: api.clone(),
        upstream,
        key_variable: key.map(|(name, _)| name),
        lane,
    })
}

/// The upstream of one format through `broker`: its endpoint for the
/// adapter's provider, with the sandbox's token, which the agent's session
/// token stands for in the format's first key variable.
fn brokered(api: &ModelApi, broker: &BrokerLink, lane: Lane) -> Result<Resolved, SessionError> {
    let upstream = broker
        .upstream(&api.provider, format_of(api.format))
        .map_err(refused(api))?;
    Ok(Resolved {
        api: api.clone(),
        upstream,
        key_variable: api.key_env.first().cloned(),
        lane,
    })
}

/// The session's error when its calls in `api`'s format cannot be routed.
fn refused(api: &ModelApi) -> impl Fn(agentplex_gateway::Error) -> SessionError {
    let format = format_of(api.format);
    move |error| {
        SessionError::InvalidRequest(format!(
            "the session's {format} calls cannot go through the model gateway: {error}"
        ))
    }
}

/// The gateway's format for a contract format: the gateway lists them in the
/// contract's order (`FORMATS`), which a contract version never changes.
fn format_of(format: ModelApiFormat) -> Format {
    agentplex_gateway::FORMATS[format as usize]
}

/// The gateway's caps for a session's.
pub(crate) fn gateway_limits(limits: BudgetLimits) -> Limits {
    Limits {
        max_cost_usd: limits.max_cost_usd,
        max_tokens: limits.max_tokens,
    }
}

/// The `budget.reached` event data of a budget reached.
fn reached_event(reached: &BudgetReached) -> BudgetReachedData {
    use agentplex_gateway::{BudgetAction as Action, BudgetScope as Scope, Limit};
    use agentplex_universal::{BudgetAction, BudgetLimit, BudgetScope};
    BudgetReachedData {
        scope: match reached.scope {
            Scope::Session => BudgetScope::Session,
            Scope::Daemon => BudgetScope::Daemon,
        },
        limit: match reached.limit {
            Limit::CostUsd => BudgetLimit::CostUsd,
            Limit::Tokens => BudgetLimit::Tokens,
        },
        max_cost_usd: reached.limits.max_cost_usd,
        max_tokens: reached.limits.max_tokens,
        spent_cost_usd: reached.spent.cost_usd,
        spent_tokens: reached.spent.tokens,
        action: match reached.action {
            Action::Refused => BudgetAction::Refused,
            Action::Cut => BudgetAction::Cut,
            Action::Spent => BudgetAction::Spent,
        },
    }
}

/// The `model.usage` event data of one call.
fn usage_event(call: CallUsage) -> ModelUsageData {
    ModelUsageData {
        model: call.model,
        input_tokens: call.input_tokens,
        output_tokens: call.output_tokens,
        cache_read_tokens: call.cache_read_tokens,
        cache_write_tokens: call.cache_write_tokens,
        reasoning_tokens: call.reasoning_tokens,
        cost_usd: call.cost_usd,
        format: call.format.as_str().to_owned(),
        status: call.status,
        duration_ms: call.duration_ms,
        complete: call.complete,
        error: call.failure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anthropic(pointing: ModelApiPointing) -> ModelApi {
        ModelApi {
            format: ModelApiFormat::AnthropicMessages,
            provider: "anthropic".into(),
            default_base_url: "https://api.anthropic.com".into(),
            base_url_env: vec!["ANTHROPIC_BASE_URL".into()],
            key_env: vec!["ANTHROPIC_AUTH_TOKEN".into(), "ANTHROPIC_API_KEY".into()],
            pointing,
        }
    }

    /// The Anthropic format's first lane.
    fn lane() -> Lane {
        Lane::from(Format::AnthropicMessages)
    }

    fn pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn the_session_s_variables_come_before_the_daemon_s_and_the_default() {
        let api = anthropic(ModelApiPointing::Environment);
        let daemon = |name: &str| match name {
            "ANTHROPIC_BASE_URL" => Some("http://daemon.test".to_owned()),
            "ANTHROPIC_API_KEY" => Some("sk-daemon".to_owned()),
            _ => None,
        };
        let session = pairs(&[
            ("ANTHROPIC_API_KEY", "sk-first"),
            ("ANTHROPIC_API_KEY", "sk-session"),
        ]);
        let resolved = resolve(&api, &session, daemon, lane()).unwrap();
        assert_eq!(resolved.upstream.base_url(), "http://daemon.test");
        assert_eq!(resolved.key_variable.as_deref(), Some("ANTHROPIC_API_KEY"));
        assert!(format!("{:?}", resolved.upstream).contains("redacted"));

        let none = resolve(&api, &[], |_| None, lane()).unwrap();
        assert_eq!(none.upstream.base_url(), "https://api.anthropic.com");
        assert_eq!(none.key_variable, None);

        // A session that empties the variable gets what the agent does then: its default.
        let empty = pairs(&[("ANTHROPIC_BASE_URL", "")]);
        let resolved = resolve(&api, &empty, daemon, lane()).unwrap();
        assert_eq!(resolved.upstream.base_url(), "https://api.anthropic.com");
    }

    #[test]
    fn each_contract_format_is_the_gateways_of_the_same_name() {
        for format in [
            ModelApiFormat::AnthropicMessages,
            ModelApiFormat::OpenaiResponses,
            ModelApiFormat::OpenaiChatCompletions,
            ModelApiFormat::Gemini,
        ] {
            let name = format!("{format:?}").replace("ModelApiFormat::", "");
            assert_eq!(name, format!("{:?}", format_of(format)));
        }
    }

    fn record() -> SessionRecord {
        SessionRecord {
            id: "s".into(),
            agent: "mock".into(),
            agent_mode: "build".into(),
            permission_mode: "default".into(),
            model: None,
            variant: None,
            title: None,
            directory: "/".into(),
            created_at: 0,
            env: Vec::new(),
            mcp: Default::default(),
            skills: Vec::new(),
            skill_sources: None,
            desktop: false,
        }
    }

    /// `meter` on a fresh gateway: the metering, and the environment it left.
    async fn metered(
        apis: &[ModelApi],
        env: &[(&str, &str)],
    ) -> (Option<Metering>, Vec<(String, String)>) {
        let gateway = Gateway::start(Default::default()).await.unwrap();
        let mut env = pairs(env);
        let sink = UsageSink::new(crate::incoming::Inbox::new().0, "mock");
        let metering = meter(
            &gateway,
            apis,
            &record(),
            &mut env,
            sink,
            BudgetStart::default(),
        );
        (metering.unwrap(), env)
    }

    #[tokio::test]
    async fn the_environment_points_the_agent_and_holds_no_key() {
        let api = anthropic(ModelApiPointing::Environment);
        let (metering, env) =
            metered(&[api], &[("ANTHROPIC_API_KEY", "sk-real"), ("KEEP", "1")]).await;
        let metering = metering.expect("metered");
        let token = metering.route.token().to_owned();
        let endpoint = metering.endpoints[0].base_url.clone();
        assert_eq!(
            env,
            pairs(&[
                ("KEEP", "1"),
                ("ANTHROPIC_BASE_URL", &endpoint),
                ("ANTHROPIC_API_KEY", &token),
            ])
        );
        for name in [
            "ANTHROPIC_BASE_URL",
            "ANTHROPIC_AUTH_TOKEN",
            "ANTHROPIC_API_KEY",
        ] {
            assert!(
                metering.withheld.iter().any(|withheld| withheld == name),
                "{name}"
            );
        }
    }

    #[tokio::test]
    async fn an_adapter_pointed_agent_gets_only_the_endpoint_and_without_a_key_is_left_alone() {
        let api = anthropic(ModelApiPointing::Adapter);
        let (metering, env) = metered(
            std::slice::from_ref(&api),
            &[("ANTHROPIC_AUTH_TOKEN", "sk-real")],
        )
        .await;
        assert!(metering.is_some());
        assert!(env.is_empty(), "{env:?}");

        // No key: the agent's own login, not metered.
        let (metering, env) = metered(&[api], &[("OTHER", "1")]).await;
        assert!(metering.is_none());
        assert_eq!(env, pairs(&[("OTHER", "1")]));
    }

    #[tokio::test]
    async fn a_second_provider_of_a_format_the_adapter_points_has_a_lane_of_its_own() {
        let builtin = anthropic(ModelApiPointing::Adapter);
        let custom = ModelApi {
            provider: "custom".into(),
            base_url_env: vec!["CUSTOM_BASE_URL".into()],
            key_env: vec!["CUSTOM_KEY".into()],
            ..builtin.clone()
        };
        let apis = [builtin.clone(), custom.clone()];
        let both = [
            ("ANTHROPIC_API_KEY", "sk-builtin"),
            ("CUSTOM_BASE_URL", "http://custom.test"),
            ("CUSTOM_KEY", "sk-custom"),
        ];
        let (metering, env) = metered(&apis, &both).await;
        let metering = metering.expect("metered");
        assert!(env.is_empty(), "no key and no base URL stays: {env:?}");
        let endpoints: Vec<(&str, &str)> = metering
            .endpoints
            .iter()
            .map(|e| (e.provider.as_str(), e.base_url.as_str()))
            .collect();
        assert_eq!(endpoints.len(), 2, "{endpoints:?}");
        assert_eq!(endpoints[0].0, "anthropic");
        assert!(
            endpoints[0].1.ends_with("/anthropic-messages"),
            "{endpoints:?}"
        );
        assert_eq!(endpoints[1].0, "custom");
        assert!(
            endpoints[1].1.ends_with("/anthropic-messages@custom"),
            "{endpoints:?}"
        );

        // Without the built-in provider's key, the custom one is the format's first.
        let (metering, _) = metered(&apis, &both[1..]).await;
        let endpoints = metering.expect("metered").endpoints;
        assert_eq!(endpoints.len(), 1);
        assert!(endpoints[0].base_url.ends_with("/anthropic-messages"));
        assert_eq!(endpoints[0].provider, "custom");

        // Pointed through variables, which hold one value: the first only.
        let by_env = [
            anthropic(ModelApiPointing::Environment),
            ModelApi {
                pointing: ModelApiPointing::Environment,
                ..custom
            },
        ];
        let (metering, _) = metered(&by_env, &both).await;
        assert_eq!(metering.expect("metered").endpoints.len(), 1);
    }

    #[tokio::test]
    async fn with_a_broker_every_format_goes_there_with_the_sandbox_token() {
        let broker = BrokerLink::new("http://10.0.0.5:2469", "apxb_sandbox").unwrap();
        let config = agentplex_gateway::GatewayConfig {
            broker: Some(broker),
            ..Default::default()
        };
        let gateway = Gateway::start(config).await.unwrap();
        // Even an adapter-pointed format without a key, past the session's key.
        let api = anthropic(ModelApiPointing::Adapter);
        let mut env = pairs(&[("ANTHROPIC_API_KEY", "sk-session"), ("KEEP", "1")]);
        let sink = UsageSink::new(crate::incoming::Inbox::new().0, "mock");
        let apis = [api.clone()];
        let metering = meter(
            &gateway,
            &apis,
            &record(),
            &mut env,
            sink,
            BudgetStart::default(),
        );
        let metering = metering.unwrap().expect("metered");
        assert_eq!(env, pairs(&[("KEEP", "1")]));
        assert_eq!(metering.endpoints[0].token, metering.route.token());

        let resolved = brokered(&api, gateway.broker().unwrap(), lane()).unwrap();
        assert_eq!(
            resolved.upstream.base_url(),
            "http://10.0.0.5:2469/anthropic/anthropic-messages"
        );
        assert_eq!(
            resolved.key_variable.as_deref(),
            Some("ANTHROPIC_AUTH_TOKEN")
        );
        assert!(!format!("{:?}", resolved.upstream).contains("apxb_sandbox"));
    }

    #[test]
    fn an_upstream_that_is_no_url_is_a_clear_error() {
        let api = anthropic(ModelApiPointing::Environment);
        let env = pairs(&[("ANTHROPIC_BASE_URL", "not a url")]);
        let Err(SessionError::InvalidRequest(message)) = resolve(&api, &env, |_| None, lane())
        else {
            panic!("expected an invalid request");
        };
        assert!(message.contains("anthropic-messages"), "{message}");
    }
}
