//! Checking a guest's actions and converting its events to the universal schema.

use agentplex_universal as u;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::bindings::{actions as wit, events as ev};
use crate::{Action, EmittedEvent, HostError};

/// Why an action (or an event in one) that a guest returned is refused.
#[derive(Debug, thiserror::Error)]
pub enum InvalidAction {
    /// A field that must name something is empty.
    #[error("empty {0}")]
    Empty(&'static str),
    /// A spawn without a program.
    #[error("spawn of process {0:?} has no program")]
    NoProgram(String),
    /// A file to write outside the session's scratch folder.
    #[error("file path {0:?} must be relative to the scratch folder, without `..`")]
    OutsideScratch(String),
    /// A URL that does not parse.
    #[error("invalid URL {url:?}: {source}")]
    BadUrl {
        url: String,
        source: url::ParseError,
    },
    /// A URL of another scheme than http(s).
    #[error("URL {0:?} is not http(s)")]
    NotHttp(String),
    /// A URL of a server not on this machine.
    #[error("URL {0:?} is not on the loopback interface")]
    NotLoopback(String),
    /// A field documented as JSON that does not parse.
    #[error("{field} is not valid JSON ({source}): {text:?}")]
    BadJson {
        field: &'static str,
        text: String,
        source: serde_json::Error,
    },
}

/// Checks and converts the actions one guest call returned. Any invalid action
/// fails the whole list: the host never half-applies a bad batch.
pub(crate) fn convert_actions(
    adapter: &str,
    actions: Vec<wit::Action>,
) -> Result<Vec<Action>, HostError> {
    let mut payloads = Payloads::default();
    actions
        .into_iter()
        .map(|action| {
            convert_action(action, &mut payloads).map_err(|reason| HostError::InvalidAction {
                adapter: adapter.to_owned(),
                reason,
            })
        })
        .collect()
}

fn convert_action(action: wit::Action, payloads: &mut Payloads) -> Result<Action, InvalidAction> {
    Ok(match action {
        wit::Action::Emit(emitted) => Action::Emit(convert_emitted(emitted, payloads)?),
        wit::Action::SetNativeSessionId(id) => {
            Action::SetNativeSessionId(non_empty("native session id", id)?)
        }
        wit::Action::Spawn(spawn) => {
            non_empty("process id", spawn.process_id.clone())?;
            if spawn.argv.first().is_none_or(|program| program.is_empty()) {
                return Err(InvalidAction::NoProgram(quoted(&spawn.process_id)));
            }
            Action::Spawn(spawn.into())
        }
        wit::Action::WriteStdin(write) => Action::WriteStdin(write.into()),
        wit::Action::CloseStdin(id) => Action::CloseStdin(id),
        wit::Action::Kill(id) => Action::Kill(id),
        wit::Action::HttpRequest(request) => {
            check_loopback(&request.url)?;
            Action::HttpRequest(request.into())
        }
        wit::Action::OpenSse(request) => {
            check_loopback(&request.url)?;
            Action::OpenSse(request.into())
        }
        wit::Action::CloseSse(id) => Action::CloseSse(id),
        wit::Action::SetTimer(timer) => Action::SetTimer(timer.into()),
        wit::Action::CancelTimer(id) => Action::CancelTimer(id),
        wit::Action::WriteFile(write) => {
            check_scratch_path(&write.path)?;
            Action::WriteFile(write.into())
        }
    })
}

/// Most characters of a guest's text an error quotes: the error ends the session
/// and is shown in its `session.ended` event, and a guest's text can be megabytes.
const QUOTED_CHARS: usize = 200;

/// `text` as an error quotes it: its first [`QUOTED_CHARS`] characters, then how
/// long it was when it was longer.
fn quoted(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((cut, _)) => format!("{}… ({} bytes in all)", &text[..cut], text.len()),
        None => text.to_owned(),
    }
}

fn non_empty(what: &'static str, value: String) -> Result<String, InvalidAction> {
    if value.is_empty() {
        Err(InvalidAction::Empty(what))
    } else {
        Ok(value)
    }
}

/// Files are written inside the session's scratch folder only: a relative path of
/// plain names.
fn check_scratch_path(path: &str) -> Result<(), InvalidAction> {
    use std::path::Component;
    let plain = !path.is_empty()
        && std::path::Path::new(path)
            .components()
            .all(|part| matches!(part, Component::Normal(_)));
    if plain {
        Ok(())
    } else {
        Err(InvalidAction::OutsideScratch(quoted(path)))
    }
}

