//! The process routes (`/v1/processes/*`): runs, managed processes, their logs
//! (fetched or followed over SSE) and the terminal WebSocket.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use eventsource_stream::{EventStreamError, Eventsource};
use futures::stream::{BoxStream, StreamExt};
use reqwest::header::{HeaderValue, ACCEPT};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::header::AUTHORIZATION;

use super::*;

/// What a followed log yields (`GET /v1/processes/{id}/logs?follow=true`).
#[derive(Debug, Clone, PartialEq)]
pub enum ProcessLogEvent {
    /// The next chunk of output.
    Log(ProcessLogEntry),
    /// Output dropped from the daemon's ring buffer before it was sent.
    Missed(ProcessLogsMissed),
    /// The process exited and all its output was sent; the stream ends.
    Exit(ProcessInfo),
}

/// The events of a followed log, in order; an item is an error when a frame cannot be
/// decoded or the connection fails.
pub type ProcessLogStream = BoxStream<'static, Result<ProcessLogEvent, ClientError>>;

/// A terminal's WebSocket: binary messages are its output, text messages the
/// daemon's JSON frames ([`TerminalServerFrame`]); send [`TerminalClientFrame`]s as text.
pub type TerminalSocket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

impl Client {
    /// `POST /v1/processes/run`: runs a command to completion.
    pub async fn run_process(
        &self,
        request: &ProcessRunRequest,
    ) -> Result<ProcessRunResponse, ClientError> {
        self.json(self.post(&["processes", "run"], request)?).await
    }

    /// `GET /v1/processes/config`: the limits of the process API.
    pub async fn process_config(&self) -> Result<ProcessConfig, ClientError> {
        self.json(self.get(&["processes", "config"])?).await
    }

    /// `POST /v1/processes`: starts a managed process.
    pub async fn start_process(
        &self,
        request: &ProcessCreateRequest,
    ) -> Result<ProcessInfo, ClientError> {
        self.json(self.post(&["processes"], request)?).await
    }

    /// `GET /v1/processes`: every managed process not deleted.
    pub async fn list_processes(&self) -> Result<ProcessListResponse, ClientError> {
        self.json(self.get(&["processes"])?).await
    }

    /// `GET /v1/processes/{id}`.
    pub async fn get_process(&self, id: &str) -> Result<ProcessInfo, ClientError> {
        self.json(self.get(&["processes", id])?).await
    }

    /// `DELETE /v1/processes/{id}`: forgets an exited process and its logs.
    pub async fn delete_process(&self, id: &str) -> Result<(), ClientError> {
        self.no_content(self.request(Method::DELETE, &["processes", id])?)
            .await
    }

    /// `POST /v1/processes/{id}/input`: writes bytes to its stdin or terminal.
    pub async fn process_input(
        &self,
        id: &str,
        bytes: &[u8],
    ) -> Result<ProcessInputResponse, ClientError> {
        let body = ProcessInputRequest {
            data: STANDARD.encode(bytes),
            encoding: Some(ProcessDataEncoding::Base64),
        };
        self.json(self.post(&["processes", id, "input"], &body)?)
            .await
    }

    /// `POST /v1/processes/{id}/stop`: SIGTERM, then SIGKILL after the daemon's grace;
    /// answers once it exited or `wait_ms` passed (at once without).
    pub async fn stop_process(
        &self,
        id: &str,
        wait_ms: Option<u64>,
    ) -> Result<ProcessInfo, ClientError> {
        self.signal_process(id, "stop", wait_ms).await
    }

    /// `POST /v1/processes/{id}/kill`: SIGKILL to its process group.
    pub async fn kill_process(
        &self,
        id: &str,
        wait_ms: Option<u64>,
    ) -> Result<ProcessInfo, ClientError> {
        self.signal_process(id, "kill", wait_ms).await
    }

    async fn signal_process(
        &self,
        id: &str,
        action: &str,
        wait_ms: Option<u64>,
    ) -> Result<ProcessInfo, ClientError> {
        let query = ProcessSignalQuery { wait_ms };
        self.json(self.post_empty(&["processes", id, action])?.query(&query))
            .await
    }

