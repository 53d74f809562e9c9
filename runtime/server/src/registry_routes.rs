//! The ACP registry's routes: its agents (`GET /v1/registry`) and adding one to
//! the daemon (`POST /v1/registry/{agent}`), which installs it and makes it an
//! agent like the others, run by the generic ACP adapter.

use agentplex_api::{
    AgentInfo, ProblemDetails, RegistryAddRequest, RegistryAgentInfo, RegistryListResponse,
    RegistryQuery,
};
use agentplex_install::registry::Listing;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use super::extract::{OptionalJson, Path, Query};
use super::AppState;
use crate::error::Result;

/// The agents of the ACP registry's index (`--acp-registry`: fetched and cached
/// for an hour, or a snapshot file), with whether each can be installed here and
/// whether it was added.
#[utoipa::path(get, path = "/v1/registry", tag = "agents",
    params(RegistryQuery),
    responses((status = 200, body = RegistryListResponse),
              (status = 502, description = "The index cannot be fetched and no copy is cached", body = ProblemDetails, content_type = "application/problem+json")))]
pub async fn list_registry(
    State(state): State<AppState>,
    Query(query): Query<RegistryQuery>,
) -> Result<axum::Json<RegistryListResponse>> {
    let (listing, added) = state
        .catalog
        .registry_listing(query.refresh.unwrap_or(false))
        .await?;
    Ok(axum::Json(describe(&state, listing, &added)))
}

/// Adds the registry's agent to this daemon and installs it (its npm or PyPI
/// package or its release archive, in that order, with the registry's command
/// line): then it is in `GET /v1/agents` and takes sessions, over REST and ACP.
/// Kept across restarts; adding it again takes the registry's entry anew. With
/// `Accept: text/event-stream` the answer is the install's `progress` events, then
/// one `result` or `error` event, as `POST /v1/agents/{agent}/install`.
#[utoipa::path(post, path = "/v1/registry/{agent}", tag = "agents",
    params(("agent" = String, Path, description = "The registry's agent id")),
    request_body(content = Option<RegistryAddRequest>, description = "Optional; an empty body is accepted"),
    responses((status = 201, description = "Added and installed", body = AgentInfo),
              (status = 200, description = "With `Accept: text/event-stream`: `progress` events, then a `result` or `error` event", content_type = "text/event-stream"),
              (status = 404, description = "The registry lists no such agent", body = ProblemDetails, content_type = "application/problem+json"),
              (status = 409, description = "The id is one of this daemon's own agents", body = ProblemDetails, content_type = "application/problem+json"),
              (status = 500, description = "The install failed", body = ProblemDetails, content_type = "application/problem+json"),
              (status = 502, description = "The index cannot be fetched and no copy is cached", body = ProblemDetails, content_type = "application/problem+json")))]
pub async fn add_from_registry(
    State(state): State<AppState>,
    Path(agent): Path<String>,
    headers: HeaderMap,
    OptionalJson(request): OptionalJson<RegistryAddRequest>,
) -> Result<Response> {
    let follow = state
        .catalog
        .add_from_registry(
            &agent,
            request.env.unwrap_or_default(),
            request.reinstall.unwrap_or(false),
        )
        .await?;
    if let Some(events) = super::install_events::answer(&agent, follow, &headers).await? {
        return Ok(events);
    }
    let adapter = state.catalog.adapter(&agent)?;
    let info = state
        .catalog
        .describe(&adapter, state.sessions.server_status(&agent))
        .await;
    Ok((StatusCode::CREATED, axum::Json(info)).into_response())
}

/// The listing as the API shows it.
fn describe(state: &AppState, listing: Listing, added: &[String]) -> RegistryListResponse {
    let settings = state.catalog.install_settings();
    let agents = listing
        .index
        .agents
        .into_iter()
        .map(|entry| RegistryAgentInfo {
            distributions: entry.kinds().into_iter().map(str::to_owned).collect(),
            installable: !entry
                .distributions(&settings.platform, settings.source)
                .is_empty(),
            added: added.contains(&entry.id),
            id: entry.id,
            name: entry.name,
            version: entry.version,
            description: entry.description,
            repository: entry.repository,
            website: entry.website,
            authors: entry.authors,
            license: entry.license,
        })
        .collect();
    RegistryListResponse {
        source: listing.source,
        fetched_at: listing.fetched_at.and_then(rfc3339),
        stale: listing.stale,
        agents,
    }
}

fn rfc3339(at: std::time::SystemTime) -> Option<String> {
    time::OffsetDateTime::from(at)
        .format(&time::format_description::well_known::Rfc3339)
        .ok()
}