/// Adapters may only talk to servers they spawned on this machine.
fn check_loopback(raw: &str) -> Result<(), InvalidAction> {
    let url = url::Url::parse(raw).map_err(|source| InvalidAction::BadUrl {
        url: quoted(raw),
        source,
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(InvalidAction::NotHttp(quoted(raw)));
    }
    if is_loopback_url(&url) {
        Ok(())
    } else {
        Err(InvalidAction::NotLoopback(quoted(raw)))
    }
}

/// Whether a URL's host is on the loopback interface: a loopback IP address or
/// `localhost` (which the host's HTTP client resolves to loopback addresses only).
pub fn is_loopback_url(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// JSON text from the guest; a field documented as JSON that does not parse is an
/// adapter bug.
fn json(field: &'static str, text: String) -> Result<Value, InvalidAction> {
    serde_json::from_str(&text).map_err(|source| InvalidAction::BadJson {
        field,
        text: quoted(&text),
        source,
    })
}

fn opt_json(field: &'static str, text: Option<String>) -> Result<Option<Value>, InvalidAction> {
    text.map(|text| json(field, text)).transpose()
}

/// The native payloads of one call's events, each checked once: the events an
/// adapter makes of one native line all carry that line, and only the first is
/// parsed (the others are compared with it).
#[derive(Default)]
struct Payloads {
    /// The last payload as the guest sent it, and as checked JSON.
    last: Option<(String, Box<RawValue>)>,
}

impl Payloads {
    /// `text` as checked JSON; a payload that is not JSON is kept as a JSON
    /// string, so nothing the agent wrote is dropped.
    fn check(&mut self, text: String) -> Box<RawValue> {
        if let Some((last, checked)) = &self.last {
            if *last == text {
                return checked.clone();
            }
        }
        let checked = match RawValue::from_string(text.clone()) {
            Ok(json) => json,
            Err(_) => serde_json::value::to_raw_value(&text).expect("a string always serializes"),
        };
        self.last = Some((text, checked.clone()));
        checked
    }
}

fn convert_emitted(
    emitted: ev::EmittedEvent,
    payloads: &mut Payloads,
) -> Result<EmittedEvent, InvalidAction> {
    let raw = emitted.raw.map(|text| payloads.check(text));
    let (event_type, data) = convert_event(emitted.event)?;
    Ok(EmittedEvent {
        event_type,
        data,
        synthetic: emitted.synthetic,
        raw,
    })
}

fn convert_event(
    event: ev::Event,
) -> Result<(u::UniversalEventType, u::UniversalEventData), InvalidAction> {
    use u::UniversalEventData as D;
    use u::UniversalEventType as T;
    Ok(match event {
        ev::Event::SessionStarted(metadata) => (
            T::SessionStarted,
            D::SessionStarted(u::SessionStartedData {
                metadata: opt_json("metadata", metadata)?,
            }),
        ),
        ev::Event::SessionEnded(ended) => (
            T::SessionEnded,
            D::SessionEnded(convert_session_ended(ended)),
        ),
        ev::Event::TurnStarted(turn) => (
            T::TurnStarted,
            D::Turn(convert_turn(u::TurnPhase::Started, turn)?),
        ),
        ev::Event::TurnEnded(turn) => (
            T::TurnEnded,
            D::Turn(convert_turn(u::TurnPhase::Ended, turn)?),
        ),
        ev::Event::ItemStarted(item) => (
            T::ItemStarted,
            D::Item(u::ItemEventData {
                item: convert_item(item)?,
            }),
        ),
        ev::Event::ItemCompleted(item) => (
            T::ItemCompleted,
            D::Item(u::ItemEventData {
                item: convert_item(item)?,
            }),
        ),
        ev::Event::ItemDelta(delta) => (
            T::ItemDelta,
            D::ItemDelta(u::ItemDeltaData {
                item_id: non_empty("item id", delta.item_id)?,
                native_item_id: delta.native_item_id,
                delta: delta.delta,
            }),
        ),
        ev::Event::PermissionRequested(p) => (
            T::PermissionRequested,
            D::Permission(convert_permission(p)?),
        ),
        ev::Event::PermissionResolved(p) => {
            (T::PermissionResolved, D::Permission(convert_permission(p)?))
        }
        ev::Event::QuestionRequested(q) => {
            (T::QuestionRequested, D::Question(convert_question(q)?))
        }
        ev::Event::QuestionResolved(q) => (T::QuestionResolved, D::Question(convert_question(q)?)),
        ev::Event::Error(error) => (
            T::Error,
            D::Error(u::ErrorData {
                message: error.message,
                code: error.code,
                details: opt_json("details", error.details)?,
            }),
        ),
        ev::Event::AgentUnparsed(unparsed) => (
            T::AgentUnparsed,
            D::AgentUnparsed(u::AgentUnparsedData {
                error: unparsed.error,
                location: unparsed.location,
                raw_hash: unparsed.raw_hash,
            }),
        ),
    })
}

fn convert_session_ended(ended: ev::SessionEnded) -> u::SessionEndedData {
    u::SessionEndedData {
        reason: match ended.reason {
            ev::SessionEndReason::Completed => u::SessionEndReason::Completed,
            ev::SessionEndReason::Error => u::SessionEndReason::Error,
            ev::SessionEndReason::Terminated => u::SessionEndReason::Terminated,
        },
        terminated_by: match ended.terminated_by {
            ev::TerminatedBy::Agent => u::TerminatedBy::Agent,
            ev::TerminatedBy::Daemon => u::TerminatedBy::Daemon,
        },
        message: ended.message,
        exit_code: ended.exit_code,
        stderr: ended.stderr.map(|s| u::StderrOutput {
            head: s.head,
            tail: s.tail,
            truncated: s.truncated,
            total_lines: s.total_lines,
        }),
    }
}

fn convert_turn(phase: u::TurnPhase, turn: ev::Turn) -> Result<u::TurnEventData, InvalidAction> {
    Ok(u::TurnEventData {
        phase,
        turn_id: turn.turn_id,
        metadata: opt_json("metadata", turn.metadata)?,
        usage: turn.usage.map(|usage| u::Usage {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cached_tokens: usage.cached_tokens,
            cache_write_tokens: None,
            reasoning_tokens: usage.reasoning_tokens,
            cost_usd: usage.cost_usd,
        }),
    })
}

fn convert_item(item: ev::Item) -> Result<u::UniversalItem, InvalidAction> {
    Ok(u::UniversalItem {
        item_id: non_empty("item id", item.item_id)?,
        native_item_id: item.native_item_id,
        parent_id: item.parent_id,
        kind: match item.kind {
            ev::ItemKind::Message => u::ItemKind::Message,
            ev::ItemKind::ToolCall => u::ItemKind::ToolCall,
            ev::ItemKind::ToolResult => u::ItemKind::ToolResult,
            ev::ItemKind::System => u::ItemKind::System,
            ev::ItemKind::Status => u::ItemKind::Status,
            ev::ItemKind::Unknown => u::ItemKind::Unknown,
        },
        role: item.role.map(|role| match role {
            ev::ItemRole::User => u::ItemRole::User,
            ev::ItemRole::Assistant => u::ItemRole::Assistant,
            ev::ItemRole::System => u::ItemRole::System,
            ev::ItemRole::Tool => u::ItemRole::Tool,
        }),
        status: match item.status {
            ev::ItemStatus::InProgress => u::ItemStatus::InProgress,
            ev::ItemStatus::Completed => u::ItemStatus::Completed,
            ev::ItemStatus::Failed => u::ItemStatus::Failed,
        },
        content: item
            .content
            .into_iter()
            .map(convert_part)
            .collect::<Result<_, _>>()?,
    })
}

fn convert_part(part: ev::ContentPart) -> Result<u::ContentPart, InvalidAction> {
    Ok(match part {
        ev::ContentPart::Text(text) => u::ContentPart::Text { text },
        ev::ContentPart::Json(text) => u::ContentPart::Json {
            json: json("json content part", text)?,
        },
        ev::ContentPart::ToolCall(call) => u::ContentPart::ToolCall {
            name: call.name,
            arguments: call.arguments,
            call_id: call.call_id,
        },
        ev::ContentPart::ToolResult(result) => u::ContentPart::ToolResult {
            call_id: result.call_id,
            output: result.output,
        },
        ev::ContentPart::FileRef(file) => u::ContentPart::FileRef {
            path: file.path,
            action: match file.action {
                ev::FileAction::Read => u::FileAction::Read,
                ev::FileAction::Write => u::FileAction::Write,
                ev::FileAction::Patch => u::FileAction::Patch,
            },
            diff: file.diff,
        },
        ev::ContentPart::Reasoning(reasoning) => u::ContentPart::Reasoning {
            text: reasoning.text,
            visibility: match reasoning.visibility {
                ev::ReasoningVisibility::Public => u::ReasoningVisibility::Public,
                ev::ReasoningVisibility::Private => u::ReasoningVisibility::Private,
            },
        },
        ev::ContentPart::Image(image) => u::ContentPart::Image {
            path: image.path,
            mime: image.mime,
        },
        ev::ContentPart::Status(status) => u::ContentPart::Status {
            label: status.label,
            detail: status.detail,
        },
    })
}

fn convert_permission(p: ev::Permission) -> Result<u::PermissionEventData, InvalidAction> {
    Ok(u::PermissionEventData {
        permission_id: non_empty("permission id", p.permission_id)?,
        action: p.action,
        status: match p.status {
            ev::PermissionStatus::Requested => u::PermissionStatus::Requested,
            ev::PermissionStatus::Accept => u::PermissionStatus::Accept,
            ev::PermissionStatus::AcceptForSession => u::PermissionStatus::AcceptForSession,
            ev::PermissionStatus::Reject => u::PermissionStatus::Reject,
        },
        metadata: opt_json("metadata", p.metadata)?,
    })
}

fn convert_question(q: ev::Question) -> Result<u::QuestionEventData, InvalidAction> {
    Ok(u::QuestionEventData {
        question_id: non_empty("question id", q.question_id)?,
        prompt: q.prompt,
        options: q.options,
        status: match q.status {
            ev::QuestionStatus::Requested => u::QuestionStatus::Requested,
            ev::QuestionStatus::Answered => u::QuestionStatus::Answered,
            ev::QuestionStatus::Rejected => u::QuestionStatus::Rejected,
        },
        response: q.response,
    })
}

#[cfg(test)]
#[path = "convert_fuzz.rs"]
pub(crate) mod fuzz;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_urls_pass() {
        for ok in [
            "http://127.0.0.1:4096/session",
            "http://localhost:1/x",
            "http://[::1]:80/",
            "http://127.9.9.9/",
        ] {
            assert!(check_loopback(ok).is_ok(), "{ok}");
        }
        for bad in [
            "http://example.com/",
            "http://10.0.0.1/",
            "file:///etc/passwd",
            "http://0.0.0.0/",
            "nonsense",
        ] {
            assert!(check_loopback(bad).is_err(), "{bad}");
        }
    }

    /// The error used to quote the guest's whole text (the fuzz target bounds it).
    #[test]
    fn a_huge_refused_text_is_quoted_not_copied() {
        let url = format!("http://example.com/{}", "x".repeat(1 << 20));
        let error = check_loopback(&url).unwrap_err().to_string();
        assert!(error.len() < 400, "{} bytes", error.len());
        assert!(error.contains("http://example.com/xxx") && error.contains("1048595 bytes"));
        let short = check_loopback("http://example.com/")
            .unwrap_err()
            .to_string();
        assert!(short.contains("\"http://example.com/\" is not"), "{short}");
    }

    #[test]
    fn invalid_json_metadata_is_an_invalid_action() {
        let action = wit::Action::Emit(ev::EmittedEvent {
            event: ev::Event::SessionStarted(Some("{not json".into())),
            synthetic: false,
            raw: None,
        });
        let error = convert_actions("probe", vec![action]).unwrap_err();
        assert!(matches!(error, HostError::InvalidAction { .. }), "{error}");
    }

    #[test]
    fn the_events_of_one_native_line_carry_it_as_sent() {
        let line = r#"{"type": "assistant",  "n": [1, 2]}"#;
        let emitted = |raw: &str| {
            wit::Action::Emit(ev::EmittedEvent {
                event: ev::Event::SessionStarted(None),
                synthetic: false,
                raw: Some(raw.into()),
            })
        };
        let actions = vec![emitted(line), emitted(line), emitted("[3]")];
        let raws: Vec<String> = convert_actions("probe", actions)
            .unwrap()
            .into_iter()
            .map(|action| match action {
                Action::Emit(event) => event.raw.unwrap().get().to_owned(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(raws, [line, line, "[3]"]);
    }

    #[test]
    fn non_json_raw_is_kept_as_a_string() {
        let emitted = ev::EmittedEvent {
            event: ev::Event::AgentUnparsed(ev::Unparsed {
                error: "e".into(),
                location: "stdout".into(),
                raw_hash: None,
            }),
            synthetic: false,
            raw: Some("plain text line".into()),
        };
        let converted = convert_emitted(emitted, &mut Payloads::default()).unwrap();
        assert_eq!(
            converted.raw.as_deref().map(RawValue::get),
            Some("\"plain text line\"")
        );
        assert_eq!(converted.event_type, u::UniversalEventType::AgentUnparsed);
    }
}
