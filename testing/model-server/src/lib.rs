//! A scripted model server for testing real agent CLIs offline.
//!
//! The conformance suite points Claude Code, Codex, OpenCode and the Gemini CLI at
//! this server (`ANTHROPIC_BASE_URL`, a provider `base_url`, `GOOGLE_GEMINI_BASE_URL`)
//! instead of a model vendor. It speaks the streaming Anthropic Messages API, the
//! OpenAI Responses API, OpenAI Chat Completions and the Gemini API on 127.0.0.1,
//! and answers from a script keyed by the user's text ([`script`]): `run: CMD` makes
//! the model call the agent's shell tool, `think: X` streams reasoning, `slow: N`
//! streams slowly, `mcp: TOOL {JSON}` calls an MCP server's tool (searching for it
//! first when the agent defers its MCP tools behind a tool search), `skill: NAME`
//! the agent's skill tool, anything else is echoed. So a test
//! drives a real agent through text, tool calls, permissions and cancellation
//! deterministically, with no network and no key.
//!
//! - [`ModelServer::start`] runs it on a background thread (for tests);
//!   the `model-server` binary runs it from the command line.
//! - `GET /requests` returns what the server was asked, for assertions: each
//!   request's parsed conversation, body, path, query and headers (so a test can
//!   see which key arrived and which headers passed a proxy), its `transport`
//!   (`http` or `websocket`), and the token counts its answer reported (`usage`).
//! - The Responses API is also served over WebSocket (`GET /v1/responses`
//!   upgraded, as Codex's built-in OpenAI provider calls it): each
//!   `response.create` frame is answered with the events of the SSE stream, a
//!   text frame each (`websocket.rs`).
//! - A `pace: MS` line in the user's text streams the answer's text a piece
//!   every MS milliseconds, as a model's tokens come ([`script::pace`]).
//! - A `usage: cache_read=N cache_write=N reasoning=N` line in the user's text
//!   sets the cache and reasoning counts the answer reports
//!   ([`script::usage`]); Chat Completions streams report usage only when asked
//!   (`stream_options.include_usage`), as OpenAI does.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt as _;
use axum::{Json, Router};
use serde_json::{json, Value};

mod anthropic;
mod chat;
mod gemini;
mod responses;
pub mod script;
mod sse;
pub mod tools;
mod websocket;

/// The server's state: a counter for response and call ids, and the request log.
#[derive(Default)]
struct Shared {
    counter: AtomicU64,
    requests: Mutex<Vec<Value>>,
}

/// The wire protocols.
#[derive(Clone, Copy)]
enum Api {
    Anthropic,
    Responses,
    Chat,
    Gemini,
}

impl Api {
    fn name(self) -> &'static str {
        match self {
            Api::Anthropic => "anthropic",
            Api::Responses => "responses",
            Api::Chat => "chat",
            Api::Gemini => "gemini",
        }
    }
}

/// The largest request body the server reads (a conversation with long tool outputs).
const REQUEST_LIMIT: usize = 64 << 20;

/// The HTTP routes of the model server.
pub fn router() -> Router {
    let shared = Arc::new(Shared::default());
    let route = |api: Api| {
        post(
            move |State(shared): State<Arc<Shared>>,
                  uri: Uri,
                  headers: HeaderMap,
                  Json(body): Json<Value>| async move {
                answer(&shared, api, &body, &Asked::new(&uri, &headers))
            },
        )
    };
    Router::new()
        .route("/v1/messages", route(Api::Anthropic))
        .route("/messages", route(Api::Anthropic))
        .route("/v1/messages/count_tokens", post(count_tokens))
        .route(
            "/v1/responses",
            route(Api::Responses).get(websocket::upgrade),
        )
        .route("/responses", route(Api::Responses).get(websocket::upgrade))
        .route("/v1/chat/completions", route(Api::Chat))
        .route("/chat/completions", route(Api::Chat))
        .route("/v1beta/models/{action}", post(gemini_action))
        .route("/v1/models", get(models))
        .route("/models", get(models))
        .route("/requests", get(requests))
        .fallback(|| async { (StatusCode::NOT_FOUND, Json(openai_error("no such route"))) })
        // A model API takes a whole conversation in one request: a long tool output
        // makes it megabytes, which axum's 2 MB default would refuse.
        .layer(DefaultBodyLimit::max(REQUEST_LIMIT))
        .with_state(shared)
}

