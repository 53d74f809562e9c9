//! Reading a case: one JSON object per line, `input` naming the kind (camelCase).
//!
//! ```text
//! {"input":"create","config":{"sessionId":"s1","agentMode":"build",...}}   optional, first line only
//! {"input":"start"}
//! {"input":"sendMessage","text":"hello"}
//! {"input":"replyPermission","id":"p1","reply":"once"|"always"|"reject"}
//! {"input":"replyQuestion","id":"q1","answers":[["yes"]]}
//! {"input":"rejectQuestion","id":"q1"}
//! {"input":"cancelTurn"}   {"input":"terminate"}
//! {"input":"stdout","process":"agent","line":"..."}   {"input":"stderr",...}
//! {"input":"exit","process":"agent","code":0,"signal":null}
//! {"input":"spawnFailed","process":"agent","message":"..."}
//! {"input":"httpResponse","request":"r1","status":200,"headers":[["k","v"]],"body":"..."}
//! {"input":"httpError","request":"r1","message":"..."}
//! {"input":"sseEvent","stream":"events","event":"message","data":"...","id":null}
//! {"input":"sseClosed","stream":"events","error":null}
//! {"input":"timer","timer":"t1"}
//! ```
//!
//! Optional fields (`code`, `signal`, `headers`, `body`, `event`, `id`, `error`, every
//! field of `config`) may be left out; unknown fields are refused. Blank lines are
//! skipped.

use std::path::Path;

use agentplex_host::{
    ExitStatus, HttpResponse, Input, MessagePart, PermissionReply, SessionConfig, SseEvent,
};
use serde::Deserialize;
use serde_json::Value;

use super::{InputError, TranscriptError};

/// One parsed case.
pub(super) struct Case {
    /// The `create` line's config (all defaults when there is none).
    pub create: CreateConfig,
    /// The line of the `create` input, when the case has one.
    pub create_line: Option<usize>,
    /// Every other input, in file order.
    pub steps: Vec<Step>,
}

/// One input line of a case.
pub(super) struct Step {
    /// 1-based line number in the case file.
    pub line: usize,
    /// The `input` field as written (`sendMessage`...).
    pub kind: String,
    /// What the session is fed.
    pub input: Input,
}

/// The `config` of a `create` line; absent fields take the defaults.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct CreateConfig {
    session_id: Option<String>,
    agent_mode: Option<String>,
    permission_mode: Option<String>,
    model: Option<String>,
    variant: Option<String>,
    directory: Option<String>,
    agent_binary: Option<String>,
    #[serde(default)]
    env: Vec<(String, String)>,
    resume_native_session_id: Option<String>,
    scratch_dir: Option<String>,
}

impl CreateConfig {
    /// The session config, with `default_mode` (the adapter's) when no mode is given.
    pub fn resolve(self, default_mode: &str) -> SessionConfig {
        SessionConfig {
            session_id: self.session_id.unwrap_or_else(|| "s1".into()),
            agent_mode: self.agent_mode.unwrap_or_else(|| default_mode.into()),
            permission_mode: self.permission_mode.unwrap_or_else(|| "default".into()),
            model: self.model,
            variant: self.variant,
            directory: self.directory.unwrap_or_else(|| "/workspace".into()),
            agent_binary: self.agent_binary,
            env: self.env,
            resume_native_session_id: self.resume_native_session_id,
            mcp_servers: Vec::new(),
            skills: Vec::new(),
            scratch_dir: self.scratch_dir.unwrap_or_else(|| "/tmp/scratch".into()),
            model_endpoints: Vec::new(),
            policy: None,
        }
    }
}

/// A line as written, before it becomes an [`Input`].
#[derive(Deserialize)]
#[serde(
    tag = "input",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
enum Line {
    Create {
        config: Box<CreateConfig>,
    },
    // Empty braces, not unit variants: unit variants would accept unknown fields.
    Start {},
    SendMessage {
        text: String,
    },
    ReplyPermission {
        id: String,
        reply: Reply,
    },
    ReplyQuestion {
        id: String,
        answers: Vec<Vec<String>>,
    },
    RejectQuestion {
        id: String,
    },
    CancelTurn {},
    Terminate {},
    Stdout {
        process: String,
        line: String,
    },
    Stderr {
        process: String,
        line: String,
    },
    Exit {
        process: String,
        #[serde(default)]
        code: Option<i32>,
        #[serde(default)]
        signal: Option<i32>,
    },
    SpawnFailed {
        process: String,
        message: String,
    },
    HttpResponse {
        request: String,
        status: u16,
        #[serde(default)]
        headers: Vec<(String, String)>,
        #[serde(default)]
        body: String,
    },
    HttpError {
        request: String,
        message: String,
    },
    SseEvent {
        stream: String,
        #[serde(default = "default_sse_event")]
        event: String,
        data: String,
        #[serde(default)]
        id: Option<String>,
    },
    SseClosed {
        stream: String,
        #[serde(default)]
        error: Option<String>,
    },
    Timer {
        timer: String,
    },
}