    /// `GET /v1/processes/{id}/logs`: the buffered output (`follow` is ignored: see
    /// [`Client::follow_process_logs`]).
    pub async fn process_logs(
        &self,
        id: &str,
        query: &ProcessLogsQuery,
    ) -> Result<ProcessLogsResponse, ClientError> {
        let query = ProcessLogsQuery {
            follow: None,
            ..query.clone()
        };
        self.json(self.get(&["processes", id, "logs"])?.query(&query))
            .await
    }

    /// `GET /v1/processes/{id}/logs?follow=true`: the buffered output, then new output
    /// as it comes, until the process exited.
    pub async fn follow_process_logs(
        &self,
        id: &str,
        query: &ProcessLogsQuery,
    ) -> Result<ProcessLogStream, ClientError> {
        let query = ProcessLogsQuery {
            follow: Some(true),
            ..query.clone()
        };
        let builder = self
            .get(&["processes", id, "logs"])?
            .query(&query)
            .header(ACCEPT, HeaderValue::from_static("text/event-stream"));
        let response = self.send(builder).await?;
        let events = response
            .bytes_stream()
            .eventsource()
            .map(|frame| match frame {
                Ok(frame) => log_event(&frame.event, &frame.data),
                Err(EventStreamError::Transport(err)) => Err(ClientError::Http(err)),
                Err(err) => Err(ClientError::Decode(err.to_string())),
            });
        Ok(events.boxed())
    }

    /// `POST /v1/processes/{id}/terminal/resize`.
    pub async fn resize_terminal(
        &self,
        id: &str,
        cols: u16,
        rows: u16,
    ) -> Result<ProcessTerminalResizeRequest, ClientError> {
        let size = ProcessTerminalResizeRequest { cols, rows };
        self.json(self.post(&["processes", id, "terminal", "resize"], &size)?)
            .await
    }

    /// `GET /v1/processes/{id}/terminal/ws`: opens the terminal's WebSocket (the token in
    /// the `Authorization` header). A refusal (404, 409...) is [`ClientError::Problem`].
    pub async fn terminal(&self, id: &str) -> Result<TerminalSocket, ClientError> {
        let mut url = self.url(&["processes", id, "terminal", "ws"])?;
        url.set_scheme("ws")
            .expect("http and ws URLs have the same shape");
        let mut request = url
            .as_str()
            .into_client_request()
            .map_err(|err| ClientError::InvalidArgument(err.to_string()))?;
        if let Some(token) = &self.token {
            let value = format!("Bearer {token}").parse().map_err(|_| {
                ClientError::InvalidArgument("the token is not a header value".into())
            })?;
            request.headers_mut().insert(AUTHORIZATION, value);
        }
        match tokio_tungstenite::connect_async(request).await {
            Ok((socket, _)) => Ok(socket),
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                let status = StatusCode::from_u16(response.status().as_u16())
                    .unwrap_or(StatusCode::BAD_GATEWAY);
                let body = response
                    .body()
                    .as_deref()
                    .map(String::from_utf8_lossy)
                    .unwrap_or_default();
                Err(ClientError::Problem(Box::new(problem_from(status, &body))))
            }
            Err(err) => Err(ClientError::Decode(format!("terminal WebSocket: {err}"))),
        }
    }
}

/// One SSE frame of a followed log.
fn log_event(event: &str, data: &str) -> Result<ProcessLogEvent, ClientError> {
    let decoded = match event {
        "log" => serde_json::from_str(data).map(ProcessLogEvent::Log),
        "missed" => serde_json::from_str(data).map(ProcessLogEvent::Missed),
        "exit" => serde_json::from_str(data).map(ProcessLogEvent::Exit),
        other => {
            return Err(ClientError::Decode(format!(
                "unknown process log event {other:?}"
            )))
        }
    };
    decoded.map_err(|err| ClientError::Decode(format!("process log event {event:?}: {err}")))
}