/// `POST /v1beta/models/{model}:{method}`: the Gemini API names the model and the
/// method in one path segment. `streamGenerateContent` streams (the CLI asks for
/// `alt=sse`), `generateContent` answers whole, `countTokens` counts.
async fn gemini_action(
    State(shared): State<Arc<Shared>>,
    Path(action): Path<String>,
    uri: Uri,
    headers: HeaderMap,
    Json(mut body): Json<Value>,
) -> Response {
    let (model, method) = action.rsplit_once(':').unwrap_or((&action, ""));
    match method {
        "streamGenerateContent" | "generateContent" => {
            body["model"] = json!(model);
            body["stream"] = json!(method == "streamGenerateContent");
            answer(&shared, Api::Gemini, &body, &Asked::new(&uri, &headers))
        }
        "countTokens" => Json(json!({ "totalTokens": script::USAGE.input_tokens })).into_response(),
        _ => (
            StatusCode::NOT_FOUND,
            Json(json!({"error": {"code": 404, "message": format!("no method {method}"), "status": "NOT_FOUND"}})),
        )
            .into_response(),
    }
}

/// Where a request came to and with which headers, for the request log.
struct Asked {
    path: String,
    query: Option<String>,
    /// Header names in lowercase; a repeated header's values joined with `, `.
    headers: serde_json::Map<String, Value>,
    /// `http`, or `websocket` for a request that came as a WebSocket's frame.
    transport: &'static str,
}

impl Asked {
    fn new(uri: &Uri, headers: &HeaderMap) -> Self {
        let mut logged = serde_json::Map::new();
        for name in headers.keys() {
            let values: Vec<&str> = headers
                .get_all(name)
                .iter()
                .map(|value| value.to_str().unwrap_or("<not text>"))
                .collect();
            logged.insert(name.as_str().to_owned(), json!(values.join(", ")));
        }
        Self {
            path: uri.path().to_owned(),
            query: uri.query().map(str::to_owned),
            headers: logged,
            transport: "http",
        }
    }
}

/// The script's answer to one request, as [`Shared::ask`] gives it.
struct Answer {
    reply: script::Reply,
    /// The model the request named (`scripted` when none).
    model: String,
    /// The number of the request, counting from 1: response and call ids.
    id: u64,
    usage: script::Usage,
}

fn answer(shared: &Shared, api: Api, body: &Value, asked: &Asked) -> Response {
    let Answer {
        reply,
        model,
        id,
        usage,
    } = shared.ask(api, body, asked);
    let model = model.as_str();
    let stream = body["stream"].as_bool().unwrap_or(false);
    match api {
        Api::Anthropic => anthropic::respond(&reply, model, id, stream, &usage),
        Api::Responses => responses::respond(&reply, model, id, stream, &usage),
        Api::Chat => {
            let include_usage = body["stream_options"]["include_usage"] == json!(true);
            chat::respond(&reply, model, id, stream, &usage, include_usage)
        }
        Api::Gemini => gemini::respond(&reply, model, id, stream, &usage),
    }
}

impl Shared {
    /// Reads a request in `api`, scripts its answer, and logs both.
    fn ask(&self, api: Api, body: &Value, asked: &Asked) -> Answer {
        let mut conversation = match api {
            Api::Anthropic => anthropic::conversation(body),
            Api::Responses => responses::conversation(body),
            Api::Chat => chat::conversation(body),
            Api::Gemini => gemini::conversation(body),
        };
        conversation.working_dir = script::working_dir(body);
        conversation.skill_files = script::skill_files(body);
        let id = self.counter.fetch_add(1, Ordering::SeqCst) + 1;
        let structured = match api {
            Api::Gemini => gemini::structured_reply(body),
            Api::Responses => responses::warmup(body),
            _ => None,
        };
        let mut reply = structured.unwrap_or_else(|| script::reply(&conversation, id));
        if let (Some(pace), script::Reply::Blocks { chunk_delay_ms, .. }) =
            (script::pace(&conversation), &mut reply)
        {
            *chunk_delay_ms = pace;
        }
        let mut usage = script::usage(&conversation);
        if matches!(&reply, script::Reply::Blocks { blocks, .. } if blocks.is_empty()) {
            // Nothing written, nothing counted.
            usage.output_tokens = 0;
            usage.reasoning_tokens = 0;
        }
        let names =
            |tools: &[tools::Tool]| tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
        self.requests.lock().unwrap().push(json!({
            "api": api.name(),
            "model": body["model"],
            "userText": conversation.user_text,
            "toolOutput": conversation.tool_output,
            "tools": names(&conversation.tools),
            "foundTools": conversation.found_tools.as_deref().map(names),
            "reply": format!("{reply:?}"),
            "body": body,
            "path": asked.path,
            "query": asked.query,
            "headers": asked.headers,
            "transport": asked.transport,
            "usage": reported_usage(api, &reply, &usage),
        }));
        let model = body["model"].as_str().unwrap_or("scripted").to_owned();
        Answer {
            reply,
            model,
            id,
            usage,
        }
    }
}

