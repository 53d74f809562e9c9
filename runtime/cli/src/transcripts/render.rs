//! Rendering what a session call returned: one JSON line per action, keys in a fixed
//! order, nothing that changes between runs (no event ids, sequences or times).
//!
//! - an emitted event: `{"type","source","synthetic","data"}` as the universal event
//!   has them, plus `"raw":true` when the adapter attached the native payload (the
//!   payload itself is left out: it is the input line);
//! - any other action: `{"action":"spawn",...}` with the action's fields in camelCase;
//!   absent optional fields are left out; byte payloads (`writeStdin` data,
//!   `httpRequest` body) are a string when they are UTF-8, else an array of bytes;
//! - a reply the adapter refused: `{"error":"<reason>"}`;
//! - a fatal failure of the call (trap, time or memory limit, invalid action):
//!   `{"trap":"<what the host reported>"}`.

use agentplex_host::{Action, EmittedEvent, HostError};
use agentplex_universal::{EventSource, UniversalEventData, UniversalEventType};
use serde::Serialize;

/// The comment line that precedes the output of the input at `line`.
pub(super) fn header(line: usize, kind: &str) -> String {
    format!("# {line} {kind}")
}

/// The lines for the actions of one successful call.
pub(super) fn actions(actions: &[Action]) -> Vec<String> {
    actions
        .iter()
        .map(|action| to_line(&of_action(action)))
        .collect()
}

/// The line for a failed call, and whether the failure ended the session.
pub(super) fn failure(error: &HostError) -> (String, bool) {
    let fatal = error.is_fatal();
    let message = match error {
        HostError::Rejected(reason) => reason.clone(),
        other => other.to_string(),
    };
    let line = if fatal {
        RenderedLine::Trap { trap: message }
    } else {
        RenderedLine::Error { error: message }
    };
    (to_line(&line), fatal)
}

fn to_line(line: &RenderedLine) -> String {
    serde_json::to_string(line).expect("rendered lines are plain JSON")
}

#[derive(Serialize)]
#[serde(untagged)]
enum RenderedLine<'a> {
    Event(EventLine<'a>),
    Action(ActionLine<'a>),
    Error { error: String },
    Trap { trap: String },
}

/// An emitted event as the transcript would hold it, without the envelope.
#[derive(Serialize)]
struct EventLine<'a> {
    #[serde(rename = "type")]
    event_type: UniversalEventType,
    source: EventSource,
    synthetic: bool,
    data: &'a UniversalEventData,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw: Option<bool>,
}

#[derive(Serialize)]
#[serde(
    tag = "action",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
enum ActionLine<'a> {
    SetNativeSessionId {
        id: &'a str,
    },
    Spawn {
        process_id: &'a str,
        argv: &'a [String],
        env: &'a [(String, String)],
        #[serde(skip_serializing_if = "Option::is_none")]
        cwd: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        share_key: Option<&'a str>,
    },
    WriteStdin {
        process_id: &'a str,
        data: Payload<'a>,
    },
    CloseStdin {
        process_id: &'a str,
    },
    Kill {
        process_id: &'a str,
    },
    HttpRequest {
        request_id: &'a str,
        method: &'a str,
        url: &'a str,
        headers: &'a [(String, String)],
        body: Payload<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u32>,
    },
    OpenSse {
        stream_id: &'a str,
        url: &'a str,
        headers: &'a [(String, String)],
    },
    CloseSse {
        stream_id: &'a str,
    },
    SetTimer {
        timer_id: &'a str,
        delay_ms: u32,
    },
    CancelTimer {
        timer_id: &'a str,
    },
    WriteFile {
        path: &'a str,
        contents: Payload<'a>,
        executable: bool,
    },
}

/// Bytes as text when they are UTF-8, else as numbers.
#[derive(Serialize)]
#[serde(untagged)]
enum Payload<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
}

impl<'a> Payload<'a> {
    fn of(bytes: &'a [u8]) -> Self {
        std::str::from_utf8(bytes).map_or(Payload::Bytes(bytes), Payload::Text)
    }
}

fn of_event(event: &EmittedEvent) -> EventLine<'_> {
    EventLine {
        event_type: event.event_type,
        // As the daemon's event log does: synthetic events are the daemon's.
        source: if event.synthetic {
            EventSource::Daemon
        } else {
            EventSource::Agent
        },
        synthetic: event.synthetic,
        data: &event.data,
        raw: event.raw.as_ref().map(|_| true),
    }
}

