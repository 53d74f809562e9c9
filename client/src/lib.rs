//! A typed async client of the sandbox-agent daemon's HTTP API (`/v1`).
//!
//! The daemon (`runtime/`) serves the routes; this crate calls them with the request and
//! response bodies of [`agentplex_api`] and yields transcripts as
//! [`UniversalEvent`]s. The CLI's per-route subcommands and the integration tests use it.
//!
//! ```no_run
//! # async fn demo() -> Result<(), agentplex_client::ClientError> {
//! use futures::StreamExt;
//! use agentplex_client::{Client, CreateSessionRequest, MessageRequest};
//!
//! let client = Client::new("http://127.0.0.1:2468", Some("token".into()))?;
//! client
//!     .create_session("demo", &CreateSessionRequest { agent: "mock".into(), ..Default::default() })
//!     .await?;
//! let message = MessageRequest { message: Some("hello".into()), ..Default::default() };
//! let mut turn = client.send_message_stream("demo", &message, false).await?;
//! while let Some(event) = turn.next().await {
//!     println!("{:?}", event?.event_type);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! Wire details the client takes care of:
//! - every path segment it is given (session, agent, question and permission ids) is
//!   percent-encoded, and `""`, `.` and `..` are refused because URLs cannot carry them
//!   as a segment;
//! - the raw-payload flag is sent as the `include_raw` query parameter, the 0.1.x name
//!   that every route accepts;
//! - an answer outside 2xx becomes [`ClientError::Problem`], with the daemon's RFC 7807
//!   document or, when the body is not one, a document made from the status and body;
//! - the process routes' SSE logs become [`ProcessLogStream`]s, and a terminal's WebSocket
//!   a [`TerminalSocket`];
//! - SSE answers become [`EventStream`]s: keep-alive comments are skipped, frames may be
//!   split anywhere across reads, and the stream ends when the daemon ends the response;
//! - events of a type this client does not know (added by a newer daemon) are left out of
//!   pages and streams instead of failing them.

#![warn(missing_docs)]

use std::fmt;
use std::time::Duration;

use eventsource_stream::{EventStreamError, Eventsource};
use futures::stream::{BoxStream, StreamExt};
use reqwest::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::{Method, RequestBuilder, Response, StatusCode, Url};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The request and response bodies of the API, re-exported so one import is enough.
pub use agentplex_api::*;
/// One transcript event, as the event routes yield it.
pub use agentplex_universal::UniversalEvent;

/// The events of an SSE answer, in the order the daemon sent them. It ends when the daemon
/// ends the response; an item is an error when a frame cannot be decoded (the stream goes
/// on) or the connection fails. Events of a type this client does not know (a newer
/// daemon's) are left out.
pub type EventStream = BoxStream<'static, Result<UniversalEvent, ClientError>>;

/// How long to wait for the TCP connection to the daemon.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// `type` of a problem document made up by the client because the daemon's answer had
/// none (RFC 7807: the problem has no more semantics than its status code).
pub const UNTYPED_PROBLEM: &str = "about:blank";