/// The event name the host reports when the server sent none.
fn default_sse_event() -> String {
    "message".into()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
enum Reply {
    Once,
    Always,
    Reject,
}

impl Line {
    /// The session input, or the config for a `create` line.
    fn into_input(self) -> Result<Input, Box<CreateConfig>> {
        Ok(match self {
            Line::Create { config } => return Err(config),
            Line::Start {} => Input::Start,
            Line::SendMessage { text } => Input::SendMessage(vec![MessagePart::Text(text)]),
            Line::ReplyPermission { id, reply } => Input::ReplyPermission {
                permission_id: id,
                reply: match reply {
                    Reply::Once => PermissionReply::Once,
                    Reply::Always => PermissionReply::Always,
                    Reply::Reject => PermissionReply::Reject,
                },
            },
            Line::ReplyQuestion { id, answers } => Input::ReplyQuestion {
                question_id: id,
                answers,
            },
            Line::RejectQuestion { id } => Input::RejectQuestion { question_id: id },
            Line::CancelTurn {} => Input::CancelTurn,
            Line::Terminate {} => Input::Terminate,
            Line::Stdout { process, line } => Input::Stdout {
                process_id: process,
                line,
            },
            Line::Stderr { process, line } => Input::Stderr {
                process_id: process,
                line,
            },
            Line::Exit {
                process,
                code,
                signal,
            } => Input::Exit {
                process_id: process,
                status: ExitStatus { code, signal },
            },
            Line::SpawnFailed { process, message } => Input::SpawnFailed {
                process_id: process,
                message,
            },
            Line::HttpResponse {
                request,
                status,
                headers,
                body,
            } => Input::HttpResponse(HttpResponse {
                request_id: request,
                status,
                headers,
                body: body.into_bytes(),
            }),
            Line::HttpError { request, message } => Input::HttpError {
                request_id: request,
                message,
            },
            Line::SseEvent {
                stream,
                event,
                data,
                id,
            } => Input::SseEvent(SseEvent {
                stream_id: stream,
                event,
                data,
                id,
            }),
            Line::SseClosed { stream, error } => Input::SseClosed {
                stream_id: stream,
                error,
            },
            Line::Timer { timer } => Input::Timer { timer_id: timer },
        })
    }
}

/// Parses the text of the case file at `path`.
pub(super) fn parse_case(path: &Path, text: &str) -> Result<Case, TranscriptError> {
    let mut case = Case {
        create: CreateConfig::default(),
        create_line: None,
        steps: Vec::new(),
    };
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let bad = |reason: InputError| TranscriptError::Input {
            path: path.to_owned(),
            line,
            reason,
        };
        let (kind, parsed) = parse_line(raw).map_err(bad)?;
        match parsed.into_input() {
            Ok(input) => case.steps.push(Step { line, kind, input }),
            Err(config) if case.steps.is_empty() && case.create_line.is_none() => {
                case.create = *config;
                case.create_line = Some(line);
            }
            Err(_) => return Err(bad(InputError::LateCreate)),
        }
    }
    Ok(case)
}

/// One line: its `input` kind and its parsed form.
fn parse_line(raw: &str) -> Result<(String, Line), InputError> {
    let value: Value = serde_json::from_str(raw).map_err(InputError::Json)?;
    let kind = match value.get("input") {
        Some(Value::String(kind)) => kind.clone(),
        _ => return Err(InputError::NotAnInput),
    };
    let line = Line::deserialize(value).map_err(|source| {
        let reason = source.to_string();
        match reason.strip_prefix(&format!("unknown variant `{kind}`")) {
            Some(expected) => InputError::UnknownKind {
                kind: kind.clone(),
                expected: expected.to_owned(),
            },
            None => InputError::BadFields {
                kind: kind.clone(),
                source,
            },
        }
    })?;
    Ok((kind, line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Case, TranscriptError> {
        parse_case(Path::new("t.jsonl"), text)
    }

    #[test]
    fn every_kind_parses_with_optional_fields_left_out() {
        let case = parse(concat!(
            r#"{"input":"create","config":{"agentMode":"plan","env":[["K","V"]]}}"#,
            "\n",
            r#"{"input":"start"}"#,
            "\n\n",
            r#"{"input":"sendMessage","text":"hi"}"#,
            "\n",
            r#"{"input":"exit","process":"agent","code":0}"#,
            "\n",
            r#"{"input":"sseEvent","stream":"events","data":"{}"}"#,
            "\n",
            r#"{"input":"httpResponse","request":"r1","status":204}"#,
            "\n",
            r#"{"input":"replyPermission","id":"p","reply":"always"}"#,
            "\n",
        ))
        .unwrap();
        assert_eq!(case.create_line, Some(1));
        let config = case.create.resolve("build");
        assert_eq!(config.agent_mode, "plan");
        assert_eq!(config.session_id, "s1");
        assert_eq!(config.env, [("K".to_owned(), "V".to_owned())]);
        let lines: Vec<_> = case
            .steps
            .iter()
            .map(|s| (s.line, s.kind.as_str()))
            .collect();
        assert_eq!(
            lines,
            [
                (2, "start"),
                (4, "sendMessage"),
                (5, "exit"),
                (6, "sseEvent"),
                (7, "httpResponse"),
                (8, "replyPermission")
            ]
        );
        assert!(matches!(&case.steps[3].input, Input::SseEvent(e) if e.event == "message"));
    }

    #[test]
    fn bad_lines_name_the_file_and_line() {
        let cases = [
            ("{\"input\":\"start\"}\nnot json", "t.jsonl:2: bad JSON"),
            (
                r#"{"input":"dance"}"#,
                "t.jsonl:1: unknown input kind `dance`, expected one of `create`",
            ),
            (
                r#"{"input":"replyPermission","id":"p","reply":"maybe"}"#,
                "t.jsonl:1: bad `replyPermission` input: unknown variant `maybe`",
            ),
            (r#"{"text":"hi"}"#, "t.jsonl:1: not an input"),
            (r#"{"input":"sendMessage"}"#, "missing field `text`"),
            (r#"{"input":"start","extra":1}"#, "unknown field `extra`"),
            (
                "{\"input\":\"start\"}\n{\"input\":\"create\",\"config\":{}}",
                "t.jsonl:2: `create` may only be the first input",
            ),
        ];
        for (text, expected) in cases {
            let error = parse(text)
                .err()
                .unwrap_or_else(|| panic!("{text} parsed"))
                .to_string();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }
}