fn of_action(action: &Action) -> RenderedLine<'_> {
    RenderedLine::Action(match action {
        Action::Emit(event) => return RenderedLine::Event(of_event(event)),
        Action::SetNativeSessionId(id) => ActionLine::SetNativeSessionId { id },
        Action::Spawn(spawn) => ActionLine::Spawn {
            process_id: &spawn.process_id,
            argv: &spawn.argv,
            env: &spawn.env,
            cwd: spawn.cwd.as_deref(),
            share_key: spawn.share_key.as_deref(),
        },
        Action::WriteStdin(write) => ActionLine::WriteStdin {
            process_id: &write.process_id,
            data: Payload::of(&write.data),
        },
        Action::CloseStdin(process_id) => ActionLine::CloseStdin { process_id },
        Action::Kill(process_id) => ActionLine::Kill { process_id },
        Action::HttpRequest(request) => ActionLine::HttpRequest {
            request_id: &request.request_id,
            method: &request.method,
            url: &request.url,
            headers: &request.headers,
            body: Payload::of(&request.body),
            timeout_ms: request.timeout_ms,
        },
        Action::OpenSse(request) => ActionLine::OpenSse {
            stream_id: &request.stream_id,
            url: &request.url,
            headers: &request.headers,
        },
        Action::CloseSse(stream_id) => ActionLine::CloseSse { stream_id },
        Action::SetTimer(timer) => ActionLine::SetTimer {
            timer_id: &timer.timer_id,
            delay_ms: timer.delay_ms,
        },
        Action::CancelTimer(timer_id) => ActionLine::CancelTimer { timer_id },
        Action::WriteFile(file) => ActionLine::WriteFile {
            path: &file.path,
            contents: Payload::of(&file.contents),
            executable: file.executable,
        },
    })
}

#[cfg(test)]
mod tests {
    use agentplex_host::{HttpRequest, SpawnRequest, StdinWrite};
    use agentplex_universal::SessionStartedData;

    use super::*;

    #[test]
    fn actions_render_in_camel_case_with_a_fixed_key_order() {
        let rendered = actions(&[
            Action::Emit(EmittedEvent {
                event_type: UniversalEventType::SessionStarted,
                data: UniversalEventData::SessionStarted(SessionStartedData { metadata: None }),
                synthetic: false,
                raw: Some(
                    serde_json::value::to_raw_value(&serde_json::json!({"native": 1})).unwrap(),
                ),
            }),
            Action::Spawn(SpawnRequest {
                process_id: "agent".into(),
                argv: vec!["agent".into(), "--json".into()],
                env: vec![("K".into(), "V".into())],
                cwd: None,
                share_key: Some("shared".into()),
            }),
            Action::WriteStdin(StdinWrite {
                process_id: "agent".into(),
                data: b"hi\n".to_vec(),
            }),
            Action::WriteStdin(StdinWrite {
                process_id: "agent".into(),
                data: vec![0xff, 0],
            }),
            Action::HttpRequest(HttpRequest {
                request_id: "r1".into(),
                method: "POST".into(),
                url: "http://127.0.0.1:1/x".into(),
                headers: vec![],
                body: b"{}".to_vec(),
                timeout_ms: Some(5),
            }),
            Action::CancelTimer("t1".into()),
        ]);
        assert_eq!(
            rendered,
            [
                r#"{"type":"session.started","source":"agent","synthetic":false,"data":{},"raw":true}"#,
                r#"{"action":"spawn","processId":"agent","argv":["agent","--json"],"env":[["K","V"]],"shareKey":"shared"}"#,
                r#"{"action":"writeStdin","processId":"agent","data":"hi\n"}"#,
                r#"{"action":"writeStdin","processId":"agent","data":[255,0]}"#,
                r#"{"action":"httpRequest","requestId":"r1","method":"POST","url":"http://127.0.0.1:1/x","headers":[],"body":"{}","timeoutMs":5}"#,
                r#"{"action":"cancelTimer","timerId":"t1"}"#,
            ]
        );
    }

    #[test]
    fn a_rejection_is_an_error_and_anything_else_a_trap() {
        let (line, fatal) = failure(&HostError::Rejected("unknown id".into()));
        assert_eq!((line.as_str(), fatal), (r#"{"error":"unknown id"}"#, false));
        let (line, fatal) = failure(&HostError::Poisoned);
        assert!(fatal);
        assert!(line.starts_with(r#"{"trap":"#), "{line}");
    }
}