/// Everything a call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The daemon answered with a status outside 2xx. Its problem document, or one made
    /// from the status and the body text when the body is not a problem document (then
    /// `type` is [`UNTYPED_PROBLEM`] and `detail` is the body). Boxed to keep results small.
    #[error("{}", describe_problem(.0))]
    Problem(Box<ProblemDetails>),
    /// The request could not be sent or the answer could not be read (connection refused
    /// or reset, the daemon went away mid-stream...).
    #[error("HTTP request to the daemon failed")]
    Http(#[from] reqwest::Error),
    /// The daemon answered 2xx, but not in the shape this client expects.
    #[error("cannot decode the daemon's answer: {0}")]
    Decode(String),
    /// An argument cannot be sent: an endpoint that is not an `http://` base URL, or a path
    /// segment (id) that is empty, `.` or `..`. Nothing was sent.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

impl ClientError {
    /// The problem document when the daemon refused the request.
    pub fn problem(&self) -> Option<&ProblemDetails> {
        match self {
            Self::Problem(problem) => Some(problem),
            _ => None,
        }
    }
}

/// One line for a problem: `404 Session not found (session_not_found): no session "x"`.
fn describe_problem(problem: &ProblemDetails) -> String {
    let mut text = format!("{} {}", problem.status, problem.title);
    if problem.problem_type != UNTYPED_PROBLEM {
        text.push_str(&format!(" ({})", problem.code()));
    }
    if let Some(detail) = &problem.detail {
        text.push_str(": ");
        text.push_str(detail);
    }
    text
}

/// A client of one daemon. Cheap to clone: clones share one connection pool.
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    base: Url,
    token: Option<String>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("endpoint", &self.base.as_str())
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl Client {
    /// A client of the daemon at `endpoint` (`http://127.0.0.1:2468`; a path, as in
    /// `http://host/prefix`, is kept in front of `/v1`). With a `token`, every request
    /// carries `Authorization: Bearer <token>`.
    ///
    /// Only plain `http` is supported (the daemon listens on loopback), and proxy settings
    /// in the environment are ignored so that loopback traffic never goes through one.
    pub fn new(endpoint: &str, token: Option<String>) -> Result<Self, ClientError> {
        let base = Url::parse(endpoint)
            .map_err(|err| ClientError::InvalidArgument(format!("endpoint {endpoint:?}: {err}")))?;
        if base.scheme() != "http" {
            return Err(ClientError::InvalidArgument(format!(
                "endpoint {endpoint:?}: only http:// endpoints are supported"
            )));
        }
        if base.query().is_some() || base.fragment().is_some() {
            return Err(ClientError::InvalidArgument(format!(
                "endpoint {endpoint:?}: must not have a query or a fragment"
            )));
        }
        let http = reqwest::Client::builder()
            .no_proxy()
            .connect_timeout(CONNECT_TIMEOUT)
            .build()?;
        Ok(Self { http, base, token })
    }

    /// `GET /v1/health`: whether the daemon is up, and its version. Needs no token.
    pub async fn health(&self) -> Result<HealthResponse, ClientError> {
        self.json(self.get(&["health"])?).await
    }

    /// `GET /v1/agents`: the agents the daemon can drive.
    pub async fn list_agents(&self) -> Result<AgentListResponse, ClientError> {
        self.json(self.get(&["agents"])?).await
    }

    /// `GET /v1/agents/{agent}/modes`: the agent's modes.
    pub async fn agent_modes(&self, agent: &str) -> Result<AgentModesResponse, ClientError> {
        self.json(self.get(&["agents", agent, "modes"])?).await
    }

    /// `GET /v1/agents/{agent}/models`: the agent's models and their variants.
    pub async fn agent_models(&self, agent: &str) -> Result<AgentModelsResponse, ClientError> {
        self.json(self.get(&["agents", agent, "models"])?).await
    }

    /// `POST /v1/agents/{agent}/install`: installs the agent's binary.
    pub async fn install_agent(
        &self,
        agent: &str,
        request: &AgentInstallRequest,
    ) -> Result<(), ClientError> {
        self.no_content(self.post(&["agents", agent, "install"], request)?)
            .await
    }

    /// `GET /v1/registry`: the agents of the ACP registry (fetched anew with
    /// `refresh`), with which can be installed here and which were added.
    pub async fn list_registry(&self, refresh: bool) -> Result<RegistryListResponse, ClientError> {
        let query = RegistryQuery {
            refresh: refresh.then_some(true),
        };
        self.json(self.get(&["registry"])?.query(&query)).await
    }

    /// `POST /v1/registry/{agent}`: adds the registry's agent to the daemon and
    /// installs it; its entry of `GET /v1/agents`.
    pub async fn add_from_registry(
        &self,
        agent: &str,
        request: &RegistryAddRequest,
    ) -> Result<AgentInfo, ClientError> {
        self.json(self.post(&["registry", agent], request)?).await
    }

    /// `GET /v1/sessions`: every session, running or ended.
    pub async fn list_sessions(&self) -> Result<SessionListResponse, ClientError> {
        self.json(self.get(&["sessions"])?).await
    }

    /// `GET /v1/sessions?scope=...`: this daemon's sessions, or every session of
    /// the database it shares with other daemons (with each one's owner).
    pub async fn list_sessions_in(
        &self,
        scope: SessionScope,
    ) -> Result<SessionListResponse, ClientError> {
        let query = SessionListQuery { scope };
        self.json(self.get(&["sessions"])?.query(&query)).await
    }

    /// `GET /v1/sessions/{id}`: one session's entry of the list.
    pub async fn get_session(&self, id: &str) -> Result<SessionInfo, ClientError> {
        self.json(self.get(&["sessions", id])?).await
    }

    /// `POST /v1/sessions/{id}`: creates session `id` (installing the agent if missing).
    pub async fn create_session(
        &self,
        id: &str,
        request: &CreateSessionRequest,
    ) -> Result<CreateSessionResponse, ClientError> {
        self.json(self.post(&["sessions", id], request)?).await
    }

    /// `POST /v1/sessions/{id}/messages`: sends a message; it starts a turn, or is queued
    /// behind the running one. Returns once the daemon has accepted it.
    pub async fn send_message(
        &self,
        id: &str,
        request: &MessageRequest,
    ) -> Result<(), ClientError> {
        self.no_content(self.post(&["sessions", id, "messages"], request)?)
            .await
    }

    /// `POST /v1/sessions/{id}/messages/stream`: sends a message and streams this turn's
    /// events, up to the one that needs the client (`turn.ended`, `session.ended`, `error`,
    /// `permission.requested`, `question.requested`), where the daemon ends the stream.
    /// `include_raw` adds each event's native payload (`raw`).
    pub async fn send_message_stream(
        &self,
        id: &str,
        request: &MessageRequest,
        include_raw: bool,
    ) -> Result<EventStream, ClientError> {
        let mut builder = self.post(&["sessions", id, "messages", "stream"], request)?;
        if include_raw {
            builder = builder.query(&[("include_raw", "true")]);
        }
        self.sse(builder).await
    }

    /// `GET /v1/sessions/{id}/events`: one page of the transcript after `query.offset`.
    /// Events of a type this client does not know (a newer daemon's) are left out; when
    /// a whole page is of such events, the next page is asked for instead.
    pub async fn events(
        &self,
        id: &str,
        query: &EventsQuery,
    ) -> Result<EventsResponse, ClientError> {
        let mut offset = query.offset;
        loop {
            let mut params = Vec::new();
            if let Some(offset) = offset {
                params.push(("offset", offset.to_string()));
            }
            if let Some(limit) = query.limit {
                params.push(("limit", limit.to_string()));
            }
            if let Some(include_raw) = query.include_raw {
                params.push(("include_raw", include_raw.to_string()));
            }
            let builder = self.get(&["sessions", id, "events"])?.query(&params);
            let page: unknown::RawPage = self.json(builder).await?;
            let (page, last) = unknown::known_events(page)
                .map_err(|err| ClientError::Decode(format!("an event of session {id:?}: {err}")))?;
            match last {
                Some(last) if page.events.is_empty() && page.has_more => offset = Some(last),
                _ => return Ok(page),
            }
        }
    }

    /// `GET /v1/sessions/{id}/events/sse`: the transcript after `offset` (exclusive), then
    /// live events as they happen, until the daemon ends the response. `last_event_id` is
    /// sent as `Last-Event-ID`, the sequence of the last event seen, to resume after a
    /// dropped connection. `include_raw` adds each event's native payload (`raw`).
    pub async fn events_sse(
        &self,
        id: &str,
        offset: Option<u64>,
        include_raw: bool,
        last_event_id: Option<u64>,
    ) -> Result<EventStream, ClientError> {
        let mut params = Vec::new();
        if let Some(offset) = offset {
            params.push(("offset", offset.to_string()));
        }
        if include_raw {
            params.push(("include_raw", "true".to_owned()));
        }
        let mut builder = self.get(&["sessions", id, "events", "sse"])?.query(&params);
        if let Some(last_event_id) = last_event_id {
            builder = builder.header("Last-Event-ID", last_event_id);
        }
        self.sse(builder).await
    }

    /// `POST /v1/sessions/{id}/questions/{question_id}/reply`: answers a question, one
    /// list of chosen answers per prompt.
    pub async fn reply_question(
        &self,
        id: &str,
        question_id: &str,
        answers: Vec<Vec<String>>,
    ) -> Result<(), ClientError> {
        let body = QuestionReplyRequest { answers };
        let path = ["sessions", id, "questions", question_id, "reply"];
        self.no_content(self.post(&path, &body)?).await
    }

    /// `POST /v1/sessions/{id}/questions/{question_id}/reject`: declines a question.
    pub async fn reject_question(&self, id: &str, question_id: &str) -> Result<(), ClientError> {
        let path = ["sessions", id, "questions", question_id, "reject"];
        self.no_content(self.post_empty(&path)?).await
    }

    /// `POST /v1/sessions/{id}/permissions/{permission_id}/reply`: answers a permission
    /// request.
    pub async fn reply_permission(
        &self,
        id: &str,
        permission_id: &str,
        reply: PermissionReply,
    ) -> Result<(), ClientError> {
        let body = PermissionReplyRequest { reply };
        let path = ["sessions", id, "permissions", permission_id, "reply"];
        self.no_content(self.post(&path, &body)?).await
    }

    /// `POST /v1/sessions/{id}/cancel`: interrupts the running turn and keeps the session.
    pub async fn cancel(&self, id: &str) -> Result<(), ClientError> {
        self.no_content(self.post_empty(&["sessions", id, "cancel"])?)
            .await
    }

    /// `PUT /v1/sessions/{id}/modes`: changes the session's agent mode or permission
    /// mode (one left out keeps its value) from the next message on; answers both.
    pub async fn set_modes(
        &self,
        id: &str,
        modes: &SessionModes,
    ) -> Result<SessionModes, ClientError> {
        let request = self
            .request(Method::PUT, &["sessions", id, "modes"])?
            .json(modes);
        self.json(request).await
    }

    /// `POST /v1/sessions/{id}/terminate`: ends the session and kills its processes.
    pub async fn terminate(&self, id: &str) -> Result<(), ClientError> {
        self.no_content(self.post_empty(&["sessions", id, "terminate"])?)
            .await
    }

    /// `DELETE /v1/sessions/{id}`: removes the session and its transcript for good.
    pub async fn delete_session(&self, id: &str) -> Result<(), ClientError> {
        self.no_content(self.request(Method::DELETE, &["sessions", id])?)
            .await
    }

    /// `GET /v1/sessions/{id}/export`: the session's archive, streamed as the
    /// daemon makes it.
    pub async fn export_session(
        &self,
        id: &str,
    ) -> Result<BoxStream<'static, Result<bytes::Bytes, ClientError>>, ClientError> {
        let response = self.send(self.get(&["sessions", id, "export"])?).await?;
        Ok(response
            .bytes_stream()
            .map(|chunk| chunk.map_err(ClientError::from))
            .boxed())
    }

    /// `POST /v1/sessions/{id}/import`: restores a session from `archive` (bytes,
    /// or a stream made with [`reqwest::Body::wrap_stream`]); `env` gives the
    /// secret variables the export left out.
    pub async fn import_session(
        &self,
        id: &str,
        query: &ImportSessionQuery,
        env: &[(String, String)],
        archive: impl Into<reqwest::Body>,
    ) -> Result<ImportSessionResponse, ClientError> {
        let mut request = self
            .post_empty(&["sessions", id, "import"])?
            .query(query)
            .header(CONTENT_TYPE, HeaderValue::from_static("application/gzip"))
            .body(archive);
        if !env.is_empty() {
            let mut pairs = form_urlencoded::Serializer::new(String::new());
            for (name, value) in env {
                pairs.append_pair(name, value);
            }
            request = request.header(IMPORT_ENV_HEADER, pairs.finish());
        }
        self.json(request).await
    }

    /// Moves session `id` from this daemon to `to` (as `to_id`): its archive is
    /// streamed from one to the other, never stored in between. The session stays
    /// here until the caller deletes it.
    pub async fn move_session(
        &self,
        id: &str,
        to: &Client,
        to_id: &str,
        query: &ImportSessionQuery,
        env: &[(String, String)],
    ) -> Result<ImportSessionResponse, ClientError> {
        let archive = self.export_session(id).await?;
        let body =
            reqwest::Body::wrap_stream(archive.map(|chunk| chunk.map_err(std::io::Error::other)));
        to.import_session(to_id, query, env, body).await
    }

    /// `GET /v1/fs/entries`: the entries of a directory (the session's directory, or
    /// the daemon's home directory, when `query.path` is absent).
    pub async fn fs_entries(&self, query: &FsEntriesQuery) -> Result<Vec<FsEntry>, ClientError> {
        self.json(self.get(&["fs", "entries"])?.query(query)).await
    }

    /// `GET /v1/fs/file`: a file's bytes, streamed as the daemon sends them.
    pub async fn fs_read_file(
        &self,
        query: &FsPathQuery,
    ) -> Result<BoxStream<'static, Result<bytes::Bytes, ClientError>>, ClientError> {
        let response = self.send(self.get(&["fs", "file"])?.query(query)).await?;
        Ok(response
            .bytes_stream()
            .map(|chunk| chunk.map_err(ClientError::from))
            .boxed())
    }

    /// `PUT /v1/fs/file`: writes `body` (bytes, or a stream made with
    /// [`reqwest::Body::wrap_stream`]) to a file, creating it and its parents.
    pub async fn fs_write_file(
        &self,
        query: &FsPathQuery,
        body: impl Into<reqwest::Body>,
    ) -> Result<FsWriteResponse, ClientError> {
        let request = self
            .request(Method::PUT, &["fs", "file"])?
            .query(query)
            .header(
                CONTENT_TYPE,
                HeaderValue::from_static("application/octet-stream"),
            )
            .body(body);
        self.json(request).await
    }

    /// `GET /v1/fs/stat`: a path's type, size and modification time.
    pub async fn fs_stat(&self, query: &FsPathQuery) -> Result<FsStat, ClientError> {
        self.json(self.get(&["fs", "stat"])?.query(query)).await
    }

    /// `POST /v1/fs/mkdir`: creates a directory and its missing parents.
    pub async fn fs_mkdir(&self, query: &FsPathQuery) -> Result<FsActionResponse, ClientError> {
        self.json(self.post_empty(&["fs", "mkdir"])?.query(query))
            .await
    }

    /// `POST /v1/fs/move`: moves or renames a file or directory.
    pub async fn fs_move(
        &self,
        query: &FsSessionQuery,
        request: &FsMoveRequest,
    ) -> Result<FsMoveResponse, ClientError> {
        self.json(self.post(&["fs", "move"], request)?.query(query))
            .await
    }

    /// `DELETE /v1/fs/entry`: deletes a file or directory.
    pub async fn fs_delete(&self, query: &FsDeleteQuery) -> Result<FsActionResponse, ClientError> {
        self.json(self.request(Method::DELETE, &["fs", "entry"])?.query(query))
            .await
    }

    /// `POST /v1/fs/upload-batch`: unpacks a tar archive (plain or gzip) under a directory.
    pub async fn fs_upload_batch(
        &self,
        query: &FsUploadBatchQuery,
        archive: impl Into<reqwest::Body>,
    ) -> Result<FsUploadBatchResponse, ClientError> {
        let request = self
            .post_empty(&["fs", "upload-batch"])?
            .query(query)
            .header(CONTENT_TYPE, HeaderValue::from_static("application/x-tar"))
            .body(archive);
        self.json(request).await
    }

    /// The URL of `/v1/<segments...>` under the endpoint, each segment percent-encoded.
    fn url(&self, segments: &[&str]) -> Result<Url, ClientError> {
        // `Url` drops `.` and `..` segments and would send `sessions/../terminate` as
        // `sessions/terminate`; an empty one would change the route too.
        if let Some(bad) = segments.iter().find(|s| matches!(**s, "" | "." | "..")) {
            return Err(ClientError::InvalidArgument(format!(
                "{bad:?} cannot be sent as a path segment"
            )));
        }
        let mut url = self.base.clone();
        url.path_segments_mut()
            .expect("an http:// URL always has a path")
            .pop_if_empty()
            .push("v1")
            .extend(segments);
        Ok(url)
    }

    /// A request with the token, if any.
    fn request(&self, method: Method, segments: &[&str]) -> Result<RequestBuilder, ClientError> {
        let builder = self.http.request(method, self.url(segments)?);
        Ok(match &self.token {
            Some(token) => builder.bearer_auth(token),
            None => builder,
        })
    }

    /// A `GET` request of `/v1/<segments...>`.
    fn get(&self, segments: &[&str]) -> Result<RequestBuilder, ClientError> {
        self.request(Method::GET, segments)
    }

    /// A `POST` request of `/v1/<segments...>` with a JSON body.
    fn post<T: Serialize>(
        &self,
        segments: &[&str],
        body: &T,
    ) -> Result<RequestBuilder, ClientError> {
        Ok(self.request(Method::POST, segments)?.json(body))
    }

    /// A `POST` request of `/v1/<segments...>` with no body and no content type, as the
    /// 0.1.x SDK sends the routes that take no input.
    fn post_empty(&self, segments: &[&str]) -> Result<RequestBuilder, ClientError> {
        self.request(Method::POST, segments)
    }

    /// Sends the request; a status outside 2xx becomes [`ClientError::Problem`].
    async fn send(&self, builder: RequestBuilder) -> Result<Response, ClientError> {
        let response = builder.send().await?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let body = response.text().await?;
        Err(ClientError::Problem(Box::new(problem_from(status, &body))))
    }

    /// Sends the request and decodes its JSON answer.
    async fn json<T: DeserializeOwned>(&self, builder: RequestBuilder) -> Result<T, ClientError> {
        let response = self.send(builder).await?;
        let path = response.url().path().to_owned();
        let body = response.bytes().await?;
        serde_json::from_slice(&body).map_err(|err| ClientError::Decode(format!("{path}: {err}")))
    }

    /// Sends the request and ignores the body of its answer (`204 No Content`).
    async fn no_content(&self, builder: RequestBuilder) -> Result<(), ClientError> {
        // Reading the body to its end lets the connection be reused.
        self.send(builder).await?.bytes().await?;
        Ok(())
    }

    /// Sends the request and decodes its answer as an SSE stream of universal events.
    async fn sse(&self, builder: RequestBuilder) -> Result<EventStream, ClientError> {
        let builder = builder.header(ACCEPT, HeaderValue::from_static("text/event-stream"));
        let response = self.send(builder).await?;
        let path = response.url().path().to_owned();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("");
        if !content_type
            .to_ascii_lowercase()
            .starts_with("text/event-stream")
        {
            return Err(ClientError::Decode(format!(
                "{path}: expected an SSE stream (text/event-stream), got content type {content_type:?}"
            )));
        }
        let events = response
            .bytes_stream()
            .eventsource()
            .filter_map(move |frame| {
                let item = match frame {
                    Ok(frame) => match unknown::decode_event(&frame.data) {
                        Ok(unknown::Decoded::Known(event)) => Some(Ok(event)),
                        Ok(unknown::Decoded::Unknown { .. }) => None,
                        Err(err) => Some(Err(ClientError::Decode(format!(
                            "{path}: SSE event id {:?}: {err}",
                            frame.id
                        )))),
                    },
                    Err(EventStreamError::Transport(err)) => Some(Err(ClientError::Http(err))),
                    Err(err) => Some(Err(ClientError::Decode(format!("{path}: {err}")))),
                };
                futures::future::ready(item)
            });
        Ok(events.boxed())
    }
}

/// The problem document of an error answer: the body itself when it is one, otherwise
/// one made from the status and the body text.
fn problem_from(status: StatusCode, body: &str) -> ProblemDetails {
    if let Ok(problem) = serde_json::from_str::<ProblemDetails>(body) {
        return problem;
    }
    let body = body.trim();
    ProblemDetails {
        problem_type: UNTYPED_PROBLEM.to_owned(),
        title: status.canonical_reason().unwrap_or("HTTP error").to_owned(),
        status: status.as_u16(),
        detail: (!body.is_empty()).then(|| body.to_owned()),
        instance: None,
        agent: None,
        session_id: None,
        exit_code: None,
        stderr: None,
    }
}

mod desktop;
mod processes;
mod unknown;
pub use processes::{ProcessLogEvent, ProcessLogStream, TerminalSocket};
/// The WebSocket library of [`TerminalSocket`] (its `Message` type).
pub use tokio_tungstenite::tungstenite;

#[cfg(test)]
mod tests;