/// The counts the answer reports, in one meaning whatever the protocol: input
/// with the cache reads and writes, output with the reasoning, and the parts the
/// protocol tells apart (Anthropic reports no reasoning count and Gemini no cache
/// writes); `null` for an error answer.
fn reported_usage(api: Api, reply: &script::Reply, usage: &script::Usage) -> Value {
    let script::Reply::Blocks { blocks, .. } = reply else {
        return Value::Null;
    };
    let (cache_write, reasoning) = match api {
        Api::Anthropic => (usage.cache_write_tokens, 0),
        Api::Responses | Api::Chat => (usage.cache_write_tokens, usage.reasoning_tokens),
        Api::Gemini => (0, gemini::thoughts(blocks, usage)),
    };
    let output = usage.output_tokens
        + match api {
            Api::Gemini => reasoning,
            _ => usage.reasoning_tokens,
        };
    json!({
        "input_tokens": usage.input_tokens + usage.cache_read_tokens + cache_write,
        "output_tokens": output,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_write_tokens": cache_write,
        "reasoning_tokens": reasoning,
    })
}

async fn count_tokens() -> Json<Value> {
    Json(json!({ "input_tokens": script::USAGE.input_tokens }))
}

async fn models(State(shared): State<Arc<Shared>>, uri: axum::http::Uri) -> Json<Value> {
    shared
        .requests
        .lock()
        .unwrap()
        .push(json!({"api": "models", "path": uri.to_string()}));
    Json(json!({
        "object": "list",
        "data": [{"id": "scripted", "object": "model", "created": 0, "owned_by": "sandbox-agent"}],
    }))
}

async fn requests(State(shared): State<Arc<Shared>>) -> Response {
    Json(shared.requests.lock().unwrap().clone()).into_response()
}

/// An OpenAI-style error body.
fn openai_error(message: &str) -> Value {
    json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": null}})
}

/// The items of a JSON array (none for anything else).
fn list(value: &Value) -> impl Iterator<Item = &Value> {
    value.as_array().into_iter().flatten()
}

/// Text an agent adds to the user's turn on its own (`<system-reminder>`,
/// `<environment_context>`...), which the script must not read as the user's words.
fn is_agent_context(text: &str) -> bool {
    let text = text.trim_start();
    text.is_empty() || text.starts_with('<')
}

/// A model server running on a background thread; it stops when the process ends.
pub struct ModelServer {
    addr: SocketAddr,
}

impl ModelServer {
    /// Starts a server on 127.0.0.1 on a free port.
    pub fn start() -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        std::thread::Builder::new()
            .name("model-server".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a tokio runtime for the model server");
                runtime.block_on(async move {
                    let listener = tokio::net::TcpListener::from_std(listener)
                        .expect("the model server's listener")
                        // A stream's pieces go out as written, as a provider's do
                        // (Nagle would hold each until the last was acknowledged).
                        .tap_io(|tcp| {
                            let _ = tcp.set_nodelay(true);
                        });
                    axum::serve(listener, router()).await.ok();
                });
            })?;
        Ok(Self { addr })
    }

    /// `http://127.0.0.1:PORT` (Claude Code's `ANTHROPIC_BASE_URL`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1` (the base URL OpenAI clients take).
    pub fn openai_url(&self) -> String {
        format!("{}/v1", self.url())
    }
}
